#!/usr/bin/env bash
# Item h of `make bench` (issue 29, check at scale), called by bench/run.sh:
#   bash bench/scale.sh BIN WORK RESULTS RUNS
# A feed of BENCH_SCALE_MESSAGES (100000) messages over BENCH_URLS (1000) distinct http:// images, served by nginx on
# 127.0.0.1 (as this user, `daemon off` in the background, stopped on exit), resolved for every profile of both
# platforms (`--platform all --android-sdk all`): `check --format json` against `resolve --format json` and
# `prefetch` into a fresh store of the same feed, in the same run; then peak RSS (GNU time's %M) and report size of
# check and resolve at 100,000 messages and of a BENCH_SCALE_HUGE (1000000)-message feed without assets.
# Leaves h1.json (hyperfine) and h-*.txt side files in RESULTS for bench/report.py.
set -euo pipefail

bin="$1"
work="$2/scale"
results="$3"
runs="$(($4 < 3 ? $4 : 3))"  # a check of 500,000 cards takes half a minute: three runs are enough for a median
messages="${BENCH_SCALE_MESSAGES:-100000}"
huge="${BENCH_SCALE_HUGE:-1000000}"
urls="${BENCH_URLS:-1000}"
here="$(cd "$(dirname "$0")" && pwd)"
# shellcheck source=bench/nginx-common.sh
. "$here/nginx-common.sh"

rm -rf "$work"
mkdir -p "$work/www/inbox" "$work/logs" "$work/tmp"
python3 "$here/gen-pngs.py" 8 "$work/www/inbox/img-{:04d}.png:$urls"
read -r port < <(free_ports 1)
cat >"$work/nginx.conf" <<CONF
worker_processes 1;
pid $work/nginx.pid;
error_log $work/logs/error.log warn;
events { worker_connections 1024; }
http {
    types { image/png png; }
    default_type application/octet-stream;
    access_log off;
$(nginx_http_common "$work")
    server { listen 127.0.0.1:$port; root $work/www; }
}
CONF
nginx -p "$work" -c "$work/nginx.conf" -g 'daemon off;' &
nginx_pid=$!
trap 'kill $nginx_pid 2>/dev/null; wait $nginx_pid 2>/dev/null; rm -rf "$work"' EXIT
for _ in $(seq 1 100); do curl -fsS -o /dev/null "http://127.0.0.1:$port/inbox/img-0000.png" 2>/dev/null && break; sleep 0.1; done

python3 "$here/gen-campaign.py" "$work/feed.ndjson" "$messages" "$urls"
sed -i 's#https://cdn\.example\.com/#http://cdn.example.com/#g' "$work/feed.ndjson"
python3 "$here/gen-campaign.py" "$work/huge.ndjson" "$huge" 0
cards="--platform all --android-sdk all"
net="--connect-to cdn.example.com:80:127.0.0.1:$port"
echo "$messages $huge $urls" >"$results/h-params.txt"

echo "==> h. check vs resolve + prefetch, $messages messages over $urls http:// images, every profile"
measure() { hyperfine --style basic --export-json "$results/$1.json" "${@:2}"; }
measure h1 --runs "$runs" --warmup 1 \
    -n "inbox-assets check --format json" \
    "$bin check $work/feed.ndjson $cards $net --no-store --fail-on never --quiet --format json > /dev/null" \
    -n "inbox-assets resolve --format json" "$bin resolve $work/feed.ndjson $cards --format json > /dev/null" \
    -n "inbox-assets prefetch, fresh store" --prepare "rm -rf $work/store" \
    "$bin prefetch $work/feed.ndjson $cards $net --store $work/store --quiet > /dev/null"

# Peak RSS, wall time, report bytes and cards: one line per command, "NAME RSS_KB SECONDS BYTES CARDS". The report
# is counted as it streams by (a report of millions of cards would not fit in tmpfs and memory beside the run): its
# byte count, and the card count from the JSON summary (resolve: near the top; check: at the end), the NDJSON
# summary line (the last); 0 for the other formats (the JSON run of the same feed has the count).
: >"$results/h-rss.txt"
rss() {
    local name="$1"
    shift
    local counted
    counted=$({ /usr/bin/time -f "%M %e" -o "$work/time.txt" "$@" || true; } | python3 -c '
import json, re, sys
size, head, tail = 0, b"", b""
while True:
    chunk = sys.stdin.buffer.read(1 << 20)
    if not chunk:
        break
    size += len(chunk)
    if len(head) < 65536:
        head += chunk[:65536]
    tail = (tail + chunk)[-65536:]
if head.startswith(b"{\n") and b"sarif" not in head[:200]:
    # resolve prints its summary first, check (schemaVersion 3) last.
    found = re.search(rb"\"cards\": (\d+)", head) or list(re.finditer(rb"\"cards\": (\d+)", tail))[-1]
    cards = int(found.group(1))
elif head.startswith(b"{\"type\""):
    cards = json.loads(tail.rstrip(b"\n").rsplit(b"\n", 1)[-1])["cards"]
else:
    cards = 0  # text, JUnit, SARIF, Markdown: the JSON run of the same feed says (bench/report.py)
print(size, cards)')
    echo "$name $(cat "$work/time.txt") $counted" >>"$results/h-rss.txt"
}
echo "==> h. peak RSS at $messages and $huge messages, every check format"
for format in json ndjson text junit sarif markdown; do
    rss "check-$format-$messages" "$bin" check "$work/feed.ndjson" $cards $net --no-store --fail-on never --quiet --format $format
done
rss "resolve-json-$messages" "$bin" resolve "$work/feed.ndjson" $cards --format json
for format in json ndjson text junit sarif markdown; do
    rss "check-$format-$huge" "$bin" check "$work/huge.ndjson" $cards --no-store --fail-on never --quiet --format $format
done
rss "resolve-json-$huge" "$bin" resolve "$work/huge.ndjson" $cards --format json
