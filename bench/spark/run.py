#!/usr/bin/env python3
"""The Spark benchmark of issue 16 on a planted corpus (bench/spark/generate.py):

(a) `tessera dedup` on one machine (all cores);
(b) the Spark job, `python -m tessera.spark dedup`, on `--master` (default local[2]);
(c) Spark MLlib's MinHashLSH + approxSimilarityJoin (bench/spark/mllib.py), same master.

Prints seconds (wall time of each command, Spark start-up included, and the time the job
itself reports), documents per second, and recall / wrong merges against the planted
truth; checks that (b) gives exactly (a)'s answer.

    python bench/spark/generate.py /tmp/spark-bench/100mb --mb 100
    python bench/spark/run.py /tmp/spark-bench/100mb --tessera target/release/tessera

Recall: planted near-duplicates ("dup" copies) that end in one cluster with their
original or another of its near-duplicates (the no-chaining rule may keep two copies of
one original apart when they are not near each other).
Wrong merges: documents put in a cluster with a document they are not a planted
near-duplicate of (another group, or a "neg" copy with its original). Tessera's clusters
are its answer; MLlib returns pairs, whose connected components are taken as clusters
(and its raw pairs are scored too).
"""

from __future__ import annotations

import argparse
import glob
import json
import os
import shutil
import subprocess
import sys
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
REPO = HERE.parents[1]


def timed(cmd: list[str], timeout: float | None, **kw) -> tuple[float, subprocess.CompletedProcess | None]:
    started = time.perf_counter()
    try:
        done = subprocess.run(cmd, capture_output=True, text=True, timeout=timeout, **kw)
    except subprocess.TimeoutExpired:
        return time.perf_counter() - started, None
    return time.perf_counter() - started, done


def truth_of(files: list[str]) -> dict[str, tuple[int, str, float]]:
    truth = {}
    for path in files:
        with open(path, encoding="utf-8") as f:
            for line in f:
                r = json.loads(line)
                truth[r["id"]] = (r["group"], r["role"], r.get("rate", 0.0))
    return truth


def score(rep: dict[str, str], truth: dict[str, tuple[int, str, float]]) -> dict:
    """`rep`: each document's cluster representative (itself when alone)."""
    members: dict[str, list[str]] = {}
    for doc, r in rep.items():
        members.setdefault(r, []).append(doc)
    found = planted = wrong = 0
    by_rate: dict[float, list[int]] = {}
    for doc, (group, role, rate) in truth.items():
        if role == "dup":
            planted += 1
            # Found: in one cluster with another planted member (original or dup) of its group.
            hit = any(o != doc and truth[o][0] == group and truth[o][1] != "neg" for o in members[rep[doc]])
            found += hit
            by_rate.setdefault(rate, [0, 0])[0] += hit
            by_rate[rate][1] += 1
    for docs in members.values():
        if len(docs) < 2:
            continue
        # The cluster's planted group: its most common group among originals and dups.
        groups = [truth[d][0] for d in docs if truth[d][1] in ("orig", "dup")]
        main = max(set(groups), key=groups.count) if groups else None
        wrong += sum(1 for d in docs if truth[d][0] != main or truth[d][1] == "neg")
    recall_by_rate = {f"{rate:g}": round(f / t, 4) for rate, (f, t) in sorted(by_rate.items())}
    return {
        "recall": found / planted if planted else 1.0,
        "planted": planted,
        "wrong_merges": wrong,
        "recall_by_edit_rate": recall_by_rate,
    }


def stages_of(event_dir: Path) -> list[dict]:
    """Per stage of the (last) Spark event log in `event_dir`: name, seconds, and bytes
    read, shuffled and spilled, summed over its tasks."""
    logs = sorted((p for p in event_dir.rglob("*") if p.is_file() and p.name.startswith(("events", "local", "app"))
                   and p.stat().st_size), key=lambda p: p.stat().st_mtime)
    if not logs:
        return []
    stages: dict[int, dict] = {}
    with open(logs[-1], encoding="utf-8") as f:
        for line in f:
            event = json.loads(line)
            kind = event.get("Event")
            if kind == "SparkListenerTaskEnd":
                m = event.get("Task Metrics") or {}
                st = stages.setdefault(event["Stage ID"], {"shuffle_write": 0, "shuffle_read": 0, "input": 0, "spill": 0})
                st["shuffle_write"] += (m.get("Shuffle Write Metrics") or {}).get("Shuffle Bytes Written", 0)
                read = m.get("Shuffle Read Metrics") or {}
                st["shuffle_read"] += read.get("Remote Bytes Read", 0) + read.get("Local Bytes Read", 0)
                st["input"] += (m.get("Input Metrics") or {}).get("Bytes Read", 0)
                st["spill"] += m.get("Disk Bytes Spilled", 0)
            elif kind == "SparkListenerStageCompleted":
                info = event["Stage Info"]
                st = stages.setdefault(info["Stage ID"], {"shuffle_write": 0, "shuffle_read": 0, "input": 0, "spill": 0})
                st["name"] = info.get("Stage Name", "")
                st["seconds"] = (info.get("Completion Time", 0) - info.get("Submission Time", 0)) / 1000
                st["tasks"] = info.get("Number of Tasks", 0)
    return [dict(id=k, **v) for k, v in sorted(stages.items()) if "name" in v]


def components(pairs: list[tuple[str, str]], docs: list[str]) -> dict[str, str]:
    parent = {d: d for d in docs}

    def find(x: str) -> str:
        while parent[x] != x:
            parent[x] = parent[parent[x]]
            x = parent[x]
        return x

    for a, b in pairs:
        ra, rb = find(a), find(b)
        if ra != rb:
            parent[max(ra, rb)] = min(ra, rb)
    return {d: find(d) for d in docs}


def main() -> None:
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("data", help="a folder written by generate.py")
    p.add_argument("--out", default=None, help="where outputs go (default: DATA-out)")
    p.add_argument("--tessera", default=str(REPO / "target/release/tessera"))
    p.add_argument("--master", default="local[2]")
    p.add_argument("--driver-memory", default="6g")
    p.add_argument("--tables", type=int, default=5, help="MLlib numHashTables")
    p.add_argument("--spark-arg", action="append", default=[], help="an argument for tessera.spark (repeatable)")
    p.add_argument("--skip", action="append", default=[], choices=["tessera", "spark", "mllib"])
    p.add_argument("--timeout", type=float, default=3 * 3600, help="seconds before a run is stopped")
    args = p.parse_args()

    files = sorted(glob.glob(os.path.join(args.data, "part-*.jsonl")))
    size = sum(os.path.getsize(f) for f in files)
    out = Path(args.out or args.data.rstrip("/") + "-out")
    out.mkdir(parents=True, exist_ok=True)
    truth = truth_of(files)
    n = len(truth)
    print(f"{n} documents, {size / 1e6:.0f} MB in {len(files)} files; master {args.master}", flush=True)
    spark_conf = [f"spark.driver.memory={args.driver_memory}", "spark.sql.shuffle.partitions=16"]
    rows = []
    answers = {}

    if "tessera" not in args.skip:
        seconds, done = timed(
            [args.tessera, "-q", "dedup", *files, "--id-field", "id", "-o", str(out / "tessera.jsonl"), "--format", "json"],
            args.timeout,
        )
        assert done is not None and done.returncode == 0, done and done.stderr
        lines = [json.loads(line) for line in open(out / "tessera.jsonl", encoding="utf-8")]
        answers["tessera"] = lines
        rows.append(("tessera dedup (1 machine, 2 cores)", seconds, None, score({r["id"]: r["cluster"] for r in lines}, truth)))
        print(rows[-1], flush=True)

    if "spark" not in args.skip:
        events = out / "spark-events"
        shutil.rmtree(events, ignore_errors=True)
        events.mkdir()
        # The job picks its shuffle partitions itself (one per core on a local master).
        conf = [a for c in spark_conf if "shuffle.partitions" not in c for a in ("--conf", c)]
        for c in ("spark.eventLog.enabled=true", f"spark.eventLog.dir={events}", "spark.eventLog.compress=false",
                  "spark.eventLog.rolling.enabled=false"):
            conf += ["--conf", c]
        pattern = os.path.join(args.data, "part-*.jsonl")
        seconds, done = timed(
            [sys.executable, "-m", "tessera.spark", "dedup", pattern, "--id-col", "id", "--output", str(out / "spark")]
            + ["--master", args.master, "--summary-format", "json", *conf, *args.spark_arg],
            args.timeout,
        )
        assert done is not None and done.returncode == 0, done and done.stderr[-3000:]
        summary = json.loads([s for s in done.stderr.splitlines() if s.startswith("{")][-1])
        import pyarrow.parquet as pq

        spark_rows = pq.read_table(out / "spark").to_pylist()
        answers["spark"] = spark_rows
        rows.append((f"tessera.spark on {args.master}", seconds, summary["seconds"], score({r["id"]: r["cluster"] for r in spark_rows}, truth)))
        print(rows[-1], flush=True)
        stages = stages_of(events)
        print("stage | s | tasks | input MB | shuffle write MB | shuffle read MB | spill MB | name")
        for st in stages:
            print(
                f"{st['id']} | {st['seconds']:.1f} | {st['tasks']} | {st['input'] / 1e6:.1f} | {st['shuffle_write'] / 1e6:.1f} "
                f"| {st['shuffle_read'] / 1e6:.1f} | {st['spill'] / 1e6:.1f} | {st['name'][:60]}"
            )
        written = sum(st["shuffle_write"] for st in stages)
        print(f"shuffled: {written / 1e6:.1f} MB in all, {written / n:.0f} bytes a document", flush=True)

    if "mllib" not in args.skip:
        conf = [a for c in spark_conf for a in ("--conf", c)]
        seconds, done = timed(
            [sys.executable, str(HERE / "mllib.py"), *files, str(out / "mllib"), "--master", args.master]
            + ["--tables", str(args.tables), *conf],
            args.timeout,
        )
        if done is None:
            rows.append((f"MLlib MinHashLSH ({args.tables} tables) on {args.master}", seconds, None, {"stopped": f"after {args.timeout:.0f} s"}))
        else:
            assert done.returncode == 0, done.stderr[-3000:]
            summary = json.loads(done.stdout.strip().splitlines()[-1])
            import pyarrow.parquet as pq

            pairs = pq.read_table(out / "mllib", columns=["a", "b"]).to_pylist()
            pairs = [(r["a"], r["b"]) for r in pairs]
            result = score(components(pairs, list(truth)), truth)
            good_pairs = sum(
                1
                for a, b in pairs
                if truth[a][0] == truth[b][0] and truth[a][1] != "neg" and truth[b][1] != "neg"
            )
            result.update(pairs=len(pairs), wrong_pairs=len(pairs) - good_pairs)
            rows.append((f"MLlib MinHashLSH ({args.tables} tables) on {args.master}", seconds, summary["seconds"], result))
        print(rows[-1], flush=True)

    if "tessera" in answers and "spark" in answers:
        same = [{k: r[k] for k in ("id", "cluster", "kept", "similarity")} for r in answers["spark"]] == [
            {k: r[k] for k in ("id", "cluster", "kept", "similarity")} for r in answers["tessera"]
        ]
        print(f"tessera.spark's answer equals tessera dedup's: {same}")

    print()
    print("| run | wall s | job s | docs/s (wall) | recall | wrong merges |")
    print("|---|---|---|---|---|---|")
    for name, wall, job, result in rows:
        if "stopped" in result:
            print(f"| {name} | > {wall:.0f} (stopped) | | | | |")
            continue
        extra = f" ({result['wrong_pairs']} of {result['pairs']} pairs wrong)" if "pairs" in result else ""
        job_s = f"{job:.1f}" if job is not None else ""
        print(
            f"| {name} | {wall:.1f} | {job_s} | {n / wall:,.0f} | {result['recall']:.4f} of {result['planted']} "
            f"| {result['wrong_merges']}{extra} |"
        )
    for name, _, _, result in rows:
        if "recall_by_edit_rate" in result:
            print(f"{name}: recall by share of words replaced {result['recall_by_edit_rate']}")


if __name__ == "__main__":
    main()
