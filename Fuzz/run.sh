#!/usr/bin/env bash
# Runs every libFuzzer target for FUZZ_SECONDS (default 60) each and fails when any of them finds a crash, a
# timeout (-timeout=10 s per input) or an out-of-memory (-rss_limit_mb=2048).
#
# Corpora: each target starts from its seeds (files from Fixtures/, plus every regression input committed under
# Fixtures/fuzz/<target>/) and keeps what it learns in .build/fuzz/corpus/<target>, so repeated runs go deeper.
# A failing input is written to .build/fuzz/artifacts/<target>/: fix the bug, then commit the input under
# Fixtures/fuzz/<target>/ with a regression test (see Fuzz/README.md).
#
# Environment: FUZZ_SECONDS (per target), FUZZ_TARGETS (space-separated subset), FUZZ_ARGS (extra libFuzzer flags).
set -uo pipefail

root="$(cd "$(dirname "$0")/.." && pwd)"
cd "$root"
seconds="${FUZZ_SECONDS:-60}"
read -r -a targets <<<"${FUZZ_TARGETS:-campaign json pass media hls redact}"
out="$root/.build/fuzz"
# The Swift runtime's backtracer symbolicates for minutes in these big instrumented binaries; libFuzzer prints
# the stack itself (mangled names: pipe through `swift demangle`).
export SWIFT_BACKTRACE="${SWIFT_BACKTRACE:-enable=no}"

"$root/Fuzz/build.sh" "${targets[@]}" || exit 1

# Seed files per target, as shell globs relative to the repository root.
seeds_for() {
    case "$1" in
        campaign) echo "Fixtures/campaigns/* Fixtures/media/error.json Fuzz/Seeds/campaign/*" ;;
        json) echo "Fixtures/campaigns/* Fixtures/expected/*.json Fixtures/media/error.json Fuzz/Seeds/campaign/*" ;;
        pass) echo "Fixtures/passes/corpus/*.pkpass" ;;
        media) echo "Fixtures/media/image-* Fixtures/media/video-* Fixtures/media/audio-* Fixtures/media/*.svg" ;;
        hls) echo "Fixtures/media/*.m3u8 Fuzz/Seeds/hls/*" ;;
        redact) echo "Fuzz/Seeds/redact/*" ;;
    esac
}

failed=()
for target in "${targets[@]}"; do
    seeds="$out/seeds/$target"
    corpus="$out/corpus/$target"
    artifacts="$out/artifacts/$target"
    rm -rf "$seeds" && mkdir -p "$seeds" "$corpus" "$artifacts"
    for file in $(seeds_for "$target") Fixtures/fuzz/"$target"/*; do
        [ -f "$file" ] && cp "$file" "$seeds/"
    done
    # Small seeds mutate better: every line of the NDJSON rule fixture is a campaign of its own too.
    if [ "$target" = campaign ]; then
        split -l 1 -a 3 Fixtures/campaigns/rules.ndjson "$seeds/rule-"
        split -l 1 -a 3 Fixtures/campaigns/android-rules.ndjson "$seeds/android-rule-"
    fi
    dictionary=()
    case "$target" in
        json) dictionary=(-dict=Fuzz/Dictionaries/json.dict) ;;
        campaign) cat Fuzz/Dictionaries/json.dict Fuzz/Dictionaries/campaign.dict >"$out/campaign.dict"
            dictionary=(-dict="$out/campaign.dict") ;;
        hls) dictionary=(-dict=Fuzz/Dictionaries/hls.dict) ;;
        redact) dictionary=(-dict=Fuzz/Dictionaries/redact.dict) ;;
    esac
    echo "==> fuzz $target for ${seconds}s ($(ls "$seeds" | wc -l) seeds, $(ls "$corpus" | wc -l) in corpus)"
    "$out/bin/fuzz-$target" \
        -max_total_time="$seconds" -rss_limit_mb=2048 -timeout=10 -print_final_stats=1 \
        -artifact_prefix="$artifacts/" "${dictionary[@]}" ${FUZZ_ARGS:-} "$corpus" "$seeds" >"$out/$target.log" 2>&1
    status=$?
    grep -E "^(#[0-9]+ +DONE|stat::number_of_executed_units|stat::peak_rss_mb)" "$out/$target.log" | tr '\n' ' '
    echo
    if [ $status -ne 0 ]; then
        echo "error: fuzz target $target failed (exit $status); log: $out/$target.log" >&2
        grep -E "ERROR|SUMMARY|Fatal error|Test unit written" "$out/$target.log" | head -10 >&2
        failed+=("$target")
    fi
done

if [ ${#failed[@]} -ne 0 ]; then
    echo "error: fuzz targets failed: ${failed[*]}" >&2
    exit 1
fi
echo "==> fuzz: every target ran ${seconds}s clean"
