#!/usr/bin/env python3
"""Quality gate on translated borrowings: `tessera eval pan --cross-language on` on the
xlang-dev set (../shared/eval/xlang-dev: Russian originals of Chekhov and Turgenev and
their published English translations; `en-susp`: English suspects, Russian sources;
`ru-susp`: the reverse). docs/quality.md, "Translated borrowings", has the method and the
figures.

Usage: check_xlang.py [--pairwise] en-susp|ru-susp SCORES.json

Floors (entire plagdet; measured when set, 2026-11-29, in parentheses):
- pairwise: en-susp >= 0.77 (0.7857), ru-susp >= 0.75 (0.7654); the issue's target 0.7.
- collection-wide (index the folder's sources, check every suspect): en-susp >= 0.70
  (0.7121), ru-susp >= 0.645 (0.6612); the issue's target 0.6.
- 01-no-plagiarism (the suspect holds passages of another work of the same author, or
  none): no detection, in both modes.
Prints the table either way; exits 1 when a gate fails.
"""
import json
import sys

args = [a for a in sys.argv[1:] if not a.startswith("--")]
pairwise = "--pairwise" in sys.argv[1:]
direction, path = args[0], args[1]
scores = json.load(open(path))["scores"]
by = {s["subset"]: s["scores"] for s in scores["subsets"]}
by["entire"] = scores["entire"]
floors = {
    (True, "en-susp"): 0.77,
    (True, "ru-susp"): 0.75,
    (False, "en-susp"): 0.70,
    (False, "ru-susp"): 0.645,
}
floor = floors[(pairwise, direction)]
mode = "pairwise" if pairwise else "collection-wide"
print(f"{direction} {mode}")
print(f"{'subset':<28} {'plagdet':>8} {'recall':>8} {'precision':>9} {'gran':>6} {'cases':>6} {'dets':>6}")
rows = list(by.items())
if scores.get("suspect_side"):
    rows.append(("entire, suspect side only", scores["suspect_side"]))
for name, s in rows:
    print(
        f"{name:<28} {s['plagdet']:>8.4f} {s['recall']:>8.4f} {s['precision']:>9.4f} "
        f"{s['granularity']:>6.3f} {s['cases']:>6} {s['detections']:>6}"
    )
fail = []
if by["entire"]["plagdet"] < floor:
    fail.append(f"{direction} {mode}: entire plagdet {by['entire']['plagdet']:.4f} < {floor}")
negatives = by.get("01-no-plagiarism", {}).get("detections", 0)
if negatives > 0:
    fail.append(f"{direction} {mode}: {negatives} detections on the negative pairs (01-no-plagiarism), 0 allowed")
for f in fail:
    print("FAIL:", f)
sys.exit(1 if fail else 0)
