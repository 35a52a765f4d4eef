#!/usr/bin/env python3
"""Every scenario kind the binary registers (`gpuharness list --json`) has a reference page,
docs/scenarios/<kind>.md, and the page names each of the kind's parameters (as `name`).

    check_kinds.py --source DIR --binary GPUHARNESS
"""
import argparse
import json
import pathlib
import subprocess
import sys


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--source", required=True, type=pathlib.Path)
    parser.add_argument("--binary", required=True)
    args = parser.parse_args()
    source = args.source.resolve()
    listing = json.loads(subprocess.run([args.binary, "list", "--json"], capture_output=True, text=True,
                                        check=True, timeout=60).stdout)
    problems = []
    for kind in listing["kinds"]:
        page = source / "docs" / "scenarios" / f"{kind['name']}.md"
        if not page.exists():
            problems.append(f"kind {kind['name']}: no reference page {page.relative_to(source)}")
            continue
        text = page.read_text()
        for param in kind["params"]:
            if f"`{param['name']}`" not in text:
                problems.append(f"{page.relative_to(source)}: does not name parameter `{param['name']}` "
                                f"of kind {kind['name']}")
    for p in problems:
        print(p, file=sys.stderr)
    if problems:
        print(f"FAIL: {len(problems)} kind reference problem(s)", file=sys.stderr)
        return 1
    print(f"{len(listing['kinds'])} kinds, each with a page naming all its parameters")
    return 0


if __name__ == "__main__":
    sys.exit(main())
