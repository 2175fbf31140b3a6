#!/usr/bin/env python3
"""Writes small valid PNGs (16x16 RGB, padded to 1–8 KB with a tEXt chunk, so `check` finds a real image) for the
network benchmarks. One random sequence over all the sets, in order, so a given SEED and list always write the same
bytes.

Usage: gen-pngs.py SEED PATTERN:COUNT...   (PATTERN is a str.format pattern of the index, e.g. DIR/s/f-{:05d}.png)
"""
import random
import struct
import sys
import zlib


def chunk(kind, data):
    return struct.pack(">I", len(data)) + kind + data + struct.pack(">I", zlib.crc32(kind + data))


def png(size, rng):
    head = b"\x89PNG\r\n\x1a\n" + chunk(b"IHDR", struct.pack(">IIBBBBB", 16, 16, 8, 2, 0, 0, 0))
    tail = chunk(b"IDAT", zlib.compress((b"\x00" + b"\x80" * 48) * 16)) + chunk(b"IEND", b"")
    pad = max(0, size - len(head) - len(tail) - 12 - 8)
    text = b"Comment\x00" + bytes(rng.choice(b"abcdefghijklmnopqrstuvwxyz") for _ in range(pad))
    return head + chunk(b"tEXt", text) + tail


rng = random.Random(int(sys.argv[1]))
for spec in sys.argv[2:]:
    pattern, count = spec.rsplit(":", 1)
    for i in range(int(count)):
        with open(pattern.format(i), "wb") as f:
            f.write(png(rng.randint(1024, 8192), rng))
