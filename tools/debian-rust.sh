#!/bin/sh
# The Debian packages that give `make` a Rust toolchain able to build the simulator (Makefile:
# system-deps, test-deps). Prints their names on one line, nothing when none are needed.
#
#   tools/debian-rust.sh build MIN_MINOR   cargo and rustc, where no cargo of 1.MIN_MINOR or newer is found
#   tools/debian-rust.sh lint              clippy and rustfmt for Debian's cargo in use, where missing
#   tools/debian-rust.sh offered PACKAGE   the minor version of the rustc PACKAGE would install
#
# Debian 12's cargo and rustc are 1.63, too old for the simulator's dependencies; Debian 12 also
# carries rustc-web and cargo-web, the newer toolchain it keeps for its browsers (1.85, 1.96 from
# its security updates), which install /usr/bin/cargo and rustc in their place. Debian 13's own
# cargo and rustc are 1.85. The packages whose rustc apt offers at 1.MIN_MINOR or newer are taken,
# Debian's plain ones first. A rustup toolchain (~/.cargo/bin, or rustup on PATH) is never replaced
# (the web packages conflict with rustup): the Makefile's rust-version check says to update it.
set -eu
PATH="$HOME/.cargo/bin:$PATH"

cargo_minor() {
    cargo --version 2>/dev/null | sed -nE 's/^cargo 1\.([0-9]+)\..*/\1/p'
}

# The minor version of the rustc a package would install (its Candidate), empty when apt has none.
candidate_minor() {
    apt-cache policy "$1" 2>/dev/null | sed -nE 's/^ *Candidate: ([0-9]+:)?1\.([0-9]+)\..*/\2/p'
}

has_rustup() {
    [ -x "$HOME/.cargo/bin/cargo" ] || command -v rustup >/dev/null 2>&1
}

build_packages() {
    min=$1
    found=$(cargo_minor)
    if [ -n "$found" ] && [ "$found" -ge "$min" ]; then return; fi
    if has_rustup; then return; fi
    plain=$(candidate_minor rustc)
    web=$(candidate_minor rustc-web)
    if [ -n "$plain" ] && [ "$plain" -ge "$min" ]; then
        echo "cargo rustc"
    elif [ -n "$web" ] && [ "$web" -ge "$min" ]; then
        echo "cargo-web rustc-web"
    elif [ -z "$found" ]; then
        echo "cargo rustc"  # none new enough known to apt: rust-version then names the one installed
    fi
}

# Debian packages clippy and rustfmt apart from cargo: rust-clippy and rustfmt beside cargo,
# rust-web-clippy and rustfmt-web beside cargo-web. A rustup toolchain has them as components.
lint_packages() {
    if has_rustup; then return; fi
    cargo clippy --version >/dev/null 2>&1 && cargo fmt --version >/dev/null 2>&1 && return
    if dpkg-query -W -f '${Status}' cargo-web 2>/dev/null | grep -q "ok installed"; then
        echo "rust-web-clippy rustfmt-web"
    else
        echo "rust-clippy rustfmt"
    fi
}

case "${1:-}" in
    build) build_packages "${2:?give the least minor version, e.g. 85}" ;;
    lint) lint_packages ;;
    offered) candidate_minor "${2:?give a package, e.g. rustc-web}" ;;
    *) echo "usage: $0 build MIN_MINOR | lint | offered PACKAGE" >&2; exit 2 ;;
esac
