#!/usr/bin/env python3
"""Makes the binary fixtures of the case suite from the texts below, byte for byte the
same on every run (fixed member order and timestamps). Run from this directory:
python3 make.py"""

import zipfile

STAMP = (2026, 1, 1, 0, 0, 0)


def write_zip(path, members):
    with zipfile.ZipFile(path, "w", zipfile.ZIP_DEFLATED) as z:
        for name, data in members:
            info = zipfile.ZipInfo(name, STAMP)
            info.compress_type = zipfile.ZIP_DEFLATED
            info.external_attr = 0o644 << 16
            z.writestr(info, data)


def esc(s):
    return s.replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;")


def run(text, bold=False, italic=False, hidden=False, white=False):
    props = ("<w:b/>" if bold else "") + ("<w:i/>" if italic else "") + ("<w:vanish/>" if hidden else "")
    props += '<w:color w:val="FFFFFF"/>' if white else ""
    props = f"<w:rPr>{props}</w:rPr>" if props else ""
    return f'<w:r>{props}<w:t xml:space="preserve">{esc(text)}</w:t></w:r>'


def para(runs, style=None):
    ppr = f'<w:pPr><w:pStyle w:val="{style}"/></w:pPr>' if style else ""
    return f"<w:p>{ppr}{''.join(runs)}</w:p>"


# essay.docx: a title, an original paragraph, a paragraph borrowed from
# demo/library/printing-press.txt (its second paragraph, line breaks turned into
# spaces, split into runs with bold and italic ones, one run boundary inside a word),
# and an original closing paragraph.
DOCX_PARAGRAPHS = [
    para([run("An Essay on Printing")], style="Title"),
    para([run("Every new way of copying words changes who may read them. This essay looks "
              "at the first printers and at the trade they invented.")]),
    para([
        run("Around 1450 a goldsmith from Mainz combined several known techniques into a "),
        run("working system", bold=True),
        run(". Movable metal type was cast in a hand mould from an alloy of lead, tin and anti"),
        run("mony, which melted at a low temperature and cooled quickly without shrinking. An "),
        run("oil-based ink", italic=True),
        run(", much thicker than the inks used by scribes, clung to the metal letters, and a "
            "screw press adapted from the presses of wine makers pushed the paper evenly "
            "against the inked type."),
    ]),
    para([run("The printers themselves were often in debt, and many of them went bankrupt "
              "before their books were sold.")]),
]

CONTENT_TYPES = """<?xml version="1.0" encoding="UTF-8" standalone="yes"?>
<Types xmlns="http://schemas.openxmlformats.org/package/2006/content-types">
<Default Extension="rels" ContentType="application/vnd.openxmlformats-package.relationships+xml"/>
<Default Extension="xml" ContentType="application/xml"/>
<Override PartName="/word/document.xml" ContentType="application/vnd.openxmlformats-officedocument.wordprocessingml.document.main+xml"/>
</Types>"""

RELS = """<?xml version="1.0" encoding="UTF-8" standalone="yes"?>
<Relationships xmlns="http://schemas.openxmlformats.org/package/2006/relationships">
<Relationship Id="rId1" Type="http://schemas.openxmlformats.org/officeDocument/2006/relationships/officeDocument" Target="word/document.xml"/>
</Relationships>"""




def write_docx(path, paragraphs):
    document = ("""<?xml version="1.0" encoding="UTF-8" standalone="yes"?>
<w:document xmlns:w="http://schemas.openxmlformats.org/wordprocessingml/2006/main"><w:body>"""
                + "".join(paragraphs) + "</w:body></w:document>")
    write_zip(path, [
        ("[Content_Types].xml", CONTENT_TYPES),
        ("_rels/.rels", RELS),
        ("word/document.xml", document),
    ])


write_docx("essay.docx", DOCX_PARAGRAPHS)

# hidden.docx: the last paragraph of demo/library/honey-bees.txt (line breaks turned
# into spaces) with words slipped between its own, in hidden (w:vanish) and in white
# runs, to break up the word sequence a reader of the text sees.
write_docx("hidden.docx", [
    para([run("Honey Stores")], style="Title"),
    para([
        run("Nectar is carried home in a special stomach, "),
        run("quietly lemonade fortnight ", hidden=True),
        run("passed from bee to bee and spread in thin layers in the cells, where the warm air "),
        run("granite elbow pistachio ", white=True),
        run("of the hive evaporates most of its water. When the honey is ripe the workers seal "
            "each cell with a cap of fresh wax, and the colony lives on these stores through "
            "the winter."),
    ]),
    para([run("A strong colony may store far more honey than it needs.")]),
])

# essays.zip: two suspects in one archive, one borrowing the last paragraph of
# demo/library/siberian-rivers.txt word for word, one original.
RIVERS = """Сибирские города

Реки всегда были дорогами освоения Сибири. По ним шли казаки и промышленники, на их берегах
вырастали остроги, которые со временем превратились в крупные города. И сегодня речной
транспорт остаётся важным для жителей отдалённых районов.

Об этом полезно помнить, глядя на карту края.
"""

ORIGINAL = """A Note on Maps

Old maps of the north were drawn from the reports of travellers who rarely agreed with
one another. Distances were guessed from the days a journey took, and a river could
appear twice under two names if two expeditions had crossed it at different places.
"""

write_zip("essays.zip", [
    ("a-rivers.txt", RIVERS.encode("utf-8")),
    ("b-maps.txt", ORIGINAL.encode("utf-8")),
])
