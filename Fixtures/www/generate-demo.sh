#!/usr/bin/env bash
# Regenerates the assets the demo campaign (Fixtures/campaigns/demo.json) references, as the fixture server
# serves them under https://cdn.example.com/ (mapped with --connect-to in `make demo`). Run once by hand; the
# outputs are committed (CI installs none of these tools). Tools, from Debian 12: imagemagick ffmpeg fonts-liberation.
# Some assets are broken ON PURPOSE, so the demo shows what `check` finds:
#   inbox/new-season-banner.jpg  an HTML error page served as image/jpeg (200)  → the banner card renders broken
#   inbox/gifts-4.jpg            missing (404)                                   → the gifts carousel renders broken
#   inbox/flash-deal.png         a 4000×4000 PNG (64 MB decoded) on a classic card → a warning only
#   passes/loyalty-abc123.pkpass a pass whose certificate extension does not match pass.json → wallet card broken
# Others are fine on one platform and broken on the other (each platform judges by its own rules):
#   inbox/autumn-lookbook.tiff   a TIFF hero: iOS (ImageIO) shows it, Android has no TIFF decoder → broken there
#   video/teaser.webm            a VP9 WebM video: Android's MediaPlayer plays it, AVPlayer cannot → broken on iOS
set -euo pipefail
cd "$(dirname "$0")"
IM=/usr/bin/convert
export SOURCE_DATE_EPOCH=0
mkdir -p inbox passes video/reveal/360p

hero() {  # file, size, from, to, label
    "$IM" -size "$2" gradient:"$3"-"$4" -gravity center -pointsize 52 -fill white -annotate 0 "$5" \
        -quality 60 -strip "$1"
}
hero inbox/summer-sale.png 800x400 '#ff7e5f' '#feb47b' 'Summer sale'
hero inbox/loyalty.png 800x400 '#134e5e' '#71b280' 'Loyalty card'
hero inbox/reveal-poster.jpg 640x360 '#0f2027' '#2c5364' 'Product reveal'
for i in 1 2 3; do hero "inbox/arrivals-$i.jpg" 600x600 '#4568dc' '#b06ab3' "New in #$i"; done
for i in 1 2 3 5 6; do hero "inbox/gifts-$i.jpg" 600x600 '#c31432' '#240b36' "Gift idea #$i"; done
for i in 1 2; do hero "inbox/lookbook-$i.jpg" 600x600 '#373b44' '#4286f4' "Lookbook #$i"; done
hero inbox/studio.jpg 640x360 '#232526' '#414345' 'Studio'
"$IM" -size 4000x4000 xc:'#ffcc00' -strip inbox/flash-deal.png
"$IM" -size 800x400 gradient:'#8e2de2'-'#4a00e0' -gravity center -font /usr/share/fonts/truetype/liberation/LiberationSans-Regular.ttf -pointsize 52 \
    -fill white -annotate 0 'Autumn lookbook' -compress zip -strip inbox/autumn-lookbook.tiff
ffmpeg -loglevel error -y -f lavfi -i "testsrc=size=320x180:rate=15:duration=2" -c:v libvpx-vp9 -b:v 100k \
    -pix_fmt yuv420p -f webm -fflags +bitexact video/teaser.webm
cat > inbox/new-season-banner.jpg <<'HTML'
<!DOCTYPE html>
<html><head><title>502 Bad Gateway</title></head>
<body><h1>502 Bad Gateway</h1><p>The origin did not answer. Please try again later.</p></body></html>
HTML
rm -f inbox/gifts-4.jpg
cp ../passes/corpus/pkpassvalidator__bad.pkpass passes/loyalty-abc123.pkpass

# HLS: a master playlist with one 320×180 variant of two 1-second segments.
ffmpeg -loglevel error -y -f lavfi -i "testsrc=size=320x180:rate=15:duration=2" -c:v libx264 -profile:v baseline \
    -pix_fmt yuv420p -g 15 -f hls -hls_time 1 -hls_list_size 0 -hls_segment_filename 'video/reveal/360p/seg%d.ts' \
    video/reveal/360p/index.m3u8
cat > video/reveal/master.m3u8 <<'M3U8'
#EXTM3U
#EXT-X-VERSION:3
#EXT-X-STREAM-INF:BANDWIDTH=400000,RESOLUTION=320x180,CODECS="avc1.42c00d"
360p/index.m3u8
M3U8
