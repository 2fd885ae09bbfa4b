#!/usr/bin/env python3
"""Per-case coverage of PAN detections: which cases are missed or partly covered.

Usage: scripts/pan_cases.py CORPUS DETECTIONS_DIR [SUBSET] [--list N] [--precision]

CORPUS is a PAN 2013 text alignment corpus (../shared/eval/pan13-training), DETECTIONS_DIR
a folder of detection XML files as `tessera align` or `tessera eval pan --pairwise` write
them (one per pair, named SUSP-SRC.xml). For each case of SUBSET (default: every subset)
prints the share of its suspect and source characters that detections cover, a
histogram, and the N worst cases with their lengths (to read them side by side). With
--precision, the other way round: each detection by the share of it inside cases.
"""
import os
import sys
import xml.etree.ElementTree as ET


def features(path, name):
    if not os.path.exists(path):
        return []
    out = []
    for f in ET.parse(path).getroot().iter("feature"):
        if f.get("name") == name:
            out.append((int(f.get("this_offset")), int(f.get("this_length")),
                        int(f.get("source_offset")), int(f.get("source_length"))))
    return out


def covered(lo, hi, spans):
    marks = bytearray(hi - lo)
    for a, b in spans:
        a, b = max(a, lo), min(b, hi)
        if a < b:
            marks[a - lo:b - lo] = b"\x01" * (b - a)
    return sum(marks) / max(1, hi - lo)


def rows_of(corpus, det_dir, subset, precision):
    """(share covered, suspect share, source share, suspect length, source length, file,
    suspect offset, source offset) of each case (each detection with `precision`)."""
    rows = []
    folder = os.path.join(corpus, subset)
    for name in sorted(os.listdir(folder)):
        if not name.endswith(".xml"):
            continue
        cases = features(os.path.join(folder, name), "plagiarism")
        dets = features(os.path.join(det_dir, name), "detected-plagiarism")
        items, others = (dets, cases) if precision else (cases, dets)
        for (so, sl, to, tl) in items:
            cs = covered(so, so + sl, [(o[0], o[0] + o[1]) for o in others])
            ct = covered(to, to + tl, [(o[2], o[2] + o[3]) for o in others])
            rows.append(((cs * sl + ct * tl) / max(1, sl + tl), cs, ct, sl, tl, name, so, to))
    return rows


def main():
    listing = 20
    args = []
    argv = sys.argv[1:]
    while argv:
        a = argv.pop(0)
        if a == "--list":
            listing = int(argv.pop(0))
        elif not a.startswith("--"):
            args.append(a)
    precision = "--precision" in sys.argv
    corpus, det_dir = args[0], args[1]
    subsets = [args[2]] if len(args) > 2 else sorted(
        d for d in os.listdir(corpus) if os.path.isdir(os.path.join(corpus, d)) and d[:2].isdigit())
    for subset in subsets:
        rows = rows_of(corpus, det_dir, subset, precision)
        if not rows:
            continue
        if precision:
            lost = sum(1 - r[0] for r in rows) / len(rows)
            print(f"{subset}: {len(rows)} detections; precision lost {lost:.4f}; outside cases "
                  f"{sum(1 for r in rows if r[0] == 0)}, <90% inside {sum(1 for r in rows if r[0] < 0.9)}")
        else:
            bins = [0, 0, 0, 0]
            for r in rows:
                bins[0 if r[0] == 0 else 1 if r[0] < 0.5 else 2 if r[0] < 0.9 else 3] += 1
            print(f"{subset}: {len(rows)} cases; missed {bins[0]}, <50% {bins[1]}, 50-90% {bins[2]}, "
                  f">=90% {bins[3]}; mean coverage {sum(r[0] for r in rows) / len(rows):.4f}")
            missed = sorted(r[3] for r in rows if r[0] == 0)
            if missed:
                print(f"  missed suspect lengths: median {missed[len(missed) // 2]}, min {missed[0]}, "
                      f"max {missed[-1]}")
        for r in sorted(rows)[:listing]:
            print(f"  {r[0]:.2f} (susp {r[1]:.2f} of {r[3]} @{r[6]}, src {r[2]:.2f} of {r[4]} @{r[7]}) {r[5]}")


if __name__ == "__main__":
    main()
