#!/usr/bin/env bash
# `make demo`: the main job on the embedded default. Starts the loopback fixture server on Fixtures/www, then
# runs `inbox-assets check --platform all` on Fixtures/campaigns/demo.json (iOS InboxKit 7.2 and Android
# inbox-ui 6.13 cards), whose real-looking https://cdn.example.com/ URLs are mapped onto the fixture server with
# --connect-to and trusted with --cacert (the server's test CA).
# Some assets are broken on purpose (see Fixtures/www/generate-demo.sh). Prints the text report, then writes
# the HTML preview and the JSON report under out/.
set -uo pipefail
bin=${1:-.build/release/inbox-assets}
server=${2:-.build/release/fixture-server}
cd "$(dirname "$0")/.."
mkdir -p out
rm -f out/fixture-server.ready
"$server" --root Fixtures/www --port 0 --https-port 0 --ca-out out/fixture-ca.pem \
    --ready-file out/fixture-server.ready > out/fixture-server.log 2>&1 &
server_pid=$!
trap 'kill $server_pid 2>/dev/null; wait $server_pid 2>/dev/null' EXIT
for _ in $(seq 1 100); do [ -s out/fixture-server.ready ] && break; sleep 0.1; done
https_port=$(grep -o 'https_port=[0-9]*' out/fixture-server.log | head -1 | cut -d= -f2)
if [ -z "$https_port" ]; then echo "fixture server did not start:"; cat out/fixture-server.log; exit 1; fi

campaign=Fixtures/campaigns/demo.json
cards=(--platform all)
network=(--connect-to "cdn.example.com:443:127.0.0.1:$https_port" --cacert out/fixture-ca.pem --store out/demo-store)
echo "==> fixture server on 127.0.0.1:$https_port serving Fixtures/www as https://cdn.example.com/"
echo "==> inbox-assets check $campaign ${cards[*]} --connect-to cdn.example.com:443:127.0.0.1:$https_port --cacert out/fixture-ca.pem --store out/demo-store"
echo
"$bin" check "$campaign" "${cards[@]}" "${network[@]}"
status=$?
echo
echo "    exit code $status (0 = nothing at/above --fail-on error, 1 = findings at/above it, 2 = unreadable input)"
"$bin" check "$campaign" "${cards[@]}" "${network[@]}" --quiet --format json --output out/demo-report.json --fail-on never
# The preview and the CI formats at the default --fail-on error (their verdicts agree with the exit code above).
"$bin" check "$campaign" "${cards[@]}" "${network[@]}" --quiet --format html --output out/demo-report.html \
    --app-name "Le Rendez Vous"
for format in sarif markdown junit; do
    "$bin" check "$campaign" "${cards[@]}" "${network[@]}" --quiet --format $format --output out/demo-report.$format
done
echo "==> HTML preview: $(pwd)/out/demo-report.html"
echo "==> JSON report:  $(pwd)/out/demo-report.json (the later runs revalidated the store: no bodies)"
echo "==> CI formats:   $(pwd)/out/demo-report.{sarif,markdown,junit} (GitHub code scanning, job summary, JUnit)"
[ $status -le 1 ]
