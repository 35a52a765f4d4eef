#!/usr/bin/env python3
"""No internal vocabulary where a user reads: the docs, README, every command's --help,
`gpuharness list` (text and JSON), the shipped scenario, matrix and launcher files (their
descriptions, expectation reasons and comments), and the text of the reports (the string
literals of the report writers and the nightly summary).

Internal vocabulary is what a reader cannot resolve: issue numbers of this project's tracker,
the bug reports' file numbers ("seed 001"), and the story of how something was measured
(which session, which tool call, which lent machine). Name the upstream bug by what it is
instead: "the TransformerEngine stream-capture race".

    check_vocabulary.py --source DIR --binary GPUHARNESS

Exit 0 when none is found; 1 naming file:line (or the command) and the words otherwise.
"""
import pathlib
import re
import subprocess
import sys

sys.path.insert(0, str(pathlib.Path(__file__).resolve().parent))
import check_common  # noqa: E402
import help_index  # noqa: E402

# (pattern, what to write instead)
FORBIDDEN = [
    (r"\bissues? #?\d+", "describe the change; users cannot read this project's tracker"),
    (r"\bissue's\b|\bthe issue\b", "say what the requirement is, not which ticket asked for it"),
    (r"\bseeds? ?(?:\d{1,3}|N)\b|\bseeds?'s?(?=\W)|\bthe seeds\b|\bseed reports?\b",
     "name the upstream bug report by what it is"),
    (r"\bthis session\b|\bsession note\b|\bthe lead\b|\bhelper working on\b",
     "no story of who did the work"),
    (r"\b(?:device|run) tool\b|\bdevice calls?\b|\(\s*(?:one|two|three|four|five|\d+) calls?\s*\)"
     r"|\bin (?:one|the same|another|a second|the first|the last|this) call\b|\bcalls? on `?nvidia-",
     "say which machine and command, not which tool call"),
    (r"\blent\b|\bnvidia-h[12]00(?:-x\d)?\b", "name the machine (one NVIDIA H200), not the loan"),
    (r"\bFACTS\.md\b|\bDEVELOPERS\.md\b|shared/seeds|/work/(?:main|wt|shared)\b",
     "users have no such file; link a page of docs/ or state the fact"),
    (r"\bstop \d+\b", "no internal milestones"),
]
PATTERNS = [(re.compile(p, re.I), why) for p, why in FORBIDDEN]

USER_FILES = ["scenarios/**/*", "matrices/**/*", "launchers/**/*", "ci/matrices/**/*", "ci/launchers/**/*"]
REPORT_SOURCES = ["harness/report/*.cc", "harness/report/*.h", "harness/bisect/bisect_summary*.cc",
                  "harness/history/history_report.cc", "ci/night_summary.py", "ci/compare_nights.py"]
CPP_STRING_RE = re.compile(r'"((?:[^"\\\n]|\\.)*)"')


def find(text_lines, where):
    """(where:line, matched words, advice) for each forbidden phrase in the lines."""
    for n, line in text_lines:
        for pattern, why in PATTERNS:
            for m in pattern.finditer(line):
                yield f"{where}:{n}", m.group(0), why


def numbered(text):
    return list(enumerate(text.splitlines(), 1))


def report_literals(path):
    """The string literals of a report writer, outside comments (its user-visible text)."""
    lines = []
    for n, line in numbered(path.read_text()):
        if path.suffix == ".py":
            code = line.split("#", 1)[0] if not line.lstrip().startswith("#") else ""
            lines.append((n, " ".join(re.findall(r"'[^']*'|\"[^\"]*\"", code))))
        else:
            code = re.sub(r"//.*$", "", line)
            lines.append((n, " ".join(CPP_STRING_RE.findall(code))))
    return lines


def sources(source, binary):
    """(name, numbered lines) of everything a user reads."""
    for page in check_common.user_pages(source):
        yield str(page.relative_to(source)), numbered(page.read_text())
    for pattern in USER_FILES:
        for path in sorted(source.glob(pattern)):
            if path.is_file():
                try:
                    yield str(path.relative_to(source)), numbered(path.read_text())
                except UnicodeDecodeError:
                    continue
    for pattern in REPORT_SOURCES:
        for path in sorted(source.glob(pattern)):
            if "_test" in path.name or "testdata" in path.parts:
                continue
            yield str(path.relative_to(source)), report_literals(path)
    index = help_index.HelpIndex(binary)
    for path, text in index.every_help():
        yield f"`gpuharness {' '.join(path)}{'' if path == ('--help',) else ' --help'}`", numbered(text)
    for args in (["list"], ["list", "--json"]):
        out = subprocess.run([binary, *args], capture_output=True, text=True, timeout=60).stdout
        yield f"`gpuharness {' '.join(args)}`", numbered(out)


def main():
    args = check_common.arguments(__doc__)
    problems, scanned = [], 0
    for name, lines in sources(args.source, args.binary):
        scanned += 1
        problems.extend(f"{where}: '{words}': {why}" for where, words, why in find(lines, name))
    return check_common.finish(problems, "internal phrase(s) where users read",
                               f"no internal vocabulary in {scanned} files and command outputs")


if __name__ == "__main__":
    sys.exit(main())
