"""Does a command's output show what a page says it shows?

Both sides are normalised first, so what changes from run to run (times, dates, durations,
hashes, rates, ports, source line numbers, the scratch directory) and how columns are aligned
do not matter. Then every line the page shows must appear in the output: in the same order
(a subsequence), or in any order for an `unordered` block. A shown line `...` stands for lines
left out; ` ... ` inside a line stands for any text. Lines the page does not show are not
compared, so a wording change elsewhere in the output breaks nothing.
"""
import re

ELLIPSIS = "..."

# Order matters: the longer, more specific forms first.
_RULES = [
    # an ISO date with an optional time, and the nightly's compact 20261129T020000Z
    (re.compile(r"\b\d{4}-\d\d-\d\d(?:[T ]\d\d:\d\d(?::\d\d(?:\.\d+)?)?Z?)?"), "<date>"),
    (re.compile(r"\b\d{8}T\d{6}Z\b"), "<date>"),
    # clocks and elapsed times: 00:12, 1:02:03
    (re.compile(r"\b\d{1,2}:\d\d(?::\d\d)?\b"), "<time>"),
    # rates
    (re.compile(r"\b\d+(?:\.\d+)?\s?(?:[KMGT]B/s|TFLOP/s)"), "<rate>"),
    # durations: 0.6 ms, 2.1s, 1m30s, 500us, 1h30m
    (re.compile(r"\b\d+(?:\.\d+)?\s?(?:ns|us|µs|ms|s|m|h|min)(?:\d+(?:\.\d+)?(?:ns|us|µs|ms|s|m))*\b"), "<time>"),
    # source locations that move as the code changes: ring_shift.cc:191
    (re.compile(r"\b([\w.-]+\.(?:cc|h|cu|py|sh)):\d+\b"), r"\1:<line>"),
    # temporary directories made by mktemp: /tmp/gh-repro.adMgtx
    (re.compile(r"/tmp/[\w-]+\.[A-Za-z0-9]{6}\b"), "<tmp>"),
    # ports and process ids
    (re.compile(r"\b(127\.0\.0\.1|localhost):\d+\b"), r"\1:<port>"),
    (re.compile(r"\bpid \d+\b"), "pid <pid>"),
    # git and content hashes: 7 to 64 hex digits with at least one letter
    (re.compile(r"\b(?=[0-9a-f]*[a-f])(?=[0-9a-f]*[0-9])[0-9a-f]{7,64}\b"), "<hash>"),
]


def normalise(line, scratch=None):
    """One line as compared: variable parts replaced, whitespace runs as one space."""
    if scratch:
        line = line.replace(scratch.rstrip("/") + "/", "").replace(scratch.rstrip("/"), ".")
    for pattern, replacement in _RULES:
        line = pattern.sub(replacement, line)
    return " ".join(line.split())


def _line_matches(shown, actual):
    if ELLIPSIS not in shown.split(" "):
        return shown == actual
    parts = [p.strip() for p in re.split(r"(?:^|\s)\.\.\.(?:\s|$)", shown)]
    at = 0
    for i, part in enumerate(parts):
        if not part:
            continue
        if i == 0 and not actual.startswith(part):
            return False
        found = actual.find(part, at)
        if found < 0:
            return False
        at = found + len(part)
    return parts[-1] == "" or actual.endswith(parts[-1])


def missing_lines(shown_text, output_text, unordered=False, scratch=None):
    """The shown lines (normalised) that the output does not have; empty when it shows them all."""
    shown = [normalise(l, scratch) for l in shown_text.splitlines()]
    shown = [l for l in shown if l and l != ELLIPSIS]
    actual = [normalise(l, scratch) for l in output_text.splitlines()]
    missing = []
    if unordered:
        pool = list(actual)
        for line in shown:
            hit = next((i for i, a in enumerate(pool) if _line_matches(line, a)), None)
            if hit is None:
                missing.append(line)
            else:
                del pool[hit]
        return missing
    at = 0
    for n, line in enumerate(shown):
        hit = next((i for i in range(at, len(actual)) if _line_matches(line, actual[i])), None)
        if hit is None:
            missing.append(line)
            if any(_line_matches(line, a) for a in actual):
                missing[-1] += "   (it is there, but out of order)"
        else:
            at = hit + 1
    return missing
