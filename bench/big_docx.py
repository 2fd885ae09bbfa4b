#!/usr/bin/env python3
"""Writes a DOCX whose word/document.xml is SIZE bytes of ordinary text (issue 18: office
parts are streamed, so extraction's memory follows the text, not the part).

Paragraphs of words drawn from the demo library (a fixed seed), one run each, deflated
(about 3:1, far under the 200:1 bomb ratio). Used for the figures in docs/performance.md,
"Hostile files":

    python3 bench/big_docx.py /tmp/big.docx --size 250000000
    /usr/bin/time -v target/release/tessera extract --format json --no-origins /tmp/big.docx >/dev/null
"""

from __future__ import annotations

import argparse
import random
import zipfile
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
W = "http://schemas.openxmlformats.org/wordprocessingml/2006/main"


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("out", type=Path)
    ap.add_argument("--size", type=int, default=250_000_000, help="bytes of word/document.xml")
    args = ap.parse_args()
    words = " ".join(p.read_text() for p in sorted((ROOT / "testdata/demo/library").glob("*.txt"))).split()
    words = [w.replace("&", "and").replace("<", "").replace(">", "") for w in words]
    rng = random.Random(18)
    head = f'<?xml version="1.0" encoding="UTF-8" standalone="yes"?><w:document xmlns:w="{W}"><w:body>'
    tail = "</w:body></w:document>"
    with zipfile.ZipFile(args.out, "w", zipfile.ZIP_DEFLATED) as z:
        z.writestr("[Content_Types].xml", '<?xml version="1.0"?><Types/>')
        with z.open("word/document.xml", "w", force_zip64=True) as part:
            part.write(head.encode())
            written = len(head)
            while written < args.size - len(tail):
                text = " ".join(rng.choice(words) for _ in range(rng.randint(40, 160)))
                paragraph = f"<w:p><w:r><w:t>{text}</w:t></w:r></w:p>".encode()
                part.write(paragraph)
                written += len(paragraph)
            part.write(tail.encode())
    print(f"{args.out}: word/document.xml {written + len(tail)} bytes, file {args.out.stat().st_size} bytes")


if __name__ == "__main__":
    main()
