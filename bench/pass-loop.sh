#!/usr/bin/env bash
# The shell peer of `make bench` item d: what checking passes takes with standard tools, one pass at a time —
# unzip it, SHA-1 every file (what manifest.json lists), verify the detached CMS signature over manifest.json
# against the test root. Usage: pass-loop.sh ROOT_PEM PASS...
set -euo pipefail
root_pem="$1"
shift
scratch="$(mktemp -d)"
trap 'rm -rf "$scratch"' EXIT
for pass in "$@"; do
    rm -rf "$scratch/p" && unzip -qq -o "$pass" -d "$scratch/p"
    (cd "$scratch/p" && sha1sum pass.json ./*.png >/dev/null)
    openssl cms -verify -binary -inform DER -in "$scratch/p/signature" -content "$scratch/p/manifest.json" \
        -CAfile "$root_pem" -purpose any -out /dev/null 2>/dev/null
done
