"""What every docs check shares: the pages it reads, its command line, and how it reports."""
import argparse
import pathlib
import sys


def user_pages(source):
    """The markdown a user reads: docs/**/*.md, README.md and results/*.md."""
    found = sorted((source / "docs").rglob("*.md")) + [source / "README.md"]
    found += sorted((source / "results").glob("*.md"))
    return [p for p in found if p.exists()]


def arguments(doc, binary=True):
    """--source DIR (resolved) and, when `binary`, --binary GPUHARNESS."""
    parser = argparse.ArgumentParser(description=doc.splitlines()[0])
    parser.add_argument("--source", required=True, type=pathlib.Path)
    if binary:
        parser.add_argument("--binary", required=True)
    args = parser.parse_args()
    args.source = args.source.resolve()
    if binary and "/" in args.binary:
        args.binary = str(pathlib.Path(args.binary).resolve())  # probes run in other directories
    return args


def finish(problems, failure, success):
    """Prints each problem and `FAIL: <failure>` on stderr (exit 1), or `success` (exit 0)."""
    for problem in problems:
        print(problem, file=sys.stderr)
    if problems:
        print(f"FAIL: {len(problems)} {failure}", file=sys.stderr)
        return 1
    print(success)
    return 0
