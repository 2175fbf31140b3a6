#!/usr/bin/env bash
# `make demo`: the main job on the embedded default campaign, Fixtures/campaigns/demo.json.
# Resolves every message for every SDK profile on iOS and Android, prints the text report and writes the
# JSON report next to it. Exit code 1 from the tool only means "findings at or above --fail-on".
set -uo pipefail
bin=${1:-.build/release/inbox-assets}
cd "$(dirname "$0")/.."
mkdir -p out
campaign=Fixtures/campaigns/demo.json

echo "==> inbox-assets resolve $campaign   (SDK 7.2, iOS — the default)"
"$bin" resolve "$campaign"
status=$?
echo "    exit code $status (0 = nothing at/above --fail-on error, 1 = findings, 2 = unreadable input)"
echo
echo "==> inbox-assets resolve $campaign --sdk all --platform all --format json > out/demo-resolve.json"
"$bin" resolve "$campaign" --sdk all --platform all --format json --fail-on never > out/demo-resolve.json
echo "    $(grep -o '"cards": [0-9]*' out/demo-resolve.json | head -1 | cut -d' ' -f2) cards written to out/demo-resolve.json"
[ $status -le 1 ]
