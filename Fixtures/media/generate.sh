#!/usr/bin/env bash
# Regenerates the MediaProbe test fixtures in this folder. Run once by hand; the outputs are committed and the
# tests only read them (CI does not install these tools). Tools, from Debian 12:
#   apt-get install -y imagemagick webp libheif-examples ffmpeg
# Every file is tiny (a few KB) so the whole folder stays well under 300 KB. The dimensions are distinct per
# format so a test that reads the wrong header cannot pass by accident. Expected values live in the tests
# (MediaProbeTests/Fixtures.swift) next to the file names, written from the commands below, not from the parser.
set -euo pipefail
cd "$(dirname "$0")"
IM=/usr/bin/convert   # the real ImageMagick 6 binary
export SOURCE_DATE_EPOCH=0

# Images ---------------------------------------------------------------------------------------------------------
"$IM" -size 64x48 gradient:red-blue -strip png:image-64x48.png
"$IM" -size 33x17 xc:'rgba(0,128,0,0.5)' -strip png:image-alpha-33x17.png
# APNG: 3 frames, 40x30 (acTL chunk before IDAT).
ffmpeg -loglevel error -y -f lavfi -i "testsrc=size=40x30:rate=3:duration=1" -plays 0 -f apng image-apng-40x30.png
"$IM" -size 80x60 gradient:white-black -quality 70 -strip jpg:image-baseline-80x60.jpg
"$IM" -size 81x61 gradient:yellow-black -quality 70 -interlace Plane -strip jpg:image-progressive-81x61.jpg
# EXIF orientation 6 (rotate 90° CW): stored 90x50, shown 50x90.
# ImageMagick 6 drops the tag with -strip, so a minimal big-endian EXIF APP1 (IFD0 with one Orientation=6 entry)
# is spliced in right after SOI.
"$IM" -size 90x50 gradient:white-red -quality 60 -strip jpg:- | python3 -c '
import struct, sys
jpeg = sys.stdin.buffer.read()
tiff = b"MM\x00\x2a" + struct.pack(">I", 8) + struct.pack(">H", 1) + struct.pack(">HHIHH", 0x0112, 3, 1, 6, 0) + b"\0" * 4
app1 = b"Exif\0\0" + tiff
sys.stdout.buffer.write(jpeg[:2] + b"\xff\xe1" + struct.pack(">H", len(app1) + 2) + app1 + jpeg[2:])
' > image-exif-rotated-90x50.jpg
"$IM" -size 20x10 xc:orange -strip gif:image-20x10.gif
"$IM" -size 24x16 xc:red xc:green xc:blue xc:white -delay 10 -loop 0 gif:image-anim4-24x16.gif
"$IM" -size 50x40 gradient:red-green png:- | cwebp -quiet -q 50 -o image-lossy-50x40.webp -- -
"$IM" -size 51x41 gradient:red-green png:- | cwebp -quiet -lossless -o image-lossless-51x41.webp -- -
cwebp -quiet -q 50 image-alpha-33x17.png -o image-alpha-33x17.webp
gif2webp -quiet image-anim4-24x16.gif -o image-anim4-24x16.webp
"$IM" -size 64x36 gradient:red-blue png:/tmp/mp-heic-src.png
heif-enc -q 20 /tmp/mp-heic-src.png -o image-64x36.heic
# chroma=422: Debian 12's libaom 3.6 aborts (an assertion) on the default 4:2:0 and on 4:4:4 for this input.
heif-enc -A -q 20 -p chroma=422 /tmp/mp-heic-src.png -o image-64x36.avif
rm -f /tmp/mp-heic-src.png
"$IM" -size 16x12 xc:blue -strip bmp3:image-16x12.bmp
"$IM" -size 30x20 xc:gray -compress none tiff:image-30x20.tiff
# Decoder-disagreement classes (issue 16, images): one small file per class, written byte by byte from the
# committed fixtures above or from scratch, so each keeps exactly one defect. The verdict each must get is in
# MediaProbeTests/ImageDecoderClassTests.swift, with what Pillow 13 does with the same file.
# BEGIN image-classes
"$IM" -size 30x20 xc:gray -compress none TIFF64:image-bigtiff-30x20.tiff
python3 - <<'PY'
import struct, zlib

def chunk(kind, data):
    return struct.pack(">I", len(data)) + kind + data + struct.pack(">I", zlib.crc32(kind + data))

def png(width, height, color_type, rows, chunks_before=(), idat=None, after=(), plte=None):
    ihdr = struct.pack(">IIBBBBB", width, height, 8, color_type, 0, 0, 0)
    body = b"".join(chunks_before) + (chunk(b"PLTE", plte) if plte else b"")
    idat = [chunk(b"IDAT", zlib.compress(rows, 9))] if idat is None else idat
    return b"\x89PNG\r\n\x1a\n" + chunk(b"IHDR", ihdr) + body + b"".join(idat) + b"".join(after) + chunk(b"IEND", b"")

def write(name, data):
    open(name, "wb").write(data)

# 20x10 RGB, filter 0, a deterministic pattern (so a stored deflate block keeps rows at known offsets).
rows = b"".join(b"\0" + bytes((x * 13 + y * 7) & 0xFF for x in range(60)) for y in range(10))
# APNG whose acTL says 0 frames: the default image is a complete still PNG.
write("image-apng-zero-frames-20x10.png", png(20, 10, 2, rows, chunks_before=[chunk(b"acTL", struct.pack(">II", 0, 0))]))
# IHDR promises 20x10 but the zlib stream holds nothing / only 10 of the 61 bytes of the first row.
write("image-png-empty-idat-20x10.png", png(20, 10, 2, rows, idat=[chunk(b"IDAT", zlib.compress(b"", 9))]))
write("image-png-short-idat-20x10.png", png(20, 10, 2, rows, idat=[chunk(b"IDAT", zlib.compress(rows[:10], 9))]))
# The image data split by a tEXt chunk: the IDAT before it holds the first rows only (stored deflate, level 0).
stored = zlib.compress(rows, 0)
split = [chunk(b"IDAT", stored[:300]), chunk(b"tEXt", b"Comment\0split"), chunk(b"IDAT", stored[300:])]
write("image-png-split-idat-20x10.png", png(20, 10, 2, rows, idat=split))
# Complete image data, then a tEXt, then a stray empty-stream IDAT: decoders ignore the stray chunk.
extra = [chunk(b"IDAT", zlib.compress(rows, 9)), chunk(b"tEXt", b"Comment\0extra"), chunk(b"IDAT", zlib.compress(b""))]
write("image-png-extra-idat-20x10.png", png(20, 10, 2, rows, idat=extra))
# A palette image (colour type 3) without PLTE.
indexed = b"".join(b"\0" + bytes(x % 4 for x in range(20)) for _ in range(10))
write("image-png-palette-no-plte-20x10.png", png(20, 10, 3, indexed))

# GIF: the 20x10 fixture with its one frame moved 10 px right, so it reaches x = 30 on a 20-px screen.
gif = bytearray(open("image-20x10.gif", "rb").read())
at = 13 + (3 << ((gif[10] & 7) + 1) if gif[10] & 0x80 else 0)
while gif[at] == 0x21:  # skip extensions (label, then sub-blocks)
    at += 2
    while gif[at]:
        at += gif[at] + 1
    at += 1
assert gif[at] == 0x2C
gif[at + 1:at + 3] = struct.pack("<H", 10)
write("image-gif-frame-outside-20x10.gif", bytes(gif))

# BMP: bfSize 100 bytes beyond the file (every row present); 7 bits per pixel; an 8-bit palette of 100000 colours.
bmp = bytearray(open("image-16x12.bmp", "rb").read())
write("image-bmp-filesize-long-16x12.bmp", bytes(bmp[:2]) + struct.pack("<I", len(bmp) + 100) + bytes(bmp[6:]))
write("image-bmp-bitcount-7-16x12.bmp", bytes(bmp[:28]) + struct.pack("<H", 7) + bytes(bmp[30:]))
def bmp8(width, height, colors_used, palette_entries):
    row = (width + 3) // 4 * 4
    offset = 14 + 40 + 4 * palette_entries
    size = offset + row * height
    info = struct.pack("<IiiHHIIiiII", 40, width, height, 1, 8, 0, row * height, 2835, 2835, colors_used, 0)
    palette = b"".join(struct.pack("<BBBB", i, i, i, 0) for i in range(palette_entries))
    return b"BM" + struct.pack("<IHHI", size, 0, 0, offset) + info + palette + bytes(row * height)
write("image-bmp-palette-huge-16x12.bmp", bmp8(16, 12, 100000, 256))

# TIFF (ImageMagick's 30x20, one uncompressed strip): the strip offset moved past the end of the file; the
# strip byte count 1000 bytes too large with every row present.
def patch_tiff(data, tag, value):
    data = bytearray(data)
    ifd = struct.unpack_from("<I", data, 4)[0]
    for index in range(struct.unpack_from("<H", data, ifd)[0]):
        entry = ifd + 2 + 12 * index
        found, kind, count = struct.unpack_from("<HHI", data, entry)
        if found == tag:
            assert count == 1, "one strip expected"
            if kind == 3:
                struct.pack_into("<H", data, entry + 8, value)
            else:
                struct.pack_into("<I", data, entry + 8, value)
            return bytes(data)
    raise SystemExit("tag %d not found" % tag)
tiff = open("image-30x20.tiff", "rb").read()
write("image-tiff-strip-outside-30x20.tiff", patch_tiff(tiff, 273, len(tiff) + 4096))
ifd = struct.unpack_from("<I", tiff, 4)[0]
write("image-tiff-bytecount-long-30x20.tiff", patch_tiff(tiff, 279, 30 * 20 * 3 + 1000))

# HEIC whose mdat claims one byte more than the file has; every item extent iloc lists is in the file.
heic = bytearray(open("image-64x36.heic", "rb").read())
offset = 0
while offset < len(heic):
    size, kind = struct.unpack_from(">I4s", heic, offset)
    if kind == b"mdat":
        struct.pack_into(">I", heic, offset, size + 1)
    offset += size
write("image-heic-mdat-short-64x36.heic", bytes(heic))

# HEIC whose primary item (item 2, a grid) gains a clean aperture and a 90° irot, associated in the given order
# (libheif applies them in that order). The new properties go at the end of ipco and of item 2's ipma entry, so
# every box that holds them grows by 51 bytes and item 1's base offset (its data in mdat) moves too.
# clap 50x30 then irot: 64x36 -> 50x30 -> 30x50. irot then clap 20x40: 64x36 -> 36x64 -> 20x40.
def heic_transformed(name, clap_width, clap_height, clap_first):
    heic = bytearray(open("image-64x36.heic", "rb").read())
    def find(data, kind, start, end):
        offset = start
        while offset < end:
            size, found = struct.unpack_from(">I4s", data, offset)
            if found == kind:
                return offset, size
            offset += size
        raise SystemExit("no %s" % kind)
    meta, meta_size = find(heic, b"meta", 0, len(heic))
    iprp, iprp_size = find(heic, b"iprp", meta + 12, meta + meta_size)
    ipco, ipco_size = find(heic, b"ipco", iprp + 8, iprp + iprp_size)
    ipma, ipma_size = find(heic, b"ipma", iprp + 8, iprp + iprp_size)
    iloc, iloc_size = find(heic, b"iloc", meta + 12, meta + meta_size)
    assert heic[ipma + 8:ipma + 20] == bytes.fromhex("000000000000000200010281")
    assert heic[ipma + 21:ipma + 24] == b"\x00\x02\x02"
    clap = struct.pack(">I4s8I", 40, b"clap", clap_width, 1, clap_height, 1, 0, 1, 0, 1)
    irot = struct.pack(">I4sB", 9, b"irot", 1)
    growth = len(clap) + len(irot) + 2
    # iloc version 1, 4-byte offsets, lengths and base offsets: item 1 (method 0) has its base offset in mdat.
    assert heic[iloc + 8] == 1 and heic[iloc + 12:iloc + 14] == b"\x44\x40"
    item1 = iloc + 16
    assert struct.unpack_from(">HHH", heic, item1) == (1, 0, 0)
    base = item1 + 6
    struct.pack_into(">I", heic, base, struct.unpack_from(">I", heic, base)[0] + growth)
    first, second = (clap, irot) if clap_first else (irot, clap)
    out = (heic[:ipco + ipco_size] + first + second + heic[ipco + ipco_size:ipma + ipma_size] + bytes([0x85, 0x86])
           + heic[ipma + ipma_size:])
    out[ipma + len(clap) + len(irot) + 23] = 4  # item 2 now has 4 associations
    for offset, size, extra in [(meta, meta_size, growth), (iprp, iprp_size, growth), (ipco, ipco_size, growth - 2)]:
        struct.pack_into(">I", out, offset, size + extra)
    moved_ipma = ipma + len(clap) + len(irot)
    struct.pack_into(">I", out, moved_ipma, ipma_size + 2)
    open(name, "wb").write(bytes(out))
heic_transformed("image-heic-clap-irot-30x50.heic", 50, 30, True)
heic_transformed("image-heic-irot-clap-20x40.heic", 20, 40, False)

# ICO/CUR, from small PNG and BMP (BITMAPINFOHEADER, XOR + AND masks) entries.
def png_rgba(side):
    rows = b"".join(b"\0" + bytes((x * 5 + y * 3) & 0xFF for x in range(side * 4)) for y in range(side))
    return png(side, side, 6, rows)
def dib(side):
    xor = bytes(side * side * 4)
    mask = bytes(((side + 31) // 32 * 4) * side)
    return struct.pack("<IiiHHIIiiII", 40, side, side * 2, 1, 32, 0, len(xor) + len(mask), 0, 0, 0, 0) + xor + mask
def icon(kind, entries):
    # entries: (directory width, directory height, planes-or-hotspot-x, bits-or-hotspot-y, data)
    head = struct.pack("<HHH", 0, kind, len(entries))
    offset = 6 + 16 * len(entries)
    directory = b""
    for width, height, a, b, data in entries:
        directory += struct.pack("<BBBBHHII", width, height, 0, 0, a, b, len(data), offset)
        offset += len(data)
    return head + directory + b"".join(e[4] for e in entries)
write("image-cursor-32x32.cur", icon(2, [(32, 32, 4, 6, dib(32))]))  # hotspot (4, 6)
# Three entries; the 48x48 PNG's directory entry says 0x0 (256x256): its IHDR is what decoders use.
write("image-icon-multi-48x48.ico", icon(1, [(16, 16, 1, 32, png_rgba(16)), (0, 0, 1, 32, png_rgba(48)),
                                            (32, 32, 1, 32, dib(32))]))
# The directory says 16x16; the embedded PNG's IHDR claims 100000x100000 (a decompression bomb).
bomb = png(100000, 100000, 6, b"", idat=[chunk(b"IDAT", zlib.compress(bytes(4096)))])
write("image-icon-bomb.ico", icon(1, [(16, 16, 1, 32, png_rgba(16)), (16, 16, 1, 32, bomb)]))
PY
# END image-classes
# Issue 30: the classes decoders' own test corpora (libpng, libtiff, libheif, the BMP suite) showed the sniffer
# missing or over-reporting. Byte by byte from scratch or from a real encoder's output, one defect each; the verdicts
# are in MediaProbeTests/ImageDecoderClassTests.swift. To run this section alone, from this folder:
#   sed -n '/^# BEGIN image-classes-30/,/^# END image-classes-30/p' generate.sh | IM=/usr/bin/convert bash -e
# BEGIN image-classes-30
"$IM" -size 64x36 gradient:red-blue png:/tmp/mp-heic-src.png
"$IM" -size 64x36 gradient:red-blue \( -size 64x36 gradient:white-black -rotate 90 -resize 64x36! \) \
    -compose CopyOpacity -composite png:/tmp/mp-heic-alpha-src.png
# libheif's heif-enc: a primary grid with a 16x8 thumbnail, and one with an alpha plane; both put the secondary
# item's data last in mdat.
heif-enc -q 20 -t 16 /tmp/mp-heic-src.png -o /tmp/mp-heic-thumb.heic
heif-enc -q 20 /tmp/mp-heic-alpha-src.png -o /tmp/mp-heic-alpha.heic
python3 - <<'PY'
import struct, zlib

def write(name, data):
    open(name, "wb").write(data)

# HEIC: the file cut inside the data of the last item in iloc (the thumbnail's tile; the alpha plane's tile).
def cut_last_item(source, name):
    heic = open(source, "rb").read()
    offset = 0
    while offset < len(heic):
        size, kind = struct.unpack_from(">I4s", heic, offset)
        if kind == b"meta":
            meta_end = offset + size
            inner = offset + 12
            while inner < meta_end:
                box_size, box_kind = struct.unpack_from(">I4s", heic, inner)
                if box_kind == b"iloc":
                    iloc = heic[inner:inner + box_size]
                inner += box_size
        offset += size
    # iloc version 1, 4-byte offsets/lengths/base offsets, no index: the last method-0 item's extent.
    assert iloc[8] == 1 and iloc[12:14] == b"\x44\x40"
    count = struct.unpack_from(">H", iloc, 14)[0]
    at, last = 16, None
    for _ in range(count):
        item, method, _, base, extents = struct.unpack_from(">HHHIH", iloc, at)
        at += 12
        for _ in range(extents):
            extent_offset, length = struct.unpack_from(">II", iloc, at)
            at += 8
            if method & 0xF == 0:
                last = (base + extent_offset, length)
    start, length = last
    assert start + length == len(heic), "the last extent must end the file"
    write(name, heic[:start + length // 2])
cut_last_item("/tmp/mp-heic-thumb.heic", "image-heic-thumbnail-cut-64x36.heic")
cut_last_item("/tmp/mp-heic-alpha.heic", "image-heic-alpha-cut-64x36.heic")

# PNG: IHDR with compression method 1, filter method 64 (MNG's intrapixel differencing), interlace method 2.
def chunk(kind, data):
    return struct.pack(">I", len(data)) + kind + data + struct.pack(">I", zlib.crc32(kind + data))
rows = b"".join(b"\0" + bytes((x * 13 + y * 7) & 0xFF for x in range(60)) for y in range(10))
def png_methods(compression, filter_method, interlace):
    ihdr = struct.pack(">IIBBBBB", 20, 10, 8, 2, compression, filter_method, interlace)
    return (b"\x89PNG\r\n\x1a\n" + chunk(b"IHDR", ihdr) + chunk(b"IDAT", zlib.compress(rows, 9))
            + chunk(b"IEND", b""))
write("image-png-compression-1-20x10.png", png_methods(1, 0, 0))
write("image-png-filter-64-20x10.png", png_methods(0, 64, 0))
write("image-png-interlace-2-20x10.png", png_methods(0, 0, 2))

# TIFF, 30x20 8-bit grey, Adobe deflate strips (so Pillow reads them through libtiff too).
grey = [bytes((x * 8 + y * 5) & 0xFF for x in range(30)) for y in range(20)]
def tiff(rows_per_strip, listed=None, counts=None, big=False):
    strips = [zlib.compress(b"".join(grey[y:y + rows_per_strip]), 9) for y in range(0, 20, rows_per_strip)]
    listed = len(strips) if listed is None else listed
    entry_size, head = (20, 16) if big else (12, 8)
    tags = 9
    ifd_size = (8 if big else 2) + tags * entry_size + (8 if big else 4)
    value_type, width = (16, 8) if big else (4, 4)
    arrays_at = head + ifd_size
    array_bytes = listed * width
    data_at = arrays_at + 2 * array_bytes
    offsets, position = [], data_at
    for strip in strips:
        offsets.append(position)
        position += len(strip)
    counts = [len(strip) for strip in strips] if counts is None else counts
    def entry(tag, kind, count, value):
        if big:
            return struct.pack("<HHQQ", tag, kind, count, value)
        return struct.pack("<HHII", tag, kind, count, value)
    def array_entry(tag, values, at):
        values = values[:listed]
        if len(values) * width <= (8 if big else 4):
            return entry(tag, value_type, len(values), values[0]), b""
        return entry(tag, value_type, len(values), at), struct.pack("<%d%s" % (len(values), "Q" if big else "I"), *values)
    offsets_entry, offsets_array = array_entry(273, offsets, arrays_at)
    counts_entry, counts_array = array_entry(279, counts, arrays_at + array_bytes)
    entries = [entry(256, 3, 1, 30), entry(257, 3, 1, 20), entry(258, 3, 1, 8), entry(259, 3, 1, 8),
               entry(262, 3, 1, 1), offsets_entry, entry(277, 3, 1, 1), entry(278, 3, 1, rows_per_strip),
               counts_entry]
    header = b"II+\0" + struct.pack("<HHQ", 8, 0, head) if big else b"II*\0" + struct.pack("<I", head)
    ifd = (struct.pack("<Q", tags) if big else struct.pack("<H", tags)) + b"".join(entries)
    ifd += struct.pack("<Q", 0) if big else struct.pack("<I", 0)
    arrays = offsets_array.ljust(array_bytes, b"\0") + counts_array.ljust(array_bytes, b"\0")
    body = header + ifd + arrays
    assert len(body) == data_at
    return body + b"".join(strips)
write("image-tiff-deflate-strips-30x20.tiff", tiff(5))
# RowsPerStrip 5 needs 4 strips; StripOffsets and StripByteCounts list 2 (the first 10 rows).
write("image-tiff-strips-short-30x20.tiff", tiff(5, listed=2))
# BigTIFF, one strip whose byte count is 2^64 - 256: offset + count overflows 64 bits.
write("image-tiff-bytecount-overflow-30x20.tiff", tiff(20, counts=[(1 << 64) - 256], big=True))

# BMP RLE8 / RLE4, 16x12, a 4-colour palette. Codes per stored row (bottom row first).
def bmp_rle(rows, rle4=False, cut=None):
    data = b"".join(rows)
    if cut is not None:
        data = data[:cut]
    palette = b"".join(struct.pack("<BBBB", b, g, r, 0) for r, g, b in [(0, 0, 0), (255, 0, 0), (0, 160, 0), (0, 0, 255)])
    offset = 14 + 40 + len(palette)
    info = struct.pack("<IiiHHIIiiII", 40, 16, 12, 1, 4 if rle4 else 8, 2 if rle4 else 1, len(data), 2835, 2835, 4, 0)
    return b"BM" + struct.pack("<IHHI", offset + len(data), 0, 0, offset) + info + palette + data
EOL, EOB = b"\0\0", b"\0\1"
def row8(y):  # 4 absolute pixels, then a run of 12
    return b"\0\4" + bytes((y + i) % 4 for i in range(4)) + bytes([12, 1 + y % 3])
good8 = [row8(y) + (EOB if y == 11 else EOL) for y in range(12)]
write("image-bmp-rle8-16x12.bmp", bmp_rle(good8))
# Row 6: an absolute run of 20 pixels in a 16-pixel row (the BMP suite's b/badrle class).
write("image-bmp-rle8-row-overrun-16x12.bmp", bmp_rle(good8[:5] + [b"\0\x14" + bytes(20) + EOL] + good8[6:]))
# Row 4: a delta of 20 pixels to the right.
write("image-bmp-rle8-delta-outside-16x12.bmp", bmp_rle(good8[:3] + [b"\0\2\x14\0" + EOL] + good8[4:]))
# The data cut after 7 rows, without an end-of-bitmap (bfSize says the file's real size).
write("image-bmp-rle8-cut-16x12.bmp", bmp_rle(good8, cut=sum(len(r) for r in good8[:7])))
# An end-of-bitmap after 6 rows (the BMP suite's q/pal8rlecut class): the rest is undefined.
write("image-bmp-rle8-early-end-16x12.bmp", bmp_rle(good8[:5] + [row8(5) + EOB]))
# Row 3's run is 20 pixels long in a 16-pixel row: decoders clip it.
write("image-bmp-rle8-run-clipped-16x12.bmp", bmp_rle(good8[:2] + [b"\0\4\1\2\3\0" + bytes([20, 2]) + EOL] + good8[3:]))
def row4(y):  # 4 absolute pixels (2 bytes), then a run of 12 alternating colours
    return b"\0\4" + bytes([(y % 4) << 4 | 1, 2 << 4 | 3]) + bytes([12, (1 + y % 3) << 4 | 2])
good4 = [row4(y) + (EOB if y == 11 else EOL) for y in range(12)]
write("image-bmp-rle4-16x12.bmp", bmp_rle(good4, rle4=True))
write("image-bmp-rle4-row-overrun-16x12.bmp",
      bmp_rle(good4[:5] + [b"\0\x14" + bytes(10) + EOL] + good4[6:], rle4=True))
PY
rm -f /tmp/mp-heic-src.png /tmp/mp-heic-alpha-src.png /tmp/mp-heic-thumb.heic /tmp/mp-heic-alpha.heic
# END image-classes-30
# ImageMagick's Debian policy forbids writing PDF, so a minimal one-page PDF is written by hand.
printf '%%PDF-1.4\n1 0 obj<</Type/Catalog/Pages 2 0 R>>endobj\n2 0 obj<</Type/Pages/Kids[3 0 R]/Count 1>>endobj\n3 0 obj<</Type/Page/Parent 2 0 R/MediaBox[0 0 72 72]>>endobj\ntrailer<</Root 1 0 R>>\n%%%%EOF\n' > document.pdf
cat > image.svg <<'SVG'
<?xml version="1.0" encoding="UTF-8"?>
<svg xmlns="http://www.w3.org/2000/svg" width="120" height="40" viewBox="0 0 120 40"><rect width="120" height="40" fill="#c33"/></svg>
SVG
cat > error-page.html <<'HTML'
<!DOCTYPE html>
<html><head><title>404 Not Found</title></head><body><h1>Not Found</h1><p>The requested URL was not found on this server.</p></body></html>
HTML
printf '{"error":"not_found","status":404}\n' > error.json
printf 'Access denied\n' > error.txt

# Video ----------------------------------------------------------------------------------------------------------
SRC="testsrc=size=64x48:rate=5:duration=1"
ffmpeg -loglevel error -y -f lavfi -i "$SRC" -c:v libx264 -preset ultrafast -crf 45 -pix_fmt yuv420p \
    -movflags +faststart video-faststart-64x48.mp4
ffmpeg -loglevel error -y -f lavfi -i "$SRC" -c:v libx264 -preset ultrafast -crf 45 -pix_fmt yuv420p \
    video-moov-at-end-64x48.mp4
ffmpeg -loglevel error -y -f lavfi -i "$SRC" -c:v libx264 -preset ultrafast -crf 45 -pix_fmt yuv420p \
    -movflags +faststart video-64x48.mov
ffmpeg -loglevel error -y -f lavfi -i "$SRC" -c:v libvpx -b:v 20k video-64x48.webm
ffmpeg -loglevel error -y -f lavfi -i "testsrc=size=32x24:rate=2:duration=1" -c:v mpeg2video -b:v 20k \
    -f mpegts video-32x24.ts
# HEVC: ffmpeg tags HEVC in MP4 as 'hev1' by default, which AVPlayer refuses; '-tag:v hvc1' is what plays.
ffmpeg -loglevel error -y -f lavfi -i "testsrc=size=64x48:rate=5:duration=1" -c:v libx265 -x265-params log-level=none \
    -crf 45 -pix_fmt yuv420p -movflags +faststart video-hevc-hev1-64x48.mp4
ffmpeg -loglevel error -y -f lavfi -i "testsrc=size=64x48:rate=5:duration=1" -c:v libx265 -x265-params log-level=none \
    -crf 45 -pix_fmt yuv420p -tag:v hvc1 -movflags +faststart video-hevc-hvc1-64x48.mp4
# A portrait phone video: stored 64x48 with a 90° rotation matrix, shown 48x64. Plus an audio-only MP4.
# (ffmpeg 5.1 writes the rotation matrix only when stream-copying, hence the second pass.)
ffmpeg -loglevel error -y -i video-faststart-64x48.mp4 -c copy -metadata:s:v:0 rotate=90 -movflags +faststart \
    video-rotated-64x48.mp4
ffmpeg -loglevel error -y -f lavfi -i "sine=frequency=440:duration=1" -c:a aac -b:a 16k -movflags +faststart audio-only.m4a
# HLS: a tiny VOD media playlist written by ffmpeg (the segment itself is not kept: tests only parse the text).
tmp=$(mktemp -d)
ffmpeg -loglevel error -y -f lavfi -i "testsrc=size=32x24:rate=2:duration=4" -c:v libx264 -preset ultrafast \
    -crf 45 -hls_time 2 -hls_playlist_type vod -hls_segment_filename "$tmp/seg%d.ts" "$tmp/media.m3u8"
cp "$tmp/media.m3u8" hls-ffmpeg-media.m3u8
rm -rf "$tmp"
cat > hls-master.m3u8 <<'M3U8'
#EXTM3U
#EXT-X-VERSION:6
#EXT-X-INDEPENDENT-SEGMENTS
#EXT-X-MEDIA:TYPE=AUDIO,GROUP-ID="aud",NAME="English",LANGUAGE="en",DEFAULT=YES,AUTOSELECT=YES,URI="audio/en.m3u8"
#EXT-X-MEDIA:TYPE=CLOSED-CAPTIONS,GROUP-ID="cc",NAME="CC1",INSTREAM-ID="CC1"
#EXT-X-STREAM-INF:BANDWIDTH=1280000,AVERAGE-BANDWIDTH=1000000,RESOLUTION=640x360,CODECS="avc1.4d401e,mp4a.40.2",AUDIO="aud",CLOSED-CAPTIONS="cc"
low/index.m3u8
#EXT-X-STREAM-INF:BANDWIDTH=2560000,RESOLUTION=1280x720,FRAME-RATE=29.970,CODECS="avc1.4d401f,mp4a.40.2",AUDIO="aud"
../hi/index.m3u8?token=secret
#EXT-X-I-FRAME-STREAM-INF:BANDWIDTH=86000,URI="low/iframe.m3u8"
M3U8
cat > hls-media-encrypted.m3u8 <<'M3U8'
#EXTM3U
#EXT-X-VERSION:7
#EXT-X-TARGETDURATION:6
#EXT-X-MEDIA-SEQUENCE:100
#EXT-X-PLAYLIST-TYPE:VOD
#EXT-X-MAP:URI="init.mp4"
#EXT-X-KEY:METHOD=AES-128,URI="https://keys.example.com/key?id=1",IV=0x0123456789ABCDEF0123456789ABCDEF
#EXTINF:6.006,
seg100.m4s
#EXT-X-BYTERANGE:1000@2000
#EXTINF:5.5,Second segment
/abs/seg101.m4s
#EXTINF:4,
http://cdn.example.com/seg102.m4s
#EXT-X-ENDLIST
M3U8
# Video and HLS verdict classes (issue 16) ------------------------------------------------------------------------
# H.264 profiles Apple devices do not decode: High 4:4:4 Predictive (yuv444p), High 4:2:2 (yuv422p), High 10.
for spec in "high444 yuv444p" "high422 yuv422p" "high10 yuv420p10le"; do
    set -- $spec
    ffmpeg -loglevel error -y -f lavfi -i "$SRC" -c:v libx264 -preset ultrafast -crf 45 -pix_fmt "$2" \
        -movflags +faststart "video-h264-$1-64x48.mp4"
done
# HEVC in MPEG-TS (Apple's HLS authoring spec: HEVC must be fMP4) and an fMP4 HLS init segment tagged hev1.
ffmpeg -loglevel error -y -f lavfi -i "testsrc=size=32x24:rate=2:duration=1" -c:v libx265 \
    -x265-params log-level=none -crf 45 -pix_fmt yuv420p -f mpegts video-hevc-32x24.ts
tmp=$(mktemp -d)
ffmpeg -loglevel error -y -f lavfi -i "testsrc=size=32x24:rate=2:duration=2" -c:v libx265 \
    -x265-params log-level=none -crf 45 -pix_fmt yuv420p -tag:v hev1 -f hls -hls_time 1 -hls_playlist_type vod \
    -hls_segment_type fmp4 -hls_fmp4_init_filename init.mp4 -hls_segment_filename "$tmp/s%d.m4s" "$tmp/m.m3u8"
cp "$tmp/init.mp4" video-hevc-hev1-init.mp4
rm -rf "$tmp"
# hev1 HEVC with moov at the end. The served copy (../www/video/classes/hev1-moov-at-end.mp4) has its mdat padded
# with zeros at its end past the 64 KiB range probe (no sample offset moves; decoders never read unreferenced mdat
# bytes), so codec and size are only in the tail; this folder keeps the small unpadded file.
ffmpeg -loglevel error -y -f lavfi -i "testsrc=size=64x48:rate=5:duration=1" -c:v libx265 \
    -x265-params log-level=none -crf 45 -pix_fmt yuv420p video-hevc-hev1-moov-at-end-64x48.mp4
mkdir -p ../www/video/classes
python3 - video-hevc-hev1-moov-at-end-64x48.mp4 ../www/video/classes/hev1-moov-at-end.mp4 <<'PY'
import struct, sys
data = bytearray(open(sys.argv[1], "rb").read())
offset, pad = 0, 64 * 1024
while offset < len(data):
    size, kind = struct.unpack(">I4s", data[offset:offset + 8])
    if kind == b"mdat":
        end = offset + size
        data[offset:offset + 4] = struct.pack(">I", size + pad)
        data[end:end] = bytes(pad)
        break
    offset += size
assert data.find(b"moov") > 64 * 1024, "moov must lie beyond the first range"
open(sys.argv[2], "wb").write(data)
PY
printf '\xef\xbb\xbf#EXTM3U\n#EXT-X-TARGETDURATION:4\n#EXT-X-PLAYLIST-TYPE:VOD\n#EXTINF:4,\nseg0.ts\n#EXT-X-ENDLIST\n' \
    > hls-bom.m3u8
printf '#EXTM3U\n#EXT-X-TARGETDURATION:4\n#EXT-X-MEDIA-SEQUENCE:7\n#EXTINF:4,\nseg7.ts\n#EXTINF:4,\nseg8.ts\n#EXTINF:4,\n' \
    > hls-live-dangling.m3u8

# The same classes served by the fixture server (Fixtures/www/video/classes), end to end through check's probe.
www=../www/video/classes
: > "$www/empty.mp4"
cp ../www/video/hls/seg0.ts "$www/seg.ts"
cp "$www/seg.ts" "$www/seg0.ts"   # bom.m3u8's segment
cp "$www/seg.ts" "$www/seg8.ts"   # live-dangling.m3u8's newest segment (the one a live crawl fetches)
cp video-hevc-32x24.ts "$www/hevc.ts"
cp video-hevc-hev1-init.mp4 "$www/hev1-init.mp4"
cp hls-bom.m3u8 "$www/bom.m3u8"
cp hls-live-dangling.m3u8 "$www/live-dangling.m3u8"
printf '0123456789abcdef' > "$www/aes.key"
vod() {  # vod NAME [HEADER-LINE] SEGMENT...: a VOD media playlist
    local name=$1 header=$2
    shift 2
    { printf '#EXTM3U\n#EXT-X-VERSION:7\n#EXT-X-TARGETDURATION:4\n#EXT-X-PLAYLIST-TYPE:VOD\n'
      [ -n "$header" ] && printf '%s\n' "$header"
      for segment in "$@"; do printf '#EXTINF:4,\n%s\n' "$segment"; done
      printf '#EXT-X-ENDLIST\n'; } > "$www/$name"
}
vod middle-404.m3u8 "" seg.ts seg.ts missing.ts seg.ts seg.ts
vod last-404.m3u8 "" seg.ts seg.ts seg.ts seg.ts missing-last.ts
vod key-404.m3u8 '#EXT-X-KEY:METHOD=AES-128,URI="missing.key"' seg.ts seg.ts
vod key-ok.m3u8 '#EXT-X-KEY:METHOD=AES-128,URI="aes.key"' seg.ts seg.ts
vod hevc-ts.m3u8 "" hevc.ts
vod hev1-fmp4.m3u8 '#EXT-X-MAP:URI="hev1-init.mp4"' seg.ts
vod ok.m3u8 "" seg.ts seg.ts
cat > "$www/iframe-404.m3u8" <<'M3U8'
#EXTM3U
#EXT-X-STREAM-INF:BANDWIDTH=400000,RESOLUTION=320x240,CODECS="avc1.42e00a"
ok.m3u8
#EXT-X-I-FRAME-STREAM-INF:BANDWIDTH=40000,URI="missing-iframe.m3u8"
M3U8
cat > "$www/partial.m3u8" <<'M3U8'
#EXTM3U
#EXT-X-STREAM-INF:BANDWIDTH=400000,RESOLUTION=320x240,CODECS="avc1.42e00a"
ok.m3u8
#EXT-X-STREAM-INF:BANDWIDTH=4000000,RESOLUTION=1920x1080,CODECS="avc1.640028"
missing-variant.m3u8
M3U8
cat > "$www/hev1-only.m3u8" <<'M3U8'
#EXTM3U
#EXT-X-STREAM-INF:BANDWIDTH=400000,RESOLUTION=320x240,CODECS="hev1.1.6.L93.B0"
ok.m3u8
M3U8

# H.264 in MPEG-TS whose SPS gives the picture size (a variant playlist without RESOLUTION is sized from its first
# segment): frame cropping (180 of 192 rows), High with scaling matrices, 4:2:2 and 4:4:4 cropping units, interlaced.
ts() { ffmpeg -loglevel error -y -f lavfi -i "testsrc=size=$1:rate=10:duration=0.3" -c:v libx264 $2 -f mpegts \
    -fflags +bitexact "$3"; }
ts 320x180 "-preset ultrafast -crf 45 -profile:v baseline -pix_fmt yuv420p" h264-baseline-320x180.ts
ts 1280x720 "-preset medium -crf 45 -profile:v high -pix_fmt yuv420p -x264-params cqm=jvt" h264-high-cqm-1280x720.ts
ts 100x60 "-preset ultrafast -crf 45 -profile:v high422 -pix_fmt yuv422p" h264-high422-100x60.ts
ts 34x18 "-preset ultrafast -crf 45 -profile:v high444 -pix_fmt yuv444p" h264-high444-34x18.ts
ts 640x360 "-preset ultrafast -crf 45 -pix_fmt yuv420p -x264-params interlaced=1" h264-interlaced-640x360.ts
# A master whose second variant has no RESOLUTION: its first segment says 640x360.
cat > "$www/no-resolution.m3u8" <<'M3U8'
#EXTM3U
#EXT-X-STREAM-INF:BANDWIDTH=400000,RESOLUTION=320x180,CODECS="avc1.42c00d"
../reveal/360p/index.m3u8
#EXT-X-STREAM-INF:BANDWIDTH=1200000,CODECS="avc1.42c01e"
nores-640.m3u8
M3U8
cat > "$www/nores-640.m3u8" <<'M3U8'
#EXTM3U
#EXT-X-VERSION:3
#EXT-X-TARGETDURATION:1
#EXT-X-PLAYLIST-TYPE:VOD
#EXTINF:0.5,
nores-640.ts
#EXT-X-ENDLIST
M3U8
ffmpeg -loglevel error -y -f lavfi -i "testsrc=size=640x360:rate=10:duration=0.5" -c:v libx264 -preset ultrafast \
    -crf 45 -profile:v baseline -pix_fmt yuv420p -f mpegts -fflags +bitexact "$www/nores-640.ts"

du -sh .
