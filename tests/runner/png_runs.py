#!/usr/bin/env python3
"""png_runs.py FILE.png: what a person sees in a screenshot of a flame graph, as numbers.

Reads an 8-bit RGB or RGBA PNG (what a headless browser's --screenshot writes; the standard
library only) and prints, one per line:
  pixels N            all pixels
  painted N           pixels that are not the page's background (white, or the graph's cream)
  green N             pixels of GPU work's colour (green well above red and blue)
  green_runs W1 W2 .. the widths of the distinct horizontal runs of green, widest first, each
                      counted once per frame (a run repeated on the rows of one frame is one)
"""
import struct
import sys
import zlib


def read_png(path):
    data = open(path, "rb").read()
    if data[:8] != b"\x89PNG\r\n\x1a\n":
        sys.exit("%s is not a PNG" % path)
    pos, idat, width = 8, b"", 0
    while pos < len(data):
        length, kind = struct.unpack(">I4s", data[pos:pos + 8])
        body = data[pos + 8:pos + 8 + length]
        if kind == b"IHDR":
            width, height, depth, colour, _, _, interlace = struct.unpack(">IIBBBBB", body)
            if depth != 8 or colour not in (2, 6) or interlace:
                sys.exit("%s: only 8-bit RGB or RGBA, not interlaced" % path)
            bpp = 3 if colour == 2 else 4
        elif kind == b"IDAT":
            idat += body
        pos += 12 + length
    raw = zlib.decompress(idat)
    stride = width * bpp
    rows, prev = [], bytearray(stride)
    for y in range(height):
        f = raw[y * (stride + 1)]
        line = bytearray(raw[y * (stride + 1) + 1:(y + 1) * (stride + 1)])
        for i in range(stride):
            a = line[i - bpp] if i >= bpp else 0
            b = prev[i]
            c = prev[i - bpp] if i >= bpp else 0
            if f == 1:
                line[i] = (line[i] + a) & 255
            elif f == 2:
                line[i] = (line[i] + b) & 255
            elif f == 3:
                line[i] = (line[i] + (a + b) // 2) & 255
            elif f == 4:
                p = a + b - c
                pa, pb, pc = abs(p - a), abs(p - b), abs(p - c)
                pred = a if pa <= pb and pa <= pc else (b if pb <= pc else c)
                line[i] = (line[i] + pred) & 255
        rows.append([tuple(line[x * bpp:x * bpp + 3]) for x in range(width)])
        prev = line
    return rows


def main():
    rows = read_png(sys.argv[1])
    painted = green = 0
    runs = {}
    for y, row in enumerate(rows):
        run_start = None
        for x, (r, g, b) in enumerate(row + [(255, 255, 255)]):
            is_green = g > r + 60 and g > b + 60
            if (r, g, b) not in ((255, 255, 255), (250, 250, 245)) and x < len(row):
                painted += 1
            if is_green and x < len(row):
                green += 1
                if run_start is None:
                    run_start = x
            elif run_start is not None:
                runs.setdefault((run_start, x - run_start), set()).add(y)
                run_start = None
    widths = sorted((w for (_, w), ys in runs.items() if len(ys) >= 2), reverse=True)
    print("pixels", sum(len(r) for r in rows))
    print("painted", painted)
    print("green", green)
    print("green_runs", " ".join(str(w) for w in widths))


main()
