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

du -sh .
