#!/usr/bin/env python3
"""The online check on Ray Serve measured on one machine (issue 50, item 6): the same
generated documents as one index and as N shards, checks through the Ray application's
HTTP API at 1, 4 and 16 concurrent clients, the fan-out's overhead per check, and the
memory of each replica.

    python bench/ray_shards.py --docs 200000 --shards 4 [--words 200] [--checks 48]
        [--work target/bench-ray] [--address HEAD:PORT] [--keep]

What is compared, and why:

* **Ray, 1 shard** (the same application over one shard holding every document): the
  single-index baseline. It goes through the same HTTP proxy, ingress, deployment
  handles and engine check path as the sharded one, so the difference is the fan-out
  itself (a request to every shard per look-up, answers merged, documents fetched from
  their owners). `tessera serve` over HTTP is not the baseline: its API queues a check
  and the client polls for the report, so its latency is the polling interval's.
* **Ray, N shards**: the sharded application, one replica a shard.
* In this process, without Ray or HTTP: `Index.check` on the one index and
  `ShardedIndex.open(shards).check`: the engine's own cost of a fan-out.

Each check's server-side time (the ingress's `Server-Timing`) is printed beside the
client's. Replicas' resident memory is read from /proc (their processes carry Ray's title
`ray::ServeReplica:APP:DEPLOYMENT`).

Without --address the script starts a one-node Ray cluster on 127.0.0.2 (Ray replaces
127.0.0.1 by the machine's routable address) and stops it at the end (`ray stop
--force`). The documents are words drawn with Zipf frequencies from the PAN sources'
vocabulary when ../shared/eval/pan13-training exists (bench/spark/generate.py's rule),
made-up words otherwise; suspects are passages of random documents (about 100 words
each, lightly edited) between new text.
"""

from __future__ import annotations

import argparse
import importlib.util
import json
import os
import shutil
import socket
import statistics
import subprocess
import sys
import threading
import time
import urllib.error
import urllib.request
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import numpy as np

REPO = Path(__file__).resolve().parents[1]
PAN_SOURCES = REPO.parent / "shared" / "eval" / "pan13-training" / "src"
HEAD_IP = "127.0.0.2"


def _generator():
    spec = importlib.util.spec_from_file_location("spark_generate", REPO / "bench" / "spark" / "generate.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def documents(n: int, words: int, seed: int):
    """`n` texts of about `words` words (75 % to 125 %), in batches."""
    rng = np.random.default_rng(seed)
    vocab, probs = _generator().vocabulary(str(PAN_SOURCES) if PAN_SOURCES.is_dir() else None, rng)
    batch = 10_000
    for start in range(0, n, batch):
        lengths = rng.integers(words * 3 // 4, words * 5 // 4 + 1, size=min(batch, n - start))
        drawn = vocab[rng.choice(len(vocab), size=int(lengths.sum()), p=probs)]
        ends = np.cumsum(lengths)
        yield start, [" ".join(drawn[e - k : e]) for e, k in zip(ends, lengths)]


def suspects(texts_of, n_docs: int, count: int, seed: int, vocab_words: list[str]) -> list[str]:
    rng = np.random.default_rng(seed)
    out = []
    for _ in range(count):
        parts = []
        for doc in rng.choice(n_docs, size=6, replace=False):
            words = texts_of(int(doc)).split()
            start = int(rng.integers(0, max(1, len(words) - 100)))
            passage = words[start : start + 100]
            for i in range(5, len(passage), 11):
                passage[i] = str(rng.choice(vocab_words))
            parts.append(" ".join(passage))
            parts.append(" ".join(rng.choice(vocab_words, size=120)))
        out.append(" ".join(parts))
    return out


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def _ray(*args: str, check: bool = True) -> None:
    subprocess.run([str(Path(sys.executable).parent / "ray"), *args], check=check, capture_output=True, timeout=300)


def replica_rss_mb(app: str) -> dict[str, list[float]]:
    """Resident memory (MB) of each replica process of `app`, by deployment."""
    prefix = f"ray::ServeReplica:{app}:".encode()
    out: dict[str, list[float]] = {}
    for entry in os.listdir("/proc"):
        if not entry.isdigit():
            continue
        try:
            cmdline = Path(f"/proc/{entry}/cmdline").read_bytes()
            if not cmdline.startswith(prefix):
                continue
            deployment = cmdline[len(prefix):].split(b"\0")[0].decode()
            for line in Path(f"/proc/{entry}/status").read_text().splitlines():
                if line.startswith("VmRSS:"):
                    out.setdefault(deployment, []).append(int(line.split()[1]) / 1024)
        except OSError:
            continue
    return out


def post_check(port: int, text: str) -> tuple[float, float]:
    """(client ms, server ms) of one check; raises on anything but 202."""
    body = json.dumps({"text": text, "name": "suspect.txt"}).encode()
    req = urllib.request.Request(f"http://127.0.0.1:{port}/api/checks", data=body,
                                 headers={"content-type": "application/json"})
    t0 = time.perf_counter()
    with urllib.request.urlopen(req, timeout=300) as r:
        r.read()
        timing = r.headers.get("server-timing", "check;dur=nan")
        if r.status != 202:
            raise RuntimeError(f"status {r.status}")
    return (time.perf_counter() - t0) * 1000, float(timing.split("dur=")[1])


def load(port: int, texts: list[str], clients: int, checks: int) -> dict[str, float]:
    lat, srv = [], []
    lock = threading.Lock()
    jobs = [texts[i % len(texts)] for i in range(checks)]

    def one(text: str) -> None:
        c, s = post_check(port, text)
        with lock:
            lat.append(c)
            srv.append(s)

    t0 = time.perf_counter()
    with ThreadPoolExecutor(clients) as pool:
        list(pool.map(one, jobs))
    wall = time.perf_counter() - t0
    q = statistics.quantiles(lat, n=100, method="inclusive")
    return {"p50": statistics.median(lat), "p99": q[98], "per_s": len(lat) / wall,
            "server_p50": statistics.median(srv)}


def in_process(check, texts: list[str], repeat: int) -> float:
    for t in texts[:2]:
        check(t)
    times = []
    for i in range(repeat):
        t0 = time.perf_counter()
        check(texts[i % len(texts)])
        times.append((time.perf_counter() - t0) * 1000)
    return statistics.median(times)


def main() -> int:
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--docs", type=int, default=200_000)
    p.add_argument("--shards", type=int, default=4)
    p.add_argument("--words", type=int, default=200)
    p.add_argument("--checks", type=int, default=48, help="checks per concurrency level")
    p.add_argument("--clients", default="1,4,16")
    p.add_argument("--suspects", type=int, default=16)
    p.add_argument("--work", default=str(REPO / "target" / "bench-ray"))
    p.add_argument("--address", default=None, help="an existing Ray cluster (else one is started on loopback)")
    p.add_argument("--keep", action="store_true", help="reuse the indexes in --work when they are there")
    args = p.parse_args()

    import tessera

    work = Path(args.work)
    one_dir, shards_dir, single_dir = work / "one", work / f"shards-{args.shards}", work / "shards-1"
    built = all((d / "built").exists() for d in (one_dir, shards_dir, single_dir))
    if not (args.keep and built):
        shutil.rmtree(work, ignore_errors=True)
        work.mkdir(parents=True)
        t0 = time.perf_counter()
        one = tessera.Index.create(one_dir)
        for start, texts in documents(args.docs, args.words, 7):
            origins = [f"gen-{start + i:07}" for i in range(len(texts))]
            one.add(texts, origins=origins, collection="gen")
            tessera.build_shards(shards_dir, args.shards, texts, origins=origins, collection="gen")
            tessera.build_shards(single_dir, 1, texts, origins=origins, collection="gen")
            print(f"  {start + len(texts)} documents", file=sys.stderr, flush=True)
        for d in (one_dir, shards_dir, single_dir):
            (d / "built").write_text("")
        print(f"built one index, {args.shards} shards and 1 shard of {args.docs} documents in "
              f"{time.perf_counter() - t0:.0f} s", file=sys.stderr)
    one = tessera.Index.open(one_dir)
    rng_vocab = _generator().vocabulary(str(PAN_SOURCES) if PAN_SOURCES.is_dir() else None,
                                        np.random.default_rng(7))[0][:2000].tolist()
    # The suspects' passages come from documents regenerated from the same seed.
    wanted = set(np.random.default_rng(11).choice(args.docs, size=min(args.docs, 6 * args.suspects), replace=False).tolist())
    cache: dict[int, str] = {}
    for start, texts in documents(args.docs, args.words, 7):
        for i, t in enumerate(texts):
            if start + i in wanted:
                cache[start + i] = t
    picks = list(cache)
    texts = suspects(lambda d: cache[picks[d % len(picks)]], len(picks), args.suspects, 11, rng_vocab)

    figures: dict[str, object] = {"docs": args.docs, "shards": args.shards, "words": args.words,
                                  "suspect_chars": int(statistics.mean(len(t) for t in texts))}
    figures["in_process_one_index_p50_ms"] = in_process(lambda t: one.check(t), texts, 20)
    local = tessera.ShardedIndex.open(shards_dir)
    figures["in_process_sharded_p50_ms"] = in_process(lambda t: local.check(t), texts, 20)
    # The fan-out's own machinery (requests, answers, merges, fetches) without more
    # shards' work: the sharded path over the one shard holding every document.
    local_one = tessera.ShardedIndex.open(single_dir)
    figures["in_process_sharded_1_shard_p50_ms"] = in_process(lambda t: local_one.check(t), texts, 20)
    sample = [one.check(t) for t in texts[:4]]
    figures["sources_found_per_suspect"] = statistics.mean(len(r["sources"]) for r in sample)
    assert all(local.check(t) == r for t, r in zip(texts[:4], sample)), "sharded report differs from one index's"

    started_cluster = args.address is None
    temp = None
    if started_cluster:
        import tempfile

        temp = tempfile.mkdtemp(prefix="tray-bench-", dir="/tmp")
        gcs = _free_port()
        _ray("start", "--head", "--node-ip-address", HEAD_IP, "--port", str(gcs), "--num-cpus", "2",
             "--disable-usage-stats", "--include-dashboard=false", "--temp-dir", temp)
        args.address = f"{HEAD_IP}:{gcs}"
    try:
        import ray
        from ray import serve

        import tessera.ray

        ray.init(address=args.address, log_to_driver=False)
        port = _free_port()
        serve.start(http_options={"host": "127.0.0.1", "port": port}, proxy_location="HeadOnly")
        levels = [int(c) for c in args.clients.split(",")]
        for label, root in (("ray_1_shard", single_dir), (f"ray_{args.shards}_shards", shards_dir)):
            serve.run(tessera.ray.app(root, replicas=1, max_ongoing_requests=64, check_timeout_s=300,
                                      call_timeout_s=120), name=label, route_prefix="/")
            for t in texts[:4]:
                post_check(port, t)
            figures[label] = {}
            # One call's round trip through a deployment handle (what each of a check's
            # fan-out rounds pays per shard, before the shard's own work).
            handle = serve.get_deployment_handle("shard-000", app_name=label)
            trips = []
            for _ in range(50):
                t0 = time.perf_counter()
                handle.live_docs.remote().result(timeout_s=60)
                trips.append((time.perf_counter() - t0) * 1000)
            figures[label]["handle_call_p50_ms"] = statistics.median(trips)
            for clients in levels:
                figures[label][clients] = load(port, texts, clients, max(args.checks, 2 * clients))
                print(f"  {label} {clients} clients: {figures[label][clients]}", file=sys.stderr, flush=True)
            figures[label]["rss_mb"] = replica_rss_mb(label)
            serve.delete(label)
        base = figures["ray_1_shard"][levels[0]]["p50"]
        fan = figures[f"ray_{args.shards}_shards"][levels[0]]["p50"]
        figures["fan_out_overhead_ms"] = fan - base
        figures["fan_out_overhead_pct_of_single_p50"] = 100 * (fan - base) / base
    finally:
        if started_cluster:
            try:
                import ray

                ray.shutdown()
            finally:
                _ray("stop", "--force", check=False)
                shutil.rmtree(temp, ignore_errors=True)
    print(json.dumps(figures, indent=2))
    return 0


if __name__ == "__main__":
    sys.exit(main())
