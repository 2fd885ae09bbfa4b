"""A shared LSH on Redis: tessera's against datasketch's, on the same signatures.

    python crates/py/bench_redis.py [--n N] [--queries Q] [--threshold T] [--skip datasketch]

Makes N random 128-value MinHash signatures (numpy, seed 42) and gives the same values
to both libraries (tessera.MinHash(hashvalues=row), datasketch.MinHash(hashvalues=row,
scheme="affine32")),
so both index identical signatures with the same bands (datasketch's optimal (b, r),
which tessera's rule equals). A third of them are near-copies of an earlier one (a few
values changed), so queries find several keys. Both run against one redis-server that
this script starts on 127.0.0.1 at a free port (no persistence), flushed before each
library:
- tessera: MinHashLSH(storage_config={"type": "redis", ...}) (RedisMinHashLSH: one Lua
  script per key, pipelines of 50,000 from insertion_session);
- datasketch: MinHashLSH(storage_config={"type": "redis", ...}) with its
  insertion_session (redis-py pipelines of 50,000, its default; prepickle on).
Printed per library: insert time and inserts/s (the signatures are built before the
clock starts, not counted), query p50/p99 over Q queries of inserted signatures (one
query at a time, as a service would ask), whether the answers agree, and Redis's memory.
"""

from __future__ import annotations

import argparse
import os
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import time

import numpy as np

import tessera

NUM_PERM = 128
SEED = 42


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def start_redis(workdir: str) -> tuple[subprocess.Popen, int]:
    program = shutil.which("redis-server")
    if program is None:
        sys.exit("redis-server is not installed (apt-get install redis-server)")
    port = free_port()
    proc = subprocess.Popen(
        [program, "--port", str(port), "--bind", "127.0.0.1", "--save", "", "--appendonly", "no",
         "--dir", workdir],
        stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
    )
    import redis

    client = redis.Redis(host="127.0.0.1", port=port)
    deadline = time.monotonic() + 10
    while True:
        try:
            client.ping()
            return proc, port
        except redis.ConnectionError:
            if time.monotonic() > deadline or proc.poll() is not None:
                sys.exit("redis-server did not start")
            time.sleep(0.05)


def make_signatures(n: int) -> np.ndarray:
    rng = np.random.default_rng(SEED)
    sigs = rng.integers(0, 2**32 - 1, size=(n, NUM_PERM), dtype=np.uint64)
    # Every third row: a near-copy of an earlier row (8 of 128 values changed).
    for i in range(3, n, 3):
        j = int(rng.integers(0, i))
        row = sigs[j].copy()
        pos = rng.choice(NUM_PERM, size=8, replace=False)
        row[pos] = rng.integers(0, 2**32 - 1, size=8, dtype=np.uint64)
        sigs[i] = row
    return sigs


def percentile_ms(times: list[float], p: float) -> float:
    return float(np.percentile(np.array(times), p)) * 1000


def run(name: str, lsh: object, minhashes: list, query_idx: np.ndarray) -> dict:
    start = time.perf_counter()
    with lsh.insertion_session(buffer_size=50_000) as session:
        for i, m in enumerate(minhashes):
            session.insert(i, m)
    insert_s = time.perf_counter() - start
    times, answers = [], []
    for q in query_idx:
        t = time.perf_counter()
        found = lsh.query(minhashes[q])
        times.append(time.perf_counter() - t)
        answers.append(sorted(found))
    return {
        "name": name,
        "insert_s": insert_s,
        "per_s": len(minhashes) / insert_s,
        "p50": percentile_ms(times, 50),
        "p99": percentile_ms(times, 99),
        "answers": answers,
    }


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--n", type=int, default=1_000_000, help="signatures to insert (default 1,000,000)")
    ap.add_argument("--queries", type=int, default=1000, help="queries timed one by one (default 1000)")
    ap.add_argument("--threshold", type=float, default=0.8, help="the LSH threshold (default 0.8)")
    ap.add_argument("--skip", action="append", default=[], help="a library to leave out (tessera, datasketch)")
    args = ap.parse_args()

    import redis

    sigs = make_signatures(args.n)
    query_idx = np.random.default_rng(SEED + 1).integers(0, args.n, size=args.queries)
    with tempfile.TemporaryDirectory(prefix="bench-redis-") as workdir:
        proc, port = start_redis(workdir)
        client = redis.Redis(host="127.0.0.1", port=port)
        version = client.info("server")["redis_version"]
        cfg = {"type": "redis", "redis": {"host": "127.0.0.1", "port": port}}
        probe = tessera.MinHashLSH(threshold=args.threshold, num_perm=NUM_PERM,
                                   storage_config={**cfg, "basename": b"probe"})
        print(f"{args.n} signatures, num_perm {NUM_PERM}, threshold {args.threshold} (b={probe.b}, r={probe.r}); "
              f"{args.queries} queries; redis-server {version} on 127.0.0.1:{port}; {os.cpu_count()} cores")
        del probe
        results = []
        try:
            if "tessera" not in args.skip:
                client.flushall()
                minhashes = [tessera.MinHash(hashvalues=row) for row in sigs]
                lsh = tessera.MinHashLSH(threshold=args.threshold, num_perm=NUM_PERM,
                                         storage_config={**cfg, "basename": b"tessera"})
                r = run("tessera RedisMinHashLSH", lsh, minhashes, query_idx)
                r["memory"] = client.info("memory")["used_memory"]
                results.append(r)
                del minhashes, lsh
            if "datasketch" not in args.skip:
                import datasketch

                client.flushall()
                # datasketch 2 asks which permutation scheme made given values: 32-bit
                # values are its "affine32" (the scheme only matters for its own updates).
                import inspect

                kw = {"scheme": "affine32"} if "scheme" in inspect.signature(datasketch.MinHash).parameters else {}
                minhashes = [datasketch.MinHash(num_perm=NUM_PERM, hashvalues=row, **kw) for row in sigs]
                lsh = datasketch.MinHashLSH(threshold=args.threshold, num_perm=NUM_PERM,
                                            storage_config={**cfg, "basename": b"datasketch"})
                r = run(f"datasketch {datasketch.__version__}", lsh, minhashes, query_idx)
                r["memory"] = client.info("memory")["used_memory"]
                results.append(r)
                del minhashes, lsh
        finally:
            proc.send_signal(signal.SIGTERM)
            proc.wait()
    for r in results:
        print(f"{r['name']:<26} insert {r['insert_s']:8.1f} s {r['per_s']:10.0f} inserts/s   "
              f"query p50 {r['p50']:7.3f} ms  p99 {r['p99']:7.3f} ms   redis memory {r['memory'] / 2**20:7.0f} MiB")
    if len(results) == 2:
        same = results[0]["answers"] == results[1]["answers"]
        print(f"answers: {'the same keys for every query' if same else 'DIFFERENT'}; tessera inserts "
              f"{results[0]['per_s'] / results[1]['per_s']:.1f}x as fast, queries (p50) "
              f"{results[1]['p50'] / results[0]['p50']:.1f}x as fast")
    return 0


if __name__ == "__main__":
    sys.exit(main())
