# The README's commands. Everything a fresh machine needs (Rust toolchain, python3 >= 3.11 with pip) is
# assumed; the rest is installed here into .venv.
.PHONY: venv build run test stubtest pytest sysdeps guest bench bench-sweep lint docs fidelity fuzz clean

PYTHON ?= python3
VENV := .venv
BIN := $(VENV)/bin
export VIRTUAL_ENV := $(CURDIR)/$(VENV)

# apt-get as root, through sudo otherwise.
SUDO := $(if $(filter 0,$(shell id -u)),,sudo)

# Rust sources that go into the extension module: rebuild it only when one of them changes.
RUST_SRC := $(shell find crates -name '*.rs' -not -path '*/target/*') \
            $(wildcard crates/*/Cargo.toml) Cargo.toml Cargo.lock

venv: $(VENV)/.deps-stamp

# Runtime + dev dependencies, read from pyproject.toml (one list, no copy here), plus maturin.
$(VENV)/.deps-stamp: pyproject.toml
	test -x $(BIN)/python || $(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install --quiet --upgrade pip
	$(BIN)/python -m pip install --quiet "maturin>=1.16,<2" $$($(BIN)/python -c 'import tomllib; \
		p = tomllib.load(open("pyproject.toml", "rb"))["project"]; \
		print(*p["dependencies"], *p["optional-dependencies"]["dev"])')
	touch $@

build: $(VENV)/.build-stamp

# Release build of the Rust extension, installed into .venv together with the Python package (editable:
# python/ is on the path, so Python edits need no rebuild) and its `ssdlab` script.
# PIP_QUIET: maturin's own pip run would list every dependency already installed.
$(VENV)/.build-stamp: $(VENV)/.deps-stamp $(RUST_SRC) pyproject.toml
	PIP_QUIET=1 $(BIN)/maturin develop --release --quiet
	touch $@

# The KIOXIA BG4 brief's own method (CrystalDiskMark 6, 32 GiB test file): its figures print beside the twin's.
run: build
	$(BIN)/ssdlab run --preset bg4-1tb --suite cdm6 --test-size 32g

test: build
	cargo test
	$(MAKE) --no-print-directory stubtest
	$(MAKE) --no-print-directory pytest

# The hand-kept stub must match the compiled module.
stubtest: build
	$(BIN)/python -m mypy.stubtest ssdlab._core

# Debian packages the tests use: chromium renders the HTML report (tests/test_report.py); fio is the
# reference `ssdlab fio` is checked against (tests/test_fio.py); nbdkit with its Python plugin exports the
# twin, libnbd-bin (nbdcopy) and qemu-utils (qemu-img) use it as a disk (tests/test_serve.py).
# qemu-system-x86, busybox-static and e2fsprogs (mke2fs) make and boot the Linux guest that uses the twin
# as its disk (scripts/build_guest.sh, tests/test_serve.py); they go in without their recommends (a
# desktop's worth of display and audio libraries), and with the release's own qemu-utils: a backported
# qemu-utils (some machine images have one) breaks the release's qemu-system-x86, and apt would remove it.
# Idempotent: installs only what is missing.
SYSDEPS := chromium fio nbdkit nbdkit-plugin-python libnbd-bin qemu-utils
GUEST_SYSDEPS := qemu-system-x86 busybox-static e2fsprogs
sysdeps:
	@missing="$$(for p in $(SYSDEPS); do dpkg -s $$p >/dev/null 2>&1 || echo $$p; done)"; \
	test -z "$$missing" || { \
		echo "make sysdeps: installing the Debian packages $$missing with apt-get (chromium renders the HTML report in a test; fio runs beside the twin; nbdkit, nbdcopy and qemu-img serve and use it as a disk)"; \
		$(SUDO) apt-get update && $(SUDO) apt-get install -y $$missing; }
	@missing="$$(for p in $(GUEST_SYSDEPS); do dpkg -s $$p >/dev/null 2>&1 || echo $$p; done)"; \
	test -z "$$missing" || { \
		echo "make sysdeps: installing the Debian packages $$missing with apt-get (a Linux guest boots under qemu with the twin as its disk)"; \
		$(SUDO) apt-get update && $(SUDO) apt-get install -y --no-install-recommends --allow-downgrades \
			$$missing qemu-utils/$$(. /etc/os-release && echo $$VERSION_CODENAME); }

# The Linux guest of docs/serve.md: Debian's kernel (downloaded, not installed) and a small initramfs, in
# target/guest.
guest: sysdeps
	scripts/build_guest.sh target/guest

# One worker per core, a test file to a worker (a file's module fixtures, such as test_fidelity's runs of
# each preset's methods, are built once): about 13 minutes on 2 cores (1,074 tests; their durations add up to ~25).
pytest: build sysdeps
	$(BIN)/pytest -q -n auto --dist loadfile

bench:
	cargo bench -p ssdlab-core --bench engine

# `ssdlab sweep` on 2 workers against 1, and against two plain processes (what the machine allows): 200
# points of 1 s simulated, in alternating rounds (about 4 minutes a round on 2 cores).
bench-sweep: build
	$(BIN)/python scripts/bench_sweep.py

lint: venv
	cargo fmt --all --check
	cd fuzz && cargo fmt --check  # the fuzz crate is its own workspace: --all does not reach it
	cargo clippy --workspace --all-targets -- -D warnings
	$(BIN)/ruff check python tests scripts
	$(BIN)/ruff format --check python tests scripts
	$(BIN)/mypy

# Generated docs: the counter table, from the engine's registry (a test checks it is current).
docs: build
	$(BIN)/python scripts/counters_doc.py

# The cargo-fuzz targets (fuzz/, docs/fuzzing.md), FUZZ_SECONDS each (default 60; the long runs are >= 1 h).
FUZZ_SECONDS ?= 60
FUZZ_TARGETS := toml_loader set_override stepping trace_parser workload
fuzz:
	command -v cargo-fuzz >/dev/null || cargo install cargo-fuzz --locked
	mkdir -p $(addprefix fuzz/seeds/,$(FUZZ_TARGETS)) fuzz/seeds/toml_loader
	cp python/ssdlab/presets/*.toml fuzz/seeds/toml_loader/  # toml_loader starts from the presets
	cd fuzz && for t in $(FUZZ_TARGETS); do \
		mkdir -p corpus/$$t && cargo +nightly fuzz run -O $$t corpus/$$t seeds/$$t -- -max_total_time=$(FUZZ_SECONDS) \
			-rss_limit_mb=2048 -timeout=30 || exit 1; done

clean:
	rm -rf $(VENV) target

# The README's fidelity table: every published figure against the model (`ssdlab validate`, a drive a process).
fidelity: build
	$(BIN)/ssdlab validate --jobs 0 --readme README.md
