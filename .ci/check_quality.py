#!/usr/bin/env python3
"""Quality gate on `tessera eval pan --format json` output.

Collection-wide (default; snapshots only, sentence seeding from the snapshots' terms):
- 02-no-obfuscation (verbatim copies): plagdet >= 0.95.
- entire >= 0.929 (0.9299 when set, with stage 1 also looking up the suspect's shingles
  with a word dropped or two swapped, and the variants a source holds explaining their
  shingles; 0.9285 was the gate from 0.9293, with stage 1 looking up the
  suspect's shingles with a word swapped for a WordNet synonym; 0.9245 was the gate from
  0.9254, with clusters split at 60 terms of one's own between two seeds; 0.924 was the
  gate from 0.9248, with blocks of whole
  sentences taking in their opening stop words and closing punctuation; 0.921 was the gate from 0.9216,
  with a summary's source side 2.5 times its suspect side and no copy replaced by a
  summary; 0.9195 before, with summaries
  joined over a sentence gap of 64; 0.9170 before that, with a confidence model weighing a
  passage's cosine by its length; 0.9156 before that, with ghosts of a borrowing dropped
  (a passage whose source region another stretch of the suspect matches better);
  0.9142 before that; 0.9127 with a summary
  replacing other passages only at confidence 0.9; 0.9100 with sources explaining only the
  shingles they hold; 0.9041 before it, with confidence per block; 0.8993 with WordNet
  neighbours before that; exact shingles alone gave 0.599).
- 02-no-obfuscation >= 0.98 (0.9807 when set, with blocks taking in their sentences'
  edges; 0.9765 was the gate from 0.9771, with no copy replaced by a summary; 0.9753
  before; 0.975 was the gate from 0.9760, with ghosts dropped; 0.9735 before it;
  0.9709 when the gate was first set; 0.9644 when a block's whole span counted
  as explained, hiding verbatim passages of later sources).
- 01-no-plagiarism: at most 2 detections among its 1,000 listed pairs (2 when this gate
  was set, the paraphrased kiwifruit article, with clusters split at 60 terms of one's
  own: the water-heater page is gone; 3 was the gate from 3, and when it allowed 4, with the passage's length an input of the confidence
  model: a paraphrased kiwifruit article and a water-heater page; 4 with passages sharing
  names and fewer than 4 words dropped; 5 before; at most 10 then).
- 03-random-obfuscation >= 0.9025 (0.9031 when set, with edit look-ups in stage 1;
  0.898 was the gate from 0.9018, with synonym look-ups in stage 1; 0.89 was the gate from 0.8931, with blocks taking in their sentences' edges; 0.885 was
  the gate from 0.8886, with a summary replacing a single passage only
  when it names rare terms from beyond it; 0.8862 before).
- 04-translation-obfuscation recall >= 0.912 (0.9155 when set, with synonym look-ups in
  stage 1; 0.9079 before them).
- 05-summary-obfuscation >= 0.79 in both modes (0.8041 collection-wide and 0.7994
  pairwise when set, with a summary's source side 2.5 times its suspect side; 0.75 was
  the gate from 0.7705 / 0.7657, with summaries joined over a sentence gap of 64; 0.7133
  / 0.7154 before that; 0.70 was the gate from 0.7132 collection-wide and 0.7152
  pairwise, with shared names told from shared words; 0.7028 / 0.7071 with confidence
  per block and summaries reaching their source's edges; 0.64 before).
Pairwise (`--pairwise`, the PAN task; guards the alignment against regressions):
- 02-no-obfuscation >= 0.95, entire >= 0.930 (0.9312 when this gate was set, with
  clusters split at 60 terms of one's own between two seeds; 0.9295 was the gate from
  0.9306, with blocks taking in their sentences' edges; 0.9265 was the gate from 0.9274, with a
  summary's source side 2.5 times its suspect side and no copy replaced by a summary;
  0.9252 before, with summaries joined over a sentence gap of 64; 0.9232 before that, with a
  confidence model weighing a passage's cosine by its length; 0.9220 before that, with
  ghosts of a borrowing dropped; 0.9201 before that,
  with a summary replacing a single passage only when it names rare terms from beyond
  it; 0.9187 before that; 0.9155 before summaries needed confidence 0.9; 0.9071 before
  confidence per block) and 03-random-obfuscation >= 0.905 (0.9072 when set, with blocks
  taking in their sentences' edges; 0.9 was the gate from 0.9022, 0.8998 before it;
  0.9014 with WordNet neighbours before summaries reached their source's edges;
  0.8847 without them); 01-no-plagiarism at most 4 detections (4 since clusters split
  at 60 terms of one's own: the kiwifruit article's two blocks and the OCD page's two
  summaries, the water-heater page gone; 5 since the summary gap
  of 64: the OCD page 01032, already detected against source 03165, is found as a
  summary of source 01057 too; 4 before, and when the gate allowed 5 first, with the
  passage's length an input of the confidence model; 6 before that); recall of
  03-random-obfuscation >= 0.8718 and of 04-translation-obfuscation >= 0.9206 (issue 19's
  "recall not lower than now": its filing figures; 0.8741 / 0.9240 when set, with blocks
  taking in their sentences' edges; 0.8670 / 0.9176 before, after the confidence filters).
Russian planted set (`--russian`, ../shared/eval/ru-plag-dev; no summary subset):
- collection-wide entire >= 0.80 (0.8020 when set, with edit look-ups in stage 1:
  Russian has no synonym table, and 0.7935 without them; most of what is left is
  attribution, its sources overlapping: a passage claimed by another source holding the
  same text); pairwise entire >= 0.975 (0.9786 when set); 0 detections on
  01-no-plagiarism in both modes.
Collection-wide, both corpora: at most 3.5 % (PAN) and 6 % (Russian) of the claimed
suspect characters claimed by two or more sources (`multi_claimed_chars`; 3.14 % and
4.00 % when set: a passage found through variant shingles was claimed again by each
copy of its source, 23.9 % on the Russian set, until a held variant explained the
shingle it varies; PAN scores only listed pairs, so such second claims raise recall).
Collection-wide, both corpora: entire recall with the blocks of copies (what a reader of
every source's "also in" sees; `timings.recall_with_copies`) >= 0.915 (PAN; 0.9161 when
set, 0.9116 without copies) and >= 0.96 (Russian; 0.9722 when set, 0.6849 without:
every listed case missed there is held by the source credited with it).
Prints the table either way; exits 1 when a gate fails.
"""
import json
import sys

pairwise = "--pairwise" in sys.argv[1:]
russian = "--russian" in sys.argv[1:]
data = json.load(open([a for a in sys.argv[1:] if not a.startswith("--")][0]))
scores = data["scores"]
fail = []
print(f"{'subset':<28} {'plagdet':>8} {'recall':>8} {'precision':>9} {'gran':>6} {'cases':>6} {'dets':>6}")
for s in scores["subsets"] + [{"subset": "entire", "scores": scores["entire"]}]:
    x = s["scores"]
    print(f"{s['subset']:<28} {x['plagdet']:8.4f} {x['recall']:8.4f} {x['precision']:9.4f} "
          f"{x['granularity']:6.3f} {x['cases']:6d} {x['detections']:6d}")
by = {s["subset"]: s["scores"] for s in scores["subsets"]}
by["entire"] = scores["entire"]
mode = ("Russian " if russian else "") + ("pairwise" if pairwise else "collection-wide")
# (subset, measure, floor) in both modes, then in this mode only.
floors = [("02-no-obfuscation", "plagdet", 0.95), ("05-summary-obfuscation", "plagdet", 0.79)]
if russian:
    floors = [("entire", "plagdet", 0.975 if pairwise else 0.80)]
elif pairwise:
    floors += [("entire", "plagdet", 0.930), ("03-random-obfuscation", "plagdet", 0.905),
               ("03-random-obfuscation", "recall", 0.8718), ("04-translation-obfuscation", "recall", 0.9206)]
else:
    floors += [("entire", "plagdet", 0.929), ("02-no-obfuscation", "plagdet", 0.98),
               ("03-random-obfuscation", "plagdet", 0.9025), ("04-translation-obfuscation", "recall", 0.912)]
for subset, measure, floor in floors:
    if by[subset][measure] < floor:
        fail.append(f"{mode} {subset} {measure} {by[subset][measure]:.4f} below {floor}")
if not pairwise:
    claimed = scores.get("claimed_chars", 0)
    share = scores.get("multi_claimed_chars", 0) / claimed if claimed else 0.0
    print(f"claimed by two or more sources: {100 * share:.2f} % of {claimed} suspect characters")
    most_share = 0.06 if russian else 0.035
    if share > most_share:
        fail.append(f"{mode}: {100 * share:.2f} % of claimed characters claimed by two or more sources "
                    f"(> {100 * most_share:.1f} %)")
    with_copies = data.get("timings", {}).get("recall_with_copies", 0.0)
    print(f"recall with the blocks of copies: {with_copies:.4f}")
    least = 0.96 if russian else 0.915
    if with_copies < least:
        fail.append(f"{mode}: recall with the blocks of copies {with_copies:.4f} below {least}")
most = 0 if russian else 4 if pairwise else 2
if by["01-no-plagiarism"]["detections"] > most:
    fail.append(f"{mode} 01-no-plagiarism has {by['01-no-plagiarism']['detections']} detections (> {most})")
print("timings:", json.dumps(data.get("timings", {})))
for f in fail:
    print("QUALITY GATE FAILED:", f)
sys.exit(1 if fail else 0)
