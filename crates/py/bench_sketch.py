"""Signatures of a corpus: tessera.sketch against rensa and datasketch, side by side.

    python crates/py/bench_sketch.py [--corpus DIR] [--limit N] [--repeat R]

Every tool makes 128-permutation MinHash signatures of the same texts (the PAN 2013
sources by default, ../shared/eval/pan13-training/src/*.txt):
- tessera.sketch(texts): Tessera's normalizer (Unicode words, stop words, Snowball
  stems), word 3-shingles, MinHash, in Rust (rayon) without the GIL;
- rensa: Python word 3-shingles (str.split), then RMinHash.digest_matrix_from_token_sets
  (rensa's bulk path), or one RMinHash per text where that method is missing;
- datasketch: the same Python shingles as bytes, then MinHash.bulk.
The peers' time includes making the shingles in Python: that is their path from text to
signature. Printed: seconds (best of --repeat, and the first run), documents and MB of
text per second, and tessera's speedup over each (best against best).
"""

from __future__ import annotations

import argparse
import os
import sys
import time
from pathlib import Path

import tessera

REPO = Path(__file__).resolve().parents[2]
DEFAULT_CORPUS = REPO.parent / "shared" / "eval" / "pan13-training" / "src"
NUM_PERM = 128


def shingles(text: str) -> list[str]:
    words = text.split()
    return [" ".join(words[i : i + 3]) for i in range(len(words) - 2)] or [" ".join(words)]


def run_tessera(texts: list[str]) -> object:
    return tessera.sketch(texts, num_perm=NUM_PERM)


def run_rensa(texts: list[str]) -> object:
    import rensa

    sets = [shingles(t) for t in texts]
    bulk = getattr(rensa.RMinHash, "digest_matrix_from_token_sets", None)
    if bulk is not None:
        return bulk(sets, NUM_PERM, 42)
    out = []
    for s in sets:
        m = rensa.RMinHash(num_perm=NUM_PERM, seed=42)
        m.update(s)
        out.append(m.digest())
    return out


def run_datasketch(texts: list[str]) -> object:
    from datasketch import MinHash

    sets = [[s.encode("utf-8") for s in shingles(t)] for t in texts]
    return MinHash.bulk(sets, num_perm=NUM_PERM)


def timed(fn, texts: list[str], repeat: int) -> tuple[float, float]:
    """Seconds of the first run over the whole corpus (tessera's word cache is cold then)
    and of the best run."""
    runs = []
    for _ in range(repeat):
        start = time.perf_counter()
        fn(texts)
        runs.append(time.perf_counter() - start)
    return runs[0], min(runs)


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--corpus", type=Path, default=DEFAULT_CORPUS, help="a folder of .txt files")
    ap.add_argument("--limit", type=int, default=0, help="use the first N files only (0: all)")
    ap.add_argument("--repeat", type=int, default=3, help="runs per tool; the best is printed")
    ap.add_argument("--skip", action="append", default=[], help="a tool to leave out (rensa, datasketch)")
    args = ap.parse_args()
    files = sorted(args.corpus.glob("*.txt"))
    if args.limit:
        files = files[: args.limit]
    if not files:
        print(f"no .txt files in {args.corpus}", file=sys.stderr)
        return 1
    texts = [f.read_text(encoding="utf-8", errors="replace") for f in files]
    mb = sum(len(t.encode("utf-8")) for t in texts) / 1e6
    print(f"{len(texts)} documents, {mb:.1f} MB of text ({args.corpus}); num_perm {NUM_PERM}; "
          f"{os.cpu_count()} cores; best of {args.repeat}")

    tools = [("tessera.sketch", run_tessera), ("rensa", run_rensa), ("datasketch MinHash.bulk", run_datasketch)]
    results: dict[str, float] = {}
    for name, fn in tools:
        if name.split()[0].split(".")[0] in args.skip:
            continue
        try:
            fn(texts[:5])  # fail early when the package is missing
        except ImportError as e:
            print(f"{name:<26} not installed ({e.name})")
            continue
        first, secs = timed(fn, texts, args.repeat)
        results[name] = secs
        speedup = ""
        if name != "tessera.sketch" and "tessera.sketch" in results:
            speedup = f"  tessera is {secs / results['tessera.sketch']:.1f}x faster"
        print(f"{name:<26} {secs:8.3f} s {len(texts) / secs:10.0f} docs/s {mb / secs:8.2f} MB/s"
              f"  (first run {first:.3f} s){speedup}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
