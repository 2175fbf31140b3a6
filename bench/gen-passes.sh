#!/usr/bin/env bash
# Generates COUNT signed ~50 KB generic passes under OUT/passes/, signed by a throwaway test PKI made here with
# `openssl req/x509` (root → WWDR-like intermediate → Pass Type ID leaf, RSA-2048 like Apple's), and writes
# OUT/pki/root.pem for `pass verify --trust`. Each pass: pass.json (its own serial number), icon.png, icon@2x.png,
# logo.png and logo@2x.png (real PNGs of noise, so they do not compress), manifest.json and a detached
# CMS signature made by `openssl cms -sign`. Also unpacks pass 0 to OUT/unpacked-0/ for the crypto-floor numbers.
#
# Usage: gen-passes.sh OUT [COUNT=500]
set -euo pipefail
out="$1"
count="${2:-500}"
pki="$out/pki"
rm -rf "$out/passes" "$out/work" && mkdir -p "$pki" "$out/passes" "$out/work"
pass_type=pass.bench.inboxAssets
team=BENCH12345

if [ ! -f "$pki/leaf.pem" ]; then
    cat >"$pki/ext.cnf" <<CNF
[bench_ca]
basicConstraints = critical, CA:TRUE
keyUsage = critical, keyCertSign, cRLSign
subjectKeyIdentifier = hash
authorityKeyIdentifier = keyid:always
[bench_leaf]
basicConstraints = critical, CA:FALSE
keyUsage = critical, digitalSignature
extendedKeyUsage = 1.2.840.113635.100.4.14, clientAuth
subjectKeyIdentifier = hash
authorityKeyIdentifier = keyid:always
1.2.840.113635.100.6.1.16 = ASN1:UTF8String:$pass_type
CNF
    openssl req -x509 -newkey rsa:2048 -nodes -keyout "$pki/root.key" -out "$pki/root.pem" -days 3650 \
        -subj "/C=US/O=Bench PKI/CN=Bench Root CA" -extensions bench_ca -config <(cat /etc/ssl/openssl.cnf "$pki/ext.cnf") \
        2>/dev/null
    openssl req -newkey rsa:2048 -nodes -keyout "$pki/wwdr.key" -out "$pki/wwdr.csr" \
        -subj "/C=US/O=Bench PKI/OU=G9/CN=Bench Worldwide Developer Relations CA" 2>/dev/null
    openssl x509 -req -in "$pki/wwdr.csr" -CA "$pki/root.pem" -CAkey "$pki/root.key" -set_serial 2 -days 3000 \
        -extfile "$pki/ext.cnf" -extensions bench_ca -out "$pki/wwdr.pem" 2>/dev/null
    openssl req -newkey rsa:2048 -nodes -keyout "$pki/leaf.key" -out "$pki/leaf.csr" \
        -subj "/UID=$pass_type/CN=Pass Type ID: $pass_type/OU=$team/O=Inbox Assets Bench/C=US" 2>/dev/null
    openssl x509 -req -in "$pki/leaf.csr" -CA "$pki/wwdr.pem" -CAkey "$pki/wwdr.key" -set_serial 100 -days 700 \
        -extfile "$pki/ext.cnf" -extensions bench_leaf -out "$pki/leaf.pem" 2>/dev/null
fi

# The unsigned parts: python writes every pass directory (pass.json + images + manifest.json).
python3 - "$out/work" "$count" "$pass_type" "$team" <<'PY'
import hashlib, json, os, random, struct, sys, zlib
work, count, pass_type, team = sys.argv[1], int(sys.argv[2]), sys.argv[3], sys.argv[4]
rng = random.Random(8)

def png(width, height):
    def chunk(kind, data):
        return struct.pack(">I", len(data)) + kind + data + struct.pack(">I", zlib.crc32(kind + data))
    rows = b"".join(b"\x00" + rng.randbytes(width * 3) for _ in range(height))
    ihdr = struct.pack(">IIBBBBB", width, height, 8, 2, 0, 0, 0)
    return b"\x89PNG\r\n\x1a\n" + chunk(b"IHDR", ihdr) + chunk(b"IDAT", zlib.compress(rows, 9)) + chunk(b"IEND", b"")

# Noise PNGs: about 50 KB together, shared by every pass (only pass.json, the manifest and signature differ).
images = {"icon.png": png(29, 29), "icon@2x.png": png(58, 58),
          "logo.png": png(80, 25), "logo@2x.png": png(160, 50)}
for i in range(count):
    directory = os.path.join(work, f"{i:05d}")
    os.makedirs(directory)
    serial = f"BENCH-{i:05d}"
    pass_json = json.dumps({
        "formatVersion": 1, "passTypeIdentifier": pass_type, "teamIdentifier": team, "serialNumber": serial,
        "organizationName": "Inbox Assets", "description": "Benchmark pass",
        "foregroundColor": "rgb(255, 255, 255)", "backgroundColor": "rgb(10, 20, 30)",
        "barcodes": [{"format": "PKBarcodeFormatQR", "message": serial, "messageEncoding": "iso-8859-1"}],
        "generic": {"primaryFields": [{"key": "member", "label": "Member", "value": f"Member {i}"}],
                    "backFields": [{"key": "terms", "label": "Terms", "value": "None"}]},
    }, indent=2).encode()
    files = {"pass.json": pass_json, **images}
    for name, data in files.items():
        with open(os.path.join(directory, name), "wb") as f:
            f.write(data)
    manifest = {name: hashlib.sha1(data).hexdigest() for name, data in files.items()}
    with open(os.path.join(directory, "manifest.json"), "wb") as f:
        f.write(json.dumps(manifest, indent=2).encode())
PY

# Sign every manifest (detached CMS, DER, with the intermediate embedded as Apple's signing tools do), one
# `openssl cms` per pass on every core, then zip.
export pki
find "$out/work" -mindepth 1 -maxdepth 1 -type d -print0 | xargs -0 -P "$(nproc)" -n 50 bash -c '
    for directory in "$@"; do
        openssl cms -sign -binary -outform DER -md sha256 -in "$directory/manifest.json" -signer "$pki/leaf.pem" \
            -inkey "$pki/leaf.key" -certfile "$pki/wwdr.pem" -out "$directory/signature"
    done' sign
python3 - "$out/work" "$out/passes" <<'PY'
import os, sys, zipfile
work, passes = sys.argv[1], sys.argv[2]
for name in sorted(os.listdir(work)):
    directory = os.path.join(work, name)
    with zipfile.ZipFile(os.path.join(passes, f"pass-{name}.pkpass"), "w", zipfile.ZIP_DEFLATED) as archive:
        for member in ["pass.json", "manifest.json", "signature"] + sorted(
                m for m in os.listdir(directory) if m.endswith(".png")):
            archive.write(os.path.join(directory, member), member)
PY
rm -rf "$out/unpacked-0" && mv "$out/work/00000" "$out/unpacked-0" && rm -rf "$out/work"
