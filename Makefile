SHELL := /bin/bash
# inbox-assets — the front door. `make test` and `make demo` install what they need.
SWIFT ?= swift
APT_PACKAGES := pkg-config libcurl4-openssl-dev libzip-dev libssl-dev zlib1g-dev
SUDO := $(shell [ "$$(id -u)" = 0 ] || echo sudo)
BIN := .build/release/inbox-assets

.PHONY: all deps test-deps build test demo format lint docs clean fuzz bench

all: build

# Installs the C libraries' -dev packages from Debian when pkg-config cannot find them.
deps:
	@if ! pkg-config --exists libcurl libzip openssl zlib 2>/dev/null; then \
		echo "==> installing $(APT_PACKAGES)"; \
		$(SUDO) apt-get update -qq && DEBIAN_FRONTEND=noninteractive $(SUDO) apt-get install -y -qq $(APT_PACKAGES); \
	fi

# The programs the tests start (headless Chromium screenshots the HTML report, nginx serves HTTP/2, openssl makes
# certificates, GNU time measures a child's peak memory), installed from Debian when one is missing.
TEST_PACKAGES := chromium fonts-liberation nginx-light openssl ca-certificates time python3 python3-pip
test-deps: deps
	@if ! [ -x /usr/bin/chromium ] || ! [ -x /usr/sbin/nginx ] || ! [ -x /usr/bin/openssl ] || ! [ -x /usr/bin/time ] || \
		! command -v python3 >/dev/null || ! python3 -m pip --version >/dev/null 2>&1 || \
		! [ -f /usr/share/fonts/truetype/liberation/LiberationSans-Regular.ttf ]; then \
		echo "==> installing $(TEST_PACKAGES)"; \
		$(SUDO) apt-get update -qq && DEBIAN_FRONTEND=noninteractive $(SUDO) apt-get install -y -qq \
			--no-install-recommends $(TEST_PACKAGES); \
	fi
	@# The CI report tests validate real JUnit and SARIF outputs with PyPI xmlschema and jsonschema.
	@if ! python3 -c "import xmlschema, jsonschema" 2>/dev/null; then \
		echo "==> pip install xmlschema jsonschema"; \
		python3 -m pip install -q xmlschema jsonschema 2>/dev/null || \
			python3 -m pip install -q --break-system-packages xmlschema jsonschema; \
	fi

build: deps
	$(SWIFT) build -c release --product inbox-assets
	$(SWIFT) build -c release --product fixture-server

# Builds everything (failing on any compiler warning), then runs every test.
test: test-deps
	@$(SWIFT) build --build-tests 2>&1 | tee .build-test.log; status=$${PIPESTATUS[0]}; \
	if [ $$status -ne 0 ]; then exit $$status; fi; \
	if grep -q "warning:" .build-test.log; then echo "error: the build has compiler warnings (see above)"; exit 1; fi
	$(SWIFT) test --skip-build --parallel

demo: build
	@bash Fixtures/demo.sh $(BIN) .build/release/fixture-server

format:
	$(SWIFT) format -i -r Sources Tests Package.swift

lint:
	$(SWIFT) format lint -r Sources Tests

# Regenerates docs/finding-codes.md from the documented code constants in Sources/.
docs:
	python3 scripts/finding-codes.py

# libFuzzer targets (Fuzz/), FUZZ_SECONDS each (default 60); fails when any target crashes, times out or runs out
# of memory. CI: FUZZ_SECONDS=30 make fuzz.
fuzz: deps
	bash Fuzz/run.sh

# Benchmarks side by side with their peers (installs them from Debian); writes bench/RESULTS.md. CPU-heavy: never
# part of `make test`.
bench: deps
	bash bench/run.sh

clean:
	rm -rf .build .build-test.log
