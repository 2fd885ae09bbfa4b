#!/usr/bin/env bash
# The Python package's CI: a fresh virtual environment, the package installed from this
# checkout the way a user installs it (`pip install ./crates/py`: a PEP 517 build with
# maturin), and its tests (pytest crates/py/tests; the Spark test skips itself unless its
# switch is set). .ci/run calls it after `cargo test --workspace`, which has built the
# `tessera` binary the comparison tests run (they build it otherwise).
#
#   crates/py/ci.sh             # venv in $CARGO_TARGET_DIR/py-venv (default target/py-venv)
set -euo pipefail
cd "$(dirname "$0")/../.."
root=$PWD
# The wheel's Rust build reuses the workspace's target directory (and its compiled
# dependencies) instead of a cold one of its own.
export CARGO_TARGET_DIR="${CARGO_TARGET_DIR:-$root/target}"
case "$CARGO_TARGET_DIR" in /*) ;; *) CARGO_TARGET_DIR="$root/$CARGO_TARGET_DIR" ;; esac
venv="${TESSERA_PY_VENV:-$CARGO_TARGET_DIR/py-venv}"

step() { printf '\n=== py: %s (%ss)\n' "$*" "$SECONDS"; }

step "virtual environment $venv"
rm -rf "$venv"
python3 -m venv "$venv"
"$venv/bin/python" -m pip install -q --upgrade pip
"$venv/bin/python" -m pip install -q maturin numpy pyarrow pytest datasketch xxhash
if [ "${TESSERA_SPARK:-}" = 1 ]; then
  # The Spark job's test: pyspark bundles Spark; it needs a JDK (.ci/run installs one).
  "$venv/bin/python" -m pip install -q pyspark "pandas<3"
fi

step "pip install ./crates/py (maturin, release)"
"$venv/bin/python" -m pip install -q ./crates/py

step "pytest crates/py/tests"
cd crates/py
"$venv/bin/python" -m pytest tests -q -p no:cacheprovider
step "done"
