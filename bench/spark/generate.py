#!/usr/bin/env python3
"""A planted near-duplicate corpus for the Spark benchmark (bench/spark/run.py): JSONL
shards of `{"id", "text", "group", "role"}` records, deterministic for a seed.

    python bench/spark/generate.py OUT --mb 1000 [--shards 16] [--seed 7] [--words-from DIR]

Texts are words drawn with Zipf-like frequencies from a vocabulary (the words of
../shared/eval/pan13-training/src when present, so stemming and stop words see English;
else made-up words), 100 to 1,500 words each (about 2.5 KB on average). A quarter of the
originals get one to three copies placed anywhere in the corpus:

* role "dup": an exact copy, or a copy with 1 % or 2 % of its words replaced (expected
  Jaccard of word 3-shingles 0.94 and 0.89: planted near-duplicates at threshold 0.8);
* role "neg": a copy with 15 % of its words replaced (expected Jaccard about 0.5: a
  planted non-duplicate that shares much of its text).

`group` is the original's number; role "orig" marks originals; `rate` is the share of
words replaced. Only numpy is needed.
"""

from __future__ import annotations

import argparse
import json
import os
import re
from pathlib import Path

import numpy as np

RATES = {"dup": [0.0, 0.01, 0.02], "neg": [0.15]}
AVERAGE_BYTES = 2600  # measured mean record size with the PAN vocabulary (about 6.5 bytes a word)


def vocabulary(words_from: str | None, rng: np.random.Generator) -> tuple[np.ndarray, np.ndarray]:
    """Words and their sampling probabilities (Zipf: the k-th most common has weight 1/k)."""
    counts: dict[str, int] = {}
    if words_from and os.path.isdir(words_from):
        for name in sorted(os.listdir(words_from)):
            with open(os.path.join(words_from, name), encoding="utf-8", errors="replace") as f:
                for w in re.findall(r"[A-Za-z']+", f.read()):
                    counts[w.lower()] = counts.get(w.lower(), 0) + 1
    if len(counts) < 1000:
        letters = np.array(list("abcdefghijklmnopqrstuvwxyz"))
        made = {"".join(rng.choice(letters, rng.integers(2, 10))) for _ in range(60000)}
        counts = {w: 1 for w in sorted(made)}
    words = np.array(sorted(counts, key=lambda w: (-counts[w], w)))
    weights = 1.0 / np.arange(1, len(words) + 1)
    return words, weights / weights.sum()


def main() -> None:
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("out")
    p.add_argument("--mb", type=float, default=100.0, help="about this many megabytes of JSONL")
    p.add_argument("--shards", type=int, default=8)
    p.add_argument("--seed", type=int, default=7)
    p.add_argument("--words-from", default=str(Path(__file__).resolve().parents[3] / "shared/eval/pan13-training/src"))
    args = p.parse_args()

    rng = np.random.default_rng(args.seed)
    words, probs = vocabulary(args.words_from, rng)
    cdf = np.cumsum(probs)
    cdf[-1] = 1.0
    draw = lambda gen, n: np.minimum(np.searchsorted(cdf, gen.random(n), side="right"), len(words) - 1)  # noqa: E731
    documents = int(args.mb * 1e6 / AVERAGE_BYTES)
    # Originals and their copies: (group, role, rate, copy number), then shuffled.
    specs: list[tuple[int, str, float, int]] = []
    group = 0
    while len(specs) < documents:
        specs.append((group, "orig", 0.0, 0))
        if rng.random() < 0.25:
            for c in range(int(rng.integers(1, 4))):
                role = "dup" if rng.random() < 0.75 else "neg"
                specs.append((group, role, float(rng.choice(RATES[role])), c + 1))
        group += 1
    order = rng.permutation(len(specs))
    lengths = np.clip(rng.lognormal(np.log(350), 0.6, group), 100, 1500).astype(int)

    out = Path(args.out)
    out.mkdir(parents=True, exist_ok=True)
    per_shard = (len(specs) + args.shards - 1) // args.shards
    written = 0
    for shard in range(args.shards):
        with open(out / f"part-{shard:04d}.jsonl", "w", encoding="utf-8") as f:
            for n in order[shard * per_shard : (shard + 1) * per_shard]:
                g, role, rate, copy = specs[n]
                base = np.random.default_rng([args.seed, g])
                text = draw(base, lengths[g])
                if rate:
                    edit = np.random.default_rng([args.seed, g, copy])
                    at = edit.random(len(text)) < rate
                    text = text.copy()
                    text[at] = draw(edit, int(at.sum()))
                record = {"id": f"{g}.{copy}", "text": " ".join(words[text]), "group": g, "role": role, "rate": rate}
                line = json.dumps(record) + "\n"
                f.write(line)
                written += len(line)
    print(f"{len(specs)} documents ({group} originals), {written / 1e6:.1f} MB in {args.shards} shards at {out}")


if __name__ == "__main__":
    main()
