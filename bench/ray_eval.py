#!/usr/bin/env python3
"""PAN training, collection-wide, through the Ray application (issue 50, "Done when"):
every source of ../shared/eval/pan13-training/src indexed once as one index and once as
N shards, every suspect of susp/ sent to the Ray application's HTTP API
(`POST /api/checks`, then `GET /api/checks/{id}`), and each report compared with the
report `ShardedIndex.open` gives for the same text and name in this process (the same
shards, no Ray), and with the one index's. Both must be equal every time: the Ray path
(HTTP, the ingress, deployment handles, replicas) adds nothing and loses nothing, and a
sharded check's report is one index's (docs/design.md 9.2: stage 1 ranks candidates by
the hashes they really hold, whatever the segments and shards).

    python bench/ray_eval.py [--corpus ../shared/eval/pan13-training] [--shards 3]
        [--replicas 2] [--clients 4] [--limit N] [--work target/ray-eval]

Prints the counts (suspects, equal reports, sources found) and the time; exits 1 when a
report through Ray differs from `ShardedIndex.open`'s or the one index's (the first
differences are named). Starts a one-node Ray cluster on
127.0.0.2 unless --address is given, and stops it at the end.
"""

from __future__ import annotations

import argparse
import importlib.util
import json
import shutil
import sys
import tempfile
import time
import urllib.request
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]


def _bench():
    spec = importlib.util.spec_from_file_location("ray_shards", REPO / "bench" / "ray_shards.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def _read(path: Path) -> str:
    return path.read_text(encoding="utf-8", errors="replace")


def main() -> int:
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--corpus", default=str(REPO.parent / "shared" / "eval" / "pan13-training"))
    p.add_argument("--shards", type=int, default=3)
    p.add_argument("--replicas", type=int, default=2)
    p.add_argument("--clients", type=int, default=4)
    p.add_argument("--limit", type=int, default=None, help="only the first N suspects")
    p.add_argument("--work", default=str(REPO / "target" / "ray-eval"))
    p.add_argument("--address", default=None)
    args = p.parse_args()

    import tessera

    bench = _bench()
    corpus = Path(args.corpus)
    sources = sorted((corpus / "src").glob("*.txt"))
    suspects = sorted((corpus / "susp").glob("*.txt"))[: args.limit]
    if not sources or not suspects:
        print(f"{corpus}: no src/*.txt or susp/*.txt", file=sys.stderr)
        return 2
    work = Path(args.work)
    shutil.rmtree(work, ignore_errors=True)
    t0 = time.perf_counter()
    texts, names = [_read(s) for s in sources], [s.name for s in sources]
    one = tessera.Index.create(work / "one")
    one.add(texts, origins=names, titles=names, collection="src")
    tessera.build_shards(work / "shards", args.shards, texts, origins=names, titles=names, collection="src")
    built_s = time.perf_counter() - t0

    started = args.address is None
    temp = None
    if started:
        temp = tempfile.mkdtemp(prefix="tray-eval-", dir="/tmp")
        gcs = bench._free_port()
        bench._ray("start", "--head", "--node-ip-address", bench.HEAD_IP, "--port", str(gcs), "--num-cpus", "2",
                   "--disable-usage-stats", "--include-dashboard=false", "--temp-dir", temp)
        args.address = f"{bench.HEAD_IP}:{gcs}"
    differ: list[str] = []
    differ_one: list[str] = []
    found = equal = equal_one = 0
    try:
        import ray
        from ray import serve

        import tessera.ray

        ray.init(address=args.address, log_to_driver=False)
        port = bench._free_port()
        serve.start(http_options={"host": "127.0.0.1", "port": port}, proxy_location="HeadOnly")
        serve.run(tessera.ray.app(work / "shards", replicas=args.replicas, check_timeout_s=300, call_timeout_s=120),
                  name="tessera-eval", route_prefix="/")

        def through_ray(path: Path) -> dict:
            body = json.dumps({"text": _read(path), "name": path.name}).encode()
            req = urllib.request.Request(f"http://127.0.0.1:{port}/api/checks", data=body,
                                         headers={"content-type": "application/json"})
            with urllib.request.urlopen(req, timeout=600) as r:
                url = json.loads(r.read())["url"]
            with urllib.request.urlopen(f"http://127.0.0.1:{port}{url}", timeout=60) as r:
                return json.loads(r.read())["report"]

        t1 = time.perf_counter()
        with ThreadPoolExecutor(args.clients) as pool:
            reports = list(pool.map(through_ray, suspects))
        ray_s = time.perf_counter() - t1
        local = tessera.ShardedIndex.open(work / "shards")
        for path, got in zip(suspects, reports):
            text = _read(path)
            want = local.check(text, name=path.name)
            if got == want:
                equal += 1
            else:
                differ.append(path.name)
            if got == one.check(text, name=path.name):
                equal_one += 1
            else:
                differ_one.append(path.name)
            found += len(want["sources"])
    finally:
        if started:
            try:
                import ray

                ray.shutdown()
            finally:
                bench._ray("stop", "--force", check=False)
                shutil.rmtree(temp, ignore_errors=True)
    print(json.dumps({
        "sources": len(sources), "suspects": len(suspects), "shards": args.shards, "replicas": args.replicas,
        "equal_to_sharded_in_process": equal, "differing": differ[:20],
        "equal_to_one_index": equal_one, "differing_from_one_index": differ_one[:20], "sources_found": found,
        "build_s": round(built_s, 1), "ray_checks_s": round(ray_s, 1),
    }, indent=2))
    return 0 if not differ and not differ_one else 1


if __name__ == "__main__":
    sys.exit(main())
