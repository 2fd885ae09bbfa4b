#!/usr/bin/env bash
# Makes the archive fixtures from the known texts. Needs python3 and 7z
# (Debian p7zip-full). Run from this directory; the outputs are committed.
set -euo pipefail
cd "$(dirname "$0")"
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
mkdir -p "$work/thesis/ch1" "$work/thesis/ch2" "$work/inner"
cp ../known/en.txt "$work/thesis/ch1/intro.txt"
iconv -f UTF-8 -t WINDOWS-1251 ../known/ru.txt >"$work/thesis/ch2/glava.txt"
printf '<!doctype html><title>Inner page</title><p>%s</p>' "$(sed -n 3p ../known/en.txt)" >"$work/inner/page.html"
(cd "$work/inner" && 7z a -tzip -bd -bso0 ../thesis/appendix.zip page.html)
printf 'junk' >"$work/thesis/.DS_Store"
rm -f thesis.zip thesis.7z
(cd "$work/thesis" && 7z a -tzip -bd -bso0 "$OLDPWD/thesis.zip" ch1 ch2 appendix.zip .DS_Store)
(cd "$work/thesis" && 7z a -t7z -bd -bso0 "$OLDPWD/thesis.7z" ch1 ch2 appendix.zip)
rm -f encrypted.7z encrypted.zip
(cd "$work/thesis" && 7z a -t7z -psecret -mhe=on -bd -bso0 "$OLDPWD/encrypted.7z" ch1)
(cd "$work/thesis" && 7z a -tzip -psecret -bd -bso0 "$OLDPWD/encrypted.zip" ch1)
python3 - <<'PY'
import io, zipfile
# A bomb next to a good member: 64 MiB of zeros deflate to ~64 KiB (ratio ~1000:1).
with zipfile.ZipFile("bomb.zip", "w", zipfile.ZIP_DEFLATED, compresslevel=9) as z:
    z.writestr("good.txt", open("../known/en.txt").read())
    z.writestr("zeros.txt", b"\0" * (64 << 20))
# Archives nested four deep (the default limit is three).
inner = io.BytesIO()
with zipfile.ZipFile(inner, "w") as z:
    z.writestr("deep.txt", "Too deep to be read.")
for level in (3, 2, 1):
    outer = io.BytesIO()
    with zipfile.ZipFile(outer, "w") as z:
        z.writestr(f"level{level}.zip", inner.getvalue())
        z.writestr(f"note{level}.txt", f"Note at level {level} of the nesting.")
    inner = outer
open("nested.zip", "wb").write(inner.getvalue())
# A truncated archive: the first half of thesis.zip.
data = open("thesis.zip", "rb").read()
open("truncated.zip", "wb").write(data[: len(data) // 2])
PY
ls -l
