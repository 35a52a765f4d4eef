#!/usr/bin/env python3
"""Writes a night's summary.md and nightly.json for ci/nightly.sh.

Reads the night directory: sweeps.tsv (matrix, sweep exit), <matrix>/regressions.json,
<matrix>/summary.md (the sweep's own), bisects.tsv (matrix, point, cell, bisect dir, exit,
note) and each bisect's summary.json and summary.md, which is attached to the night's summary
under its regression. Writes files through a temporary name and a rename.
"""
import argparse
import json
import os
import sys


def read_json(path):
    try:
        with open(path) as f:
            return json.load(f)
    except (OSError, ValueError):
        return None


def read_text(path):
    try:
        with open(path) as f:
            return f.read()
    except OSError:
        return None


def read_tsv(path, width):
    rows = []
    for line in (read_text(path) or "").splitlines():
        fields = line.split("\t")
        rows.append(fields + [""] * (width - len(fields)))
    return rows


def write(path, text):
    tmp = path + ".tmp"
    with open(tmp, "w") as f:
        f.write(text)
    os.replace(tmp, path)


def cell(text):
    return text.replace("|", "\\|").replace("\n", " ")


def main():
    p = argparse.ArgumentParser()
    for flag in ("--night-dir", "--night", "--cluster", "--version", "--status", "--good",
                 "--baseline", "--good-version"):
        p.add_argument(flag, required=True)
    a = p.parse_args()
    d = a.night_dir
    status = int(a.status)
    verdict = {0: "good", 1: "regressions or unmet expectations", 3: "infrastructure failure"}.get(status, f"exit {status}")
    baseline_night = os.path.basename(a.baseline) if a.baseline else ""

    md = [f"# Nightly {a.cluster}, night {a.night}: version {a.version}", ""]
    md.append(f"- Verdict: **{verdict}** (exit {status})")
    if a.baseline:
        md.append(f"- Baseline: the last good night, {baseline_night} (version {a.good_version})")
    else:
        md.append("- Baseline: none yet (the first good night becomes it)")
    md.append(f"- Baseline after this night: {'this night' if a.good == '1' else baseline_night or 'none'}")
    md.append("")

    bisects = read_tsv(os.path.join(d, "bisects.tsv"), 6)
    answers = []
    matrices = []
    for name, rc in read_tsv(os.path.join(d, "sweeps.tsv"), 2):
        regs = (read_json(os.path.join(d, name, "regressions.json")) or {}).get("regressions", [])
        matrices.append({"matrix": name, "sweep_exit": int(rc) if rc.lstrip("-").isdigit() else rc,
                         "regressions": regs})
        md.append(f"## {name}: sweep exit {rc}")
        md.append("")
        md.append(f"Results: `{name}/` (records.jsonl, junit.xml, summary.md, report.html).")
        md.append("")
        if not regs:
            md.append("No regression against the baseline." if a.baseline else "Not compared: no baseline.")
            md.append("")
            continue
        md.append("| point | cell | baseline | now | failed trials | signature | new | first bad version |")
        md.append("|---|---|---|---|---|---|---|---|")
        for r in regs:
            first_bad = "(bisected on an earlier night)" if not r["new"] else ""
            for b in bisects:
                if b[0] == name and b[1] == r["point"] and b[2] == r["cell_arg"]:
                    s = read_json(os.path.join(b[3], "summary.json"))
                    # A bisect without an answer writes "answer": null.
                    answer = (s or {}).get("answer") or {}
                    if b[5]:
                        first_bad = b[5]
                    elif answer.get("first_bad"):
                        first_bad = f"**{answer['first_bad']}** (last good {answer.get('last_good', '?')})"
                    else:
                        first_bad = f"bisect exit {b[4]}, no answer"
                    answers.append({"matrix": name, "point": r["point"], "cell": r["cell_arg"],
                                    "dir": os.path.relpath(b[3], d), "exit": b[4], "note": b[5],
                                    "answer": answer or None})
            md.append(f"| {cell(r['point'])} | {cell(r['cell_arg'] or 'all')} | {r['baseline']} | {r['now']} | "
                      f"{r['failed_trials']}/{r['trials']} | {cell(r['signature'])} | "
                      f"{'yes' if r['new'] else 'no'} | {first_bad} |")
        md.append("")

    for ans in answers:
        md.append(f"## Bisect: {ans['point']} [{ans['cell'] or 'all'}]")
        md.append("")
        if ans["note"]:
            md.append(ans["note"])
        elif ans["answer"]:
            md.append(f"First bad version **{ans['answer'].get('first_bad')}**, last good "
                      f"{ans['answer'].get('last_good')} (bisect exit {ans['exit']}; `{ans['dir']}/`).")
        else:
            md.append(f"The bisect found no answer (exit {ans['exit']}); see `{ans['dir']}/`.")
        md.append("")
        attached = read_text(os.path.join(d, ans["dir"], "summary.md"))
        if attached:
            md.append("<details><summary>bisect summary.md</summary>")
            md.append("")
            md.append(attached.rstrip())
            md.append("")
            md.append("</details>")
            md.append("")

    write(os.path.join(d, "summary.md"), "\n".join(md).rstrip() + "\n")
    write(os.path.join(d, "nightly.json"), json.dumps({
        "night": a.night, "cluster": a.cluster, "version": a.version, "status": status,
        "good": a.good == "1", "baseline_night": baseline_night, "baseline_version": a.good_version,
        "matrices": matrices, "bisects": answers}, indent=2) + "\n")


if __name__ == "__main__":
    sys.exit(main())
