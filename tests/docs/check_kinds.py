#!/usr/bin/env python3
"""Every scenario kind the binary registers (`gpuharness list --json`) has a reference page,
docs/scenarios/<kind>.md, and the page names each of the kind's parameters (as `name`).

    check_kinds.py --source DIR --binary GPUHARNESS
"""
import json
import pathlib
import subprocess
import sys

sys.path.insert(0, str(pathlib.Path(__file__).resolve().parent))
import check_common  # noqa: E402


def main():
    args = check_common.arguments(__doc__)
    source = args.source
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
    return check_common.finish(problems, "kind reference problem(s)", f"{len(listing['kinds'])} kinds, each with a page naming all its parameters")


if __name__ == "__main__":
    sys.exit(main())
