#!/usr/bin/env python3
"""`tessera dedup --method exact|lines|minhash` on generated pages (docs/performance.md,
"Exact and line dedup beside MinHash"): N JSONL records of 2-12 lines, a line in four one
of 300 boilerplate lines, every tenth record a copy of the one before. Prints each
method's time, peak memory (GNU time) and summary.

    python3 bench/dedup_methods.py --tessera target/release/tessera --records 100000
"""

from __future__ import annotations

import argparse
import json
import random
import subprocess
import tempfile
from pathlib import Path


def pages(path: Path, n: int, seed: int = 5) -> None:
    rng = random.Random(seed)
    words = ["".join(rng.choice("abcdefghijklmnopqrstuvwxyz") for _ in range(rng.randint(2, 9))) for _ in range(20000)]
    shared = [" ".join(rng.choice(words) for _ in range(8)) for _ in range(300)]
    prev = ""
    with path.open("w", encoding="utf-8") as f:
        for i in range(n):
            lines = [rng.choice(shared) for _ in range(rng.randint(1, 4))]
            lines += [" ".join(rng.choice(words) for _ in range(rng.randint(8, 20))) for _ in range(rng.randint(2, 8))]
            rng.shuffle(lines)
            text = prev if i % 10 == 3 else "\n".join(lines)
            prev = text
            f.write(json.dumps({"id": i, "text": text}) + "\n")


def main() -> None:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--tessera", default="target/release/tessera")
    p.add_argument("--records", type=int, default=100_000)
    args = p.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        data = Path(tmp) / "pages.jsonl"
        pages(data, args.records)
        print(f"{args.records} records, {data.stat().st_size / 1e6:.1f} MB")
        for method in ("exact", "lines", "minhash"):
            out = Path(tmp) / f"{method}.jsonl"
            cmd = ["/usr/bin/time", "-f", "%e s %M KB", args.tessera, "-q", "dedup", str(data), "--method", method,
                   "-o", str(out), "--format", "json"]
            done = subprocess.run(cmd, capture_output=True, text=True, check=True)
            summary, timing = done.stderr.strip().splitlines()[-2:]
            print(f"{method:8} {timing:>20}  {summary}")


if __name__ == "__main__":
    main()
