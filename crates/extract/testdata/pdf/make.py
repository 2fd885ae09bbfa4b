#!/usr/bin/env python3
"""Makes the PDF fixtures of crates/extract/tests/pdf.rs (run once; the
outputs are committed). Needs LibreOffice (soffice), poppler-utils
(pdftoppm) and the pip package pypdf (for the encrypted file).

- en.pdf, ru.pdf: the known texts (../known/*.txt) as HTML (title as <h1>,
  paragraphs as <p>, the last one on page 2), converted by LibreOffice Writer;
- scan.pdf: page 1 of en.pdf rendered to a 150 dpi grey image by pdftoppm,
  wrapped as an image-only PDF (no text layer: for OCR);
- layout.pdf: hand-written content streams (Helvetica, WinAnsi) with words
  hyphenated at line ends, a soft hyphen, and fi/fl ligature glyphs;
- tricks.pdf: visible text with invisible (3 Tr), white (1 1 1 rg) and tiny
  (1 pt) words between its words;
- tricks_en.pdf: two paragraphs of en.txt with a hidden, white or tiny
  word after every third word;
- encrypted.pdf: en.pdf encrypted with a user password by pypdf;
- truncated.pdf: the first 40 % of en.pdf.
"""
import html
import os
import shutil
import subprocess
import sys
import tempfile
import zlib

HERE = os.path.dirname(os.path.abspath(__file__))
KNOWN = os.path.join(HERE, "..", "known")


def soffice_pdf(lang, tmp):
    with open(os.path.join(KNOWN, lang + ".txt"), encoding="utf-8") as f:
        blocks = [b.strip() for b in f.read().split("\n\n") if b.strip()]
    title, paragraphs = blocks[0], blocks[1:]
    # The last paragraph starts page 2, so positions can be checked per page.
    body = "".join(
        '<p%s>%s</p>\n' % (' style="page-break-before: always"' if i == len(paragraphs) - 1 else "", html.escape(p))
        for i, p in enumerate(paragraphs)
    )
    doc = (
        '<!DOCTYPE html><html lang="%s"><head><meta charset="utf-8"><title>%s</title>'
        '<meta name="author" content="Tessera Fixtures"></head><body><h1>%s</h1>\n%s</body></html>'
        % (lang, html.escape(title), html.escape(title), body)
    )
    src = os.path.join(tmp, lang + ".html")
    with open(src, "w", encoding="utf-8") as f:
        f.write(doc)
    subprocess.run(
        ["soffice", "--headless", "--infilter=HTML (StarWriter)", "--convert-to", "pdf:writer_pdf_Export",
         "--outdir", tmp, src],
        check=True, stdout=subprocess.DEVNULL,
    )
    shutil.copy(os.path.join(tmp, lang + ".pdf"), os.path.join(HERE, lang + ".pdf"))


def write_pdf(path, pages, info):
    """pages: list of (content stream bytes, {name: xobject dict+stream}).
    Fonts: F1 Helvetica with WinAnsi plus /fi /fl at codes 1 and 2."""
    objects = []

    def add(body):
        objects.append(body)
        return len(objects)

    font = add(b"<< /Type /Font /Subtype /Type1 /BaseFont /Helvetica /Encoding << /Type /Encoding "
               b"/BaseEncoding /WinAnsiEncoding /Differences [1 /fi /fl] >> >>")
    pages_id = len(objects) + 1
    add(None)  # placeholder for the page tree
    kids = []
    for content, images in pages:
        data = zlib.compress(content)
        stream = add(b"<< /Length %d /Filter /FlateDecode >>\nstream\n" % len(data) + data + b"\nendstream")
        xobjects = b""
        for name, (w, h, pixels) in images.items():
            raw = zlib.compress(pixels)
            img = add(b"<< /Type /XObject /Subtype /Image /Width %d /Height %d /ColorSpace /DeviceGray "
                      b"/BitsPerComponent 8 /Filter /FlateDecode /Length %d >>\nstream\n" % (w, h, len(raw))
                      + raw + b"\nendstream")
            xobjects += b"/%s %d 0 R " % (name.encode(), img)
        resources = b"<< /Font << /F1 %d 0 R >> /XObject << %s>> >>" % (font, xobjects)
        kids.append(add(b"<< /Type /Page /Parent %d 0 R /MediaBox [0 0 595 842] /Resources %s /Contents %d 0 R >>"
                        % (pages_id, resources, stream)))
    objects[pages_id - 1] = b"<< /Type /Pages /Kids [%s] /Count %d >>" % (
        b" ".join(b"%d 0 R" % k for k in kids), len(kids))
    info_id = add(b"<< " + b" ".join(b"/%s (%s)" % (k.encode(), v.encode("latin-1")) for k, v in info.items()) + b" >>")
    catalog = add(b"<< /Type /Catalog /Pages %d 0 R >>" % pages_id)
    out = bytearray(b"%PDF-1.4\n%\xe2\xe3\xcf\xd3\n")
    offsets = []
    for i, body in enumerate(objects, 1):
        offsets.append(len(out))
        out += b"%d 0 obj\n" % i + body + b"\nendobj\n"
    xref = len(out)
    out += b"xref\n0 %d\n0000000000 65535 f \n" % (len(objects) + 1)
    for off in offsets:
        out += b"%010d 00000 n \n" % off
    out += b"trailer\n<< /Size %d /Root %d 0 R /Info %d 0 R >>\nstartxref\n%d\n%%%%EOF\n" % (
        len(objects) + 1, catalog, info_id, xref)
    with open(path, "wb") as f:
        f.write(out)


def text_lines(lines, size=12, x=72, y=770, leading=15, gap=30):
    """lines: list of strings, "" starts a new paragraph. Returns a content stream."""
    ops = [b"BT /F1 %d Tf" % size]
    for line in lines:
        if line == "":
            y -= gap - leading
            continue
        ops.append(b"1 0 0 1 %d %d Tm (%s) Tj" % (x, y, line.encode("latin-1")))
        y -= leading
    ops.append(b"ET")
    return b"\n".join(ops)


def layout_pdf():
    # \x01 is the fi ligature glyph, \x02 fl, \xad the soft hyphen.
    lines = [
        "Printing changed the \x01rst universities: the in-",
        "formation in books became cheap, and scholars could com-",
        "pare editions side by side.",
        "",
        "A second paragraph keeps a real hyphen at a line end: well-",
        "Known names stay apart, and the \x02ow of ideas grew, a soft\xad",
        "ened tone.",
    ]
    write_pdf(os.path.join(HERE, "layout.pdf"), [(text_lines(lines), {})],
              {"Title": "Layout", "Author": "Tessera Fixtures", "Producer": "make.py",
               "CreationDate": "D:20260101120000Z"})


def tricks_pdf():
    ops = [
        b"BT /F1 12 Tf 1 0 0 1 72 770 Tm (The borrowed sentence ) Tj",
        b"3 Tr (hidden) Tj 0 Tr",
        b"( continues here ) Tj",
        b"1 1 1 rg (white) Tj 0 0 0 rg",
        b"( and ends ) Tj",
        b"/F1 1 Tf (tiny) Tj /F1 12 Tf",
        b"( with a full stop.) Tj ET",
    ]
    write_pdf(os.path.join(HERE, "tricks.pdf"), [(b"\n".join(ops), {})], {"Title": "Tricks"})


def tricks_en_pdf():
    """The first two paragraphs of the English known text, with a word hidden
    by one of the three tricks after every third word (for the check that
    hidden text does not lower the borrowed share)."""
    with open(os.path.join(KNOWN, "en.txt"), encoding="utf-8") as f:
        paragraphs = [b.strip() for b in f.read().split("\n\n") if b.strip()][1:3]
    tricks = [(b"3 Tr", b"0 Tr"), (b"1 1 1 rg", b"0 0 0 rg"), (b"/F1 1 Tf", b"/F1 12 Tf")]
    junk = ["zebra", "quartz", "velvet", "comet", "walrus", "pepper"]
    ops, y, n = [b"BT /F1 12 Tf"], 770, 0
    for paragraph in paragraphs:
        words = paragraph.split()
        lines, line = [], []
        for w in words:
            if line and len(" ".join(line + [w])) > 60:
                lines.append(line)
                line = []
            line.append(w)
        lines.append(line)
        for line in lines:
            ops.append(b"1 0 0 1 72 %d Tm" % y)
            for i, w in enumerate(line):
                sep = b" " if i else b""
                ops.append(b"(%s%s) Tj" % (sep, w.encode("latin-1")))
                if i + 1 < len(line) and (n % 3) == 2:
                    on, off = tricks[(n // 3) % 3]
                    ops.append(b"%s ( %s) Tj %s" % (on, junk[n % len(junk)].encode(), off))
                n += 1
            y -= 15
        y -= 15
    ops.append(b"ET")
    write_pdf(os.path.join(HERE, "tricks_en.pdf"), [(b"\n".join(ops), {})], {"Title": "Tricks in a known text"})


def scan_pdf(tmp):
    base = os.path.join(tmp, "scan")
    subprocess.run(["pdftoppm", "-r", "150", "-gray", "-f", "1", "-l", "1", os.path.join(HERE, "en.pdf"), base],
                   check=True)
    pgm = [f for f in os.listdir(tmp) if f.startswith("scan") and f.endswith(".pgm")][0]
    with open(os.path.join(tmp, pgm), "rb") as f:
        data = f.read()
    # P5\n<w> <h>\n255\n<pixels>
    parts = data.split(b"\n", 3)
    w, h = (int(v) for v in parts[1].split())
    pixels = parts[3]
    content = b"q 595 0 0 842 0 0 cm /Im1 Do Q"
    write_pdf(os.path.join(HERE, "scan.pdf"), [(content, {"Im1": (w, h, pixels)})], {"Title": "Scan"})


def encrypted_pdf():
    from pypdf import PdfReader, PdfWriter
    writer = PdfWriter(clone_from=PdfReader(os.path.join(HERE, "en.pdf")))
    writer.encrypt(user_password="secret", owner_password="owner", algorithm="AES-128")
    with open(os.path.join(HERE, "encrypted.pdf"), "wb") as f:
        writer.write(f)


def truncated_pdf():
    with open(os.path.join(HERE, "en.pdf"), "rb") as f:
        data = f.read()
    with open(os.path.join(HERE, "truncated.pdf"), "wb") as f:
        f.write(data[: len(data) * 2 // 5])


def main():
    with tempfile.TemporaryDirectory() as tmp:
        for lang in ("en", "ru"):
            soffice_pdf(lang, tmp)
        scan_pdf(tmp)
    layout_pdf()
    tricks_pdf()
    tricks_en_pdf()
    encrypted_pdf()
    truncated_pdf()


if __name__ == "__main__":
    sys.exit(main())
