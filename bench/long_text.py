#!/usr/bin/env python3
"""Detection quality on one long text: the PAN 2013 suspects joined into one document.

The suspects carry their own truth (each one's listed cases, moved by the suspect's place
in the joined text), so a check of the joined text can be scored by characters against
it, and against what checking each suspect alone finds (docs/quality.md, "A long text in
parts").

    # the text: suspects in name order, nothing between them, cut at LIMIT bytes
    python3 bench/long_text.py make --corpus ../shared/eval/pan13-training > susps.txt
    tessera -q check --index <pan index> susps.txt --format json > report.json
    python3 bench/long_text.py score --corpus ../shared/eval/pan13-training report.json
    # what each suspect checked alone finds, from `tessera eval pan --out OUT`
    python3 bench/long_text.py score --corpus ../shared/eval/pan13-training OUT/detections

Recall is the share of the cases' characters (bytes of the joined text) covered by a
block of the case's source; "any" counts a block of any source. Precision "any" is the
share of the blocks' characters inside some case: low on PAN, whose suspects share much
unlisted text with its sources.
"""

import argparse
import os
import re
import sys
import json
import xml.etree.ElementTree as ET

LIMIT = 8_000_000


def suspects(corpus, limit):
    """(name, bytes, offset) of the suspects that start within the first `limit` bytes."""
    out, pos = [], 0
    for name in sorted(os.listdir(os.path.join(corpus, "susp"))):
        if pos >= limit:
            break
        data = open(os.path.join(corpus, "susp", name), "rb").read()
        out.append((name, data, pos))
        pos += len(data)
    return out


def byte_span(text, offset, length):
    """Character offsets of one suspect as byte offsets."""
    return len(text[:offset].encode()), len(text[: offset + length].encode())


def truth(corpus, docs, limit):
    """Listed cases as (start, end, source, subset), in bytes of the joined text."""
    place = {name: (data.decode("utf-8"), pos) for name, data, pos in docs}
    cases = []
    for subset in sorted(os.listdir(corpus)):
        if not re.match(r"0[2-5]-", subset):
            continue
        for x in os.listdir(os.path.join(corpus, subset)):
            if not x.endswith(".xml"):
                continue
            root = ET.parse(os.path.join(corpus, subset, x)).getroot()
            if root.get("reference") not in place:
                continue
            text, pos = place[root.get("reference")]
            for f in root.iter("feature"):
                if f.get("name") != "plagiarism":
                    continue
                s, e = byte_span(text, int(f.get("this_offset")), int(f.get("this_length")))
                if pos + e <= limit:
                    cases.append((pos + s, pos + e, f.get("source_reference"), subset[:2]))
    return cases


def detections(path, docs):
    """Blocks as (start, end, source title): from a report, or a PAN detections folder."""
    if os.path.isdir(path):
        place = {name: (data.decode("utf-8"), pos) for name, data, pos in docs}
        out = []
        for x in os.listdir(path):
            root = ET.parse(os.path.join(path, x)).getroot()
            if root.get("reference") not in place:
                continue
            text, pos = place[root.get("reference")]
            for f in root.iter("feature"):
                s, e = byte_span(text, int(f.get("this_offset")), int(f.get("this_length")))
                out.append((pos + s, pos + e, f.get("source_reference")))
        return out
    report = json.load(open(path))
    title = {s["id"]: s["title"] for s in report["sources"]}
    return [
        (b["suspect_span"]["bytes"]["start"], b["suspect_span"]["bytes"]["end"], title[b["source"]])
        for b in report["blocks"]
        if b["kind"] == "borrowing"
    ]


def union(spans):
    out = []
    for s, e in sorted(spans):
        if out and s <= out[-1][1]:
            out[-1][1] = max(out[-1][1], e)
        else:
            out.append([s, e])
    return out


def overlap(a, b):
    a, b, i, j, n = union(a), union(b), 0, 0, 0
    while i < len(a) and j < len(b):
        n += max(0, min(a[i][1], b[j][1]) - max(a[i][0], b[j][0]))
        if a[i][1] < b[j][1]:
            i += 1
        else:
            j += 1
    return n


def size(spans):
    return sum(e - s for s, e in union(spans))


def recall(cases, found):
    by_source = {}
    for s, e, src, *_ in cases:
        by_source.setdefault(src, ([], []))[0].append((s, e))
    for s, e, src in found:
        by_source.setdefault(src, ([], []))[1].append((s, e))
    return sum(overlap(t, d) for t, d in by_source.values()) / max(size([(s, e) for s, e, *_ in cases]), 1)


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("command", choices=["make", "score"])
    ap.add_argument("found", nargs="?", help="score: a report (JSON) or a PAN detections folder")
    ap.add_argument("--corpus", required=True)
    ap.add_argument("--limit", type=int, default=LIMIT)
    args = ap.parse_intermixed_args()
    docs = suspects(args.corpus, args.limit)
    if args.command == "make":
        text = b"".join(data for _, data, _ in docs)[: args.limit]
        sys.stdout.buffer.write(text.decode("utf-8", "ignore").encode())
        return
    cases = truth(args.corpus, docs, args.limit)
    found = detections(args.found, docs)
    all_cases, all_found = [(s, e) for s, e, *_ in cases], [(s, e) for s, e, _ in found]
    inside = overlap(all_cases, all_found)
    print(
        f"{len(docs)} suspects, {len(cases)} cases ({size(all_cases)} bytes), {size(all_found)} bytes found: "
        f"recall {recall(cases, found):.4f}, any {inside / max(size(all_cases), 1):.4f}; "
        f"precision any {inside / max(size(all_found), 1):.4f}"
    )
    for subset, name in [("02", "verbatim"), ("03", "random"), ("04", "translation"), ("05", "summary")]:
        part = [c for c in cases if c[3] == subset]
        print(f"  {name}: recall {recall(part, found):.4f} ({len(part)} cases)")


if __name__ == "__main__":
    main()
