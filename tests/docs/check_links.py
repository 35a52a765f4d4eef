#!/usr/bin/env python3
"""Every relative link in docs/**/*.md, README.md and results/*.md resolves: the file or
directory exists, and an anchor (`page.md#a-heading`, `#a-heading`) names a heading of the page
it points to, as GitHub writes anchors. And every page the code names in its comments
(`docs/explanation/hangs.md` in a source, script, CMake file or test) exists, so that a
reader sent there by the code finds it.

    check_links.py --source DIR

Exit 0 when every link resolves; 1 naming file:line and the link otherwise.
"""
import pathlib
import re
import sys

sys.path.insert(0, str(pathlib.Path(__file__).resolve().parent))
import check_common  # noqa: E402
import markdown_blocks  # noqa: E402

EXTERNAL_RE = re.compile(r"^[a-z][a-z0-9+.-]*:", re.I)  # https:, mailto:, ...
DOC_PATH_RE = re.compile(r"\bdocs/[A-Za-z0-9_./-]*?\.md\b")
CODE_DIRS = ("harness", "tests", "scripts", "ci", "bench", "cmake")
CODE_SUFFIXES = {".cc", ".h", ".cu", ".cuh", ".py", ".sh", ".cmake", ".txt", ".yaml", ".sbatch"}
# This checker's own tests name pages of a scratch tree.
CODE_EXCLUDED = {"tests/docs"}


def code_files(source):
    for top in CODE_DIRS:
        for path in sorted((source / top).rglob("*")):
            rel = path.relative_to(source).as_posix()
            if path.is_file() and (path.suffix in CODE_SUFFIXES or path.name == "CMakeLists.txt") and \
                    not any(rel.startswith(x + "/") for x in CODE_EXCLUDED):
                yield path
    if (source / "CMakeLists.txt").is_file():
        yield source / "CMakeLists.txt"


def check_code(source):
    """The pages named in the code's own text that do not exist, as file:line problems."""
    problems, checked = [], 0
    for path in code_files(source):
        try:
            lines = path.read_text().splitlines()
        except UnicodeDecodeError:
            continue
        for n, line in enumerate(lines, 1):
            for target in DOC_PATH_RE.findall(line):
                checked += 1
                if not (source / target).is_file():
                    problems.append(f"{path.relative_to(source).as_posix()}:{n}: names {target}, "
                                    "which does not exist")
    return problems, checked


def check(source):
    problems, checked = [], 0
    anchor_cache = {}

    def anchors_of(path):
        if path not in anchor_cache:
            anchor_cache[path] = markdown_blocks.anchors(path.read_text())
        return anchor_cache[path]

    for page in check_common.user_pages(source):
        rel = page.relative_to(source)
        for n, target in markdown_blocks.links(page.read_text()):
            if EXTERNAL_RE.match(target):
                continue
            checked += 1
            path_part, _, anchor = target.partition("#")
            resolved = (page.parent / path_part).resolve() if path_part else page
            if not resolved.exists():
                problems.append(f"{rel}:{n}: link '{target}': {path_part} does not exist")
                continue
            if source.resolve() not in resolved.parents and resolved != source.resolve():
                problems.append(f"{rel}:{n}: link '{target}' leaves the repository")
                continue
            if anchor and resolved.suffix == ".md" and anchor not in anchors_of(resolved):
                near = sorted(a for a in anchors_of(resolved) if a[:4] == anchor[:4])[:3]
                hint = f" (headings there: {', '.join(near)})" if near else ""
                problems.append(f"{rel}:{n}: link '{target}': {resolved.name} has no heading "
                                f"#{anchor}{hint}")
    return problems, checked


def main():
    args = check_common.arguments(__doc__, binary=False)
    problems, checked = check(args.source)
    code_problems, named = check_code(args.source)
    return check_common.finish(problems + code_problems,
                               f"of {checked} relative links and {named} pages named in the code do not resolve",
                               f"{checked} relative links and {named} pages named in the code resolve")


if __name__ == "__main__":
    sys.exit(main())
