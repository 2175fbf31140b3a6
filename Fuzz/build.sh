#!/usr/bin/env bash
# Builds the libFuzzer targets of Fuzz/Targets with `swiftc -sanitize=fuzzer,address`.
#
# Why swiftc and not SwiftPM: a fuzz executable needs its own product with libFuzzer's main, which would change
# Package.swift for every developer's build. Instead each library module the targets need is compiled here the
# way SwiftPM would (one whole-module object and .swiftmodule each, Swift 6 mode, same C module maps from
# Sources/C*), but instrumented for libFuzzer coverage and AddressSanitizer; then every target links its harness
# file against those objects.
#
# Usage: Fuzz/build.sh [target...]   (targets: campaign json pass media hls redact; default all)
# Output: .build/fuzz/bin/fuzz-<target>. Set FUZZ_OPT=-Onone for a debug build (default -O).
set -euo pipefail

root="$(cd "$(dirname "$0")/.." && pwd)"
cd "$root"
out="$root/.build/fuzz"
mkdir -p "$out/modules" "$out/obj" "$out/bin" "$out/generated"
SWIFTC="${SWIFTC:-swiftc}"
opt="${FUZZ_OPT:--O}"

# The module sets each target needs, in dependency order.
declare -A target_modules=(
    [campaign]="StrictJSON Findings InboxCards"
    [json]="StrictJSON"
    [pass]="StrictJSON Findings WalletPass"
    [media]="StrictJSON Findings MediaProbe MediaRules"
    [hls]="StrictJSON Findings MediaProbe"
    [redact]="StrictJSON Findings"
)
declare -A target_file=(
    [campaign]=Campaign.swift [json]=JSON.swift [pass]=Pass.swift [media]=Media.swift [hls]=HLS.swift
    [redact]=Redact.swift
)

# zlib: MediaProbe checks PNG image data with its inflate (Sources/CZlib).
if ! pkg-config --exists libzip openssl zlib 2>/dev/null; then
    echo "error: pkg-config cannot find libzip/openssl/zlib; run 'make deps' first" >&2
    exit 1
fi
c_flags=()
for flag in $(pkg-config --cflags libzip openssl zlib); do c_flags+=(-Xcc "$flag"); done
link_flags=()
for flag in $(pkg-config --libs-only-L libzip openssl zlib); do link_flags+=("$flag"); done
common=(
    -swift-version 6 -package-name inbox_assets "$opt" -sanitize=fuzzer,address -parse-as-library
    -I "$out/modules" -I Sources/CZip -I Sources/COpenSSL -I Sources/CCurl -I Sources/CZlib "${c_flags[@]}"
)

# WalletPass reads its certificates through Bundle.module, which SwiftPM generates; this is the same accessor,
# pointing at a copy of Sources/WalletPass/Resources next to the fuzz binaries.
write_resource_accessor() {
    local bundle="$out/bin/inbox-assets_WalletPass.resources"
    rm -rf "$bundle" && mkdir -p "$bundle"
    cp -R Sources/WalletPass/Resources/certs "$bundle/certs"
    local accessor="$out/generated/WalletPass_resource_bundle_accessor.swift"
    cat >"$accessor.new" <<SWIFT
import Foundation

extension Foundation.Bundle {
    /// The fuzz build's copy of SwiftPM's generated accessor (see Fuzz/build.sh).
    static let module: Bundle = {
        let path = "$bundle"
        guard let bundle = Bundle(path: path) else { fatalError("could not load resource bundle from \(path)") }
        return bundle
    }()
}
SWIFT
    # Replaced only when it changes, so WalletPass is not rebuilt on every run.
    if cmp -s "$accessor.new" "$accessor"; then rm "$accessor.new"; else mv "$accessor.new" "$accessor"; fi
}

# Whether OUTPUT exists and none of the other arguments (its inputs) nor this script is newer than it.
up_to_date() {
    local output="$1"
    shift
    [ -f "$output" ] && [ -z "$(find "$@" "$0" -newer "$output" 2>/dev/null | head -1)" ]
}

# Rebuilds a module when any of its sources, the objects of the modules it depends on (the rest of the arguments:
# a changed interface changes this module's code) or this script is newer than its object.
build_module() {
    local module="$1"
    shift
    local dependencies=("$@")
    local object="$out/obj/$module.o"
    local sources
    mapfile -t sources < <(find "Sources/$module" -name '*.swift' | sort)
    if [ "$module" = WalletPass ]; then
        write_resource_accessor
        sources+=("$out/generated/WalletPass_resource_bundle_accessor.swift")
    fi
    if up_to_date "$object" "${sources[@]}" "${dependencies[@]}"; then return; fi
    echo "==> fuzz build: module $module"
    "$SWIFTC" "${common[@]}" -module-name "$module" -wmo -emit-module -emit-module-path "$out/modules/$module.swiftmodule" \
        -c -o "$object" "${sources[@]}"
    # The compiler leaves an object whose contents did not change untouched; mark it as up to date.
    touch "$object"
}

targets=("$@")
[ ${#targets[@]} -eq 0 ] && targets=(campaign json pass media hls redact)
built=" "
for target in "${targets[@]}"; do
    [ -n "${target_file[$target]:-}" ] || { echo "error: unknown fuzz target '$target'" >&2; exit 2; }
    objects=()
    for module in ${target_modules[$target]}; do
        if [[ "$built" != *" $module "* ]]; then
            build_module "$module" "${objects[@]}"
            built+="$module "
        fi
        objects+=("$out/obj/$module.o")
    done
    binary="$out/bin/fuzz-$target"
    harness="Fuzz/Targets/${target_file[$target]}"
    if up_to_date "$binary" "$harness" "${objects[@]}"; then continue; fi
    echo "==> fuzz build: target $target"
    "$SWIFTC" "${common[@]}" -module-name "Fuzz_$target" "$harness" "${objects[@]}" \
        -use-ld=lld "${link_flags[@]}" -lzip -lssl -lcrypto -lz -o "$binary"
done
