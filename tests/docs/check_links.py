#!/usr/bin/env python3
"""Every relative link in docs/**/*.md, README.md and results/*.md resolves: the file or
directory exists, and an anchor (`page.md#a-heading`, `#a-heading`) names a heading of the page
it points to, as GitHub writes anchors.

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
    return check_common.finish(problems, f"of {checked} relative links do not resolve",
                               f"{checked} relative links resolve")


if __name__ == "__main__":
    sys.exit(main())
