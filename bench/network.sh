#!/usr/bin/env bash
# The network half of `make bench` (issue 8, items a, b, f and c's request count), called by bench/run.sh:
#   bash bench/network.sh BIN WORK RESULTS RUNS
# Serves generated files from nginx on 127.0.0.1 (run as this user with a generated nginx.conf under WORK/net,
# `daemon off` in the background, stopped on exit) over HTTP/1.1 and HTTPS with HTTP/2 (a throwaway certificate
# from `openssl req -x509`, passed to both clients with `--cacert`), and leaves hyperfine JSON exports and side files
# in RESULTS for bench/report.py.
#
# Environment: BENCH_FILES (10000 small files, 1–8 KB), BENCH_CONCURRENCY (16: `--concurrency N
# --host-concurrency N` for inbox-assets, `--parallel-max N` for curl), BENCH_H2_CONCURRENCY (default N: N for the HTTP/2
# runs), BENCH_VIDEO_MB (1024), BENCH_MESSAGES and BENCH_URLS (c: 100000
# messages sharing 1000 URLs, as run.sh).
set -euo pipefail

bin="$1"
work="$2/net"
results="$3"
runs="$4"
files="${BENCH_FILES:-10000}"
n="${BENCH_CONCURRENCY:-16}"
video_mb="${BENCH_VIDEO_MB:-1024}"
messages="${BENCH_MESSAGES:-100000}"
urls="${BENCH_URLS:-1000}"
here="$(cd "$(dirname "$0")" && pwd)"
# shellcheck source=bench/nginx-common.sh
. "$here/nginx-common.sh"

rm -rf "$work"
mkdir -p "$work/www/s" "$work/www/inbox" "$work/www/video" "$work/logs" "$work/tmp"

# MARK: content: FILES small PNGs (1–8 KB), URLS PNGs for c, a sparse VIDEO_MB MiB .mp4 for f
python3 "$here/gen-pngs.py" 8 "$work/www/s/f-{:05d}.png:$files" "$work/www/inbox/img-{:04d}.png:$urls"
du -sb "$work/www/s" | cut -f1 >"$results/a-bytes.txt"
# d (issue 14): FILES pass URLs, links to the passes run.sh generated (each pass under FILES / PASSES names).
mkdir -p "$work/www/passes"
pass_dir="$2/passes/passes"
pass_count=$(find "$pass_dir" -name '*.pkpass' | wc -l)
for i in $(seq 0 $((files - 1))); do
    ln -s "$pass_dir/$(printf 'pass-%05d.pkpass' $((i % pass_count)))" "$work/www/passes/$(printf 'p-%05d.pkpass' "$i")"
done
# Sparse: nginx serves VIDEO_MB MiB of zeros after an `ftyp` box without any disk or page cache to speak of.
printf '\x00\x00\x00\x18ftypisom\x00\x00\x02\x00isomiso2' >"$work/www/video/big.mp4"
truncate -s "${video_mb}M" "$work/www/video/big.mp4"

# MARK: throwaway certificate for 127.0.0.1 and cdn.example.com (c's campaign URLs, through --connect-to)
openssl req -x509 -newkey rsa:2048 -nodes -days 2 -subj "/CN=127.0.0.1" \
    -addext "subjectAltName=IP:127.0.0.1,DNS:localhost,DNS:cdn.example.com" \
    -keyout "$work/key.pem" -out "$work/cert.pem" 2>/dev/null

# MARK: nginx as this user, two free loopback ports
read -r http_port https_port < <(free_ports 2)
cat >"$work/nginx.conf" <<EOF
worker_processes 1;
pid $work/nginx.pid;
error_log $work/logs/error.log warn;
events { worker_connections 1024; }
http {
    types { image/png png; video/mp4 mp4; application/vnd.apple.pkpass pkpass; }
    default_type application/octet-stream;
    # One line per request: c counts them, b sums the body bytes of the re-run.
    log_format bench '\$status \$body_bytes_sent \$request_method \$request_uri \$server_protocol';
    access_log $work/logs/access.log bench;
$(nginx_http_common "$work")
    tcp_nopush on;
    server {
        listen 127.0.0.1:$http_port;
        listen 127.0.0.1:$https_port ssl http2;
        ssl_certificate $work/cert.pem;
        ssl_certificate_key $work/key.pem;
        root $work/www;
    }
}
EOF
nginx -p "$work" -c "$work/nginx.conf" -g 'daemon off;' &
nginx_pid=$!
trap 'kill "$nginx_pid" 2>/dev/null; wait "$nginx_pid" 2>/dev/null || true' EXIT
for _ in $(seq 50); do
    curl -sf -o /dev/null "http://127.0.0.1:$http_port/s/f-00000.png" && break
    sleep 0.1
done
nginx -v 2>&1 | sed 's/^nginx version: //' >"$results/net-nginx.txt"
curl --version | head -1 | cut -d' ' -f1-2 >"$results/net-curl.txt"
log="$work/logs/access.log"

# MARK: inputs for both protocols: URL list, curl config, NDJSON feed dump (one message per URL, as its `image`)
declare -A base=([h1]="http://127.0.0.1:$http_port" [h2]="https://127.0.0.1:$https_port")
declare -A tls=([h1]="" [h2]="--cacert $work/cert.pem")
declare -A curl_proto=([h1]="--http1.1" [h2]="--http2 --cacert $work/cert.pem")
for p in h1 h2; do
    python3 - "${base[$p]}" "$files" "$work/$p" <<'PY'
import json, sys

base, files, out = sys.argv[1], int(sys.argv[2]), sys.argv[3]
urls = [f"{base}/s/f-{i:05d}.png" for i in range(files)]
with open(out + ".urls", "w") as f:
    f.write("".join(u + "\n" for u in urls))
with open(out + ".curl", "w") as f:
    f.write("".join(f'url = "{u}"\noutput = "/dev/null"\n' for u in urls))
# The same downloads kept as files (what a user prefetching with curl would do): prefetch's like-for-like peer.
with open(out + ".curl-files", "w") as f:
    f.write("".join(f'url = "{u}"\noutput = "{out}-files/f-{i:05d}.png"\n' for i, u in enumerate(urls)))
with open(out + ".ndjson", "w") as f:
    for i, u in enumerate(urls):
        params = {"displayType": ["banner", "captioned", "classic"][i % 3]}
        # Every key both SDKs require of a feed message (inbox_id, order, rt, text, action_type, status; see
        # gen-campaign.py): without rt, action_type and status the iOS SDK drops the message, and so does resolve.
        f.write(json.dumps({"inbox_id": f"m{i}", "order": i, "send_date": 1764400000 + i, "rt": 4102444800,
                            "action_type": 0, "status": 1, "title": f"Offer {i}", "text": "Thirty percent off",
                            "image": u, "action_params": json.dumps(params)},
                           separators=(",", ":")) + "\n")
PY
done

# HTTP/2 runs at BENCH_H2_CONCURRENCY (default N); a-h2-at-n.txt records a probe --get at N outside the timing
# (the first run of this bench found every multiplexed HTTP/2 transfer failing at N > 1: the BUFFERSIZE fix).
h2n="${BENCH_H2_CONCURRENCY:-$n}"
declare -A conc=([h1]="$n" [h2]="$h2n")
measure() {
    local name="$1"
    shift
    hyperfine --style basic --export-json "$results/$name.json" "$@"
}

# MARK: a. 10,000 small files: probe --get and prefetch (fresh store) vs curl --parallel, per protocol
"$bin" probe --get - --concurrency "$n" --host-concurrency "$n" ${tls[h2]} <"$work/h2.urls" | tail -1 |
    sed -E 's/^([0-9]+) URLs: ([0-9]+) ok, ([0-9]+) failed.*/\1 \2 \3/' >"$results/a-h2-at-n.txt" || true
for p in h1 h2; do
    net="--concurrency ${conc[$p]} --host-concurrency ${conc[$p]}"
    # Once outside the timing: every URL must come back ok, and prefetch must fetch every one.
    "$bin" probe --get - $net ${tls[$p]} <"$work/$p.urls" >/dev/null
    rm -rf "$work/store-$p"
    "$bin" prefetch "$work/$p.ndjson" --store "$work/store-$p" $net ${tls[$p]} --format json |
        python3 -c 'import json, sys; s = json.load(sys.stdin)["summary"]; print(s["assets"], s["fetched"], s["bytesFetched"], s["failed"])' \
            >"$results/a-$p-prefetch.txt"
    read -r _ fetched_count _ _ <"$results/a-$p-prefetch.txt"
    if [ "$fetched_count" != "$files" ]; then
        echo "bench: prefetch ($p) fetched $fetched_count of $files assets: the input or the tool is wrong" >&2
        exit 1
    fi
    echo "==> a. $p: $files files, N=${conc[$p]}"
    measure "a-$p" --runs "$runs" --warmup 1 --prepare "rm -rf $work/store-$p $work/$p-files" \
        -n "curl --parallel --parallel-max ${conc[$p]} ($p)" \
        "curl -s --fail --parallel --parallel-max ${conc[$p]} ${curl_proto[$p]} -K $work/$p.curl" \
        -n "curl --parallel --parallel-max ${conc[$p]}, to files ($p)" \
        "curl -s --fail --create-dirs --parallel --parallel-max ${conc[$p]} ${curl_proto[$p]} -K $work/$p.curl-files" \
        -n "inbox-assets probe --get - ($p)" "$bin probe --get - $net ${tls[$p]} < $work/$p.urls > /dev/null" \
        -n "inbox-assets prefetch, fresh store ($p)" \
        "$bin prefetch $work/$p.ndjson --store $work/store-$p $net ${tls[$p]} > /dev/null"
    rm -rf "$work/$p-files"
done

# MARK: d (issue 14). pass audit of FILES pass URLs at N vs curl --parallel downloading them
seq 0 $((files - 1)) | awk -v base="${base[h1]}" '{ printf "%s/passes/p-%05d.pkpass\n", base, $1 }' >"$work/passes.urls"
awk '{ printf "url = \"%s\"\noutput = \"/dev/null\"\n", $1 }' "$work/passes.urls" >"$work/passes.curl"
root_pem="$2/passes/pki/root.pem"
"$bin" pass audit --trust "$root_pem" --concurrency "$n" --host-concurrency "$n" --format ndjson \
    $(cat "$work/passes.urls") | tail -1 >"$results/d-url-audit.json" || true
echo "==> d. pass audit of $files pass URLs, N=$n"
measure d-urls --runs "$runs" -i --warmup 1 \
    -n "curl --parallel --parallel-max $n (pass URLs)" "curl -s --fail --parallel --parallel-max $n --http1.1 -K $work/passes.curl" \
    -n "inbox-assets pass audit URLs --concurrency $n" \
    "bash -c '$bin pass audit --trust $root_pem --concurrency $n --host-concurrency $n \$(cat $work/passes.urls) > /dev/null'"

# curl alone over HTTP/2 at N, the peer the engine's HTTP/2 numbers at N will be compared with once it works there.
measure a-h2-curl-n --runs "$runs" --warmup 1 -n "curl --parallel --parallel-max $n (h2)" \
    "curl -s --fail --parallel --parallel-max $n ${curl_proto[h2]} -K $work/h2.curl"

# MARK: b. prefetch again on the same (now filled) store: nginx answers 304 to the stored validators
for p in h1 h2; do
    net="--concurrency ${conc[$p]} --host-concurrency ${conc[$p]}"
    echo "==> b. $p: re-run on an unchanged store"
    # Every run starts from a copy of the store a filled: each re-run appends 10,000 revalidated records, so runs
    # on one store would each read a longer index than the last.
    rm -rf "$work/store-$p-filled" && cp -a "$work/store-$p" "$work/store-$p-filled"
    measure "b-$p" --runs "$runs" --warmup 1 --prepare "rm -rf $work/store-$p && cp -a $work/store-$p-filled $work/store-$p" \
        -n "inbox-assets prefetch, same store ($p)" \
        "$bin prefetch $work/$p.ndjson --store $work/store-$p $net ${tls[$p]} > /dev/null"
    # One more re-run with the access log emptied first: count the statuses and the body bytes nginx sent.
    : >"$log"
    "$bin" prefetch "$work/$p.ndjson" --store "$work/store-$p" $net ${tls[$p]} --format json |
        python3 -c 'import json, sys; s = json.load(sys.stdin)["summary"]; print(s["revalidated"], s["fetched"], s["bytesFetched"], s["fromStore"])' \
            >"$results/b-$p-summary.txt"
    sleep 0.2  # nginx writes the log line after the response
    awk '{ n++; bytes += $2; status[$1]++ } END { printf "%d %d %d\n", n, bytes, status["304"] }' "$log" \
        >"$results/b-$p-log.txt"
done

# MARK: c. check --no-store: MESSAGES messages sharing URLS URLs make exactly URLS requests
net="--concurrency $n --host-concurrency $n"
echo "==> c. check --no-store of $messages messages sharing $urls URLs"
python3 "$here/gen-campaign.py" "$work/campaign.ndjson" "$messages" "$urls"
# Plain HTTP/1.1 at N: the same URLs with http://.
sed -i 's#https://cdn\.example\.com/#http://cdn.example.com/#g' "$work/campaign.ndjson"
: >"$log"
/usr/bin/time -f "%e" -o "$results/c-check-seconds.txt" \
    "$bin" check "$work/campaign.ndjson" --no-store --fail-on never $net \
    --connect-to "cdn.example.com:80:127.0.0.1:$http_port" --format json >"$work/check.json"
sleep 0.2
python3 - "$work/check.json" "$log" >"$results/c-requests.txt" <<'PY'
import json, sys

report = json.load(open(sys.argv[1]))
lines = open(sys.argv[2]).read().splitlines()
distinct = len({line.split()[3] for line in lines})
ok = sum(1 for line in lines if line.startswith("200 "))
print(len(lines), distinct, ok, report["summary"].get("messages", 0))
PY
rm -f "$work/check.json" "$work/campaign.ndjson"

# MARK: f. peak RSS of prefetch --video streaming a VIDEO_MB MiB file into a fresh store, and of curl for scale
echo "==> f. prefetch --video of a $video_mb MiB video"
python3 - "http://127.0.0.1:$http_port/video/big.mp4" >"$work/video.ndjson" <<'PY'
import json, sys

params = {"displayType": "video", "video": {"url": sys.argv[1]}}
print(json.dumps({"inbox_id": "v", "order": 1, "send_date": 1764400000, "title": "Video", "text": "Watch",
                  "action_params": json.dumps(params)}))
PY
rm -rf "$work/store-video"
/usr/bin/time -v -o "$work/f-time.txt" "$bin" prefetch "$work/video.ndjson" --video --store "$work/store-video" \
    --format json >"$work/f-prefetch.json"
python3 - "$work/f-prefetch.json" "$work/f-time.txt" >"$results/f-rss.txt" <<'PY'
import json, sys

s = json.load(open(sys.argv[1]))["summary"]
fields = dict(line.strip().rsplit(": ", 1) for line in open(sys.argv[2]) if ": " in line)
print(fields["Maximum resident set size (kbytes)"], fields["Elapsed (wall clock) time (h:mm:ss or m:ss)"],
      s["fetched"], s["bytesFetched"], s["failed"])
PY
/usr/bin/time -v -o "$work/f-curl.txt" curl -s -o /dev/null "http://127.0.0.1:$http_port/video/big.mp4"
grep 'Maximum resident' "$work/f-curl.txt" | awk '{print $NF}' >"$results/f-curl-rss.txt"
rm -rf "$work/store-video" "$work/store-h1" "$work/store-h2"
echo "$files $n $video_mb $h2n" >"$results/net-params.txt"
