# Two entry points (see README): `make demo` runs the quick suite on the simulated drive
# and writes a report; `make test` runs every check. Both install what they need and are
# safe to run again.
SHELL := /bin/bash
VENV := .venv
PY := $(VENV)/bin/python
SSDLAB := $(VENV)/bin/ssdlab
SUDO := $(shell [ "$$(id -u)" = 0 ] || echo sudo)
APT := DEBIAN_FRONTEND=noninteractive $(SUDO) apt-get
DEMO_OUT ?= results/demo-$(shell date +%Y%m%d-%H%M%S)

.PHONY: demo test install rust-version system-deps test-deps lint python-checks lint-rust rust-checks rust-test py-test python-tests bench clean

demo: install
	$(SSDLAB) run --suite quick --out $(DEMO_OUT)

# The Python checks run beside the Rust ones (mypy is one process; cargo's compiles leave a core
# idle while they link), then the Python tests.
test: install test-deps
	$(MAKE) --no-print-directory -j2 --output-sync=target python-checks rust-checks
	$(MAKE) --no-print-directory python-tests

# fio from Debian; python3-venv for the virtualenv; a Rust toolchain to build ssdsim (rustup's if
# present, else Debian's cargo and rustc, or on Debian 12, whose own are 1.63, its newer cargo-web
# and rustc-web: tools/debian-rust.sh). losetup and mkfs.ext4 live in /usr/sbin, which is not on an
# ordinary user's PATH on Debian: looked for there too, or every `make demo` as a user asked sudo
# to install what is installed (QA).
system-deps:
	@PATH="$$PATH:/usr/sbin:/sbin"; missing=""; \
	command -v fio >/dev/null || missing="$$missing fio"; \
	python3 -c 'import ensurepip, venv' 2>/dev/null || missing="$$missing python3-venv python3-pip"; \
	rust=$$(tools/debian-rust.sh build $(RUST_MIN_MINOR)); [ -z "$$rust" ] || missing="$$missing $$rust"; \
	command -v losetup >/dev/null || missing="$$missing util-linux"; \
	command -v mkfs.ext4 >/dev/null || missing="$$missing e2fsprogs"; \
	if [ -n "$$missing" ]; then echo "installing:$$missing"; $(APT) update -qq && $(APT) install -y -qq $$missing; fi

# Headless Chromium for the browser test of the report; clippy and rustfmt for Debian's cargo
# (rustup's toolchain has them).
test-deps: system-deps
	@command -v chromium >/dev/null || { $(APT) update -qq && $(APT) install -y -qq chromium; }
	@lint=$$(tools/debian-rust.sh lint); \
	if [ -n "$$lint" ]; then echo "installing: $$lint"; $(APT) update -qq && $(APT) install -y -qq $$lint; fi

$(VENV)/bin/python:
	python3 -m venv $(VENV)
	$(PY) -m pip install -q --upgrade pip

# pip builds the Rust extension through maturin (release profile); re-running rebuilds
# only what changed. An editable install leaves the package's own modules uncompiled: where
# PYTHONDONTWRITEBYTECODE is set (container images often set it; the development machine did)
# every command compiled all of them again, 0.8 s of each start; compileall writes them once.
install: system-deps rust-version $(VENV)/bin/python
	@export PATH="$$HOME/.cargo/bin:$$PATH"; \
	$(PY) -m pip install -q -e ".[dev]"
	$(PY) -m compileall -q python/ssdlab

# The simulator's dependencies need Rust 1.85 or newer (toml 0.9, rand 0.10: their rust-version);
# with an older cargo (an old rustup toolchain; Debian's 1.63 where apt has nothing newer) the
# build fails deep in a dependency: say so first.
RUST_MIN_MINOR := 85
rust-version:
	@export PATH="$$HOME/.cargo/bin:$$PATH"; \
	found=$$(cargo --version 2>/dev/null); \
	minor=$$(echo "$$found" | sed -nE 's/^cargo 1\.([0-9]+)\..*/\1/p'); \
	if [ -z "$$minor" ] || [ "$$minor" -lt $(RUST_MIN_MINOR) ]; then \
	  if [ -x "$$HOME/.cargo/bin/cargo" ]; then how="update rustup's with \`rustup update stable\`"; \
	  else how="install it with rustup (https://rustup.rs)"; fi; \
	  echo "error: building ssdlab's simulator needs Rust 1.$(RUST_MIN_MINOR) or newer (found: $${found:-no cargo}); $$how, then run make again" >&2; exit 2; \
	fi

lint: install python-checks lint-rust

# What `test` runs once `install` has: no second pip run in each part.
# stubtest compares python/ssdlab/_ssdsim.pyi with the built extension. It needs the
# project's mypy config (mypy_path = python): without it mypy finds no stub for the
# editable install and stubtest passes without checking anything.
python-checks:
	$(VENV)/bin/ruff check python tests bench docs
	$(VENV)/bin/mypy
	$(PY) -m mypy.stubtest --mypy-config-file pyproject.toml ssdlab._ssdsim

# Cargo under `make -j2` reads make's jobserver from MAKEFLAGS, whose file descriptors make gives
# only to recipes it knows run make, and warned "failed to connect to jobserver" at each run: it
# runs outside it, with every core, as it did.
CARGO_ENV := export PATH="$$HOME/.cargo/bin:$$PATH"; unset MAKEFLAGS MFLAGS

lint-rust:
	$(CARGO_ENV); cargo fmt --all --check && cargo clippy -q --workspace --all-targets -- -D warnings

rust-test:
	$(CARGO_ENV); cargo test -q --release -p ssdsim

# One after the other: both take cargo's lock on the build folder.
rust-checks: lint-rust
	$(MAKE) --no-print-directory rust-test

# One worker more than there are cores (at most 5): many slow tests wait on fio, a terminal or a
# sleep, and with one worker per core the two cores of the development machine were busy 74 % of
# the time (1,415 CPU-s in 952 s; three workers: 87 %, 838 s). Each test owns its files, loop
# device, ports and tracefs instance. worksteal evens out the few tests of half a minute.
PYTEST_WORKERS := $(shell n=$$(nproc 2>/dev/null || echo 1); echo $$(( n + 1 < 5 ? n + 1 : 5 )))
py-test: install python-tests

python-tests:
	$(VENV)/bin/pytest -q -n $(PYTEST_WORKERS) --dist worksteal

bench: install
	$(PY) bench/overhead.py
	$(PY) bench/sim_speed.py

clean:
	rm -rf $(VENV) target .pytest_cache .mypy_cache .ruff_cache
