#!/usr/bin/env python3
"""docs/reference/cli.md, written from the binary's own help: `gpuharness --help` for the list of
commands, `gpuharness help CMD` (and `gpuharness CMD SUB --help` for subcommands) for each
command's synopsis, flags and exit statuses. The page cannot drift from the CLI definitions:
the docs test regenerates it and fails when the file differs.

    cli_reference.py --binary GPUHARNESS --write docs/reference/cli.md   # regenerate
    cli_reference.py --binary GPUHARNESS --check docs/reference/cli.md   # exit 1 when stale

(`cmake --build build --target docs_reference` runs the first.)
"""
import argparse
import difflib
import pathlib
import sys

sys.path.insert(0, str(pathlib.Path(__file__).resolve().parent))
import help_index  # noqa: E402

HEADER = """# Command-line reference

<!-- Generated from the binary's help by tests/docs/cli_reference.py; do not edit.
     Regenerate: cmake --build build --target docs_reference -->

Every command, as `gpuharness help CMD` prints it. Flags take `--flag value` or
`--flag=value`. Durations are seconds or `500ms`, `90s`, `10m`, `1h30m`.
[Exit statuses](exit-status.md) are the same for every command.

"""


def anchor(name):
    return name.replace(" ", "-")


def render(index):
    out = [HEADER, "| command | what it does |\n|---|---|\n"]
    for name, summary in index.commands.items():
        if name == "help":
            continue
        out.append(f"| [`{name}`](#gpuharness-{anchor(name)}) | {summary} |\n")
    out.append("\n```text\n" + index.top.rstrip() + "\n```\n")
    for name in index.commands:
        if name == "help":
            continue
        out.append(f"\n## gpuharness {name}\n\n```text\n{index.help_text((name,)).rstrip()}\n```\n")
        for sub in index.subcommands(name):
            out.append(f"\n### gpuharness {name} {sub}\n\n```text\n"
                       f"{index.help_text((name, sub)).rstrip()}\n```\n")
    return "".join(out)


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--binary", required=True)
    mode = parser.add_mutually_exclusive_group(required=True)
    mode.add_argument("--write", type=pathlib.Path)
    mode.add_argument("--check", type=pathlib.Path)
    args = parser.parse_args()
    text = render(help_index.HelpIndex(args.binary))
    if args.write:
        args.write.write_text(text)
        print(f"wrote {args.write}")
        return 0
    current = args.check.read_text() if args.check.exists() else ""
    if current == text:
        print(f"{args.check} matches the binary's help")
        return 0
    diff = difflib.unified_diff(current.splitlines(), text.splitlines(), str(args.check), "the binary's help",
                                lineterm="", n=1)
    print("\n".join(diff), file=sys.stderr)
    print(f"FAIL: {args.check} is stale: regenerate it with "
          "`cmake --build build --target docs_reference` and commit the result", file=sys.stderr)
    return 1


if __name__ == "__main__":
    sys.exit(main())
