# compartment: the build. `make run` and `make test` are the two commands a
# fresh clone needs; everything else is here for people working on it.

GO      ?= go
BIN     := bin/compartment
PKGS    := ./...
# The default test run must stay well under 15 minutes on 2 cores.
TEST_TIMEOUT ?= 12m
# Seconds per fuzz target: short in `make test`, long in `make fuzz`.
FUZZ_SHORT ?= 3
FUZZ_LONG  ?= 120

PREFIX  ?= $(HOME)/.local

.PHONY: all setup setup-run cli build install test run bench fuzz lint model clean release

all: build

# Everything: what running needs and the test-only tools (staticcheck, the
# MCP test client, the real agent CLIs, chromium, qemu, podman).
setup:
	@scripts/setup.sh

# Only what running needs: the Go modules (WITH_ONNX=1 adds the ONNX runtime).
setup-run:
	@scripts/setup.sh run

VERSION ?= $(shell git describe --always --dirty 2>/dev/null || echo dev)

# The CLI alone: pure Go, no C compiler or desktop headers.
cli:
	@echo "== build: $(BIN)"
	$(GO) build -ldflags "-X main.version=$(VERSION)" -o $(BIN) ./cmd/compartment

build: cli
	CGO_ENABLED=1 $(GO) build -o bin/compartment-panel ./cmd/compartment-panel

# Puts the binary on your PATH (PREFIX=/usr/local for everyone), so agents'
# MCP configurations can run `compartment serve`.
install: build
	install -d $(PREFIX)/bin
	install -m 0755 $(BIN) $(PREFIX)/bin/compartment
	install -m 0755 bin/compartment-panel $(PREFIX)/bin/compartment-panel
	@echo "installed $(PREFIX)/bin/compartment"

# Tests run inside a network namespace with only loopback: the kernel
# enforces that nothing in the suite reaches the network.
# The tests are built with the failpoints tag (vaultfmt/failpoint_on.go):
# the crash tests inject failures at named points; `make build` leaves the
# registry out of the binaries.
TEST_TAGS ?= failpoints

test: setup lint build
	GOPROXY=off scripts/offline.sh $(GO) test -tags $(TEST_TAGS) -timeout $(TEST_TIMEOUT) $(PKGS)
	@echo "== the session tests again, with COMPARTMENT_PASSPHRASE set as the README tells users to"
	GOPROXY=off COMPARTMENT_PASSPHRASE=not-the-vaults-passphrase scripts/offline.sh $(GO) test -count=1 -timeout 5m ./internal/session/
	GOPROXY=off scripts/offline.sh scripts/fuzz.sh $(FUZZ_SHORT)
	GOPROXY=off scripts/offline.sh scripts/cross.sh

# A demo needs the CLI only: `make build` adds the panel (its setup is
# part of `make setup`).
run: setup-run cli
	@scripts/demo.sh

bench: setup build
	@scripts/bench.sh

fuzz: setup
	GOPROXY=off scripts/offline.sh scripts/fuzz.sh $(FUZZ_LONG)

lint:
	@unformatted=$$(gofmt -l $$(git ls-files '*.go' 2>/dev/null || find . -name '*.go')); \
	if [ -n "$$unformatted" ]; then echo "gofmt would change:"; echo "$$unformatted"; exit 1; fi
	$(GO) vet $(PKGS)
	$(GO) vet -tags $(TEST_TAGS) $(PKGS)
	@scripts/lint.sh

# Rebuilds the bundled static embedding model from scratch (see embed/MODEL.md).
model: setup
	@scripts/model.sh

# Five signed archives, SHA256SUMS and its signature in dist/<version>/
# (RELEASING.md).
release:
	@scripts/release.sh

clean:
	rm -rf bin .demo dist

# Rebuilds the bundled reference facts (internal/reference/facts.jsonl.gz)
# from the Debian packages pinned in internal/reference/gen/packages.lock,
# downloaded with apt-get into .cache/facts and checked by SHA-256.
.PHONY: facts
facts:
	$(GO) run ./internal/reference/gen -cache .cache/facts

# Idle CPU and RSS of an open panel under Xvfb, over a minute per state
# (scripts/panel-idle.sh); a measurement, not part of `make test`.
.PHONY: panel-idle
panel-idle: build
	@scripts/panel-idle.sh

# Regenerates the opinion rules' word table (internal/lexicon/table.txt and
# its test fixture) from WordNet 3.0: Debian's wordnet-base, the version
# embed/train/corpus.lock pins (apt-get install wordnet-base, or
# WORDNET=the usr/share/wordnet of an unpacked copy). The build and the
# tests never need it: the table is committed.
WORDNET ?= /usr/share/wordnet
.PHONY: lexicon
lexicon:
	cd internal/lexicon && $(GO) run ./gen -wordnet $(abspath $(WORDNET))
