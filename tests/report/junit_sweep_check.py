#!/usr/bin/env python3
"""junit.xml of a real multi-cell sweep, read as CI reads it.

Runs `gpuharness sweep` on the host backend over a matrix shaped like matrices/nccl_flags.yaml
(axes that only set environment variables, so every cell has the same 4 points: mpi_p2p,
mpi_put and nccl_p2p at f32 (nccl_p2p an expected skip on the host backend), mpi_p2p at i32), one axis value
planting a broken MPI (MPI_Init fails: its cell's points are infrastructure failures, `infra`, and the
sweep exits 3; issue 15 item 3 named the old `crash` records a defect), then checks junit.xml:
  - it validates against Jenkins xunit's junit-10.xsd (tests/report/junit-10.xsd), by xmllint;
  - junitparser (a real consumer) reads it: every (classname, name) pair is distinct, one
    testcase per cell x point, and the counts are summary.md's headline counts;
  - Jenkins' classname rule: split at the last dot, the package is gpuharness.<matrix> and the
    class the scenario; the cell is in the testcase's name, distinct within the suite.
Exit 77 (CTest's skip) when xmllint or junitparser is missing: scripts/setup.sh installs both.
"""
import os
import re
import shutil
import subprocess
import sys

from check_args import SKIP, Checks, parse_args


def main():
    args = parse_args()
    try:
        import junitparser
    except ImportError:
        print("SKIP: the junitparser Python package is not installed (pip install junitparser; "
              "scripts/setup.sh installs it)")
        return SKIP
    if shutil.which("xmllint") is None:
        print("SKIP: xmllint is not installed (apt-get install libxml2-utils; scripts/setup.sh installs it)")
        return SKIP

    shutil.rmtree(args.work, ignore_errors=True)
    os.makedirs(args.work)
    ring = os.path.join(args.source, "scenarios/ring_shift.yaml")
    matrix = os.path.join(args.work, "flags.yaml")
    with open(matrix, "w") as f:
        f.write(f"""name: flags_like
scenarios:
  - file: {ring}
    points: ["*/bytes=4K/dtype=f32/transport=*/np=2", "*/bytes=4K/dtype=i32/transport=mpi_p2p/np=2"]
defaults: {{launcher: mpirun, ranks: 2, backend: host, timeout: 2m}}
axes:
  - name: proto
    values:
      - {{label: Simple, env: {{NCCL_PROTO: Simple}}}}
      - {{label: LL, env: {{NCCL_PROTO: LL}}}}
      - {{label: broken, env: {{NCCL_PROTO: LL128, OMPI_MCA_pml: no_such_pml}}}}
  - name: p2p
    values:
      - {{label: "on", env: {{NCCL_P2P_DISABLE: "0"}}}}
      - {{label: "off", env: {{NCCL_P2P_DISABLE: "1"}}}}
""")
    out = os.path.join(args.work, "out")
    run = subprocess.run([args.gpuharness, "sweep", matrix, "--out", out],
                         stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
    print(run.stdout)
    check = Checks()

    check(run.returncode == 3, f"gpuharness sweep exits 3 (the broken cells are infra), got {run.returncode}")
    junit = os.path.join(out, "junit.xml")
    schema = os.path.join(args.source, "tests/report/junit-10.xsd")
    lint = subprocess.run(["xmllint", "--noout", "--schema", schema, junit],
                          stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
    print(lint.stdout.strip())
    check(lint.returncode == 0, "junit.xml validates against junit-10.xsd")

    with open(os.path.join(out, "summary.md")) as f:
        summary = f.read()
    headline = re.search(r"\*\*(\d+) points \((\d+) trials\): ([^;*]*); (\d+) unmet expectations?", summary)
    check(headline is not None, "summary.md has its headline")
    if headline is None:
        return 1
    points, unmet = int(headline.group(1)), int(headline.group(4))
    by_outcome = {name: int(n) for n, name in re.findall(r"(\d+) (\w+)", headline.group(3))}

    xml = junitparser.JUnitXml.fromfile(junit)
    cases = [case for suite in xml for case in suite]
    ids = [(case.classname, case.name) for case in cases]
    check(len(set(ids)) == len(ids), f"every (classname, name) is distinct: {len(set(ids))} of {len(ids)}")
    check(len(cases) == points, f"one testcase per point: {len(cases)} testcases, summary.md {points} points")
    # Per cell: f32 over mpi_p2p, mpi_put, nccl_p2p, nccl_ce and i32 over mpi_p2p; the two nccl
    # transports are skips on the host backend.
    per_cell, skips_per_cell = 5, 2
    check(points == 6 * per_cell, f"6 cells x {per_cell} points, got {points}")
    failed = [c for c in cases if any(isinstance(r, junitparser.Failure) for r in c.result)]
    errored = [c for c in cases if any(isinstance(r, junitparser.Error) for r in c.result)]
    skipped = [c for c in cases if any(isinstance(r, junitparser.Skipped) for r in c.result)]
    check(len(errored) == unmet == by_outcome.get("infra", 0) == 2 * per_cell,
          f"errors {len(errored)} = summary.md's unmet {unmet} = its infra {by_outcome.get('infra', 0)} = "
          f"{2 * per_cell} (2 broken cells x {per_cell})")
    check(not failed, f"no <failure>: {len(failed)}")
    check(len(skipped) == by_outcome.get("skip", 0) == 4 * skips_per_cell,
          f"skipped {len(skipped)} = summary.md's skips {by_outcome.get('skip', 0)} = {4 * skips_per_cell} "
          f"(4 working cells x {skips_per_cell})")
    suite = next(iter(xml))
    check((suite.tests, suite.failures, suite.errors, suite.skipped) == (points, 0, unmet, len(skipped)),
          f"<testsuite> counts {(suite.tests, suite.failures, suite.errors, suite.skipped)}")
    # Jenkins' junit plugin splits a classname at its last dot into package and class
    # (CaseResult.getPackageName/getSimpleName) and finds a case's history by its name within the
    # suite: the class is the scenario, never a piece of a version label, and the cell is in the name.
    check(all(c.classname == "gpuharness.flags_like.ring_shift" for c in cases),
          "classnames are gpuharness.<matrix>.<scenario>")
    check(all(c.classname.rsplit(".", 1) == ["gpuharness.flags_like", "ring_shift"] for c in cases),
          "Jenkins' split: package gpuharness.flags_like, class ring_shift")
    names = [c.name for c in cases]
    check(len(set(names)) == len(names), "every name is distinct within the suite")
    check("ring_shift/bytes=4K/dtype=f32/transport=mpi_p2p/np=2 [proto=broken,p2p=off]" in names,
          "the broken cell's point by its name")
    check(all(c.name.endswith("[proto=broken,p2p=on]") or c.name.endswith("[proto=broken,p2p=off]")
              for c in errored), "only the broken cells are errors")
    messages = [r.message for c in errored for r in c.result if isinstance(r, junitparser.Error)]
    check(all(m.startswith("not run (infrastructure): ") and "infrastructure: infrastructure" not in m
              and m.count("not run") == 1 for m in messages), "each error quotes MPI's own line, once")
    print(f"junit.xml: {len(cases)} testcases, {len(set(ids))} distinct ids, {len(errored)} errors, "
          f"{len(skipped)} skipped; xmllint --schema junit-10.xsd: {'valid' if lint.returncode == 0 else 'INVALID'}")
    return check.exit_status()


if __name__ == "__main__":
    sys.exit(main())
