#!/usr/bin/env python3
"""The YAML reference lists exactly the keys the loaders declare. Each map the loaders read has a
probe here: a small file with an unknown key at that place, which the binary refuses with
`PATH: unknown key (allowed here: a, b, c)`. The reference pages mark each map's key table
with `<!-- docs-test: keys WHERE -->` right above it; the table's first column holds the keys
(in backticks: `env` or `env: {NAME: value}`; several in one cell are fine). The check fails when a table lists a key the loader does not declare, leaves
out one it does, or a probed map has no table.

    check_yaml_keys.py --source DIR --binary GPUHARNESS
"""
import pathlib
import re
import subprocess
import sys
import tempfile

sys.path.insert(0, str(pathlib.Path(__file__).resolve().parent))
import check_common  # noqa: E402

PAGES = ["docs/reference/scenario-yaml.md", "docs/reference/matrix-yaml.md"]
KEYS_MARKER_RE = re.compile(r"^\s*<!--\s*docs-test:\s*keys\s+(\S+)\s*-->\s*$")
UNKNOWN = "zz_not_a_key"
ALLOWED_RE = re.compile(r"unknown key \(allowed here: ([^)]*)\)")

SCENARIO = "name: s\nkind: ring_shift\nparams: {bytes: 4K}\n"
EXEC_SCENARIO = "name: e\nkind: exec\nexec:\n  argv: [\"true\"]\n"
MATRIX = "name: m\nscenarios: [s.yaml]\n"

# where -> (file name, file text, the command that loads it). The scenario file s.yaml (valid)
# is always beside it.
PROBES = {
    "scenario": ("x.yaml", SCENARIO + f"{UNKNOWN}: 1\n", "run"),
    "scenario.ranks": ("x.yaml", SCENARIO + f"ranks: {{min: 1, {UNKNOWN}: 1}}\n", "run"),
    "scenario.expect[]": ("x.yaml", SCENARIO + f"expect: [{{outcome: pass, {UNKNOWN}: 1}}]\n", "run"),
    "scenario.expect[].known": (
        "x.yaml", SCENARIO + f"expect: [{{outcome: pass, known: {{reference: r, versions: {{nccl: '>=1'}}, {UNKNOWN}: 1}}}}]\n",
        "run"),
    "scenario.expect_metrics.METRIC[]": (
        "x.yaml", SCENARIO + f"expect_metrics: {{time_median_us: {{min: 1, {UNKNOWN}: 1}}}}\n", "run"),
    "scenario.exec": ("x.yaml", EXEC_SCENARIO + f"  {UNKNOWN}: 1\n", "run"),
    "scenario.exec.signatures[]": (
        "x.yaml", EXEC_SCENARIO + f"  signatures: [{{name: a, regex: b, {UNKNOWN}: 1}}]\n", "run"),
    "scenario.exec.skip[]": ("x.yaml", EXEC_SCENARIO + f"  skip: [{{regex: b, {UNKNOWN}: 1}}]\n", "run"),
    "matrix": ("m.yaml", MATRIX + f"{UNKNOWN}: 1\n", "sweep"),
    "matrix.scenarios[]": ("m.yaml", f"name: m\nscenarios: [{{file: s.yaml, {UNKNOWN}: 1}}]\n", "sweep"),
    "matrix.defaults": ("m.yaml", MATRIX + f"defaults: {{{UNKNOWN}: 1}}\n", "sweep"),
    "matrix.axes[]": ("m.yaml", MATRIX + f"axes: [{{name: a, {UNKNOWN}: 1}}]\n", "sweep"),
    "matrix.axes[].values[]": (
        "m.yaml", MATRIX + f"axes: [{{name: a, values: [{{label: x, {UNKNOWN}: 1}}]}}]\n", "sweep"),
    "matrix.versions": ("m.yaml", MATRIX + f"versions: {{name: v, {UNKNOWN}: 1}}\n", "sweep"),
    "matrix.versions.values[]": (
        "m.yaml", MATRIX + f"versions: {{values: [{{label: x, {UNKNOWN}: 1}}]}}\n", "sweep"),
    "matrix.versions.list": (
        "m.yaml", MATRIX + f"versions: {{list: {{command: echo a, {UNKNOWN}: 1}}}}\n", "sweep"),
    "matrix.versions.list.template": (
        "m.yaml", MATRIX + f"versions: {{list: {{command: echo a, template: {{{UNKNOWN}: 1}}}}}}\n", "sweep"),
    "matrix.versions.pip": ("m.yaml", MATRIX + f"versions: {{pip: {{{UNKNOWN}: 1}}}}\n", "sweep"),
    "matrix.versions.git": ("m.yaml", MATRIX + f"versions: {{git: {{{UNKNOWN}: 1}}}}\n", "sweep"),
    "matrix.versions.container": ("m.yaml", MATRIX + f"versions: {{container: {{{UNKNOWN}: 1}}}}\n", "sweep"),
    "matrix.versions.refine": (
        "m.yaml", MATRIX + "versions:\n  values: [a, b]\n  refine: {" + UNKNOWN + ": 1}\n", "bisect"),
    "launcher": ("l.yaml", f"name: l\nargv: [\"{{program}}\", \"{{args}}\"]\n{UNKNOWN}: 1\n", "launcher"),
}


def loader_keys(binary, where):
    """The keys the loader declares for `where`, read from its unknown-key message."""
    name, text, command = PROBES[where]
    with tempfile.TemporaryDirectory(prefix="gh-keys-") as d:
        d = pathlib.Path(d)
        (d / "s.yaml").write_text(SCENARIO)
        (d / name).write_text(text)
        if command == "run":
            argv = [binary, "run", name, "--out", "out"]
        elif command == "sweep":
            argv = [binary, "sweep", name, "--dry-run"]
        elif command == "bisect":
            argv = [binary, "bisect", name, "--good", "a", "--bad", "b", "--refine", "--out", "out"]
        else:  # a launcher, named by a matrix
            (d / "m.yaml").write_text(MATRIX + f"defaults: {{launcher: {name}}}\n")
            argv = [binary, "sweep", "m.yaml", "--dry-run"]
        proc = subprocess.run(argv, cwd=d, capture_output=True, text=True, timeout=60,
                              stdin=subprocess.DEVNULL)
    message = proc.stdout + proc.stderr
    m = ALLOWED_RE.search(message)
    if proc.returncode != 2 or not m or UNKNOWN not in message:
        raise RuntimeError(f"probe {where}: expected exit 2 and an unknown-key message for {UNKNOWN}, "
                           f"got exit {proc.returncode}: {message.strip()}")
    return {k.strip() for k in m.group(1).split(",")}


def documented_keys(source):
    """where -> (page:line, keys) of every marked key table."""
    found = {}
    for rel in PAGES:
        page = source / rel
        if not page.exists():
            continue
        lines = page.read_text().splitlines()
        for i, line in enumerate(lines):
            m = KEYS_MARKER_RE.match(line)
            if not m:
                continue
            keys = set()
            j = i + 1
            while j < len(lines) and not lines[j].strip():
                j += 1
            header = True
            while j < len(lines) and lines[j].lstrip().startswith("|"):
                cell = lines[j].strip().strip("|").split("|")[0]
                if not header and not re.fullmatch(r"\s*:?-+:?\s*", cell):
                    keys.update(re.findall(r"`(\w+)[^`]*`", cell))
                header = False
                j += 1
            found[m.group(1)] = (f"{rel}:{i + 1}", keys)
    return found


def main():
    args = check_common.arguments(__doc__)
    documented = documented_keys(args.source)
    problems = []
    for where in PROBES:
        declared = loader_keys(args.binary, where)
        if where not in documented:
            problems.append(f"{' or '.join(PAGES)}: no key table marked `<!-- docs-test: keys {where} -->` "
                            f"(the loader declares {', '.join(sorted(declared))})")
            continue
        at, keys = documented[where]
        if keys - declared:
            problems.append(f"{at}: {where}: the table lists {', '.join(sorted(keys - declared))}, "
                            "which the loader does not declare")
        if declared - keys:
            problems.append(f"{at}: {where}: the table leaves out {', '.join(sorted(declared - keys))}")
    for where in sorted(set(documented) - set(PROBES)):
        problems.append(f"{documented[where][0]}: `keys {where}`: no probe of that map in {__file__}")
    return check_common.finish(problems, "key table(s) differ from the loaders", f"{len(PROBES)} key tables match the loaders' declared keys")


if __name__ == "__main__":
    sys.exit(main())
