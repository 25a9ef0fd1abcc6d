# bufsize: the two quick-start commands are `make demo` and `make test`; both install what they
# need into .venv first (Python 3.11, the package with its Rust engine built by maturin).
PYTHON ?= $(shell command -v python3.11 || command -v python3)
VENV   := .venv
BIN    := $(VENV)/bin
export PATH := $(CURDIR)/$(BIN):$(PATH)

.PHONY: install demo test test-rust test-python typecheck docs docs-serve testbed-deps bench clean

$(BIN)/maturin:
	$(PYTHON) -m venv $(VENV)
	$(BIN)/pip install -q --upgrade pip 'maturin>=1.7,<2'

# Always re-run: maturin rebuilds the Rust extension only when its sources changed.
install: $(BIN)/maturin
	$(BIN)/pip install -q --no-build-isolation -e '.[test]'

demo: install
	$(BIN)/bufsize recommend

test: install testbed-deps test-rust typecheck docs test-python

# The kernel testbed's tools (iproute2, ethtool, ping); installs them only as root. Without them
# the live testbed tests skip with the reason, so a non-root run still passes.
testbed-deps:
	@sh scripts/install-testbed-deps.sh || echo "testbed tools missing: the live testbed tests will be skipped"

# The window-bounds test also runs in a debug build, where the sender checks at every loss that
# the threshold never rises above the window that overflowed (a debug assertion).
test-rust:
	cargo test --workspace --exclude bufsize-py --release -q
	cargo test -p bufsize-sim --test window_bounds -q

test-python:
	$(BIN)/python -m pytest -q

# mypy over the package (strict on the public API modules; configuration in pyproject.toml)
typecheck:
	$(BIN)/mypy

# The documentation site (mkdocs.yml): any warning fails it (a broken link or anchor, a missing
# reference), and so does a signature left unformatted for want of the docs extras' formatter. No
# --quiet: mkdocs counts the warnings that --strict fails on only when it logs them. The log is
# printed when the build fails. `make docs-serve` serves the site at http://127.0.0.1:8000.
DOCS_CONFIG ?= mkdocs.yml
DOCS_SITE   ?= build/site
docs:
	@log=$$(mktemp); NO_MKDOCS_2_WARNING=1 $(BIN)/mkdocs build --strict -f $(DOCS_CONFIG) --site-dir $(DOCS_SITE) >$$log 2>&1; rc=$$?; \
	if [ $$rc -ne 0 ] || grep -Eq '^(WARNING|ERROR)|requires either Black or Ruff' $$log; then \
	  cat $$log; echo; rm -f $$log; echo "make docs: failed (the warnings above; pip install -e '.[docs]' for the formatter)" >&2; exit 1; fi; \
	rm -f $$log; echo "docs: $(DOCS_SITE)/index.html, no warnings"

docs-serve:
	$(BIN)/mkdocs serve

# Speed benchmarks (results are written to bench/*.md); the ns-3 and testbed comparisons have their
# own scripts under bench/ns3 and bench/testbed (they need ns-3 / root and take much longer).
bench: install
	$(BIN)/python bench/recommend_bench.py
	$(BIN)/python bench/sweep_bench.py
	bash bench/sim_speed.sh

# Longer fuzzing than make test runs: random mutations of the example scenarios through
# `bufsize simulate` (counts written to bench/fuzz.md) and of their SI form through the engine's
# scenario reader (proptest). FUZZ_CASES / PROPTEST_CASES set the numbers. Then the traffic
# readers: damaged captures through the Rust reader (proptest) and hostile flow records, Zeek logs
# and damaged captures through the Python readers and the profile (Hypothesis); outcomes appended
# to bench/fuzz_readers.md. `make test` runs the same targets briefly (256 cases, 30 examples).
.PHONY: fuzz
FUZZ_CASES ?= 3000
PROPTEST_CASES ?= 20000
# the traffic readers (bench/fuzz_readers.md): Rust capture reader cases, Python examples per target
READER_FUZZ_CASES ?= 100000
READER_FUZZ_EXAMPLES ?= 500
fuzz: install
	BUFSIZE_FUZZ_EXAMPLES=$(FUZZ_CASES) BUFSIZE_FUZZ_REPORT=bench/fuzz.md $(BIN)/python -m pytest -q \
		tests/sim/test_fuzz_scenarios.py -k mutated
	PROPTEST_CASES=$(PROPTEST_CASES) cargo test -p bufsize-sim --release -q --test scenario_reader_fuzz
	@echo "" >> bench/fuzz.md
	@echo "Engine scenario reader (\`crates/sim/tests/scenario_reader_fuzz.rs\`, proptest): $(PROPTEST_CASES) random cases, no panic (run of $$(date -u '+%Y-%m-%d %H:%M') UTC)." >> bench/fuzz.md
	PROPTEST_CASES=$(READER_FUZZ_CASES) cargo test -p bufsize-capture --release -q --test reader_fuzz
	@echo "- capture reader (\`crates/capture/tests/reader_fuzz.rs\`, proptest): $(READER_FUZZ_CASES) damaged captures per property, no panic, every result within bounds (run of $$(date -u '+%Y-%m-%d %H:%M') UTC)" >> bench/fuzz_readers.md
	BUFSIZE_FUZZ_READERS=$(READER_FUZZ_EXAMPLES) BUFSIZE_FUZZ_READERS_REPORT=bench/fuzz_readers.md \
		$(BIN)/python -m pytest -q -p no:cacheprovider tests/traffic/test_reader_fuzz.py

clean:
	rm -rf $(VENV) target build
