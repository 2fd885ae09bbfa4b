#!/usr/bin/env sh
# Installs the PDFium library Tessera binds to at run time (PDF extraction):
# downloads the pypdfium2 wheel for this platform from PyPI and unpacks its
# libpdfium.so to $TESSERA_PDFIUM_DIR (default ~/.local/lib/tessera), where
# tessera-extract looks for it. Idempotent: does nothing when the library of
# the pinned version is already there.
#
# The pinned pypdfium2 ships PDFium build 8149; pdfium-render's feature
# `pdfium_8125` (`pdfium_latest`) matches its API. Change both together.
set -eu

VERSION="${PYPDFIUM2_VERSION:-5.15.2}"
DIR="${TESSERA_PDFIUM_DIR:-$HOME/.local/lib/tessera}"
LIB="$DIR/libpdfium.so"
STAMP="$DIR/libpdfium.version"

if [ -f "$LIB" ] && [ "$(cat "$STAMP" 2>/dev/null)" = "$VERSION" ]; then
    echo "libpdfium (pypdfium2 $VERSION) already at $LIB"
    exit 0
fi

PYTHON="$(command -v python3 || command -v python)" || { echo "python3 with pip is needed" >&2; exit 1; }
TMP="$(mktemp -d)"
trap 'rm -rf "$TMP"' EXIT

"$PYTHON" -m pip download --quiet --no-deps --only-binary=:all: --dest "$TMP" "pypdfium2==$VERSION"
WHEEL="$(ls "$TMP"/pypdfium2-*.whl | head -n 1)"
# A wheel is a ZIP file; Python's zipfile needs no unzip program.
"$PYTHON" - "$WHEEL" "$TMP" <<'PY'
import sys, zipfile
with zipfile.ZipFile(sys.argv[1]) as z:
    z.extract("pypdfium2_raw/libpdfium.so", sys.argv[2])
PY
mkdir -p "$DIR"
mv "$TMP/pypdfium2_raw/libpdfium.so" "$LIB.tmp"
mv "$LIB.tmp" "$LIB"
echo "$VERSION" > "$STAMP"
echo "installed libpdfium (pypdfium2 $VERSION) at $LIB"
