#!/usr/bin/env python3
"""How far apart a page's pass and failure colours stay for a person with red-green colour
blindness, measured on a real screenshot (tests/history/history_page_browser_test.sh).

Reads the page's CSS for the background colours of the verdict classes (.v-pass, .v-fail, ...),
finds pixels of exactly those colours in the PNG screenshot (so the colours are the ones the
browser drew, and visible on the first screen), simulates deuteranopia and protanopia on them
(Machado, Oliveira and Fernandes 2009, severity 1, in linear RGB) and prints CIE76 colour
differences (Delta E*ab) between pass and each failure outcome, normal and simulated.

usage: page_colours.py PAGE.html SHOT.png [--min-delta-e D] [--simulated OUT.png]
  --simulated: also writes the screenshot as a deuteranope sees it
Exit 0 when every pass/failure pair found is at least D apart under both simulations
(default 40), 1 when one is not, 2 bad input (no such colours on the screen).
"""
import argparse
import math
import re
import struct
import sys
import zlib

MACHADO = {
    "deuteranopia": [[0.367322, 0.860646, -0.227968], [0.280085, 0.672501, 0.047413], [-0.011820, 0.042940, 0.968881]],
    "protanopia": [[0.152286, 1.052583, -0.204868], [0.114503, 0.786281, 0.099216], [-0.003882, -0.048116, 1.051998]],
}
FAILURES = ["fail", "error", "timeout", "crash"]


def read_png(path):
    """(width, height, rows of (r, g, b) tuples) of an 8-bit RGB or RGBA PNG."""
    with open(path, "rb") as f:
        data = f.read()
    if data[:8] != b"\x89PNG\r\n\x1a\n":
        sys.exit(f"page_colours.py: {path}: not a PNG")
    pos, idat, width = 8, b"", 0
    while pos < len(data):
        length, kind = struct.unpack(">I4s", data[pos:pos + 8])
        body = data[pos + 8:pos + 8 + length]
        if kind == b"IHDR":
            width, height, depth, colour = struct.unpack(">IIBB", body[:10])
            if depth != 8 or colour not in (2, 6):
                sys.exit(f"page_colours.py: {path}: PNG depth {depth} colour type {colour} not read here")
            channels = 3 if colour == 2 else 4
        elif kind == b"IDAT":
            idat += body
        pos += 12 + length
    raw = zlib.decompress(idat)
    stride = width * channels
    rows, previous, at = [], bytearray(stride), 0
    for _ in range(height):
        kind, line = raw[at], bytearray(raw[at + 1:at + 1 + stride])
        at += 1 + stride
        for i in range(stride):
            left = line[i - channels] if i >= channels else 0
            up = previous[i]
            up_left = previous[i - channels] if i >= channels else 0
            if kind == 1:
                line[i] = (line[i] + left) & 255
            elif kind == 2:
                line[i] = (line[i] + up) & 255
            elif kind == 3:
                line[i] = (line[i] + (left + up) // 2) & 255
            elif kind == 4:
                p = left + up - up_left
                pa, pb, pc = abs(p - left), abs(p - up), abs(p - up_left)
                line[i] = (line[i] + (left if pa <= pb and pa <= pc else up if pb <= pc else up_left)) & 255
        rows.append([tuple(line[i:i + 3]) for i in range(0, stride, channels)])
        previous = line
    return width, height, rows


def linear(c):
    c /= 255
    return c / 12.92 if c <= 0.04045 else ((c + 0.055) / 1.055) ** 2.4


def encoded(c):
    c = min(max(c, 0.0), 1.0)
    return 255 * (12.92 * c if c <= 0.0031308 else 1.055 * c ** (1 / 2.4) - 0.055)


def simulate(rgb, matrix):
    lin = [linear(c) for c in rgb]
    return tuple(encoded(sum(matrix[i][j] * lin[j] for j in range(3))) for i in range(3))


def lab(rgb):
    r, g, b = (linear(c) for c in rgb)
    x = (0.4124 * r + 0.3576 * g + 0.1805 * b) / 0.95047
    y = 0.2126 * r + 0.7152 * g + 0.0722 * b
    z = (0.0193 * r + 0.1192 * g + 0.9505 * b) / 1.08883
    f = lambda t: t ** (1 / 3) if t > 216 / 24389 else (24389 / 27 * t + 16) / 116
    return 116 * f(y) - 16, 500 * (f(x) - f(y)), 200 * (f(y) - f(z))


def delta_e(a, b):
    return math.dist(lab(a), lab(b))


def write_png(path, rows):
    def chunk(kind, body):
        return struct.pack(">I", len(body)) + kind + body + struct.pack(">I", zlib.crc32(kind + body) & 0xffffffff)
    raw = b"".join(b"\0" + bytes(v for px in row for v in px) for row in rows)
    header = struct.pack(">IIBBBBB", len(rows[0]), len(rows), 8, 2, 0, 0, 0)
    with open(path, "wb") as f:
        f.write(b"\x89PNG\r\n\x1a\n" + chunk(b"IHDR", header) + chunk(b"IDAT", zlib.compress(raw, 9)) + chunk(b"IEND", b""))


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("page")
    parser.add_argument("shot")
    parser.add_argument("--min-delta-e", type=float, default=40)
    parser.add_argument("--simulated")
    args = parser.parse_args()
    css = open(args.page, encoding="utf-8").read()
    colours = {}
    for name in ["pass"] + FAILURES:
        m = re.search(r"\.v-" + name + r"\{background:#([0-9a-fA-F]{6})", css)
        if m:
            colours[name] = tuple(int(m.group(1)[i:i + 2], 16) for i in (0, 2, 4))
    _, _, rows = read_png(args.shot)
    seen = {name: 0 for name in colours}
    wanted = {rgb: name for name, rgb in colours.items()}
    for row in rows:
        for px in row:
            if px in wanted:
                seen[wanted[px]] += 1
    shown = [name for name, count in seen.items() if count >= 20]
    if "pass" not in shown or not any(f in shown for f in FAILURES):
        print(f"page_colours.py: the screenshot shows too little of the verdict colours: {seen}", file=sys.stderr)
        return 2
    worst = None
    for failure in FAILURES:
        if failure not in shown:
            continue
        p, f = colours["pass"], colours[failure]
        line = f"pass #{bytes(p).hex()} vs {failure} #{bytes(f).hex()}: normal {delta_e(p, f):.1f}"
        for sim, matrix in MACHADO.items():
            d = delta_e(simulate(p, matrix), simulate(f, matrix))
            line += f", {sim} {d:.1f}"
            worst = d if worst is None else min(worst, d)
        print(f"Delta E*ab (CIE76) {line}")
    if args.simulated:
        cache = {}
        def sim(px):
            if px not in cache:
                cache[px] = tuple(round(v) for v in simulate(px, MACHADO["deuteranopia"]))
            return cache[px]
        write_png(args.simulated, [[sim(px) for px in row] for row in rows])
    print(f"smallest simulated Delta E: {worst:.1f} (at least {args.min_delta_e} wanted)")
    return 0 if worst >= args.min_delta_e else 1


if __name__ == "__main__":
    sys.exit(main())
