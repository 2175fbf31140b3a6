#!/usr/bin/env bash
# `make bench`: measures inbox-assets side by side with the tools users would otherwise reach for, and writes
# bench/RESULTS.md (machine, exact commands, median of BENCH_RUNS runs, ratio to the peer from the same run).
#
# Items (issue 8): c resolve rate, d pass verify (issue 14: all cores, the re-audit, and in network.sh the audit of
# pass URLs), e store ingest here; a small files over loopback, b the 304 re-run,
# c's request count and f peak RSS of a video prefetch in bench/network.sh (nginx on 127.0.0.1, run as this user);
# g the shared remote cache and sharded runs in bench/remote.sh (issue 15); h check at scale in bench/scale.sh (issue 29).
#
# Environment: BENCH_RUNS (default 5), BENCH_MESSAGES (100000), BENCH_URLS (1000), BENCH_PASSES (1000), BENCH_FLEET (10000),
# BENCH_INGEST_MB (256), BENCH_FILES (10000), BENCH_CONCURRENCY (16), BENCH_H2_CONCURRENCY (= BENCH_CONCURRENCY), BENCH_VIDEO_MB (1024),
# BENCH_WORK (scratch directory, default /dev/shm/inbox-assets-bench: tmpfs, so the disk of a shared machine does not
# add noise; item e also measures a store on disk).
# CPU-heavy: run it on a quiet machine, never as part of `make test`.
set -euo pipefail

root="$(cd "$(dirname "$0")/.." && pwd)"
cd "$root"
runs="${BENCH_RUNS:-5}"
messages="${BENCH_MESSAGES:-100000}"
urls="${BENCH_URLS:-1000}"
passes="${BENCH_PASSES:-1000}"
fleet="${BENCH_FLEET:-10000}"
ingest_mb="${BENCH_INGEST_MB:-256}"
work="${BENCH_WORK:-/dev/shm/inbox-assets-bench}"
results="$work/results"
bin="$root/.build/release/inbox-assets"
sudo=""
[ "$(id -u)" = 0 ] || sudo=sudo

# MARK: peers from Debian, installed only when missing
declare -A package_of=(
    [hyperfine]=hyperfine [openssl]=openssl [unzip]=unzip [sha256sum]=coreutils [sha1sum]=coreutils
    [taskset]=util-linux [jq]=jq [python3]=python3 [dd]=coreutils [cp]=coreutils
    [nginx]=nginx-light [curl]=curl [/usr/bin/time]=time [truncate]=coreutils
)
missing=()
for tool in "${!package_of[@]}"; do
    command -v "$tool" >/dev/null 2>&1 || missing+=("${package_of[$tool]}")
done
if [ ${#missing[@]} -ne 0 ]; then
    echo "==> installing ${missing[*]}"
    $sudo apt-get update -qq
    DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq $(printf '%s\n' "${missing[@]}" | sort -u)
fi

# MARK: release build (the CLI, and the ingest driver linked against the same release objects)
echo "==> swift build -c release"
swift build -c release --product inbox-assets
mkdir -p "$work" "$results"
rm -f "$results"/*.json
swiftc -O -parse-as-library -swift-version 6 bench/StoreIngest.swift -I .build/release/Modules -I Sources/COpenSSL \
    .build/release/AssetStore.build/*.o .build/release/Findings.build/*.o .build/release/StrictJSON.build/*.o \
    -lcrypto -o "$work/store-ingest"

# hyperfine with the shared settings; $1 = result name, the rest = hyperfine arguments.
measure() {
    local name="$1"
    shift
    hyperfine --style basic --export-json "$results/$name.json" "$@"
}

# MARK: c. resolve: MESSAGES messages sharing URLS image URLs
echo "==> c. resolve $messages messages sharing $urls URLs (one core)"
python3 bench/gen-campaign.py "$work/campaign.ndjson" "$messages" "$urls"
python3 bench/gen-campaign.py "$work/request.json" "$messages" "$urls" request
"$bin" resolve "$work/campaign.ndjson" --format json >"$work/resolve.json"
python3 - "$work/resolve.json" >"$results/c-urls.txt" <<'PY'
import json, sys
report = json.load(open(sys.argv[1]))
print(len({asset["url"] for card in report["cards"] for asset in card["assets"]}), report["summary"]["messages"],
      report["summary"]["cards"], report["summary"]["degraded"])
PY
rm -f "$work/resolve.json"  # 65 MB of tmpfs
measure c-resolve --runs "$runs" --warmup 1 \
    -n "inbox-assets resolve --format json" "taskset -c 0 $bin resolve $work/campaign.ndjson --format json > /dev/null" \
    -n "inbox-assets resolve (text)" "taskset -c 0 $bin resolve $work/campaign.ndjson > /dev/null" \
    -n "jq -c ." "taskset -c 0 jq -c . $work/campaign.ndjson > /dev/null" \
    -n "inbox-assets resolve --format json (createMessage)" \
    "taskset -c 0 $bin resolve $work/request.json --format json > /dev/null" \
    -n "jq -c . (createMessage)" "taskset -c 0 jq -c . $work/request.json > /dev/null"

# MARK: d. pass verify, one core
echo "==> d. pass verify of $passes passes"
bash bench/gen-passes.sh "$work/passes" "$passes"
pass_dir="$work/passes/passes"
root_pem="$work/passes/pki/root.pem"
valid=$("$bin" pass verify --trust "$root_pem" --format json "$pass_dir" | python3 -c '
import json, sys
report = json.load(sys.stdin)
passes = report["passes"] if isinstance(report, dict) and "passes" in report else report
print(sum(1 for p in passes if p.get("valid")), len(passes))')
echo "$valid" >"$results/d-valid.txt"
measure d-verify --runs "$runs" --warmup 1 \
    -n "inbox-assets pass verify" "taskset -c 0 $bin pass verify --trust $root_pem $pass_dir > /dev/null"
measure d-loop --runs "$(( runs < 3 ? runs : 3 ))" \
    -n "unzip + sha1sum + openssl cms -verify" "taskset -c 0 bash bench/pass-loop.sh $root_pem $pass_dir/*.pkpass"
# d (issue 14) is about fleets: a second set of FLEET distinct passes (own PKI, same shape), verified on one core
# and on every core (no taskset), then `pass audit --store` on an empty verdict cache and again on the filled one, and
# the floor of any re-audit that re-reads and re-hashes every pass: `openssl dgst -sha256` of the same files, one
# process per core. `-i`: an audit exits 1 when a pass is invalid or a signer expires within 30 days, which says
# nothing about its speed. The 1,000 passes of d on every core too, where the process start weighs more.
cores=$(nproc)
echo "$cores" >"$results/d-cores.txt"
echo "$fleet" >"$results/d-fleet.txt"
bash bench/gen-passes.sh "$work/fleet" "$fleet"
fleet_dir="$work/fleet/passes"
fleet_root="$work/fleet/pki/root.pem"
"$bin" pass verify --trust "$fleet_root" --format ndjson --unordered --jobs "$cores" "$fleet_dir" | tail -1 \
    >"$results/d-fleet-summary.json"
measure d-verify-small --runs "$runs" --warmup 1 \
    -n "inbox-assets pass verify --jobs $cores ($passes passes)" \
    "$bin pass verify --trust $root_pem --jobs $cores $pass_dir > /dev/null" \
    -n "inbox-assets pass verify of one pass (the process start)" \
    "$bin pass verify --trust $root_pem $pass_dir/pass-00000.pkpass > /dev/null"
measure d-verify-all --runs "$runs" --warmup 1 \
    -n "inbox-assets pass verify, one core" "taskset -c 0 $bin pass verify --trust $fleet_root $fleet_dir > /dev/null" \
    -n "inbox-assets pass verify --jobs $cores" "$bin pass verify --trust $fleet_root --jobs $cores $fleet_dir > /dev/null"
# The same two commands as pairs taken back to back (one core, then every core), so that both halves of each ratio
# meet the same load on a shared host: hyperfine runs all of one command before the other.
: >"$results/d-pairs.txt"
for _ in $(seq $(( runs + 2 ))); do
    a=$(date +%s.%N); taskset -c 0 "$bin" pass verify --trust "$fleet_root" "$fleet_dir" >/dev/null
    b=$(date +%s.%N); "$bin" pass verify --trust "$fleet_root" --jobs "$cores" "$fleet_dir" >/dev/null
    c=$(date +%s.%N); echo "$a $b $c" >>"$results/d-pairs.txt"
done
measure d-audit --runs "$runs" -i --prepare "rm -rf $work/verdicts" \
    -n "pass audit --store, first run" "$bin pass audit --trust $fleet_root --store $work/verdicts $fleet_dir > /dev/null"
"$bin" pass audit --trust "$fleet_root" --store "$work/verdicts" "$fleet_dir" >/dev/null || true
measure d-reaudit --runs "$runs" -i --warmup 1 \
    -n "pass audit --store, re-run" "$bin pass audit --trust $fleet_root --store $work/verdicts $fleet_dir > /dev/null" \
    -n "openssl dgst -sha256, $cores processes (floor)" \
    "find $fleet_dir -name '*.pkpass' -print0 | xargs -0 -n $(( fleet / cores + 1 )) -P $cores openssl dgst -sha256 > /dev/null"
rm -rf "$work/verdicts" "$work/fleet"
taskset -c 0 openssl speed -mr -seconds 3 rsa2048 2>/dev/null | grep '^+F2:' >"$results/d-rsa.txt"
taskset -c 0 openssl speed -mr -seconds 3 -evp sha1 2>/dev/null | grep '^+F:' >"$results/d-sha1.txt"
du -cb "$work/passes/unpacked-0"/* | tail -1 | cut -f1 >"$results/d-pass-bytes.txt"
du -b "$pass_dir/pass-00000.pkpass" | cut -f1 >"$results/d-archive-bytes.txt"

# MARK: e. store ingest vs sha256sum, one core
echo "==> e. store ingest of $ingest_mb MiB"
head -c "$((ingest_mb << 20))" /dev/urandom >"$work/ingest.bin"
disk_dir="$root/.build/bench-disk"
mkdir -p "$disk_dir"
measure e-ingest --runs "$runs" --warmup 1 --prepare "rm -rf $work/store && mkdir -p $work/store" \
    -n "store ingest (tmpfs store)" "taskset -c 0 $work/store-ingest $work/store $work/ingest.bin" \
    -n "sha256sum" "taskset -c 0 sha256sum $work/ingest.bin" \
    -n "openssl dgst -sha256" "taskset -c 0 openssl dgst -sha256 $work/ingest.bin" \
    -n "cp (copy floor)" "taskset -c 0 cp $work/ingest.bin $work/store/copy"
measure e-disk --runs "$runs" --prepare "rm -rf $disk_dir/store $disk_dir/copy; sync" \
    -n "store ingest (store on disk)" "taskset -c 0 $work/store-ingest $disk_dir/store $work/ingest.bin" \
    -n "dd conv=fsync (disk floor)" "taskset -c 0 dd if=$work/ingest.bin of=$disk_dir/copy bs=256k conv=fsync status=none"
rm -rf "$disk_dir" "$work/store" "$work/ingest.bin"

# MARK: a, b, c's request count, f: over loopback from nginx
bash bench/network.sh "$bin" "$work" "$results" "$runs"

# MARK: g. the shared remote cache and sharded runs (nginx as origin and WebDAV remote on 127.0.0.1)
bash bench/remote.sh "$bin" "$work" "$results" "$runs"

# MARK: h. check at scale: check vs resolve + prefetch of the same feed, peak RSS at 100,000 and 1,000,000 messages
bash bench/scale.sh "$bin" "$work" "$results" "$runs"

# MARK: report
python3 bench/report.py "$results" "$messages" "$urls" "$passes" "$ingest_mb" "$work" >bench/RESULTS.md
echo "==> wrote bench/RESULTS.md"
