#!/usr/bin/env bash
# The Python package's CI: a fresh virtual environment, the package installed from this
# checkout the way a user installs it (`pip install ./crates/py`: a PEP 517 build with
# maturin), and its tests (pytest crates/py/tests; the Spark and Ray tests skip themselves
# unless their switches, TESSERA_SPARK=1 and TESSERA_RAY=1, are set). .ci/run calls it
# after `cargo test --workspace`, which has built the `tessera` binary the comparison
# tests run (they build it otherwise).
#
#   crates/py/ci.sh             # venv in $CARGO_TARGET_DIR/py-venv (default target/py-venv)
#   crates/py/ci.sh --deps      # only the venv and the packages the tests need (downloads)
#   crates/py/ci.sh --no-deps   # the rest, in the venv --deps made
#
# .ci/run runs `--deps` in the background while Rust compiles, then `--no-deps`.
set -euo pipefail
phase="${1:-all}"
case "$phase" in all | --deps | --no-deps) ;; *) echo "usage: $0 [--deps | --no-deps]" >&2; exit 2 ;; esac
cd "$(dirname "$0")/../.."
root=$PWD
# The wheel's Rust build reuses the workspace's target directory (and its compiled
# dependencies) instead of a cold one of its own.
export CARGO_TARGET_DIR="${CARGO_TARGET_DIR:-$root/target}"
case "$CARGO_TARGET_DIR" in /*) ;; *) CARGO_TARGET_DIR="$root/$CARGO_TARGET_DIR" ;; esac
venv="${TESSERA_PY_VENV:-$CARGO_TARGET_DIR/py-venv}"

step() { printf '\n=== py: %s (%ss)\n' "$*" "$SECONDS"; }

if [ "$phase" != --no-deps ]; then
  step "virtual environment $venv"
  rm -rf "$venv"
  python3 -m venv "$venv"
  "$venv/bin/python" -m pip install -q --upgrade pip
  # redis: the Python client, for datasketch's Redis storage in bench_redis.py.
  "$venv/bin/python" -m pip install -q maturin numpy pyarrow pytest datasketch xxhash redis
  if [ "${TESSERA_SPARK:-}" = 1 ]; then
    # The Spark job's test: pyspark bundles Spark; it needs a JDK (.ci/run installs one).
    "$venv/bin/python" -m pip install -q pyspark "pandas<3"
  fi
  if [ "${TESSERA_RAY:-}" = 1 ]; then
    # The Ray Serve application's test (tests/test_ray.py, a two-node cluster on loopback):
    # ray[serve] pinned, 2.60.0 on CPython 3.10-3.13, 2.51.2 (its last for 3.9) on 3.9;
    # about 135 MB of wheels, 35 s to download and 75 s to install.
    "$venv/bin/python" -m pip install -q 'ray[serve]==2.60.0; python_version >= "3.10"' \
      'ray[serve]==2.51.2; python_version < "3.10"'
  fi
  [ "$phase" = --deps ] && { step "done (packages)"; exit 0; }
fi
[ -x "$venv/bin/python" ] || { echo "no virtual environment at $venv: run $0 --deps first" >&2; exit 1; }

step "pip install ./crates/py (maturin; profile: release unless MATURIN_PEP517_ARGS says)"
"$venv/bin/python" -m pip install -q ./crates/py

step "pytest crates/py/tests"
cd crates/py
"$venv/bin/python" -m pytest tests -q -p no:cacheprovider --durations=8
step "done"
