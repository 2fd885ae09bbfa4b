#!/usr/bin/env python3
"""Makes the office fixtures (docx, odt, pptx, epub, markdown) from the known
texts in ../known, with LibreOffice (soffice, headless) doing the real
conversions. Run from anywhere: python3 make.py. Needs soffice on PATH.

- {en,ru}.fodt -> {en,ru}.docx / .odt: title as heading 1, the paragraphs,
  a page break before the third paragraph, metadata (title, author, language).
- tricks.fodt -> tricks.docx / .odt: the Russian text with junk words in
  hidden (text:display none), white (#ffffff) and tiny (1 pt) spans, and one
  paragraph whose *paragraph style* is white.
- structure.fodt -> structure.docx / .odt: header, footer, a footnote, a table.
- {en,ru}.fodp -> {en,ru}.pptx: three slides, speaker notes on slide 2.
- tricks.pptx: ru.fodp with a 1 pt span on slide 1 and a shape named
  "Ghost" on slide 3, which LibreOffice cannot hide on export: the script
  then sets hidden="1" on it in the PPTX's slide XML.
- {en,ru}.epub: LibreOffice's EPUB export of {en,ru}.fodt.
- {en,ru}.md: the known text with Markdown markup.
- long.{docx,odt,epub,md} and long.pptx: 50 pages (a page break every four
  paragraphs of the known texts) and 50 slides, for the benchmark.
The flat files are kept beside the outputs so they can be re-made.
"""
import os
import shutil
import subprocess
import tempfile
from xml.sax.saxutils import escape

HERE = os.path.dirname(os.path.abspath(__file__))
TESTDATA = os.path.dirname(HERE)

NS = (
    'xmlns:office="urn:oasis:names:tc:opendocument:xmlns:office:1.0" '
    'xmlns:style="urn:oasis:names:tc:opendocument:xmlns:style:1.0" '
    'xmlns:text="urn:oasis:names:tc:opendocument:xmlns:text:1.0" '
    'xmlns:table="urn:oasis:names:tc:opendocument:xmlns:table:1.0" '
    'xmlns:draw="urn:oasis:names:tc:opendocument:xmlns:drawing:1.0" '
    'xmlns:presentation="urn:oasis:names:tc:opendocument:xmlns:presentation:1.0" '
    'xmlns:svg="urn:oasis:names:tc:opendocument:xmlns:svg-compatible:1.0" '
    'xmlns:fo="urn:oasis:names:tc:opendocument:xmlns:xsl-fo-compatible:1.0" '
    'xmlns:dc="http://purl.org/dc/elements/1.1/" '
    'xmlns:meta="urn:oasis:names:tc:opendocument:xmlns:meta:1.0"'
)

AUTHORS = {"en": "Ada Writer", "ru": "Анна Писарева"}
LANGS = {"en": "en-GB", "ru": "ru-RU"}


def known(lang):
    with open(os.path.join(TESTDATA, "known", lang + ".txt"), encoding="utf-8") as f:
        blocks = [b.strip() for b in f.read().split("\n\n") if b.strip()]
    return blocks[0], blocks[1:]


def meta(lang, title):
    return (
        f"<office:meta><dc:title>{escape(title)}</dc:title>"
        f"<meta:initial-creator>{AUTHORS[lang]}</meta:initial-creator>"
        f"<dc:creator>{AUTHORS[lang]}</dc:creator>"
        f"<meta:creation-date>2026-01-02T03:04:05</meta:creation-date>"
        f"<dc:date>2026-01-03T04:05:06</dc:date>"
        f"<dc:language>{LANGS[lang]}</dc:language></office:meta>"
    )


def fodt(lang, body, master="", styles=""):
    title, _ = known(lang)
    return (
        f'<?xml version="1.0" encoding="UTF-8"?>\n<office:document {NS} office:version="1.3" '
        f'office:mimetype="application/vnd.oasis.opendocument.text">{meta(lang, title)}'
        f"<office:styles>{styles}</office:styles>"
        "<office:automatic-styles>"
        '<style:style style:name="PB" style:family="paragraph" style:parent-style-name="Standard">'
        '<style:paragraph-properties fo:break-before="page"/></style:style>'
        '<style:style style:name="Thidden" style:family="text"><style:text-properties text:display="none"/></style:style>'
        '<style:style style:name="Twhite" style:family="text"><style:text-properties fo:color="#ffffff"/></style:style>'
        '<style:style style:name="Ttiny" style:family="text"><style:text-properties fo:font-size="1pt"/></style:style>'
        '<style:page-layout style:name="pm1"><style:page-layout-properties fo:page-width="21cm" '
        'fo:page-height="29.7cm"/><style:header-style/><style:footer-style/></style:page-layout>'
        "</office:automatic-styles>"
        f'<office:master-styles><style:master-page style:name="Standard" style:page-layout-name="pm1">{master}'
        "</style:master-page></office:master-styles>"
        f"<office:body><office:text>{body}</office:text></office:body></office:document>\n"
    )


def plain_body(lang):
    title, paras = known(lang)
    out = [f'<text:h text:outline-level="1">{escape(title)}</text:h>']
    for i, p in enumerate(paras):
        style = ' text:style-name="PB"' if i == 2 else ""
        out.append(f"<text:p{style}>{escape(p)}</text:p>")
    return "".join(out)


def tricks_body():
    title, paras = known("ru")
    words = paras[0].split(" ")
    # hidden after word 3, white after word 6 (glued to the next word:
    # white letters used as a space), tiny after word 9
    p0 = (
        escape(" ".join(words[:3]))
        + ' <text:span text:style-name="Thidden">скрытый текст</text:span>'
        + escape(" ".join(words[3:6]))
        + ' <text:span text:style-name="Twhite">белые</text:span>'
        + escape(" ".join(words[6:9]))
        + ' <text:span text:style-name="Ttiny">крошечный</text:span>'
        + escape(" ".join(words[9:]))
    )
    out = [f'<text:h text:outline-level="1">{escape(title)}</text:h>', f"<text:p>{p0}</text:p>"]
    out.append('<text:p text:style-name="Secret">Невидимый абзац белым стилем.</text:p>')
    out += [f"<text:p>{escape(p)}</text:p>" for p in paras[1:]]
    return "".join(out)


SECRET_STYLE = (
    '<style:style style:name="Secret" style:family="paragraph" style:parent-style-name="Standard">'
    '<style:text-properties fo:color="#ffffff"/></style:style>'
)


def structure_body():
    return (
        '<text:h text:outline-level="1">Structure</text:h>'
        "<text:p>Body before the table"
        '<text:note text:id="ftn1" text:note-class="footnote"><text:note-citation>1</text:note-citation>'
        "<text:note-body><text:p>The footnote text.</text:p></text:note-body></text:note>.</text:p>"
        '<table:table table:name="T1"><table:table-column table:number-columns-repeated="2"/>'
        '<table:table-row><table:table-cell office:value-type="string"><text:p>Cell A1</text:p></table:table-cell>'
        '<table:table-cell office:value-type="string"><text:p>Cell B1</text:p></table:table-cell></table:table-row>'
        '<table:table-row><table:table-cell office:value-type="string"><text:p>Cell A2</text:p></table:table-cell>'
        '<table:table-cell office:value-type="string"><text:p>Cell B2</text:p></table:table-cell></table:table-row>'
        "</table:table>"
        "<text:p>Body after the table.</text:p>"
    )


STRUCTURE_MASTER = (
    "<style:header><text:p>The page header</text:p></style:header>"
    "<style:footer><text:p>The page footer</text:p></style:footer>"
)


def fodp(lang, tricks=False):
    title, paras = known(lang)
    slides = [[title, paras[0]], [paras[1], paras[2]], [paras[3]]]
    notes = {1: {"en": "Speaker notes for slide two.", "ru": "Заметки докладчика ко второму слайду."}[lang]}
    pages = []
    for i, texts in enumerate(slides):
        frames = []
        for j, t in enumerate(texts):
            y = 1 + j * 8
            if tricks and i == 0 and j == 1:
                words = t.split(" ")
                t = " ".join(words[:2]) + " \x00" + " ".join(words[2:])
            frames.append(
                f'<draw:frame presentation:style-name="pr1" presentation:class="{"title" if (i == 0 and j == 0) else "outline"}" '
                f'svg:x="1cm" svg:y="{y}cm" svg:width="26cm" svg:height="7cm">'
                f"<draw:text-box><text:p>{escape(t)}</text:p></draw:text-box></draw:frame>"
            )
        if tricks and i == 2:
            frames.append(
                '<draw:frame draw:name="Ghost" presentation:class="outline" svg:x="1cm" svg:y="12cm" '
                'svg:width="26cm" svg:height="3cm"><draw:text-box><text:p>Призрачная фигура</text:p></draw:text-box></draw:frame>'
            )
        note = ""
        if i in notes:
            note = (
                '<presentation:notes><draw:frame presentation:class="notes" svg:x="2cm" svg:y="14cm" '
                f'svg:width="17cm" svg:height="10cm"><draw:text-box><text:p>{escape(notes[i])}</text:p>'
                "</draw:text-box></draw:frame></presentation:notes>"
            )
        pages.append(f'<draw:page draw:name="s{i + 1}" draw:master-page-name="Default">{"".join(frames)}{note}</draw:page>')
    body = "".join(pages)
    if tricks:
        body = body.replace("\x00", '<text:span text:style-name="Ttiny">крошечный</text:span> ')
    return (
        f'<?xml version="1.0" encoding="UTF-8"?>\n<office:document {NS} office:version="1.3" '
        f'office:mimetype="application/vnd.oasis.opendocument.presentation">{meta(lang, title)}'
        '<office:automatic-styles><style:page-layout style:name="PM1"><style:page-layout-properties '
        'fo:page-width="28cm" fo:page-height="21cm"/></style:page-layout>'
        '<style:style style:name="pr1" style:family="presentation"><style:graphic-properties/></style:style>'
        '<style:style style:name="Ttiny" style:family="text"><style:text-properties fo:font-size="1pt"/></style:style>'
        "</office:automatic-styles>"
        '<office:master-styles><style:master-page style:name="Default" style:page-layout-name="PM1"/></office:master-styles>'
        f"<office:body><office:presentation>{body}</office:presentation></office:body></office:document>\n"
    )


def long_body():
    _, en = known("en")
    _, ru = known("ru")
    paras = (en + ru) * 25
    out = ['<text:h text:outline-level="1">Long</text:h>']
    for i, p in enumerate(paras):
        style = ' text:style-name="PB"' if i and i % 4 == 0 else ""
        out.append(f"<text:p{style}>{escape(p)}</text:p>")
    return "".join(out)


def long_fodp():
    _, en = known("en")
    _, ru = known("ru")
    paras = (en + ru) * 25
    slides = [paras[i : i + 4] for i in range(0, len(paras), 4)]
    pages = []
    for i, texts in enumerate(slides):
        body = "".join(f"<text:p>{escape(t)}</text:p>" for t in texts)
        pages.append(
            f'<draw:page draw:name="s{i + 1}" draw:master-page-name="Default"><draw:frame presentation:class="outline" '
            f'svg:x="1cm" svg:y="1cm" svg:width="26cm" svg:height="19cm"><draw:text-box>{body}</draw:text-box></draw:frame></draw:page>'
        )
    doc = fodp("en")
    start = doc.index("<office:presentation>") + len("<office:presentation>")
    end = doc.index("</office:presentation>")
    return doc[:start] + "".join(pages) + doc[end:]


def long_markdown():
    _, en = known("en")
    _, ru = known("ru")
    out = ["# Long", ""]
    for i, p in enumerate((en + ru) * 25):
        if i % 4 == 0:
            out += [f"## Page {i // 4 + 1}", ""]
        out += [p, ""]
    return "\n".join(out)


def markdown(lang):
    title, paras = known(lang)
    out = [f"# {title}", ""]
    for i, p in enumerate(paras):
        words = p.split(" ")
        if i == 0:  # emphasis and strong markup inside a paragraph
            words[1] = f"*{words[1]}*"
            words[4] = f"**{words[4]}**"
        if i == 1:  # a hard-wrapped paragraph
            half = len(words) // 2
            out.append(" ".join(words[:half]))
            out.append(" ".join(words[half:]))
            out.append("")
            continue
        if i == 3:  # a block quote
            out.append("> " + " ".join(words))
            out.append("")
            continue
        out.append(" ".join(words))
        out.append("")
    return "\n".join(out)


def hide_shape(path, member, shape):
    """Sets hidden="1" on the shape named `shape` in `member` of a package."""
    import zipfile

    with zipfile.ZipFile(path) as z:
        items = [(i, z.read(i.filename)) for i in z.infolist()]
    with zipfile.ZipFile(path, "w", zipfile.ZIP_DEFLATED) as z:
        for info, data in items:
            if info.filename == member:
                marker = f'name="{shape}"'.encode()
                assert marker in data, f"no shape {shape} in {member}"
                data = data.replace(marker, marker + b' hidden="1"', 1)
            z.writestr(info, data)


def convert(src, fmt, outdir, filt=None):
    with tempfile.TemporaryDirectory() as profile:
        target = fmt if filt is None else f"{fmt}:{filt}"
        subprocess.run(
            ["soffice", f"-env:UserInstallation=file://{profile}", "--headless", "--convert-to", target, "--outdir", outdir, src],
            check=True,
            stdout=subprocess.DEVNULL,
        )


def write(path, text):
    os.makedirs(os.path.dirname(path), exist_ok=True)
    with open(path, "w", encoding="utf-8") as f:
        f.write(text)


def main():
    src = os.path.join(HERE, "src")
    os.makedirs(src, exist_ok=True)
    for lang in ("en", "ru"):
        write(os.path.join(src, f"{lang}.fodt"), fodt(lang, plain_body(lang)))
        write(os.path.join(src, f"{lang}.fodp"), fodp(lang))
        write(os.path.join(TESTDATA, "markdown", f"{lang}.md"), markdown(lang))
    write(os.path.join(src, "tricks.fodt"), fodt("ru", tricks_body(), styles=SECRET_STYLE))
    write(os.path.join(src, "structure.fodt"), fodt("en", structure_body(), master=STRUCTURE_MASTER))
    write(os.path.join(src, "tricks.fodp"), fodp("ru", tricks=True))
    convert(os.path.join(src, "tricks.fodp"), "pptx", os.path.join(TESTDATA, "pptx"))
    hide_shape(os.path.join(TESTDATA, "pptx", "tricks.pptx"), "ppt/slides/slide3.xml", "Ghost")
    write(os.path.join(src, "long.fodt"), fodt("en", long_body()))
    write(os.path.join(src, "long.fodp"), long_fodp())
    write(os.path.join(TESTDATA, "markdown", "long.md"), long_markdown())
    convert(os.path.join(src, "long.fodp"), "pptx", os.path.join(TESTDATA, "pptx"))
    convert(os.path.join(src, "long.fodt"), "epub", os.path.join(TESTDATA, "epub"))
    for stem in ("en", "ru", "tricks", "structure", "long"):
        f = os.path.join(src, f"{stem}.fodt")
        convert(f, "docx", os.path.join(TESTDATA, "docx"), "MS Word 2007 XML")
        convert(f, "odt", os.path.join(TESTDATA, "odt"))
    for lang in ("en", "ru"):
        convert(os.path.join(src, f"{lang}.fodp"), "pptx", os.path.join(TESTDATA, "pptx"))
        convert(os.path.join(src, f"{lang}.fodt"), "epub", os.path.join(TESTDATA, "epub"))


if __name__ == "__main__":
    main()
