#!/usr/bin/env python3
"""results/SCHEMA.md documents every field gpuharness writes. A small sweep on the host backend
(2 ranks: passes, planted wrong data, a stalled rank's timeout with its hang report, a crash)
writes records.jsonl, environment.json and sweep.json; every field path in them (`ranks[].stack`,
`hang.divergence`) must be in the table of the file's section of SCHEMA.md. An object whose
keys are data (`params`, `cell`, `env`) is covered by its own row.

    check_schema.py --source DIR --binary GPUHARNESS
"""
import json
import os
import pathlib
import re
import subprocess
import sys
import tempfile

sys.path.insert(0, str(pathlib.Path(__file__).resolve().parent))
import check_common  # noqa: E402

MATRIX = """name: schema_probe
scenarios:
  - {file: SELFTEST/ring_shift_data_faults.yaml, points: ["selftest_ring_corrupt/*dtype=f32/transport=mpi_p2p/*"]}
  - SELFTEST/ring_shift_stall.yaml
  - SELFTEST/ring_shift_crash.yaml
defaults: {launcher: mpirun, ranks: 2, backend: host, timeout: 2m}
axes:
  - name: transport
    values: [mpi_p2p]
"""
SECTIONS = {"records.jsonl": "records.jsonl", "environment.json": "environment.json", "sweep.json": "sweep.json"}


def documented(schema_text):
    """section title word -> the field paths its tables list."""
    out, current = {}, None
    for line in schema_text.splitlines():
        if line.startswith("# "):
            current = next((k for k in SECTIONS if k in line), None)
            continue
        if current and line.startswith("| `"):
            out.setdefault(current, set()).add(re.match(r"\| `([^`]+)`", line).group(1))
    return out


def paths(value, prefix=""):
    """Every field path of a JSON value: `a.b`, `list[].c`."""
    if isinstance(value, dict):
        for key, child in value.items():
            path = f"{prefix}.{key}" if prefix else key
            yield path
            yield from paths(child, path)
    elif isinstance(value, list):
        for child in value:
            yield from paths(child, f"{prefix}[]")


def undocumented(found, listed):
    """The paths of `found` that `listed` does not cover: a path is covered by itself, or by
    an ancestor whose children the schema does not list (its keys are data)."""
    missing = set()
    for path in found:
        if path in listed:
            continue
        parts = re.split(r"(?=\.)|(?=\[\])", path)
        covered = False
        for n in range(len(parts) - 1, 0, -1):
            ancestor = "".join(parts[:n])
            if ancestor in listed:
                covered = not any(p.startswith(ancestor + ".") or p.startswith(ancestor + "[]") for p in listed)
                break
        if not covered:
            missing.add(path)
    return missing


def run_probe(binary, source, work):
    (work / "m.yaml").write_text(MATRIX.replace("SELFTEST", str(source / "scenarios" / "selftest")))
    env = dict(os.environ, OMPI_ALLOW_RUN_AS_ROOT="1", OMPI_ALLOW_RUN_AS_ROOT_CONFIRM="1",
               OMPI_MCA_rmaps_base_oversubscribe="1", NCCL_NVLS_ENABLE="0", CI="true")
    proc = subprocess.run([binary, "sweep", "m.yaml", "--out", "out"], cwd=work, env=env, capture_output=True,
                          text=True, timeout=600, stdin=subprocess.DEVNULL)
    if proc.returncode not in (0, 1):
        raise RuntimeError(f"the probe sweep exited {proc.returncode}: {proc.stdout}{proc.stderr}")
    out = work / "out"
    files = {"records.jsonl": [json.loads(l) for l in (out / "records.jsonl").read_text().splitlines() if l]}
    files["sweep.json"] = [json.loads((out / "sweep.json").read_text())]
    files["environment.json"] = [json.loads(p.read_text()) for p in out.glob("cells/*/environment.json")]
    return files


def main():
    args = check_common.arguments(__doc__)
    source = args.source
    listed = documented((source / "results" / "SCHEMA.md").read_text())
    with tempfile.TemporaryDirectory(prefix="gh-schema-") as d:
        files = run_probe(args.binary, source, pathlib.Path(d))
    problems = []
    for name, values in files.items():
        found = set()
        for value in values:
            found |= set(paths(value))
        if name == "records.jsonl" and not any(v.get("hang") for v in values):
            problems.append("the probe sweep wrote no hang report: the check would not see its fields")
        for path in sorted(undocumented(found, listed.get(name, set()))):
            problems.append(f"results/SCHEMA.md: {name} field `{path}` is written but not documented")
    return check_common.finish(problems, "field(s) missing from results/SCHEMA.md", f"every field of {', '.join(files)} is in results/SCHEMA.md")


if __name__ == "__main__":
    sys.exit(main())
