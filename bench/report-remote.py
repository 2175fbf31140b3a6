#!/usr/bin/env python3
"""Renders the item g section of bench/RESULTS.md (remote cache and sharded runs) from what bench/remote.sh left in
RESULTS_DIR. bench/report.py includes it when g ran; alone it prints just the section.

Usage: report-remote.py RESULTS_DIR
"""
import json
import os
import sys

results = sys.argv[1]


def load(name):
    with open(os.path.join(results, name + ".json")) as f:
        return {r["command"]: r for r in json.load(f)["results"]}


def text(name):
    with open(os.path.join(results, name)) as f:
        return f.read().strip()


def table(results_by_name):
    lines = ["| command | median | range | runs |", "|---|---|---|---|"]
    for r in results_by_name.values():
        lines.append(f"| `{r['command']}` | {r['median']:.3f} s | {r['min']:.3f}–{r['max']:.3f} s | {len(r['times'])} |")
    return "\n".join(lines)


def met(ok):
    return "**met**" if ok else "**not met**"


files, n = (int(v) for v in text("g-params.txt").split())
total_bytes = int(text("g-bytes.txt"))
first = [int(v) for v in text("g-first-summary.txt").split()]
second = [int(v) for v in text("g-second-summary.txt").split()]
origin_requests, origin_bytes = (int(v) for v in text("g-second-origin.txt").split())
blobs = int(text("g-remote-blobs.txt"))
g1, g2, g3 = load("g1"), load("g2"), load("g3")
first_run = g1["first runner: empty store, empty remote"]["median"]
second_run = g1["second runner: empty store, warm remote"]["median"]
ours = g2["inbox-assets prefetch, warm remote (/ac/ + /cas/)"]["median"]
curl_cas = g2[f"curl --parallel --parallel-max {n}, /cas/ only"]["median"]
curl_both = g2[f"curl --parallel --parallel-max {n}, /ac/ + /cas/"]["median"]
one = g3["one process"]["median"]
sharded = g3["2 shards (--shard 1/2, 2/2) at once"]["median"]
shards = [[int(v) for v in line.split()] for line in text("g-shards-summary.txt").splitlines()]

print(f"""## g. Shared remote cache and sharded runs (issue 15)

`bench/remote.sh`: one nginx on 127.0.0.1 with two servers — the origin, {files:,} generated PNGs of 1–8 KB
({total_bytes / 1e6:.1f} MB) sent with `Cache-Control: max-age=3600` as a CDN would, and a WebDAV remote cache
(`dav_methods PUT DELETE; create_full_put_path on; client_max_body_size 0`), each with its own access log. The feed
is {files:,} messages, one image each; `prefetch --concurrency {n} --host-concurrency {n} --remote-cache
http://127.0.0.1:PORT/ci`. Client and nginx share the two cores.

### g1. A second runner with an empty local store against a warm remote

{table(g1)}

- First runner: {first[0]:,} assets, {first[1]:,} fetched from origin ({first[3]:,} bytes), {blobs:,} blobs
  uploaded to the remote (each blob, then its record, in the background; the run waits for them at its end).
- Second runner (outside the timing, origin access log emptied first): {second[2]:,} from the remote,
  {second[1]:,} fetched, {second[4]} failed; the origin saw **{origin_requests} requests and {origin_bytes} body
  bytes** (target 0): {met(origin_bytes == 0)}.
- Wall time second/first: **{second_run / first_run:.2f}×** (target ≤ 1.0×): {met(second_run <= first_run)}.

### g2. Remote download throughput: {files:,} small blobs vs curl --parallel from the same nginx

{table(g2)}

The runner asks for two entries per asset (the `/ac/` record, then the `/cas/` blob streamed into the store and
verified), so its like-for-like peer is curl fetching the same {2 * files:,} URLs; the issue's target compares with
curl fetching the /cas/ URLs alone.

- Throughput vs curl on /cas/ only: **{curl_cas / ours:.2f}×** curl's (target ≥ 0.8×): {met(curl_cas / ours >= 0.8)}.
- vs curl on /ac/ + /cas/ (the same requests): **{curl_both / ours:.2f}×**.

### g3. Sharded prefetch: N = 2 processes at once on the 2 cores vs one process

{table(g3)}

Fresh stores, no remote; shard 1 took {shards[0][0]:,} assets and shard 2 {shards[1][0]:,} (together
{shards[0][0] + shards[1][0]:,} of {files:,}, each exactly once). Two shards at once take **{sharded / one:.2f}×** the
time of one process (no target: on two shared cores this says how much of one process's time is spent waiting
rather than computing).
""")
