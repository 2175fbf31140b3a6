#!/usr/bin/env python3
"""Item g2 of `make bench`: how long a client's downloads took as the remote cache's nginx saw them.

    download-window.py RUNS LOG STORE CMD...

Runs CMD RUNS times (STORE removed before each run, LOG emptied), and prints per run the wall time of the whole
command, the download window — from the start of the first request (`$msec - $request_time`) to the end of the last
one, or to the last write of STORE's index log when that comes later (a client that stores what it downloaded is
done when its last record is written) — and how many requests nginx answered in it. The log lines end with
`$msec $request_time` (bench/remote.sh's `bench` format).
"""
import os, shutil, subprocess, sys, time

runs, log, store, cmd = int(sys.argv[1]), sys.argv[2], sys.argv[3], sys.argv[4:]
index_log = os.path.join(store, "index", "records.log")
for _ in range(runs):
    shutil.rmtree(store, ignore_errors=True)
    open(log, "w").close()
    started = time.time()
    subprocess.run(cmd, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, check=True)
    wall = time.time() - started
    time.sleep(0.3)  # nginx writes a line after its response
    first, last, requests = None, None, 0
    with open(log) as lines:
        for line in lines:
            fields = line.split()
            end, took = float(fields[-2]), float(fields[-1])
            first = end - took if first is None else min(first, end - took)
            last = end if last is None else max(last, end)
            requests += 1
    if os.path.exists(index_log):
        last = max(last, os.stat(index_log).st_mtime)
    print(f"{wall:.4f} {last - first:.4f} {requests}")
