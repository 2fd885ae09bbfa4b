#!/usr/bin/env python3
"""Pair precision and recall of near-duplicate clustering on a labelled set built from
real text (PAN 2013 source documents), for `tessera dedup` and for datasketch with the
same settings (word 3-shingles, 128 functions, threshold 0.8, clusters verified against
the kept document). Figures go to docs/quality.md.

    /tmp/peers/bin/python bench/near_quality.py ../shared/eval/pan13-training/src \
        --tessera target/release/tessera --originals 300

Each original gets copies edited at known rates, with a deterministic generator:
words replaced, inserted, deleted (1 %, 2 % light; 10 %, 20 %, 40 % heavy), a block of
10 % of the words moved elsewhere (light), boilerplate added (5 % of the length, light;
50 %, heavy). Label: an original and its light copies are near-duplicates of each other
(every pair among them); heavy copies and other documents are not. A system's predicted
pairs are the pairs of documents in one cluster.
"""
import argparse
import itertools
import json
import os
import random
import re
import subprocess
import tempfile

WORD = re.compile(r"\w+")
BOILER = ("Home About Contact Privacy Terms Subscribe to our newsletter Share this page "
          "Copyright all rights reserved Follow us Cookies help advertise careers").split()


def edit(words, op, rate, rng):
    w = list(words)
    n = max(1, round(len(w) * rate))
    if op == "replace":
        for i in rng.sample(range(len(w)), n):
            w[i] = "x" + str(rng.getrandbits(24))
    elif op == "insert":
        for _ in range(n):
            w.insert(rng.randrange(len(w) + 1), "x" + str(rng.getrandbits(24)))
    elif op == "delete":
        for i in sorted(rng.sample(range(len(w)), n), reverse=True):
            del w[i]
    elif op == "move":
        start = rng.randrange(len(w) - n)
        block, rest = w[start : start + n], w[: start] + w[start + n :]
        at = rng.randrange(len(rest) + 1)
        w = rest[:at] + block + rest[at:]
    elif op == "boilerplate":
        extra = [rng.choice(BOILER) for _ in range(n)]
        w = extra[: n // 2] + w + extra[n // 2 :]
    return " ".join(w)


LIGHT = [("replace", 0.01), ("replace", 0.02), ("insert", 0.01), ("insert", 0.02), ("delete", 0.01),
         ("delete", 0.02), ("move", 0.10), ("boilerplate", 0.05)]
HEAVY = [("replace", 0.10), ("replace", 0.20), ("replace", 0.40), ("insert", 0.20), ("delete", 0.20),
         ("boilerplate", 0.50)]


def build(src, originals):
    files = sorted(f for f in os.listdir(src) if f.endswith(".txt"))
    docs, groups = [], []
    rng = random.Random(2013)
    for f in files:
        if len(groups) == originals:
            break
        text = open(os.path.join(src, f), encoding="utf-8", errors="replace").read()
        words = text.split()
        if len(words) < 300:
            continue
        group = [len(docs)]
        docs.append((f, text))
        for op, rate in LIGHT:
            group.append(len(docs))
            docs.append((f"{f}:{op}:{rate}", edit(words, op, rate, rng)))
        for op, rate in HEAVY:
            docs.append((f"{f}:{op}:{rate}", edit(words, op, rate, rng)))
        groups.append(group)
    truth = set()
    for g in groups:
        truth.update(itertools.combinations(sorted(g), 2))
    return docs, truth


def pairs_of(clusters):
    by = {}
    for i, c in enumerate(clusters):
        by.setdefault(c, []).append(i)
    out = set()
    for members in by.values():
        out.update(itertools.combinations(sorted(members), 2))
    return out


def tessera(binary, docs, extra):
    with tempfile.TemporaryDirectory() as tmp:
        path = os.path.join(tmp, "docs.jsonl")
        with open(path, "w") as f:
            for i, (_, text) in enumerate(docs):
                f.write(json.dumps({"id": str(i), "text": text}) + "\n")
        out = subprocess.run([binary, "-q", "dedup", path, "--id-field", "id", "--threshold", "0.8", *extra],
                             check=True, capture_output=True, text=True).stdout
    return [int(json.loads(l)["cluster"]) for l in out.splitlines()]


def datasketch(docs):
    from datasketch import MinHash, MinHashLSH

    lsh = MinHashLSH(threshold=0.8, num_perm=128)
    sigs, kept = [], []
    for i, (_, text) in enumerate(docs):
        words = WORD.findall(text.lower())
        m = MinHash(num_perm=128, seed=1)
        m.update_batch([" ".join(words[j : j + 3]).encode() for j in range(max(1, len(words) - 2))])
        sigs.append(m)
        best = None
        for c in lsh.query(m):
            r = kept[c]
            s = m.jaccard(sigs[r])
            if s >= 0.8 and (best is None or s > best[0] or (s == best[0] and r < best[1])):
                best = (s, r)
        kept.append(best[1] if best else i)
        lsh.insert(i, m)
    return kept


def report(name, predicted, truth):
    tp = len(predicted & truth)
    p = tp / len(predicted) if predicted else 1.0
    r = tp / len(truth) if truth else 1.0
    print(f"{name}: pair precision {p:.3f}, recall {r:.3f} ({len(predicted)} predicted pairs, {len(truth)} true)")


def clough(corpus, binary):
    """Clough & Stevenson: similarity of each answer to its task's original, by category,
    through `tessera near` against an index of the five originals."""
    import csv
    import statistics

    with tempfile.TemporaryDirectory() as tmp:
        origs = os.path.join(tmp, "orig")
        os.makedirs(origs)
        for f in sorted(os.listdir(corpus)):
            if f.startswith("orig_"):
                with open(os.path.join(corpus, f), "rb") as a, open(os.path.join(origs, f), "wb") as b:
                    b.write(a.read())
        idx = os.path.join(tmp, "idx")
        subprocess.run([binary, "-q", "index", "--index", idx, origs], check=True, capture_output=True)
        by = {}
        with open(os.path.join(corpus, "file_list.csv")) as f:
            for row in csv.DictReader(f):
                if row["Category"] == "orig":
                    continue
                out = subprocess.run([binary, "near", "--index", idx, os.path.join(corpus, row["File"]), "--top", "5", "--exhaustive",
                                      "--format", "json"], check=True, capture_output=True, text=True).stdout
                hits = [h for h in json.loads(out) if h["title"] == "orig_task" + row["Task"]]
                j, c = (hits[0]["jaccard"], hits[0]["query_in_doc"]) if hits else (0.0, 0.0)
                by.setdefault(row["Category"], []).append((j, c))
    for cat in ("cut", "light", "heavy", "non"):
        v = by.get(cat, [])
        if v:
            print(f"{cat:>5}: {len(v):>2} answers, mean jaccard {statistics.mean(x[0] for x in v):.3f}, "
                  f"mean containment in the original {statistics.mean(x[1] for x in v):.3f}")


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("src")
    ap.add_argument("--tessera", default="target/release/tessera")
    ap.add_argument("--originals", type=int, default=300)
    ap.add_argument("--clough", help="the Clough & Stevenson corpus: print its ordering instead")
    a = ap.parse_args()
    if a.clough:
        clough(a.clough, a.tessera)
        return
    docs, truth = build(a.src, a.originals)
    print(f"{len(docs)} documents ({a.originals} originals, {len(LIGHT)} light and {len(HEAVY)} heavy copies each)")
    report("tessera minhash (estimated)", pairs_of(tessera(a.tessera, docs, [])), truth)
    report("tessera minhash --exact", pairs_of(tessera(a.tessera, docs, ["--exact"])), truth)
    report("tessera minhash --keep-stop-words", pairs_of(tessera(a.tessera, docs, ["--keep-stop-words"])), truth)
    report("tessera simhash k=3", pairs_of(tessera(a.tessera, docs, ["--method", "simhash", "--max-distance", "3"])), truth)
    report("datasketch", pairs_of(datasketch(docs)), truth)


if __name__ == "__main__":
    main()
