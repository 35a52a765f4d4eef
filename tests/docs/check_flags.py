#!/usr/bin/env python3
"""Every `gpuharness COMMAND ... --flag` the docs name exists: COMMAND is one of the binary's
commands (or a subcommand of one, `history flips`), and `gpuharness COMMAND --help` lists the
flag. Commands are read from code: fenced blocks (backslash continuations joined) and inline
`code` spans of docs/**/*.md, README.md and results/*.md.

    check_flags.py --source DIR --binary GPUHARNESS

Exit 0 when every one exists; 1 naming file:line, the command and the flag otherwise.
"""
import pathlib
import re
import sys

sys.path.insert(0, str(pathlib.Path(__file__).resolve().parent))
import check_common  # noqa: E402
import help_index  # noqa: E402
import markdown_blocks  # noqa: E402

INVOCATION_RE = re.compile(r"(?:^|(?<=[\s/\"'(`=]))gpuharness\s+(\S.*)$")
# Where a gpuharness command line ends: a pipe, a list operator, a redirection, a comment.
END_RE = re.compile(r"\s(?:\||\|\||&&|#|[12]?>>?|<)(?:\s|$)|;|`")
QUOTED_RE = re.compile(r"'[^']*'|\"[^\"]*\"")


# Commands main.cc runs but `gpuharness --help` does not list.
HIDDEN_COMMANDS = {"trial-worker"}
# Fenced blocks that hold commands; `text`, `yaml`, `json` blocks hold output and data.
COMMAND_LANGS = markdown_blocks.SHELL_LANGS | {""}


def code_lines(text):
    """(line, text, is_shell) of every command-like piece of code on the page: the lines of
    shell blocks (is_shell true) and inline code spans."""
    for block in markdown_blocks.blocks(text):
        if block.lang not in COMMAND_LANGS:
            continue
        body = block.text.splitlines()
        i = 0
        while i < len(body):
            start, line = i, body[i]
            # a shell continuation, or a synopsis continued on indented [--flag] lines
            while i + 1 < len(body) and (line.rstrip().endswith("\\") or re.match(r"\s+\[-", body[i + 1])):
                line = line.rstrip().rstrip("\\").rstrip() + " " + body[i + 1].strip()
                i += 1
            yield block.line + 1 + start, line, True
            i += 1
    for n, line in markdown_blocks.prose_lines(text):
        for span in re.findall(r"`([^`]+)`", line):
            yield n, span, False


def invocations(line):
    """(command words, flags) of each gpuharness command line in `line`."""
    for m in INVOCATION_RE.finditer(line):
        rest = END_RE.split(m.group(1), maxsplit=1)[0]
        rest = QUOTED_RE.sub("''", rest)
        words = rest.split()
        if not words or not re.fullmatch(r"[a-z][\w-]*|--?[a-z][\w-]*", words[0]):
            continue
        flags = []
        for word in words:
            if word == "--":
                break
            for piece in word.strip("[]()|,.").split("|"):
                if re.fullmatch(r"--?[A-Za-z][\w-]*(=.*)?", piece):
                    flags.append(piece.split("=", 1)[0])
        yield words, flags


def check(source, index):
    problems = []
    for page in check_common.user_pages(source):
        rel = page.relative_to(source)
        text = page.read_text()
        for n, line, is_shell in code_lines(text):
            for words, flags in invocations(line):
                command = words[0]
                if command.startswith("-"):
                    path = ("help",)
                elif command in HIDDEN_COMMANDS or not re.fullmatch(r"[a-z]+(-[a-z]+)*", command):
                    continue  # a hidden command, a binary (gh_gpu_test) or a placeholder (CMD)
                elif command not in index.commands and command != "help":
                    if is_shell or flags:  # in prose, `gpuharness results <dir>` is a title
                        problems.append(f"{rel}:{n}: `gpuharness {command}`: no such command "
                                        f"(gpuharness --help lists {', '.join(index.commands)})")
                    continue
                else:
                    path = (command,)
                    if len(words) > 1 and words[1] in index.subcommands(command):
                        path = (command, words[1])
                    if command == "help" and len(words) > 1 and not words[1].startswith("-"):
                        if words[1] not in index.commands and not words[1].isupper():
                            problems.append(f"{rel}:{n}: `gpuharness help {words[1]}`: no such command")
                        continue
                known = index.flags(path)
                for flag in flags:
                    if flag not in known and flag not in ("-h", "--help"):
                        problems.append(f"{rel}:{n}: `gpuharness {' '.join(path)} ... {flag}`: "
                                        f"`gpuharness {' '.join(path)} --help` does not list {flag}")
    return problems


def main():
    args = check_common.arguments(__doc__)
    problems = check(args.source, help_index.HelpIndex(args.binary))
    return check_common.finish(problems, "command(s) or flag(s) the docs name do not exist",
                               f"every gpuharness command and flag named in "
                               f"{len(check_common.user_pages(args.source))} pages exists")


if __name__ == "__main__":
    sys.exit(main())
