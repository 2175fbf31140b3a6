#!/usr/bin/env python3
"""Renders bench/RESULTS.md from the hyperfine JSON exports and side files bench/run.sh leaves in RESULTS_DIR.

Usage: report.py RESULTS_DIR MESSAGES URLS PASSES INGEST_MB WORK
"""
import datetime
import json
import os
import platform
import statistics
import subprocess
import sys

results, messages, urls, passes, ingest_mb, work = sys.argv[1], int(sys.argv[2]), int(sys.argv[3]), int(
    sys.argv[4]), int(sys.argv[5]), sys.argv[6]


def load(name):
    with open(os.path.join(results, name + ".json")) as f:
        return {r["command"]: r for r in json.load(f)["results"]}


def text(name):
    with open(os.path.join(results, name)) as f:
        return f.read().strip()


def cpu_model():
    with open("/proc/cpuinfo") as f:
        for line in f:
            if line.startswith("model name"):
                return line.split(":", 1)[1].strip()
    return "unknown"


def flags():
    with open("/proc/cpuinfo") as f:
        for line in f:
            if line.startswith("flags"):
                present = set(line.split(":", 1)[1].split())
                return ", ".join(f for f in ("sha_ni", "avx2", "aes") if f in present)
    return ""


def row(result):
    runs = len(result["times"])
    return (f"| `{result['command']}` | {result['median']:.3f} s | {result['min']:.3f}–{result['max']:.3f} s "
            f"| {runs} |")


def table(results_by_name):
    lines = ["| command | median | range | runs |", "|---|---|---|---|"]
    lines += [row(r) for r in results_by_name.values()]
    return "\n".join(lines)


def met(ok):
    return "**met**" if ok else "**not met**"


out = []
# When the measurements were taken (the newest result file), not when this report was (re)generated.
measured = max(os.path.getmtime(os.path.join(results, name)) for name in os.listdir(results))
now = datetime.datetime.fromtimestamp(measured, datetime.timezone.utc).strftime("%Y-%m-%d %H:%M UTC")
swift = subprocess.run(["swift", "--version"], capture_output=True, text=True).stdout.splitlines()[0]
out.append(f"""# inbox-assets benchmarks

Written by `make bench` (bench/run.sh → bench/report.py) on {now}. Every number is the **median** of several
hyperfine runs; ratios compare commands measured in the same run. Scratch files live in `{work}` (tmpfs).

## Machine

- CPUs (`nproc`): {os.cpu_count() if hasattr(os, "cpu_count") else "?"} ({subprocess.run(["nproc"], capture_output=True, text=True).stdout.strip()} available to this process)
- CPU: {cpu_model()} (flags: {flags()})
- Kernel: {platform.release()}
- Toolchain: {swift}; release build (`swift build -c release`)
- Note: a shared 2-core machine where other builds may run at the same time; medians and ratios from one run are
  what to compare, not absolute numbers across runs. The absolute per-core targets (c, d) move with the host's
  speed: on 2026-12-01 the same binary gave resolve 112,712–118,474 messages/s (jq 1.10 s in one of them) in earlier runs
  of the day, and the 2026-11-29 run had pass verify at 2,835 passes/s with a crypto floor of 13,698/s; compare
  the floor and jq in each run's tables before reading a miss there.
""")

# a, b: the network half (bench/network.sh): nginx on loopback, HTTP/1.1 and HTTPS with HTTP/2.
files, concurrency, video_mb, h2_concurrency = (int(v) for v in text("net-params.txt").split())
conc = {"h1": concurrency, "h2": h2_concurrency}
h2_total, h2_ok, h2_failed = (int(v) for v in text("a-h2-at-n.txt").split())
a_bytes = int(text("a-bytes.txt"))
protocols = {"h1": "HTTP/1.1", "h2": "HTTPS, HTTP/2"}
a_lines = []
ratios = {}
for p, label in protocols.items():
    a = load(f"a-{p}")
    curl = a[f"curl --parallel --parallel-max {conc[p]} ({p})"]
    probe = a[f"inbox-assets probe --get - ({p})"]
    prefetch = a[f"inbox-assets prefetch, fresh store ({p})"]
    curl_files = a[f"curl --parallel --parallel-max {conc[p]}, to files ({p})"]
    assets, fetched, fetched_bytes, failed = (int(v) for v in text(f"a-{p}-prefetch.txt").split())
    probe_ratio, prefetch_ratio = probe["median"] / curl["median"], prefetch["median"] / curl["median"]
    ratios[p] = (probe_ratio, prefetch_ratio)
    a_lines.append(f"""### {label}, N = {conc[p]}

{table(a)}

- `probe --get`: **{probe_ratio:.2f}×** curl's median ({files / probe['median']:,.0f} requests/s vs curl's
  {files / curl['median']:,.0f}/s): {met(probe_ratio <= 1.0)}.
- `prefetch` into a fresh store: **{prefetch_ratio:.2f}×** curl's median ({files / prefetch['median']:,.0f}
  assets/s): {met(prefetch_ratio <= 1.0)}. A check run outside the timing: {assets:,} assets, {fetched:,} fetched
  ({fetched_bytes:,} bytes), {failed} failed.
- Like for like, prefetch vs curl keeping the files (`output` = one file per URL, `--create-dirs`; no hash, no
  fsync, no index): **{prefetch['median'] / curl_files['median']:.2f}×** its median (curl to files is
  {curl_files['median'] / curl['median']:.2f}× curl to `/dev/null`; issue 29's target ≤ 1.0×:
  {met(prefetch['median'] / curl_files['median'] <= 1.0)}, see "What is left of `prefetch`" below).
""")
curl_h2n = load("a-h2-curl-n")[f"curl --parallel --parallel-max {concurrency} (h2)"]
if h2_failed == 0:
    h2_note = f"""HTTPS/HTTP/2 at N = {h2_concurrency}: `probe --get` of the same {h2_total:,} HTTPS URLs at N = {concurrency} outside the
timing: {h2_ok:,} ok, {h2_failed} failed. (The first run of this benchmark found the engine failing nearly every
multiplexed HTTP/2 transfer at N > 1 — `libcurl rejected an option: BUFFERSIZE` — because libcurl 7.88 refuses
`CURLOPT_BUFFERSIZE` on a reused handle whose buffer is still allocated; the engine no longer sets it.)"""
else:
    h2_note = f"""**HTTP/2 at N = {concurrency}: {h2_failed:,} of {h2_total:,} transfers failed** (`probe --get`, outside the timing);
the HTTP/2 rows below run at N = {h2_concurrency}. Investigate before trusting the HTTP/2 comparison."""
out.append(f"""## a. {files:,} small files over loopback from nginx: probe --get / prefetch vs curl --parallel

`bench/network.sh` writes {files:,} PNGs of 1–8 KB ({a_bytes / 1e6:.1f} MB in all) and serves them with nginx
{text("net-nginx.txt")} (one worker, run as this user from a generated nginx.conf, `sendfile on`, keep-alive
without a request cap) on 127.0.0.1: plain HTTP/1.1 on one port, HTTPS with HTTP/2 on another (throwaway RSA-2048
certificate from `openssl req -x509`, given to both clients with `--cacert`). The same {files:,} URLs go to
`inbox-assets probe --get -` (on stdin), to `inbox-assets prefetch` (an NDJSON feed dump of {files:,} messages, each
using one URL as its `image`; a fresh `--store` for every run via `--prepare`, which hyperfine also runs before the
other commands) and to {text("net-curl.txt")} `--parallel` (a `-K` config of `url =`/`output = "/dev/null"` pairs).
Concurrency N is the same for both sides of a comparison: `--concurrency N --host-concurrency N` and
`--parallel-max N`; N = {concurrency} for HTTP/1.1. Client and nginx share the machine's two cores.

{h2_note}

""" + "\n".join(a_lines) + f"""
What the profile of the last run found, and what changed since (`perf record -g`, `strace -f -c`, one run each at
N = 16 outside the timed runs; `valgrind` dies on these binaries, see c). That run had `probe --get` at 1.24× curl
(HTTP/1.1) and 1.27× (HTTP/2), `prefetch` at 2.77× and 2.71×.

- Engine (HTTPFetch), `probe --get`: every completion was handed from the libcurl thread to a Swift task (15,128
  `futex` calls), every URL woke the engine (20,001 `sendto` on the wake-up socket, 8,787 of them `EAGAIN`), every
  transfer reset and re-set ~25 options on its easy handle and grew the engine thread's malloc arena (17,319
  `mprotect`), and HTTP/2 opened 16 connections instead of multiplexing. Now: `FetchEngine.fetchAll` hands the whole
  list to the engine thread in one command and gets outcomes back in groups (64 at a time, or after 10 ms); the
  mailbox wakes the engine only when it goes from empty to non-empty; pooled easy handles keep their shared options;
  one `curl_multi_perform` per wait, as the curl tool does; `CURLOPT_PIPEWAIT` on https hops, so HTTP/2 transfers
  share one connection (not on plain http, where libcurl 7.88 then parked a host's later transfers behind a
  streaming first response — found by a test, not by this bench). HTTP/1.1 after: 430 `futex`, 10,002 `sendto` (the requests themselves), 1,814 `mprotect`, 2 `write`
  (the report in one write). `probe --get` is now at {ratios['h1'][0]:.2f}× / {ratios['h2'][0]:.2f}× curl here.
- Store (AssetStore, Preflight/Retrieval), `prefetch`: about 30 system calls per 5 KB asset (7 `openat` + 7 `close`,
  4 `newfstatat`, 4 `flock`, 2 `fsync`, 2 `write`, a `rename`, a failing `mkdir`, a `getrandom`) and every body
  hashed twice. Now: records are appended in batches (up to 1,024 or a quarter of a second: one `flock`, one
  directory fsync, one `fdatasync` per batch; README "The asset store" says what that means for a `kill -9`), the
  index log stays open, blobs are written to an unnamed `O_TMPFILE` file and linked into place (no `rename`, no
  random name), fan-out directories are created only when a link fails, the engine's SHA-256 names the blob (reads
  and `store verify` still re-hash). About 8 system calls per asset remain (`openat`, `write`, `fsync`, `linkat`,
  `close`, two `newfstatat`); 395,833 system calls for the run before, 166,587 after.
- Retriever (Preflight), tried and not kept: handing the downloads to the engine as one list (a `fetchEach` with
  per-request sinks and validators, 256 at a time) and committing each body on one task as it finished used 8–10%
  less CPU for a fresh store and 25% less on the re-run, but every commit then ran on that one task, and the fresh
  prefetch's wall time went up in the next `make bench` (1.11 s → 1.49 s median, HTTP/1.1). The retriever keeps its
  window of 64 tasks, whose commits spread over both cores.
- What is left of `prefetch` ({ratios['h1'][1]:.2f}× curl to `/dev/null` here; perf of one HTTP/1.1 run into a
  fresh store): 38% of the samples are in the kernel (loopback TCP as for curl, plus
  the store's file system work); `StoreSink.commit` 19% inclusive (`O_TMPFILE` open 5%, `write` 5%, `linkat` 5%),
  the index record 8%, reading and resolving the campaign 3%, the engine thread 7%. prefetch uses about 1.5 s of CPU
  where `probe --get` uses 0.5 s and curl 0.55–0.8 s, on two cores it shares with nginx: the five system calls and
  the index record per blob are the floor of a crash-safe store (a blob is durable and named before its record),
  plus a task and continuation per asset (the retriever's window of 64). Plan: the batched hand-off above with its
  commits spread over a few tasks (the store takes concurrent writers), so the CPU saving does not cost the
  overlap; then re-measure. The like-for-like peer is curl
  keeping the files; `/dev/null` stays the target's peer because the issue names it, but a store that hashes,
  syncs and indexes every asset will not match a client that discards the bytes.
""")

b_lines = []
for p, label in protocols.items():
    b = load(f"b-{p}")[f"inbox-assets prefetch, same store ({p})"]
    first = load(f"a-{p}")[f"inbox-assets prefetch, fresh store ({p})"]
    revalidated, fetched, fetched_bytes, from_store = (int(v) for v in text(f"b-{p}-summary.txt").split())
    requests, body_bytes, not_modified = (int(v) for v in text(f"b-{p}-log.txt").split())
    b_lines.append(f"""### {label}

{table(load(f"b-{p}"))}

- Re-run median {b['median']:.3f} s vs the first run's {first['median']:.3f} s (a, same protocol):
  **{b['median'] / first['median']:.2f}×** its time.
- One more re-run with nginx's access log emptied first: {requests:,} requests, {not_modified:,} answered `304`,
  **{body_bytes:,} body bytes** sent (`$body_bytes_sent` summed) — zero body bytes:
  {met(body_bytes == 0 and not_modified == files)}. prefetch's own summary: {revalidated:,} revalidated, {fetched:,}
  fetched ({fetched_bytes:,} bytes), {from_store:,} from store.
""")
b_vs_curl = (load("b-h1")["inbox-assets prefetch, same store (h1)"]["median"]
             / load("a-h1")[f"curl --parallel --parallel-max {concurrency} (h1)"]["median"])
out.append(f"""## b. Re-run against unchanged files (304 path)

After a, `prefetch` again on a copy of the store a's check run filled (a fresh copy before every run: each re-run
appends 10,000 revalidated records, which would make every run read a longer index than the last). nginx sends `ETag` and `Last-Modified` and no
`Cache-Control`, so every stored copy is stale: prefetch re-hashes it, revalidates with
`If-None-Match`/`If-Modified-Since` and nginx answers `304` without a body.

""" + "\n".join(b_lines) + f"""
No target beyond zero body bytes. The HTTP/1.1 re-run takes {b_vs_curl:.1f}× curl's full download of the same files:
for every asset it looks the URL up, re-hashes the stored blob (verified reads: the store's contract), sends a
conditional request and appends a revalidated record (batched, as in a). `strace -f -c` of one re-run: 40,082
`newfstatat` (four per asset: the index log's size before a lookup, the blob, its path), 24,098 `futex` (the task
per asset), 10,161 `openat` + 10,093 `read` (the blobs), 11,383
`sendto`; in perf, `AssetStore.lookup` with its index refresh 13%, `revalidated` 9%, the blob path 6%. Plan: one
index refresh per batch of lookups instead of a `stat` per lookup, and the batched hand-off of a with its commits
spread over several tasks.
""")

# c. resolve
c = load("c-resolve")
ours, text_run, peer = c["inbox-assets resolve --format json"], c["inbox-assets resolve (text)"], c["jq -c ."]
distinct, read, cards, degraded = (int(v) for v in text("c-urls.txt").split())
c_requests, c_distinct, c_ok, c_messages = (int(v) for v in text("c-requests.txt").split())
c_seconds = float(text("c-check-seconds.txt"))
rate, text_rate = messages / ours["median"], messages / text_run["median"]
request_line = ""
if "jq -c . (createMessage)" in c:
    ours_request, peer_request = c["inbox-assets resolve --format json (createMessage)"], c["jq -c . (createMessage)"]
    request_ratio = ours_request["median"] / peer_request["median"]
    request_line = (f"- The same {messages:,} messages as one createMessage request (`gen-campaign.py … request`: one "
                    f"JSON document, read whole): JSON **{request_ratio:.2f}×** `jq -c .` of that file (target ≤ 1.0×: "
                    f"{met(request_ratio <= 1.0)}).\n")
out.append(f"""## c. resolve: {messages:,} messages sharing {urls:,} image URLs, one core (`taskset -c 0`)

Input: `bench/gen-campaign.py` writes an NDJSON inbox feed dump of {messages:,} messages (banner, captioned, classic
with image, three-slide carousel in turn; no button links) whose images cycle through {urls:,} URLs.

{table(c)}

- Rate with the JSON report: **{rate:,.0f} messages/s**; with the text report: **{text_rate:,.0f} messages/s**
  (target ≥ 100,000 messages/s): JSON {met(rate >= 100_000)}, text {met(text_rate >= 100_000)}.
- Ratio to `jq -c .` reading and re-printing the same file: JSON **{ours['median'] / peer['median']:.2f}×**, text
  **{text_run['median'] / peer['median']:.2f}×** its time (target ≤ 1.0× for JSON: {met(ours['median'] <= peer['median'])}).
{request_line}
- Distinct asset URLs in the JSON report: **{distinct:,}** (must be {urls:,}: {met(distinct == urls)}); messages read
  {read:,}, cards {cards:,}, degraded {degraded:,}.
- Requests made by `check --no-store` of the same {messages:,} messages against nginx (the URLs as
  `http://`, plain HTTP/1.1 through `--connect-to cdn.example.com:80:127.0.0.1:PORT`, N = {concurrency}; nginx
  access-log lines counted):
  **{c_requests:,}** for {c_distinct:,} distinct paths, {c_ok:,} answered `200` (must be {urls:,}: {met(c_requests == urls)});
  the report covered {c_messages:,} messages; the whole check took {c_seconds:.2f} s (one run, `/usr/bin/time`).

Profile (`perf record -g`, 100,000 messages; `valgrind --tool=callgrind` 3.19 dies with SIGSEGV inside valgrind on
these Swift binaries, so perf it is). The last run (58,101 messages/s JSON, 79,690 text) had no single hot spot:
reading the NDJSON 26% (StrictJSON parse of each line and each `action_params` string 14%, `JSONPath.key` building
a path for every member 6%), the text table 19% (`TextTable.render`) or `JSONValue.serialized` 27% +
`ResolveRun.json` 7%, tearing the arrays down at exit ~10%, retain/release 17% and malloc/free ~15% self, 27,000
`mprotect` calls. Changed since, by module: StrictJSON — a streaming `JSONWriter` (same bytes as `serialized`)
writes the report in 64 KiB chunks instead of building one tree and one 65 MB string; objects are one array of
members, the parser reuses its buffers from line to line. InboxCards — paths are built only when a finding or the
report needs them, cards write themselves, newlines are found eight bytes at a time. Preflight — the text table
renders in one pass into bytes. inbox-assets — the run exits once the report is written, without freeing every
card; the heap grows 64 MiB at a time (27,000 `mprotect` → 70). Samples for the same input: JSON 9,528 → 3,651,
text 6,920 → 3,742; what is left is reading (42–47%: line parse 17%, `action_params` 9%), resolving 17% and
writing the report (18–24%), with no single hot spot. Resolving in parallel across messages (the second core) is
not used: this item is measured on one core.
""")

# d. pass verify
verify, loop = load("d-verify")["inbox-assets pass verify"], load("d-loop")["unzip + sha1sum + openssl cms -verify"]
valid_count, total = (int(v) for v in text("d-valid.txt").split())
rsa = text("d-rsa.txt").split(":")  # +F2:index:bits:sign/s:verify/s
rsa_verify = float(rsa[4])
sha1 = text("d-sha1.txt").split(":")  # +F:index:name:rate for 16, 64, 256, 1024, 8192, 16384 byte blocks
sha1_rate = float(sha1[-1])
pass_bytes, archive_bytes = int(text("d-pass-bytes.txt")), int(text("d-archive-bytes.txt"))
floor_seconds = 3 / rsa_verify + pass_bytes / sha1_rate
ours_rate, loop_rate = passes / verify["median"], passes / loop["median"]
out.append(f"""## d. pass verify of {passes:,} generated passes, one core (`taskset -c 0`)

Input: `bench/gen-passes.sh` makes a throwaway PKI with `openssl req`/`x509` (RSA-2048 root → WWDR-like intermediate
→ Pass Type ID leaf) and {passes:,} generic passes of {archive_bytes / 1000:.0f} KB each ({pass_bytes / 1000:.0f} KB
unpacked: pass.json, four noise PNGs, manifest.json, a detached CMS signature by `openssl cms -sign`).
`pass verify` reported {valid_count:,} of {total:,} valid with `--trust` for the test root.

{table(load("d-verify"))}
{table(load("d-loop")).split(chr(10), 2)[2]}

- inbox-assets: **{ours_rate:,.0f} passes/s** on one core (target ≥ 2,500 passes/s per core): {met(ours_rate >= 2500)}.
- Shell loop (`bench/pass-loop.sh`: `unzip`, `sha1sum` of every file, `openssl cms -verify` per pass):
  {loop_rate:,.0f} passes/s; inbox-assets is **{loop['median'] / verify['median']:.1f}× faster** (DESIGN.md also
  asks ≥ 50×: {met(loop['median'] / verify['median'] >= 50)}; the loop spends ~{loop['median'] / passes * 1000:.1f} ms
  a pass starting eight processes, so 50× means {50 / loop['median'] * passes:,.0f} passes/s, i.e. cutting the
  per-pass time to {loop['median'] / 50 / verify['median']:.0%} of this run's; the crypto floor below is
  {(3 / rsa_verify + pass_bytes / sha1_rate) * passes / verify['median']:.0%} of it).
- Crypto floor from `openssl speed` on the same core: RSA-2048 verify {rsa_verify:,.0f}/s, SHA-1 (16 KB blocks)
  {sha1_rate / 1e9:.2f} GB/s. One pass needs 3 RSA verifies (the signer's signature, leaf ← intermediate,
  intermediate ← root) and SHA-1 over its {pass_bytes / 1000:.0f} KB: {floor_seconds * 1e6:.0f} µs, i.e.
  **{1 / floor_seconds:,.0f} passes/s**; inbox-assets runs at **{ours_rate * floor_seconds:.0%}** of that floor
  (the rest: process start, reading and inflating the archive, parsing pass.json and the certificates, the report).
  Found and fixed here: `pass verify DIR` walked the tree with FileManager's enumerator and a `resourceValues` stat
  per entry (9% of the samples); it now uses `readdir` and `d_type` (−13% user time). The rest of the profile:
  libcrypto 34% of the samples, zlib's inflate + CRC 9%, reading the files 5%, pass.json lint 3%.
""")

# d (issue 14). a fleet on every core, the re-audit from the verdict cache and its hash floor, the audit of pass URLs
cores = int(text("d-cores.txt"))
fleet = int(text("d-fleet.txt"))
fleet_summary = json.loads(text("d-fleet-summary.json"))
n_conc = int(os.environ.get("BENCH_CONCURRENCY", "16"))
fleet_runs = load("d-verify-all")
fleet_one = fleet_runs["inbox-assets pass verify, one core"]
verify_all = fleet_runs[f"inbox-assets pass verify --jobs {cores}"]
small_runs = load("d-verify-small")
small_all = small_runs[f"inbox-assets pass verify --jobs {cores} ({passes} passes)"]
start = small_runs["inbox-assets pass verify of one pass (the process start)"]
first = load("d-audit")["pass audit --store, first run"]
reaudit = load("d-reaudit")
again = reaudit["pass audit --store, re-run"]
hash_floor = next(r for name, r in reaudit.items() if name.startswith("openssl dgst"))
all_rate = fleet / verify_all["median"]
speedup = fleet_one["median"] / verify_all["median"]
speedup_best = fleet_one["min"] / verify_all["min"]
pairs = [[float(v) for v in line.split()] for line in text("d-pairs.txt").splitlines()]
pair_ratios = sorted((b - a) / (c - b) for a, b, c in pairs)
pair_median = statistics.median(pair_ratios)
urls_results = load("d-urls")
curl_urls = next(r for name, r in urls_results.items() if name.startswith("curl"))
ours_urls = next(r for name, r in urls_results.items() if name.startswith("inbox-assets"))
try:
    url_summary = json.loads(text("d-url-audit.json"))
    url_count, url_valid = url_summary["passes"], url_summary["valid"]
except (OSError, ValueError, KeyError):
    url_count, url_valid = int(os.environ.get("BENCH_FILES", "10000")), None
budget = curl_urls["median"] + verify["median"] * url_count / passes / cores
out.append(f"""## d (issue 14). A fleet of {fleet:,} passes on every core, the re-audit, and the audit of {url_count:,} pass URLs

The issue is about fleets ("tens of thousands of passes signed by a few certificates"), so `bench/gen-passes.sh`
makes a second set of {fleet:,} distinct passes like d's (its own throwaway PKI; `pass verify` outside the timing:
{fleet_summary['valid']:,} of {fleet_summary['passes']:,} valid). They are verified on one core (`taskset -c 0`) and
on all {cores} (`--jobs {cores}`, no taskset); then `pass audit --store` on an empty verdict cache and again on the
filled one (each pass is re-read and re-hashed; only the expiry findings are decided again), next to the floor of
any such re-audit: `openssl dgst -sha256` reading and hashing the same files, one process per core. Last, `pass
audit` of {url_count:,} URLs served by nginx over HTTP/1.1 on loopback (links to d's {passes:,} passes) at
`--concurrency {n_conc}` against `curl --parallel --parallel-max {n_conc}` downloading them.

{table(fleet_runs)}
{table(load("d-verify-small")).split(chr(10), 2)[2]}
{table(load("d-audit")).split(chr(10), 2)[2]}
{table(reaudit).split(chr(10), 2)[2]}
{table(urls_results).split(chr(10), 2)[2]}

- Every core: **{all_rate:,.0f} passes/s**, {all_rate / cores:,.0f} per core (target ≥ 2,500 per core:
  {met(all_rate / cores >= 2500)}); **{speedup:.2f}×** the one-core rate on the same {fleet:,} passes, medians as
  everywhere here (target ≥ 1.8× on 2 cores: {met(speedup >= 1.8)}); the fastest runs give {speedup_best:.2f}×.
  How much the shared host moves this: {len(pair_ratios)} pairs of runs taken back to back (one core, then every
  core) gave {", ".join(f"{r:.2f}" for r in pair_ratios)}× (median {pair_median:.2f}×) — a ratio above 2 is a
  one-core run the host slowed, one far below a two-core run that did not get both cores at once (`openssl speed
  -multi 2` gives 2.0× its one-core rate here, and the one-core rate itself moved by 15% over the day).
  On d's {passes:,} passes ({verify['median']:.2f} s on one core) it is
  {verify['median'] / small_all['median']:.2f}×: the process start (loading the Swift runtime, Foundation, libcurl's
  and OpenSSL's libraries, the pinned certificates; `pass verify` of one pass takes {start['median'] * 1000:.0f} ms)
  runs on one core either way.
  Found and fixed for this target: libzip converts every archive entry's DOS date with `mktime(3)` and OpenSSL's time
  checks call `gmtime_r(3)`; with `TZ` unset glibc re-reads `/etc/localtime` under its one global time-zone lock on
  each call, so the verifier threads queued on it (11,200 `futex` calls for 1,000 passes, 1,229 after; 2 cores went
  from 1.61× to 1.84× one core on 10,000 passes). The CLI now sets `TZ=:/etc/localtime` when `TZ` is unset — the file
  glibc uses anyway (Sources/inbox-assets/ProcessSetup.swift).
- Re-audit from the verdict cache: **{first['median'] / again['median']:.1f}× faster** than the first audit (target
  ≥ 10×: {met(first['median'] / again['median'] >= 10)}). The re-audit takes
  {again['median'] / hash_floor['median']:.2f}× the time `openssl dgst -sha256` needs just to read and hash the same
  {fleet:,} files on {cores} cores ({hash_floor['median']:.3f} s; issue 29's target ≤ 1.25× that floor:
  {met(again['median'] / hash_floor['median'] <= 1.25)} — the process start alone, {start['median'] * 1000:.0f} ms, is
  {start['median'] / hash_floor['median'] * 100:.0f}% of the floor, and the ratio has ranged 1.24–1.49× across the runs of
  2026-12-06 on this shared host with no change to the re-audit), so no re-audit that re-hashes every pass — as the
  issue asks, since the verdict is keyed by the bytes — can be more than
  **{first['median'] / hash_floor['median']:.1f}×** faster than this first run here: the target is out of reach by
  construction on this machine, whose SHA-NI hashes ~2 GB/s per core while the first audit verifies a 46 KB pass in
  ~{first['median'] / fleet * cores * 1e6:.0f} µs of CPU.
- {url_count:,} pass URLs{f" ({url_valid:,} valid)" if url_valid is not None else ""}: the audit takes
  {ours_urls['median']:.2f} s; curl alone {curl_urls['median']:.2f} s, plus the one-core verify time over the cores
  {verify['median'] * url_count / passes / cores:.2f} s = {budget:.2f} s; ratio **{ours_urls['median'] / budget:.2f}**
  (target ≤ 1.5: {met(ours_urls['median'] / budget <= 1.5)}).
""")

# e. store ingest
e = load("e-ingest")
ingest, sha256sum, dgst, cp = (e["store ingest (tmpfs store)"], e["sha256sum"], e["openssl dgst -sha256"],
                               e["cp (copy floor)"])
disk = load("e-disk")
disk_ingest, dd = disk["store ingest (store on disk)"], disk["dd conv=fsync (disk floor)"]
ratio = sha256sum["median"] / ingest["median"]
mib = ingest_mb
floor = dgst["median"] + cp["median"]
out.append(f"""## e. store ingest vs sha256sum on the same {mib} MiB, one core (`taskset -c 0`)

There is no CLI command that ingests a local file (blobs arrive through prefetch), so `bench/StoreIngest.swift` is
compiled by bench/run.sh with `swiftc -O` against the release build's AssetStore/Findings/StrictJSON objects (the
code the CLI runs; no bench product in Package.swift). It `read`s the file into one reused 256 KiB buffer (as the
bytes arrive from libcurl, and as `sha256sum` reads them) and feeds each piece to
`AssetStore.beginBlob()`/`BlobWriter.write`/`commit()`: SHA-256 (OpenSSL), an unnamed temporary file, fsync, link
into place. Input: {mib} MiB of `/dev/urandom` on tmpfs; a fresh store on tmpfs for every run (`--prepare`).

{table(e)}

- Store ingest: {mib / ingest['median']:,.0f} MiB/s; `sha256sum`: {mib / sha256sum['median']:,.0f} MiB/s.
  Ingest is **{ratio:.2f}× faster** than `sha256sum` on the same bytes (target ≥ 3×): {met(ratio >= 3)}.
- Floors on the same core: hashing alone (`openssl dgst -sha256`, SHA instructions) {mib / dgst['median']:,.0f} MiB/s;
  copying alone (`cp` into the store's file system) {mib / cp['median']:,.0f} MiB/s. Ingest reads, hashes and stores
  the bytes, so the two together ({floor:.3f} s) are its floor: ingest takes {ingest['median'] / floor:.0%} of it.
  The hash alone is {sha256sum['median'] / dgst['median']:.1f}× `sha256sum`; ingest also writes every byte into the
  page cache. perf of ingest: 52% OpenSSL's SHA-256, 47% the kernel (the write copy 9%, the read copy 7%, tmpfs page
  allocation and memory accounting ~25%), 0.1% the store's own code — so the ratio is OpenSSL's SHA-256 speed
  against coreutils' plus one kernel copy, and moves with the noise on `sha256sum` (its range above). Found and
  fixed in an earlier run: `BlobWriter.write` copied every full piece into its own buffer before writing it. Plan,
  if a quiet machine puts it under 3×: hash and write on two threads (the copy overlaps the hash) — the one lever
  left that is not OpenSSL's or the kernel's.

With the store on this machine's disk, fsync dominates:

{table(disk)}

- Store on disk: {mib / disk_ingest['median']:,.0f} MiB/s vs writing the same bytes with `dd conv=fsync`:
  {mib / dd['median']:,.0f} MiB/s (ingest takes {disk_ingest['median'] / dd['median']:.2f}× dd's time: dd only
  copies, ingest also hashes; the disk is the limit).
""")

rss_kb, elapsed, v_fetched, v_bytes, v_failed = text("f-rss.txt").split()
rss_mb, curl_rss_mb = int(rss_kb) / 1024, int(text("f-curl-rss.txt")) / 1024
out.append(f"""## f. Peak RSS while prefetching a {video_mb / 1024:g} GiB video

`/usr/bin/time -v inbox-assets prefetch --video` of a one-message feed whose video is a {video_mb} MiB `.mp4`
served by the same nginx over HTTP/1.1 (a sparse file: an `ftyp` box, then zeros), into a fresh store on tmpfs.

- Maximum resident set size: **{rss_mb:.1f} MiB** (target < 64 MB): {met(int(rss_kb) * 1024 < 64_000_000)}.
  Wall clock {elapsed}; {v_fetched} fetched, {int(v_bytes):,} bytes, {v_failed} failed.
- For scale: `curl -o /dev/null` of the same URL peaks at {curl_rss_mb:.1f} MiB.

""")
if os.path.exists(os.path.join(results, "g1.json")):
    # g. the shared remote cache and sharded runs (issue 15, bench/remote.sh)
    g_files, g_n = (int(v) for v in text("g-params.txt").split())
    first = [int(v) for v in text("g-first-summary.txt").split()]
    second = [int(v) for v in text("g-second-summary.txt").split()]
    origin_requests, origin_bytes = (int(v) for v in text("g-second-origin.txt").split())
    g1, g2, g3 = load("g1"), load("g2"), load("g3")
    g_first = g1["first runner: empty store, empty remote"]["median"]
    g_second = g1["second runner: empty store, warm remote"]["median"]
    g_ours = g2["inbox-assets prefetch, warm remote (/ac/ + /cas/)"]["median"]
    curl_cas = g2[f"curl --parallel --parallel-max {g_n}, /cas/ only"]["median"]
    curl_both = g2[f"curl --parallel --parallel-max {g_n}, /ac/ + /cas/"]["median"]
    curl_files = g2.get(f"curl --parallel --parallel-max {g_n}, /cas/ to files", {}).get("median")
    files_line = "" if curl_files is None else (
        "\n- Like for like, vs curl keeping the blobs (`output` = one file per blob on the same tmpfs, `--create-dirs`;"
        f" no\n  hash, no index): **{curl_files / g_ours:.2f}×** its median (curl to files is"
        f" {curl_files / curl_cas:.2f}× curl to\n  `/dev/null`). The target stays the one above.")
    g_one, g_sharded = g3["one process"]["median"], g3["2 shards (--shard 1/2, 2/2) at once"]["median"]
    # g2's download phase as nginx saw it: "curl|ours WALL WINDOW REQUESTS" lines, curl and ours in turn.
    windows = {"curl": [], "ours": []}
    for line in text("g2-windows.txt").splitlines():
        who, wall, span, requests = line.split()
        windows[who].append((float(wall), float(span), int(requests)))
    pairs = list(zip(windows["curl"], windows["ours"]))
    window_ratios = [c[1] / o[1] for c, o in pairs]
    wall_ratios = [c[0] / o[0] for c, o in pairs]
    curl_window = statistics.median(w[1] for w in windows["curl"])
    ours_window = statistics.median(w[1] for w in windows["ours"])
    ours_outside = statistics.median(o[0] - o[1] for o in windows["ours"])
    shards = [[int(v) for v in line.split()] for line in text("g-shards-summary.txt").splitlines()]
    out.append(f"""## g. Shared remote cache and sharded runs (issue 15)

`bench/remote.sh`: one nginx on 127.0.0.1 with two servers — the origin, {g_files:,} generated PNGs of 1–8 KB
({int(text("g-bytes.txt")) / 1e6:.1f} MB) sent with `Cache-Control: max-age=3600` as a CDN would, and a WebDAV remote
cache (`dav_methods PUT DELETE; create_full_put_path on; client_max_body_size 0`), each with its own access log. The
feed is {g_files:,} messages, one image each; `prefetch --concurrency {g_n} --host-concurrency {g_n} --remote-cache
http://127.0.0.1:PORT/ci`. Client and nginx share the two cores.

### g1. A second runner with an empty local store against a warm remote

{table(g1)}

- First runner: {first[0]:,} assets, {first[1]:,} fetched from origin ({first[3]:,} bytes), {int(text("g-remote-blobs.txt")):,}
  blobs uploaded to the remote (each blob, then its record, in the background; the run waits for them at its end).
- Second runner (outside the timing, origin access log emptied first): {second[2]:,} from the remote,
  {second[1]:,} fetched, {second[4]} failed; the origin saw **{origin_requests} requests and {origin_bytes} body
  bytes** (target 0): {met(origin_bytes == 0)}.
- Wall time second/first: **{g_second / g_first:.2f}×** (target ≤ 1.0×): {met(g_second <= g_first)}.

### g2. Remote download throughput: {g_files:,} small blobs vs curl --parallel from the same nginx

{table(g2)}

Records carry blobs up to 16 KiB inline (as Bazel's `ActionResult` inlines small outputs; the bytes as they are,
after the record's JSON header), and a few hundred records travel together in a record pack, so the runner asks
for one `/ac/` entry per chunk of the plan (plus the records it read ahead) — each inline copy verified and written
into the store — and the `/cas/` blob only for larger ones; curl only downloads (no hash, no store, no index).

- Whole commands, throughput vs curl on /cas/ only: **{curl_cas / g_ours:.2f}×** curl's (target ≥ 0.8×):
  {met(curl_cas / g_ours >= 0.8)}. vs curl on /ac/ + /cas/ (twice the requests): **{curl_both / g_ours:.2f}×**.{files_line}
- The download phase alone, as nginx's access log saw it ({len(pairs)} runs of each, in turn; from the start of the
  first request to the end of the last one, or to the runner's last index write when that is later —
  `bench/download-window.py`): curl {curl_window:.3f} s ({g_files / curl_window:,.0f} blobs/s), the runner
  {ours_window:.3f} s ({g_files / ours_window:,.0f} blobs/s, every blob verified, stored and indexed): **{statistics.median(window_ratios):.2f}×**
  curl's (pairs {min(window_ratios):.2f}–{max(window_ratios):.2f}; whole commands in the same pairs {statistics.median(wall_ratios):.2f}×).
  Outside that window the runner spends {ours_outside:.3f} s (median): its start and the read of the
  {g_files:,}-message feed before the first request (the cards are resolved while the first records come in),
  and the report and exit after its last index write.
- How the runner reads: one libcurl multi handle on one thread (`RemoteReadLoop`). While the feed is read and the
  cards resolved, the records of the first 1,536 message images are read ahead, one `/ac/` request each. Once the
  plan exists, the run's record keys are cut into content-defined chunks (README, "Record packs") and each chunk's
  **record pack** — a few hundred records, their small blobs inline — is one `/ac/` request, three chunks ahead;
  what a pack lacks is read record by record. A fresh record whose blob rides inline is verified, stored and
  recorded on a few lanes with no task or request of its own. The first runner writes the packs at its end (in
  the background, as its other uploads). Before packs (until 2026-12-02) the runner read one record per asset,
  10,000 requests like curl's: nginx then woke and preempted the read loop ~8,400 times a run (the lanes and nginx
  kept both cores busy; curl with one busy thread beside it shows the same ~9,900 switches and loses 15–20%), and
  the runner was at ~0.75× curl on a quiet host. With packs, by hand (8 interleaved rounds on one nginx): whole
  command 0.49–0.63 s against 0.57–0.73 s before, ~2,200 context switches a run instead of ~9,000, ~1.0× curl.
- Where the time goes now (`perf record`, `perf stat`): ~0.93 CPU-s in all. The settling lanes are the bound:
  storing each blob as its own file (`O_TMPFILE` open, write, `linkat`, close: 13–16 µs a blob in a C loop of the
  same calls), its SHA-256, the index record, ~30 µs a blob in all on two lanes; then the resolve of the 10,000
  messages (~0.13 CPU-s, before the packs can be asked for) and the read-ahead's requests.
""")
if os.path.exists(os.path.join(results, "h1.json")):
    # h. check at scale (issue 29, bench/scale.sh)
    h_messages, h_huge, h_urls = (int(v) for v in text("h-params.txt").split())
    h1 = load("h1")
    h_check = h1["inbox-assets check --format json"]["median"]
    h_resolve = h1["inbox-assets resolve --format json"]["median"]
    h_prefetch = h1["inbox-assets prefetch, fresh store"]["median"]
    runs_h = {}
    for line in text("h-rss.txt").splitlines():
        name, rss_kb, seconds, size, card_count = line.split()
        runs_h[name] = [int(rss_kb) / 1024, float(seconds), int(size), int(card_count)]
    for name, counted in runs_h.items():
        # Text, JUnit, SARIF and Markdown print no card count bench/scale.sh reads: the JSON run of the feed has it.
        size_name = name.rsplit("-", 1)[1]
        if counted[3] == 0 and f"check-json-{size_name}" in runs_h:
            counted[3] = runs_h[f"check-json-{size_name}"][3]

    def rss_row(name):
        mib, seconds, size, card_count = runs_h[name]
        report = f"{size / 1e6:,.1f} MB" if size >= 1e6 else f"{size / 1e3:,.1f} KB"
        return (f"| `{name}` | {mib:,.0f} MiB | {seconds:.1f} s | {report} | {card_count:,} "
                f"| {size / max(card_count, 1):,.0f} B |")

    rss_lines = "\n".join(rss_row(name) for name in runs_h)
    checks = [n for n in runs_h if n.startswith("check-")]
    largest = max(checks, key=lambda n: runs_h[n][0])
    growth = []
    for fmt in ["json", "ndjson", "text", "junit", "sarif", "markdown"]:
        small, big = f"check-{fmt}-{h_messages}", f"check-{fmt}-{h_huge}"
        if small in runs_h and big in runs_h:
            growth.append(f"{fmt} {runs_h[small][0]:,.0f} → {runs_h[big][0]:,.0f} MiB")
    json_name = f"check-json-{h_messages}"
    per_card = runs_h[json_name][2] / max(runs_h[json_name][3], 1) if json_name in runs_h else float("nan")
    ratio = h_check / (h_resolve + h_prefetch)
    formats = ["json", "ndjson", "text", "junit", "sarif", "markdown"]
    flat = all(abs(runs_h[f"check-{f}-{h_huge}"][0] - runs_h[f"check-{f}-{h_messages}"][0]) < 16
               for f in formats if f"check-{f}-{h_huge}" in runs_h and f"check-{f}-{h_messages}" in runs_h)
    left = ("  What is left for 1.2×: the walk's calling thread (checking and writing each card: retain/release ~28% of "
            "the samples, the card writer) and the first read, which resolve pays too.\n") if ratio > 1.2 else ""
    out.append(f"""## h. Check at scale: {h_messages:,} messages over {h_urls:,} http:// images, every profile (issue 29)

`bench/scale.sh`: a feed dump of {h_messages:,} messages (`bench/gen-campaign.py`) whose {h_urls:,} distinct images
are `http://` URLs served by nginx on 127.0.0.1 (so every card carries a transport finding), resolved for iOS 7.2
and every Android profile (`--platform all --android-sdk all`); `--connect-to` maps the CDN onto nginx.

{table(h1)}

- `check` against `resolve` + `prefetch` of the same feed: **{ratio:.2f}×** their sum (target ≤ 1.2×):
  {met(ratio <= 1.2)}.

Peak RSS (GNU time's maximum resident set), wall time and report size, one run each, every `check` format; the
{h_huge:,}-message feed has no asset (classic cards without an image):

| command | peak RSS | wall | report | cards | a card |
|---|---|---|---|---|---|
{rss_lines}

- Peak RSS of `check` under 256 MiB at {h_huge:,} messages and at {h_messages:,}, every format:
  {met(runs_h[largest][0] < 256)} (the largest is `{largest}`, {runs_h[largest][0]:,.0f} MiB).
- From {h_messages:,} to {h_huge:,} messages ({h_huge // h_messages}× the cards): {"; ".join(growth)}. Flat
  (within 16 MiB): {met(flat)}. Past 262,144 cards the feed order's sort keys go to unlinked files in `$TMPDIR`, sorted in runs
  of 65,536 cards and merged, and every walk reads the positions back from a file (`FeedSpill.swift`); JUnit's
  shared testcase names the same way (`RepeatedValues`). Before this (2026-12-06, first `make bench` of the day):
  58–65 MiB at {h_messages:,} and 204 MiB at {h_huge:,}, every format; the flat-memory work's own runs
  (`/usr/bin/time -v`, no asset, `check --format json`): 55 MiB at 100,000, 1,000,000 and 10,000,000 messages.
- JSON report under 400 bytes a card: {met(per_card < 400)} ({per_card:,.0f} B a card). schemaVersion 3 lists
  each message once in `messages` (one compact line each): the members its cards share once, cards that differ
  only in their SDK version as one entry with `sdks`, null members and what an asset reference's use says left
  out. Before: 2,137 B a card (schemaVersion 2, every card whole and pretty).
- How `check` holds memory (issue 29): no card is held. A first read of the inputs (an NDJSON file a 1 MiB chunk
  at a time) resolves every message and keeps only the counts, the input findings, the distinct asset uses and the
  feed order's keys; every report walk reads and resolves the cards again and writes each as it is checked and
  judged (text: three walks — the table's widths, its rows, the findings; JUnit: two; SARIF: two). Before
  (2026-12-05, `make bench` item h by hand): 635 MiB for `check --format json` at {h_messages:,} messages and
  4,865 MiB at {h_huge:,}; the text report 2,453 MiB at {h_messages:,}.
- Where `check`'s time goes (`perf record -g`, `check --format json` of this feed, 2026-12-06, after the changes):
  of the CPU samples, the first read 25% (reading, resolving, planning; the fetches overlap it on the engine's
  thread), the report walk's checking, judging and writing 46% on the calling thread (writing the cards 21%,
  checking them 11%, judging 6%, regrouping each message's cards 3%), and re-reading and resolving the cards 19% on
  a second thread (`ReadAhead`, a few hundred cards ahead), so that the walk costs its slower half. Tried and not
  kept: judging on a third thread too (5.6 s against 5.3 s: three threads on two cores). Changes of the day, each
  measured by hand on this feed: the report's walk reading ahead on a second thread (6.4 → 5.3 s), no fingerprint
  per finding where no format prints one (3%), an asset reference found with one lookup, the smaller JSON.
{left}""")
out.append(f"""## How to reproduce

`make bench` (or `bash bench/run.sh`); knobs: `BENCH_RUNS`, `BENCH_MESSAGES`, `BENCH_URLS`, `BENCH_PASSES`,
`BENCH_INGEST_MB`, `BENCH_WORK`, and for the network half (`bench/network.sh`) `BENCH_FILES`,
`BENCH_CONCURRENCY`, `BENCH_VIDEO_MB` (item g, `bench/remote.sh`, uses `BENCH_FILES` and `BENCH_CONCURRENCY` too; item h,
`bench/scale.sh`, `BENCH_SCALE_MESSAGES` and `BENCH_SCALE_HUGE`).
The exact commands are the ones in the tables (paths under the scratch directory).
""")
print("\n".join(out))
