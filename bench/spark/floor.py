#!/usr/bin/env python3
"""What any Spark job on this corpus pays before it dedups anything: the floor under
`tessera.spark`'s time (issue 16 asks for the job within 2x `tessera dedup`).

In one Spark application on `--master` (default local[2]), each step timed from the
previous one:

1. session start: the JVM and the Spark context (`SparkSession.builder.getOrCreate()`);
2. the input read as lines, handed to Python workers as Arrow batches, parsed and signed
   there by `DedupPlan.sign_rows`: the job's first step without its cache, its band rows
   or anything after it, run first as the job runs it (a cold JVM and Python workers);
3. the same again, warm, taken apart: the text scan alone (lines counted in the JVM),
   the scan and the Arrow hand-over (lines counted in Python), and the whole step.

The floor is 1 + 2: a job that only signs, and writes nothing.

Then `tessera dedup` on the same files for comparison (unless `--skip-cli`).

    python bench/spark/floor.py /tmp/spark-bench/1gb --tessera target/release/tessera
"""

from __future__ import annotations

import argparse
import glob
import os
import subprocess
import sys
import time
from pathlib import Path

REPO = Path(__file__).resolve().parents[2]


def _count_batches(batches):
    import pyarrow as pa

    n = 0
    for batch in batches:
        n += batch.num_rows
    yield pa.RecordBatch.from_arrays([pa.array([n], type=pa.int64())], names=["n"])


def _sign_batches(batches):
    import pyarrow as pa

    from tessera.kernels import DedupPlan
    from tessera.spark._job import _buffers  # the job's own hand-over of a column's buffers

    plan = DedupPlan()
    n = 0
    for batch in batches:
        offsets, data, valid = _buffers(batch.column(0))
        status, *_ = plan.sign_rows(offsets, data, valid, text_field="text", id_field="id")
        n += int((status == 0).sum())
    yield pa.RecordBatch.from_arrays([pa.array([n], type=pa.int64())], names=["n"])


def main() -> None:
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("data", help="a folder written by generate.py")
    p.add_argument("--tessera", default=str(REPO / "target/release/tessera"))
    p.add_argument("--master", default="local[2]")
    p.add_argument("--skip-cli", action="store_true")
    args = p.parse_args()
    files = sorted(glob.glob(os.path.join(args.data, "part-*.jsonl")))
    if not files:
        sys.exit(f"no part-*.jsonl in {args.data}")

    rows = []
    started = time.perf_counter()
    from pyspark.sql import SparkSession
    from pyspark.sql import functions as F

    os.environ.setdefault("PYSPARK_PYTHON", sys.executable)
    spark = (
        SparkSession.builder.master(args.master)
        .appName("tessera-floor")
        .config("spark.ui.showConsoleProgress", "false")
        .config("spark.driver.memory", "6g")
        .getOrCreate()
    )
    lap = time.perf_counter()
    rows.append(("session start (JVM, Spark context)", lap - started, None))

    lines = spark.read.option("lineSep", "\n").text(files)
    raw = lines.select(F.col("value").cast("binary").alias("line"))
    steps = [
        (
            "read, hand to Python, parse and sign (sign_rows): the first job, as the job's",
            lambda: raw.mapInArrow(_sign_batches, "n long"),
        ),
        ("read the lines, count them in the JVM (warm)", None),
        ("read, hand to Python as Arrow, count there (warm)", lambda: raw.mapInArrow(_count_batches, "n long")),
        ("read, hand to Python, parse and sign (warm)", lambda: raw.mapInArrow(_sign_batches, "n long")),
    ]
    for name, frame in steps:
        n = lines.count() if frame is None else frame().agg(F.sum("n")).collect()[0][0]
        now = time.perf_counter()
        rows.append((name, now - lap, n))
        lap = now
    spark.stop()
    whole = now - started

    print(f"{len(files)} files, {sum(os.path.getsize(f) for f in files) / 1e6:.0f} MB; master {args.master}")
    print("| step | s | rows |")
    print("|---|---|---|")
    for name, seconds, count in rows:
        print(f"| {name} | {seconds:.1f} | {count if count is not None else ''} |")
    floor = rows[0][1] + rows[1][1]
    print(f"session start + read and sign: {floor:.1f} s (the application: {whole:.1f} s)")
    if not args.skip_cli:
        t = time.perf_counter()
        subprocess.run(
            [args.tessera, "-q", "dedup", *files, "--id-field", "id", "-o", os.devnull], check=True, capture_output=True
        )
        cli = time.perf_counter() - t
        print(f"tessera dedup: {cli:.1f} s; the floor is {floor / cli:.2f}x of it")


if __name__ == "__main__":
    main()
