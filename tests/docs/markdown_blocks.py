"""A markdown page as the docs tests read it: fenced blocks with their docs-test marker,
headings (for link anchors) and links, each with its line number.

A marker is an HTML comment on the line before a fence (blank lines between are allowed):

    <!-- docs-test: run -->            run this shell block; it must exit 0
    <!-- docs-test: run exit=1 -->     ... and exit 1
    <!-- docs-test: output -->         the output of the last run block shows these lines, in order
    <!-- docs-test: output unordered --> ... in any order
    <!-- docs-test: file PATH -->      write this block to PATH before the next run block
    <!-- docs-test: gpu -->            needs a GPU: checked with bash -n, not run
    <!-- docs-test: skip REASON -->    not run, for REASON (a cluster, the network): bash -n only
    <!-- docs-test: to-be-measured --> an output block whose figures come from a GPU run
    <!-- docs-test: serial -->         (anywhere on the page) run the page alone: it measures time

docs/CONTRIBUTING.md describes the convention for writers.
"""
import dataclasses
import re

SHELL_LANGS = {"sh", "bash", "shell", "console"}
MARKER_RE = re.compile(r"^\s*<!--\s*docs-test:\s*(.*?)\s*-->\s*$")
FENCE_RE = re.compile(r"^(\s*)(```+|~~~+)\s*([\w+-]*)")
HEADING_RE = re.compile(r"^(#{1,6})\s+(.*?)\s*#*\s*$")
LINK_RE = re.compile(r"(?<!\!)\[((?:[^\[\]]|\[[^\]]*\])*)\]\(\s*<?([^)\s>]+)>?(?:\s+\"[^\"]*\")?\s*\)")
MARKER_KINDS = {"run", "output", "file", "gpu", "skip", "to-be-measured"}
# Markers that do not precede a block: tables the reference checks read (check_yaml_keys.py,
# check_exit_status.py), and `serial`, which tells CTest to run the page alone (tests/docs.cmake:
# a page that measures performance).
TABLE_MARKERS = {"keys", "exit-statuses", "serial"}


class MarkerError(ValueError):
    """A marker that does not parse: the message names the line."""


@dataclasses.dataclass
class Marker:
    kind: str                      # one of MARKER_KINDS
    exit: int = 0                  # run: the expected exit status
    timeout: int = 600             # run: seconds
    unordered: bool = False        # output: lines in any order
    path: str = ""                 # file: where the block goes
    reason: str = ""               # skip: why


@dataclasses.dataclass
class Block:
    line: int                      # 1-based line of the opening fence
    lang: str                      # the fence's info string ("sh", "text", "yaml", ...)
    text: str                      # the content, lines joined with "\n", ending with "\n"
    marker: Marker | None

    @property
    def is_shell(self):
        return self.lang in SHELL_LANGS


def parse_marker(text, line):
    words = text.split()
    if not words or words[0] not in MARKER_KINDS:
        raise MarkerError(f"line {line}: unknown docs-test marker '{text}' "
                          f"(expected one of {', '.join(sorted(MARKER_KINDS))})")
    kind, rest = words[0], words[1:]
    marker = Marker(kind)
    if kind == "skip":
        marker.reason = " ".join(rest)
        if not marker.reason:
            raise MarkerError(f"line {line}: 'skip' needs a reason")
        return marker
    if kind == "file":
        if len(rest) != 1:
            raise MarkerError(f"line {line}: 'file' needs one PATH")
        marker.path = rest[0]
        return marker
    for word in rest:
        key, _, value = word.partition("=")
        if kind == "run" and key == "exit" and value.isdigit():
            marker.exit = int(value)
        elif kind == "run" and key == "timeout" and value.isdigit():
            marker.timeout = int(value)
        elif kind == "output" and word == "unordered":
            marker.unordered = True
        else:
            raise MarkerError(f"line {line}: '{word}' is not an option of the '{kind}' marker")
    return marker


def blocks(text):
    """Every fenced block of `text`, with the marker just before it (or None)."""
    out = []
    lines = text.splitlines()
    pending = None  # (marker, line) of the last marker not yet used
    i = 0
    while i < len(lines):
        line = lines[i]
        m = MARKER_RE.match(line)
        if m and m.group(1).split()[0] in TABLE_MARKERS:
            i += 1
            continue
        if m:
            pending = parse_marker(m.group(1), i + 1)
            i += 1
            continue
        f = FENCE_RE.match(line)
        if f:
            indent, fence, lang = f.group(1), f.group(2), f.group(3)
            body = []
            j = i + 1
            while j < len(lines) and not lines[j].strip().startswith(fence):
                body.append(lines[j][len(indent):] if lines[j].startswith(indent) else lines[j])
                j += 1
            if j == len(lines):
                raise MarkerError(f"line {i + 1}: the fence is never closed")
            out.append(Block(i + 1, lang, "".join(b + "\n" for b in body), pending))
            pending = None
            i = j + 1
            continue
        if line.strip() and pending is not None:
            raise MarkerError(f"line {i + 1}: a docs-test marker must come right before a fenced block")
        i += 1
    if pending is not None:
        raise MarkerError("a docs-test marker at the end of the page has no block")
    return out


def prose_lines(text):
    """(line number, line) of every line outside fenced blocks."""
    fence = None
    for n, line in enumerate(text.splitlines(), 1):
        f = FENCE_RE.match(line)
        if fence is None and f:
            fence = f.group(2)
            continue
        if fence is not None:
            if line.strip().startswith(fence):
                fence = None
            continue
        yield n, line


def slug(heading):
    """GitHub's anchor for a heading: lower case, markup and punctuation dropped, spaces to '-'."""
    text = re.sub(r"`([^`]*)`", r"\1", heading)
    text = re.sub(r"\[([^\]]*)\]\([^)]*\)", r"\1", text)
    text = text.strip().lower()
    text = re.sub(r"[^\w\- ]", "", text)
    return text.replace(" ", "-")


def anchors(text):
    """Every heading's anchor on the page, with GitHub's -1, -2 suffixes for repeats."""
    seen = {}
    out = set()
    for _, line in prose_lines(text):
        m = HEADING_RE.match(line)
        if not m:
            continue
        base = slug(m.group(2))
        n = seen.get(base, 0)
        seen[base] = n + 1
        out.add(base if n == 0 else f"{base}-{n}")
    for m in re.finditer(r"<a\s+(?:name|id)=\"([^\"]+)\"", text):
        out.add(m.group(1))
    return out


def links(text):
    """(line, target) of every markdown link outside fenced blocks and inline code."""
    for n, line in prose_lines(text):
        stripped = re.sub(r"`[^`]*`", "", line)
        for m in LINK_RE.finditer(stripped):
            yield n, m.group(2)
