"""The command line of the Spark jobs, ``python -m tessera.spark dedup INPUT... --output
OUT`` (the options of ``tessera dedup``, their defaults the engine's, ``DEDUP_DEFAULTS``)
and ``python -m tessera.spark index INPUT... --output DIR --shards N`` (the shards of an
index), with Spark's options: a session, the run, and the summary on stderr."""

from __future__ import annotations

import argparse
import json
import os
import re
import sys
import time
from typing import TYPE_CHECKING

from tessera._tessera import DEDUP_DEFAULTS as _D

from ._inputs import _absolute, read_inputs
from ._hashes import METHODS, dedup_hashed
from ._job import (
    _LINE, _O1, _O2, _VID, BROADCAST_ROWS, DRIVER_PAIRS, VERIFY, TesseraSparkError, _dedup_ordered, _JsonFields,
    _kept_records, _plan,
)

if TYPE_CHECKING:  # pragma: no cover
    from pyspark.sql import SparkSession

def _parser() -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(
        prog="python -m tessera.spark",
        description="Tessera on Apache Spark: near-duplicate clusters of a corpus (the same as `tessera dedup`) "
        "and the shards of an index.",
    )
    commands = p.add_subparsers(dest="command", required=True)
    _index_parser(commands)
    d = commands.add_parser(
        "dedup", help="cluster near-duplicate documents; write id, cluster, kept, similarity as Parquet"
    )
    arg = d.add_argument
    arg("--method", choices=METHODS, default=_D.method, help="minhash (near-duplicates, default), exact (identical "
        "texts) or lines (lines an earlier document had are removed; the result adds removed_lines and text)")
    arg("--output", "-o", required=True, help="where to write the Parquet result (a folder)")
    _input_args(d, "the id")
    arg("--threshold", type=float, default=_D.threshold,
        help=f"Jaccard similarity of near-duplicates (default {_D.threshold})")
    arg("--num-perm", type=int, default=_D.num_perm, help=f"MinHash functions per signature (default {_D.num_perm})")
    arg("--seed", type=int, default=_D.seed, help=f"seed of the hash functions (default {_D.seed})")
    arg("--shingle-size", type=int, default=_D.shingle_size, help=f"words per shingle (default {_D.shingle_size})")
    arg("--keep-stop-words", action="store_true", help="keep stop words")
    arg("--no-stemming", action="store_true", help="do not stem words")
    arg("--language", help="the texts' language (default: detected)")
    arg("--verify", choices=["exact", "estimate"], default=VERIFY,
        help="verify candidates with the exact Jaccard similarity (default; as tessera dedup) or the estimate")
    arg("--short-words", type=int, default=_D.short_words,
        help=f"texts with fewer words are shingled cyclically (default {_D.short_words})")
    arg("--partitions", type=int, help="partitions of the bucket and cluster steps (default: Spark's)")
    arg("--broadcast-rows", type=int, default=BROADCAST_ROWS, help="documents in pairs joined back by broadcast up to "
        f"this many, else by a shuffle join (default {BROADCAST_ROWS})")
    arg("--driver-pairs", type=int, default=DRIVER_PAIRS, help="find the components of up to this many candidate "
        f"pairs on the driver (union-find), more on the cluster (default {DRIVER_PAIRS})")
    arg("--write-kept", metavar="DIR", help="also write the kept records themselves here, in the input's format "
        "(Parquet rows with every column, or JSONL lines), in document order; with --method lines, without their "
        "removed lines")
    _spark_args(d)
    return p


def _input_args(command: argparse.ArgumentParser, id_is: str) -> None:
    """The options both jobs read records by (`read_inputs`); `id_is`: what the id column
    gives a document."""
    arg = command.add_argument
    arg("inputs", nargs="+", metavar="INPUT", help="Parquet or JSONL files, folders or patterns, in order")
    arg("--text-col", default=_D.text_field, help=f"the column (field) holding the text (default: {_D.text_field})")
    arg("--id-col", help=f"the column holding {id_is} (default: the line or row number, FILE:LINE for several "
        "input files)")
    arg("--order-col", help="an integer column giving the document order (default: file order)")
    arg("--format", choices=["parquet", "jsonl"], help="input format (default: by name)")


def _spark_args(command: argparse.ArgumentParser) -> None:
    """Spark's options, and the summary's format, for both jobs."""
    arg = command.add_argument
    arg("--master", default="local[*]", help="Spark master (default: local[*])")
    arg("--conf", action="append", default=[], metavar="KEY=VALUE", help="a Spark setting (repeatable)")
    arg("--summary-format", choices=["text", "json"], default="text", help="summary format on stderr")


def _index_parser(commands) -> None:
    """`index`: the shards of a new index, one task a shard (`build_index_shards`)."""
    i = commands.add_parser("index", help="build the shards of a new index from records, one task a shard")
    arg = i.add_argument
    arg("--output", "-o", required=True, help="the index's folder (new; shard-SSS-of-NNN folders are made in it)")
    arg("--shards", type=int, required=True, help="how many shards")
    _input_args(i, "each document's origin")
    arg("--collection", help="the collection (default: Index.add's)")
    arg("--kind", choices=["source", "citation"], help="what its matches mean (default: Index.add's, source)")
    arg("--no-texts", action="store_true", help="keep digital snapshots only, not the texts")
    arg("--shingle-size", type=int, help="words per shingle (default: the engine's)")
    arg("--keep-stop-words", action="store_true", help="keep stop words")
    arg("--no-stemming", action="store_true", help="do not stem words")
    arg("--language", help="the texts' language (default: detected)")
    _spark_args(i)


def run_index(spark: "SparkSession", args: argparse.Namespace) -> dict:
    """Runs `index` from parsed arguments; returns the summary."""
    from ._shards import build_index_shards

    started = time.perf_counter()
    summary = build_index_shards(
        spark, args.inputs, args.output, args.shards, text_col=args.text_col, id_col=args.id_col,
        order_col=args.order_col, fmt=args.format, collection=args.collection, kind=args.kind,
        keep_texts=False if args.no_texts else None, shingle_size=args.shingle_size,
        stop_words=False if args.keep_stop_words else None, stemming=False if args.no_stemming else None,
        language=args.language,
    )
    summary["seconds"] = round(time.perf_counter() - started, 3)
    return summary


def _local_cores(master: str) -> int | None:
    """The cores of a local master (`local`, `local[N]`, `local[*]`, `local[N,F]`), else None."""
    m = re.fullmatch(r"local(?:\[(\*|\d+)(?:,\d+)?\])?", master.strip())
    if m is None:
        return None
    if m.group(1) is None:
        return 1
    return (os.cpu_count() or 1) if m.group(1) == "*" else max(1, int(m.group(1)))


def _session(master: str, confs: list[str]) -> "SparkSession":
    from pyspark.sql import SparkSession

    builder = SparkSession.builder.appName("tessera-dedup").master(master)
    builder = builder.config("spark.ui.showConsoleProgress", "false")
    keys = set()
    for conf in confs:
        key, sep, value = conf.partition("=")
        if not sep:
            raise TesseraSparkError(f"--conf wants KEY=VALUE, got {conf!r}")
        builder = builder.config(key, value)
        keys.add(key.strip())
    cores = _local_cores(master)
    if cores is not None and "spark.sql.shuffle.partitions" not in keys:
        # On one machine, a shuffle partition per core: Spark's default of 200 (or many
        # more than the cores) only adds tasks and their start-up.
        builder = builder.config("spark.sql.shuffle.partitions", str(cores))
    spark = builder.getOrCreate()
    _quiet_glob_warning(spark)
    return spark


def _quiet_glob_warning(spark: "SparkSession") -> None:
    """Spark logs a warning with a stack trace for each input pattern (`part-*.jsonl`)
    without a streaming sink's metadata folder: noise for a batch job, made errors only."""
    try:
        jvm = spark.sparkContext._jvm
        error = jvm.org.apache.logging.log4j.Level.ERROR
        for name in (
            "org.apache.spark.sql.execution.streaming.sinks.FileStreamSink",  # Spark 4
            "org.apache.spark.sql.execution.streaming.FileStreamSink",  # Spark 3
        ):
            jvm.org.apache.logging.log4j.core.config.Configurator.setLevel(name, error)
    except Exception:  # noqa: BLE001 - a Spark without log4j 2 keeps its warning
        pass


def run_dedup(spark: "SparkSession", args: argparse.Namespace) -> dict:
    """Runs `dedup` from parsed arguments; returns the summary."""
    started = time.perf_counter()
    plan = _plan(
        threshold=args.threshold, num_perm=args.num_perm, seed=args.seed, shingle_size=args.shingle_size,
        stop_words=not args.keep_stop_words, stemming=not args.no_stemming, language=args.language,
        short_words=args.short_words,
    )
    if spark.conf.get("spark.sql.files.minPartitionNum", None) is None:
        # Exact verification and --write-kept read the input twice and match rows by their
        # place in the scan: fix the splits, which Spark sizes by its (changing) cores.
        spark.conf.set("spark.sql.files.minPartitionNum", str(spark.sparkContext.defaultParallelism))
    docs = read_inputs(spark, args.inputs, args.text_col, args.id_col, args.order_col, args.format)
    json_fields = _JsonFields(args.text_col, args.id_col) if _LINE in docs.columns else None
    if args.method == "minhash":
        run = _dedup_ordered(
            docs, plan, args.partitions, args.broadcast_rows, args.verify, json_fields, args.driver_pairs, reread=True
        )
    else:
        run = dedup_hashed(docs, args.method, json_fields, args.partitions)
    columns = ["id", "cluster", "kept", "similarity"] + (["removed_lines"] if args.method == "lines" else [])
    output = _absolute(args.output)
    run.result.orderBy(_O1, _O2).select(*columns).write.mode("overwrite").parquet(output)
    if args.write_kept:
        _write_kept(spark, args, run.result, json_fields)
    documents, clusters, failed = run.counts(output)
    summary = dict(documents=documents, clusters=clusters, duplicates_removed=documents - clusters)
    summary.update(failed=int(failed), method=args.method)
    if args.method == "minhash":
        summary.update(verified=args.verify, bands=plan.bands, rows=plan.rows)
    if args.method == "lines":
        from pyspark.sql import functions as F

        removed = run.result.select(F.coalesce(F.sum(F.size("removed_lines")), F.lit(0))).first()[0]
        summary["lines_removed"] = int(removed)
    run.unpersist()
    summary["seconds"] = round(time.perf_counter() - started, 3)
    return summary


def _write_kept(spark: "SparkSession", args: argparse.Namespace, result, json_fields: _JsonFields | None) -> None:
    """The kept records, read again and matched by their place in the scan, written in
    document order: Parquet rows with every column, or JSONL lines as they were; with the
    lines method, without their removed lines (the engine's `_rewrite_jsonl` for JSONL)."""
    from pyspark.sql import functions as F

    again = read_inputs(spark, args.inputs, args.text_col, args.id_col, args.order_col, args.format, records=True)
    lines, out = args.method == "lines", _absolute(args.write_kept)
    if json_fields is None:
        _kept_records(again, result, args.method, args.text_col).write.mode("overwrite").parquet(out)
        return
    line = F.col(_LINE).cast("string")
    if lines:
        from pyspark.sql.types import StringType

        text_field = args.text_col

        def rewrite(raw, removed):  # removed lines are ascending (`_lines_verdicts`)
            from tessera._tessera import _rewrite_jsonl

            return _rewrite_jsonl(raw, text_field, removed).rstrip("\n") if removed else None

        rewritten = F.udf(rewrite, StringType())(F.col(_LINE), F.col("removed_lines"))
        line = F.coalesce(rewritten, line)
    kept = result.where(F.col("kept")).select(_VID, *(["removed_lines"] if lines else []))
    again.join(kept, _VID).orderBy(_O1, _O2).select(line.alias("value")).write.mode("overwrite").text(out)


def main(argv: list[str] | None = None) -> int:
    """`python -m tessera.spark dedup ...`: exit 0, 3 when records were skipped (as
    `tessera dedup`), 2 on bad arguments or input."""
    args = _parser().parse_args(argv)
    spark = None
    try:
        spark = _session(args.master, args.conf)
        if args.command == "index":
            summary = run_index(spark, args)
        else:
            summary = run_dedup(spark, args)
    except TesseraSparkError as e:
        print(f"error: {e}", file=sys.stderr)
        return 2
    finally:
        if spark is not None:
            spark.stop()
    if args.command == "index":
        text = (
            f"{summary['added']} documents added to {summary['shards']} shards at {summary['path']} "
            f"({', '.join(map(str, summary['per_shard']))}) in {summary['seconds']:.2f} s; {summary['failed']} failed"
        )
        text += "".join(f"\n  {f['origin']}: {f['reason']}" for f in summary["failed_first"])
        print(json.dumps(summary) if args.summary_format == "json" else text, file=sys.stderr)
        return 3 if summary["failed"] else 0
    how = {
        "minhash": f"minhash, threshold {args.threshold}, {summary.get('bands')} bands of {summary.get('rows')} rows",
        "exact": "exact",
        "lines": f"lines, {summary.get('lines_removed')} lines removed",
    }[args.method]
    text = (
        f"{summary['documents']} documents, {summary['clusters']} clusters, {summary['duplicates_removed']} "
        f"duplicates removed ({how}) in {summary['seconds']:.2f} s; {summary['failed']} failed"
    )
    print(json.dumps(summary) if args.summary_format == "json" else text, file=sys.stderr)
    return 3 if summary["failed"] else 0


