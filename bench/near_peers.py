#!/usr/bin/env python3
"""Near-duplicate peers (datasketch, rensa, gaoya) on the same text and settings as
`tessera bench sketch` and `tessera bench lsh`: word 3-shingles, 128 functions, threshold
0.8. Figures go to docs/performance.md.

    python3 -m venv /tmp/peers && /tmp/peers/bin/pip install datasketch rensa gaoya
    /tmp/peers/bin/python bench/near_peers.py sketch ../shared/eval/pan13-training/src
    /tmp/peers/bin/python bench/near_peers.py lsh --docs 100000

`sketch`: text in, signatures out, on one process and on two (multiprocessing; gaoya uses
its own Rust threads). Python tokenises for datasketch and rensa (lowercase, \\w+ words);
gaoya tokenises in Rust. `lsh`: synthetic documents built exactly like `tessera bench
lsh` (300 random shingles; every tenth a copy of the document five before it with 15
shingles replaced); each library runs in its own process so peak RSS is its own.
"""
import argparse
import multiprocessing as mp
import os
import random
import re
import resource
import subprocess
import sys
import time

WORD = re.compile(r"\w+")


def shingles(text, k=3):
    words = WORD.findall(text.lower())
    if len(words) < k:
        return [" ".join(words)] if words else []
    return [" ".join(words[i : i + k]) for i in range(len(words) - k + 1)]


def sign_datasketch(texts):
    from datasketch import MinHash

    out = []
    for t in texts:
        m = MinHash(num_perm=128, seed=1)
        m.update_batch([s.encode() for s in shingles(t)])
        out.append(m.hashvalues)
    return len(out)


def sign_rensa(texts):
    from rensa import RMinHash

    out = []
    for t in texts:
        m = RMinHash(num_perm=128, seed=1)
        m.update(shingles(t))
        out.append(m.digest())
    return len(out)


def timed(fn, texts, seconds, procs):
    total = sum(len(t.encode()) for t in texts)
    start, passes = time.perf_counter(), 0
    if procs == 1:
        while passes == 0 or time.perf_counter() - start < seconds:
            fn(texts)
            passes += 1
    else:
        chunks = [texts[i::procs] for i in range(procs)]
        with mp.Pool(procs) as pool:
            start = time.perf_counter()
            while passes == 0 or time.perf_counter() - start < seconds:
                pool.map(fn, chunks)
                passes += 1
    secs = time.perf_counter() - start
    return passes * total / secs / 1e6, passes * len(texts) / secs


def gaoya_index():
    from gaoya.minhash import MinHashStringIndex

    return MinHashStringIndex(
        hash_size=32, jaccard_threshold=0.8, num_bands=9, band_size=13, analyzer="word", lowercase=True, ngram_range=(3, 3)
    )


def sketch(args):
    files = sorted(os.path.join(args.texts, f) for f in os.listdir(args.texts) if f.endswith(".txt"))
    texts = [open(f, encoding="utf-8", errors="replace").read() for f in files]
    total = sum(len(t.encode()) for t in texts)
    print(f"{len(texts)} documents, {total / 1e6:.1f} MB; word 3-shingles, 128 functions")
    for name, fn in (("rensa", sign_rensa), ("datasketch", sign_datasketch)):
        for procs in (1, 2):
            mbs, docs = timed(fn, texts, args.seconds, procs)
            print(f"{name}, {procs} process(es): {mbs:.1f} MB/s, {docs:.0f} documents/s")
    # gaoya: signatures are made while inserting (its index keeps them).
    ids = list(range(len(texts)))
    start = time.perf_counter()
    idx = gaoya_index()
    for i, t in zip(ids, texts):
        idx.insert_document(i, t)
    secs = time.perf_counter() - start
    print(f"gaoya insert_document (sign + insert), 1 thread: {total / secs / 1e6:.1f} MB/s")
    start = time.perf_counter()
    idx = gaoya_index()
    idx.par_bulk_insert_docs(ids, texts)
    secs = time.perf_counter() - start
    print(f"gaoya par_bulk_insert_docs (sign + insert), {os.cpu_count()} threads: {total / secs / 1e6:.1f} MB/s")


def synthetic(n):
    """The documents one at a time (never all in memory: RSS then shows the index)."""
    for i in range(n):
        base = i - 5 if i % 10 == 9 else i
        rng = random.Random(base)
        s = [str(rng.getrandbits(64)) for _ in range(300)]
        if base != i:
            r = random.Random(1_000_000 + i)
            for j in range(15):
                s[j] = str(r.getrandbits(64))
        yield s


def rss_mb():
    for line in open("/proc/self/status"):
        if line.startswith("VmRSS:"):
            return int(line.split()[1]) / 1024
    return float("nan")


def lsh_worker(lib, n, queries):
    docs = synthetic(n)  # a generator
    t0 = time.perf_counter()
    if lib == "rensa":
        from rensa import RMinHash, RMinHashLSH

        sigs = []
        for s in docs:
            m = RMinHash(num_perm=128, seed=1)
            m.update(s)
            sigs.append(m)
        before = rss_mb()
        t1 = time.perf_counter()
        # rensa needs num_perm divisible by the bands: 8 bands of 16 (ours and datasketch: 9 of 13).
        lsh = RMinHashLSH(threshold=0.8, num_perm=128, num_bands=8)
        for i, m in enumerate(sigs):
            lsh.insert(i, m)
        query = lsh.query
    else:
        from datasketch import MinHash, MinHashLSH

        sigs = []
        for s in docs:
            m = MinHash(num_perm=128, seed=1)
            m.update_batch([x.encode() for x in s])
            sigs.append(m)
        before = rss_mb()
        t1 = time.perf_counter()
        lsh = MinHashLSH(threshold=0.8, num_perm=128)
        for i, m in enumerate(sigs):
            lsh.insert(i, m)
        query = lsh.query
    t2 = time.perf_counter()
    grown = rss_mb() - before
    times, found = [], 0
    for m in sigs[:queries]:
        a = time.perf_counter()
        found += len(query(m))
        times.append(time.perf_counter() - a)
    times.sort()
    p = lambda q: times[round((len(times) - 1) * q)] * 1e6
    peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
    print(
        f"{lib}: {n} signatures {t1 - t0:.1f} s, LSH build {t2 - t1:.2f} s, query p50 {p(0.5):.1f} µs, "
        f"p99 {p(0.99):.1f} µs ({found} candidates for {len(times)} queries); the LSH index grew RSS by "
        f"{grown:.0f} MB (signatures held apart); peak RSS {peak:.0f} MB (signatures included)"
    )


def lsh(args):
    for lib in ("rensa", "datasketch"):
        subprocess.run([sys.executable, __file__, "lsh-worker", lib, str(args.docs), str(args.queries)], check=False)


def main():
    p = argparse.ArgumentParser()
    sub = p.add_subparsers(dest="cmd", required=True)
    s = sub.add_parser("sketch")
    s.add_argument("texts")
    s.add_argument("--seconds", type=float, default=3.0)
    l = sub.add_parser("lsh")
    l.add_argument("--docs", type=int, default=100_000)
    l.add_argument("--queries", type=int, default=10_000)
    w = sub.add_parser("lsh-worker")
    w.add_argument("lib")
    w.add_argument("docs", type=int)
    w.add_argument("queries", type=int)
    args = p.parse_args()
    if args.cmd == "sketch":
        sketch(args)
    elif args.cmd == "lsh":
        lsh(args)
    else:
        lsh_worker(args.lib, args.docs, args.queries)


if __name__ == "__main__":
    main()
