#!/usr/bin/env bash
# Item g of `make bench` (issue 15): the shared remote cache and sharded runs, called by bench/run.sh:
#   bash bench/remote.sh BIN WORK RESULTS RUNS
# One nginx on 127.0.0.1 (run as this user, `daemon off` in the background, stopped on exit) with two servers: the
# origin (FILES generated PNGs of 1–8 KB, `Cache-Control: max-age=3600` as a CDN sends) and a WebDAV remote cache
# (`dav_methods PUT DELETE; create_full_put_path on; client_max_body_size 0`), each with its own access log. Measures:
#   g1. a first runner (empty local store, empty remote) vs a second runner (empty local store, warm remote): wall
#       time, and the origin body bytes of the second (from the origin's access log: must be 0);
#   g2. the second runner's remote download of FILES small blobs vs curl --parallel fetching the same /cas/ URLs
#       (to /dev/null, the target's peer; to files, the like-for-like one; and the /ac/ + /cas/ pairs the runner
#       asks for) from the same nginx: whole commands (hyperfine), and the
#       download phase alone as nginx's access log saw it (`$msec`, `$request_time`; bench/download-window.py);
#   g3. prefetch of the FILES-message feed as N = 2 sharded processes at once (`--shard 1/2`, `--shard 2/2`, one
#       store each) vs one process, fresh stores, no remote.
# Leaves hyperfine JSON exports and side files in RESULTS for bench/report.py.
#
# Environment: BENCH_FILES (10000), BENCH_CONCURRENCY (16: `--concurrency N --host-concurrency N`, `--parallel-max N`),
# BENCH_REMOTE_ITEMS ("g1 g2 g3": which measurements to run; the remote is warmed whatever the choice, e.g. `g2` alone
# while working on the remote's read path).
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
# shellcheck source=bench/nginx-common.sh
. "$here/nginx-common.sh"

bin="$1"
work="$2/remote"
results="$3"
runs="$4"
files="${BENCH_FILES:-10000}"
n="${BENCH_CONCURRENCY:-16}"
items=" ${BENCH_REMOTE_ITEMS:-g1 g2 g3} "
wanted() { [[ "$items" == *" $1 "* ]]; }

rm -rf "$work"
mkdir -p "$work/origin/s" "$work/cache" "$work/logs" "$work/tmp"

python3 "$here/gen-pngs.py" 15 "$work/origin/s/g-{:05d}.png:$files"
du -sb "$work/origin/s" | cut -f1 >"$results/g-bytes.txt"

read -r origin_port cache_port < <(free_ports 2)
cat >"$work/nginx.conf" <<EOF
worker_processes 1;
master_process off;  # one process as this user: the WebDAV server writes the cache directory itself
pid $work/nginx.pid;
error_log $work/logs/error.log warn;
events { worker_connections 1024; }
http {
    types { image/png png; }
    default_type application/octet-stream;
    log_format bench '\$status \$body_bytes_sent \$request_method \$request_uri \$msec \$request_time';
$(nginx_http_common "$work")
    server {
        listen 127.0.0.1:$origin_port;
        access_log $work/logs/origin.log bench;
        root $work/origin;
        add_header Cache-Control "max-age=3600";
    }
    server {
        listen 127.0.0.1:$cache_port;
        access_log $work/logs/cache.log bench;
        root $work/cache;
        dav_methods PUT DELETE;
        create_full_put_path on;
        client_max_body_size 0;
    }
}
EOF
nginx -p "$work" -c "$work/nginx.conf" -g 'daemon off;' &
nginx_pid=$!
trap 'kill "$nginx_pid" 2>/dev/null; wait "$nginx_pid" 2>/dev/null || true' EXIT
for _ in $(seq 50); do
    curl -sf -o /dev/null "http://127.0.0.1:$origin_port/s/g-00000.png" && break
    sleep 0.1
done
origin="http://127.0.0.1:$origin_port"
remote="http://127.0.0.1:$cache_port/ci"
net="--concurrency $n --host-concurrency $n"

# A createMessage request of FILES notifications, one image each (banner, captioned, classic in turn).
python3 - "$origin" "$files" "$work/feed.json" <<'PY'
import json, sys

base, files, out = sys.argv[1], int(sys.argv[2]), sys.argv[3]
notifications = [{"content": f"Offer {i}", "inbox_image": f"{base}/s/g-{i:05d}.png", "inbox_days": 1,
                  "data": {"displayType": ["banner", "captioned", "classic"][i % 3]}} for i in range(files)]
with open(out, "w") as f:
    json.dump({"request": {"notifications": notifications}}, f)
PY

measure() {
    local name="$1"
    shift
    hyperfine --style basic --export-json "$results/$name.json" "$@"
}
summary='import json, sys; s = json.load(sys.stdin)["summary"]; print(s["assets"], s["fetched"], s["fromRemote"], s["bytesFetched"], s["failed"])'

# MARK: g1. first runner (everything from origin, uploaded) vs second runner (warm remote, empty local store)
echo "==> g1. $files assets: first runner vs a second runner on a warm remote"
"$bin" prefetch "$work/feed.json" --store "$work/store" --remote-cache "$remote" $net --format json |
    python3 -c "$summary" >"$results/g-first-summary.txt"
find "$work/cache/ci/cas" -type f | wc -l >"$results/g-remote-blobs.txt"
rm -rf "$work/store"
: >"$work/logs/origin.log"
"$bin" prefetch "$work/feed.json" --store "$work/store" --remote-cache "$remote" $net --format json |
    python3 -c "$summary" >"$results/g-second-summary.txt"
sleep 0.2  # nginx writes the log line after the response
awk '{ n++; bytes += $2 } END { printf "%d %d\n", n, bytes }' "$work/logs/origin.log" >"$results/g-second-origin.txt"
wanted g1 && measure g1 --runs "$runs" --warmup 1 \
    --prepare "rm -rf $work/store $work/cache/ci" \
    -n "first runner: empty store, empty remote" \
    "$bin prefetch $work/feed.json --store $work/store --remote-cache $remote $net > /dev/null" \
    --prepare "rm -rf $work/store" \
    -n "second runner: empty store, warm remote" \
    "$bin prefetch $work/feed.json --store $work/store --remote-cache $remote $net > /dev/null"

# MARK: g2. remote download throughput vs curl --parallel on the same /cas/ (and /ac/) URLs
echo "==> g2. $files blobs from the remote vs curl --parallel"
find "$work/cache/ci/cas" -type f -printf "url = \"$remote/cas/%f\"\noutput = \"/dev/null\"\n" >"$work/cas.curl"
find "$work/cache/ci/ac" -type f -printf "url = \"$remote/ac/%f\"\noutput = \"/dev/null\"\n" >"$work/ac.curl"
cat "$work/ac.curl" "$work/cas.curl" >"$work/both.curl"
# The same blobs kept as files on the same tmpfs (one directory; what a user mirroring /cas/ with curl would do): the
# runner's like-for-like peer, next to the target's peer that discards them.
find "$work/cache/ci/cas" -type f -printf "url = \"$remote/cas/%f\"\noutput = \"$work/curl-files/%f\"\n" \
    >"$work/cas-files.curl"
wanted g2 && measure g2 --runs "$runs" --warmup 1 \
    -n "curl --parallel --parallel-max $n, /cas/ only" "curl -s --fail --parallel --parallel-max $n -K $work/cas.curl" \
    -n "curl --parallel --parallel-max $n, /ac/ + /cas/" "curl -s --fail --parallel --parallel-max $n -K $work/both.curl" \
    -n "curl --parallel --parallel-max $n, /cas/ to files" \
    "curl -s --fail --create-dirs --parallel --parallel-max $n -K $work/cas-files.curl" \
    --prepare "rm -rf $work/store $work/curl-files" \
    -n "inbox-assets prefetch, warm remote (/ac/ + /cas/)" \
    "$bin prefetch $work/feed.json --store $work/store --remote-cache $remote $net > /dev/null"
# The download phase as nginx saw it (bench/download-window.py), curl and the runner in turn, RUNS pairs: a
# client's whole wall time holds its start and, for the runner, reading and resolving the feed before any request.
window="python3 $here/download-window.py 1 $work/logs/cache.log"
wanted g2 && for _ in $(seq "$runs"); do
    echo "curl $($window "$work/no-store" curl -s --fail --parallel --parallel-max "$n" -K "$work/cas.curl")"
    # shellcheck disable=SC2086  # $net is two options
    echo "ours $($window "$work/store" "$bin" prefetch "$work/feed.json" --store "$work/store" \
        --remote-cache "$remote" $net)"
done >"$results/g2-windows.txt"

# MARK: g3. sharded prefetch: N = 2 processes at once vs one process (fresh stores, no remote)
echo "==> g3. prefetch as 2 shards at once vs one process"
cat >"$work/shards.sh" <<EOF
#!/usr/bin/env bash
set -e
"$bin" prefetch "$work/feed.json" --store "$work/shard-1" --shard 1/2 $net > /dev/null &
one=\$!
"$bin" prefetch "$work/feed.json" --store "$work/shard-2" --shard 2/2 $net > /dev/null &
two=\$!
wait \$one
wait \$two
EOF
wanted g3 && for i in 1 2; do
    "$bin" prefetch "$work/feed.json" --store "$work/shard-$i" --shard "$i/2" $net --format json |
        python3 -c "$summary"
done >"$results/g-shards-summary.txt"
wanted g3 && measure g3 --runs "$runs" --warmup 1 \
    --prepare "rm -rf $work/store" \
    -n "one process" "$bin prefetch $work/feed.json --store $work/store $net > /dev/null" \
    --prepare "rm -rf $work/shard-1 $work/shard-2" \
    -n "2 shards (--shard 1/2, 2/2) at once" "bash $work/shards.sh"
rm -rf "$work/store" "$work/shard-1" "$work/shard-2" "$work/cache" "$work/origin"
echo "$files $n" >"$results/g-params.txt"
