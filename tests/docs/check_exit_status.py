#!/usr/bin/env python3
"""docs/reference/exit-status.md lists exactly the exit statuses harness/core/exit_codes.h
defines (the table marked `<!-- docs-test: exit-statuses -->`, first column the status), and
every command's help names only those in its `exit:` line.

    check_exit_status.py --source DIR --binary GPUHARNESS
"""
import pathlib
import re
import sys

sys.path.insert(0, str(pathlib.Path(__file__).resolve().parent))
import check_common  # noqa: E402
import help_index  # noqa: E402

PAGE = "docs/reference/exit-status.md"
MARKER = "<!-- docs-test: exit-statuses -->"


def defined(source):
    text = (source / "harness" / "core" / "exit_codes.h").read_text()
    return {int(v): n for n, v in re.findall(r"constexpr int (kExit\w+) = (\d+);", text)}


def documented(source):
    lines = (source / PAGE).read_text().splitlines()
    start = next((i for i, l in enumerate(lines) if l.strip() == MARKER), None)
    if start is None:
        return None
    codes = set()
    for line in lines[start + 1:]:
        if not line.strip() and not codes:
            continue
        if not line.lstrip().startswith("|"):
            break
        m = re.match(r"\|\s*`?(\d+)`?\s*\|", line.strip())
        if m:
            codes.add(int(m.group(1)))
    return codes


def main():
    args = check_common.arguments(__doc__)
    source = args.source
    problems = []
    codes = defined(source)
    listed = documented(source)
    if listed is None:
        problems.append(f"{PAGE}: no table marked {MARKER}")
        listed = set()
    for code in sorted(set(codes) - listed):
        problems.append(f"{PAGE}: exit status {code} ({codes[code]}) is not in the table")
    for code in sorted(listed - set(codes)):
        problems.append(f"{PAGE}: exit status {code} is in the table but harness/core/exit_codes.h does not define it")
    index = help_index.HelpIndex(args.binary)
    for path, text in index.every_help():
        for line in text.splitlines():
            if line.strip().lower().startswith("exit:"):
                for code in map(int, re.findall(r"\b(\d+)\b", line)):
                    if code not in codes:
                        problems.append(f"`gpuharness {' '.join(path)} --help`: exit status {code} is not defined")
    return check_common.finish(problems, "exit-status problem(s)", f"{PAGE} lists exit statuses {sorted(codes)}, as harness/core/exit_codes.h defines them")


if __name__ == "__main__":
    sys.exit(main())
