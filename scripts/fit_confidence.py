#!/usr/bin/env python3
"""Fit the confidence model of sentence passages and replay thresholds (needs numpy).

Usage: scripts/fit_confidence.py CORPUS OUT/evidence.jsonl [--tau 0.3,0.4,0.5] [--min-words N] [--folds]

CORPUS is the PAN 2013 training corpus (../shared/eval/pan13-training); evidence.jsonl is
what `tessera eval pan [--pairwise] --align-config '{"min_confidence":0.0}'` writes into
its output folder (each detection with its block's evidence). A detection is right when
it overlaps a listed case of its pair on the suspect side. Prints the logistic weights of
`tessera_search::Evidence::confidence` (the same eight inputs), then, for each threshold,
the PAN scores (our own scorer, equal to `tessera eval pan`'s) when sentence passages
under it are dropped, by the engine's confidence (as in the run) and by the model just
fitted. With `--min-words N`, sentence passages sharing fewer than N terms
that are not names of the suspect are dropped too (`AlignConfig::min_shared_words`: make
the run with `"min_shared_words":0` to replay it). With `--folds`, the model is also
fitted on the suspects of one parity and scored on the others (two folds): the check that
a new input holds on passages the fit did not see. Tune on the training corpus only.
"""
import glob
import json
import math
import os
import sys
import xml.etree.ElementTree as ET

import numpy as np

NAMES = ["ln(1+run)", "cosine", "shared/terms", "order", "ln(1+rare)", "ln(terms)", "ln(1+shared)*order",
         "ln(terms)*cosine"]


def inputs(e):
    terms = max(1, min(e["suspect_terms"], e["source_terms"]))
    return [math.log1p(e["longest_run"]), e["cosine"], e["shared_terms"] / terms, e["order"],
            math.log1p(e["rare_shared_terms"]), math.log(terms),
            math.log1p(e["shared_terms"]) * e["order"], math.log(terms) * e["cosine"]]


def load_cases(corpus):
    out = {}
    for sub in sorted(d for d in os.listdir(corpus) if d[:2].isdigit()):
        for f in glob.glob(os.path.join(corpus, sub, "*.xml")):
            s, t = os.path.basename(f)[:-4].split("-source-")
            cases = [(int(x.get("this_offset")), int(x.get("this_length")), int(x.get("source_offset")),
                      int(x.get("source_length")))
                     for x in ET.parse(f).getroot().iter("feature") if x.get("name") == "plagiarism"]
            out[(s + ".txt", "source-" + t + ".txt")] = (sub, cases)
    return out


def covered(lo, hi, spans):
    total, at = 0, lo
    for a, b in sorted((max(a, lo), min(b, hi)) for a, b in spans):
        a = max(a, at)
        if b > a:
            total, at = total + b - a, b
    return total


def overlap(c, d):
    return c[0] < d[0] + d[1] and d[0] < c[0] + c[1] and c[2] < d[2] + d[3] and d[2] < c[2] + c[3]


def side(x, y, o, ln):
    return covered(x[o], x[o] + x[ln], [(z[o], z[o] + z[ln]) for z in y])


def plagdet(cases, dets):
    """PAN's macro-averaged measure per subset and for all of them."""
    per = {}
    for key, (sub, cs) in cases.items():
        ds = dets.get(key, [])
        a = per.setdefault(sub, ([], [], [], [0]))
        a[3][0] += len(ds)
        for c in cs:
            hit = [d for d in ds if overlap(c, d)]
            a[0].append((side(c, hit, 0, 1) + side(c, hit, 2, 3)) / (c[1] + c[3]))
            if hit:
                a[2].append(len(hit))
        for d in ds:
            hit = [c for c in cs if overlap(c, d)]
            a[1].append((side(d, hit, 0, 1) + side(d, hit, 2, 3)) / max(1, d[1] + d[3]))
    def measure(r, p, g, n):
        if not r and not p:
            return 1.0, n
        if not r or not p:
            return 0.0, n
        r, p = sum(r) / len(r), sum(p) / len(p)
        g = sum(g) / len(g) if g else 1.0
        return (2 * r * p / (r + p) if r + p else 0.0) / math.log2(1 + g), n
    out = {sub: measure(*a[:3], a[3][0]) for sub, a in sorted(per.items())}
    out["entire"] = measure(*[sum((a[i] for a in per.values()), []) for i in range(3)],
                            sum(a[3][0] for a in per.values()))
    return out


def shared_words(e):
    """`Evidence::shared_words`: the shared terms that are not names of the suspect."""
    return e["shared_terms"] - e.get("shared_names", 0)


def fit(rows, min_words):
    """Logistic weights over the sentence passages the word rule leaves."""
    sentence = [r for r in rows if r["evidence"]["sentences"] and shared_words(r["evidence"]) >= min_words]
    x = np.array([[1.0] + inputs(r["evidence"]) for r in sentence])
    y = np.array([1.0 if r["right"] else 0.0 for r in sentence])
    w = np.zeros(x.shape[1])
    for _ in range(50):  # Newton's method, a little ridge
        p = 1 / (1 + np.exp(-x @ w))
        g = x.T @ (p - y) / len(y) + 1e-3 * np.r_[0, w[1:]]
        h = (x * (p * (1 - p))[:, None]).T @ x / len(y) + 1e-3 * np.eye(len(w))
        w -= np.linalg.solve(h, g)
    return w, len(sentence), int(len(y) - y.sum())


def replay(cases, rows, confidence, tau, min_words):
    """PAN scores when sentence passages under `tau` (or under `min_words`) are dropped."""
    dets = {}
    for r in rows:
        e = r["evidence"]
        if e["sentences"] and (confidence(r) < tau or shared_words(e) < min_words):
            continue
        dets.setdefault((r["suspicious"], r["source"]), []).append(r["det"])
    s = plagdet(cases, dets)
    return (" ".join(f"{k[:2] if k[0].isdigit() else k} {v[0]:.4f}" for k, v in s.items())
            + f"  (01 detections {s.get('01-no-plagiarism', (0, 0))[1]})")


def model(w):
    return lambda r: 1 / (1 + math.exp(-(w @ np.array([1.0] + inputs(r["evidence"])))))


def main():
    args = [a for a in sys.argv[1:] if not a.startswith("--")]
    taus = [0.3, 0.4, 0.5, 0.6, 0.7]
    if "--tau" in sys.argv:
        taus = [float(x) for x in sys.argv[sys.argv.index("--tau") + 1].split(",")]
        args = [a for a in args if a != sys.argv[sys.argv.index("--tau") + 1]]
    min_words = 0
    if "--min-words" in sys.argv:
        min_words = int(sys.argv[sys.argv.index("--min-words") + 1])
        args = [a for a in args if a != sys.argv[sys.argv.index("--min-words") + 1]]
    corpus, evidence = args[0], args[1]
    cases = load_cases(corpus)
    rows = []
    for line in open(evidence):
        d = json.loads(line)
        key = (d["suspicious"], d["source"])
        if key not in cases:
            continue
        det = (d["this_offset"], d["this_length"], d["source_offset"], d["source_length"])
        d["det"], d["right"] = det, any(c[0] < det[0] + det[1] and det[0] < c[0] + c[1] for c in cases[key][1])
        rows.append(d)
    w, n, wrong = fit(rows, min_words)
    print(f"{n} sentence passages, {wrong} overlap no case")
    print("weights:", ", ".join(f"{n} {v:+.3f}" for n, v in zip(["bias"] + NAMES, w)))
    for name, confidence in [("engine's model", lambda r: r["confidence"]), ("fitted model", model(w))]:
        print(f"replayed with the {name}:")
        for tau in [0.0] + taus:
            print(f"  min_confidence {tau:.2f}: " + replay(cases, rows, confidence, tau, min_words))
    if "--folds" in sys.argv:
        # Held out: fitted on the suspects of one parity, scored on the others.
        number = lambda name: int("".join(c for c in name if c.isdigit()) or 0)
        print("held out (fitted on odd suspects, scored on even ones; then the reverse):")
        for fold in (0, 1):
            train = [r for r in rows if number(r["suspicious"]) % 2 != fold]
            test = [r for r in rows if number(r["suspicious"]) % 2 == fold]
            half = {k: v for k, v in cases.items() if number(k[0]) % 2 == fold}
            w_fold, _, _ = fit(train, min_words)
            for tau in taus:
                print(f"  fold {fold} min_confidence {tau:.2f}: " + replay(half, test, model(w_fold), tau, min_words))


if __name__ == "__main__":
    main()
