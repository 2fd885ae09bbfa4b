#!/bin/sh
# Makes the DOC and RTF fixtures from the known texts with LibreOffice
# (soffice, headless). Run from this directory: sh make.sh
# rtf/tricks.rtf is written by hand (hidden \v, white \cf, tiny \fs4 runs, a
# header, a footnote, \'hh and \uN escapes, a \page), and so are
# rtf/textbox.rtf (a shape with text), rtf/table.rtf (a table row of two
# cells) and rtf/styles.rtf (a hidden character style and a hidden paragraph
# style); they are kept, not made.
set -eu
here=$(pwd)
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
profile="-env:UserInstallation=file://$tmp/profile"
conv() { # conv FILTER OUTDIR INPUT...
    soffice "$profile" --headless --infilter="Text (encoded):UTF8,LF,,," --convert-to "$1" --outdir "$2" "$3"
}
for lang in en ru; do
    cp "known/$lang.txt" "$tmp/$lang.txt"
    conv 'rtf:Rich Text Format' rtf "$tmp/$lang.txt"
    conv 'doc:MS Word 97' doc "$tmp/$lang.txt"
done
# The hand-written RTF with hidden text, converted to .doc: hidden, white and
# tiny runs become sprmCFVanish, sprmCCv/sprmCIco and sprmCHps.
cp rtf/tricks.rtf "$tmp/tricks.rtf"
soffice "$profile" --headless --convert-to 'doc:MS Word 97' --outdir doc "$tmp/tricks.rtf"
# The text box becomes the text-box story (ccpTxbx) of the .doc.
cp rtf/textbox.rtf "$tmp/textbox.rtf"
soffice "$profile" --headless --convert-to 'doc:MS Word 97' --outdir doc "$tmp/textbox.rtf"
cp rtf/table.rtf "$tmp/table.rtf"
soffice "$profile" --headless --convert-to 'doc:MS Word 97' --outdir doc "$tmp/table.rtf"
# LibreOffice writes the hidden styles into the style sheet only (no direct
# sprmCFVanish): the .doc tests style resolution.
cp rtf/styles.rtf "$tmp/styles.rtf"
soffice "$profile" --headless --convert-to 'doc:MS Word 97' --outdir doc "$tmp/styles.rtf"
# An encrypted .doc. LibreOffice 7.4 headless ignores password filter options
# for the Word 97 export, so this one is synthetic: en.doc with fEncrypted
# (bit 8 of the FIB flags at offset 0x0A of the WordDocument stream) set.
python3 - <<'PY'
data = bytearray(open("doc/en.doc", "rb").read())
for at in range(512, len(data), 512):
    if data[at:at + 2] == b"\xec\xa5" and int.from_bytes(data[at + 2:at + 4], "little") >= 0xC1:
        data[at + 0x0B] |= 0x01
        break
else:
    raise SystemExit("no FIB found")
open("doc/encrypted.doc", "wb").write(bytes(data))
PY
# Truncated copies.
head -c 6000 doc/en.doc > doc/truncated.doc
head -c 2500 rtf/en.rtf > rtf/truncated.rtf
cd "$here"
