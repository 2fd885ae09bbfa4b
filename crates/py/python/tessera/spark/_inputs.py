"""The job's input files read in the order ``tessera dedup`` reads them, with its default
ids. The rules are the engine's (``_spark_input_format``, ``_spark_input_files``,
``_check_record_columns``, ``check_jsonl_fields``); Spark lists, reads and numbers."""

from __future__ import annotations

import os
from typing import TYPE_CHECKING

from tessera._tessera import _check_record_columns, _spark_input_files, _spark_input_format, check_jsonl_fields

from ._job import _ID, _LINE, _O1, _O2, _RECORD, _ROW_BITS, _TEXT, _VID, TesseraSparkError, _checked

if TYPE_CHECKING:  # pragma: no cover
    from pyspark.sql import DataFrame, SparkSession


def _absolute(path: str) -> str:
    """A local path made absolute (executors do not share the driver's working folder);
    URIs (hdfs://, s3a://, file:) as given."""
    return path if ":" in path.split("/")[0] else os.path.abspath(path)


def read_inputs(
    spark: "SparkSession",
    inputs: list[str],
    text_col: str = "text",
    id_col: str | None = None,
    order_col: str | None = None,
    fmt: str | None = None,
    records: bool = False,
) -> "DataFrame":
    """The documents of `inputs` (Parquet or JSONL files, folders, patterns) as the rows
    `dedup` takes, in `tessera dedup`'s order and, without `id_col`, with its ids (the line
    or row number, ``FILE:LINE`` for several inputs). JSONL gives each line's bytes (_LINE,
    blank lines included; executors read them by the engine's rule) instead of _TEXT, and
    with `id_col` a null _ID until then. `records`: Parquet rows also carry every column
    in _RECORD; a second reading gives every row the same _VID (the job fixes the scan's
    splits with ``spark.sql.files.minPartitionNum``)."""
    from pyspark.sql import functions as F

    kind = _checked(_spark_input_format, inputs, fmt, id_col is None)

    def reader(paths):
        return spark.read.parquet(*paths) if kind == "parquet" else spark.read.option("lineSep", "\n").text(paths)

    listed = []
    for arg in inputs:
        try:
            listed.append(reader([_absolute(arg)]).inputFiles())
        except Exception as e:  # noqa: BLE001 - Spark's AnalysisException names the path
            raise TesseraSparkError(f"cannot read {arg}: {str(e).splitlines()[0]}") from e
    files = _checked(_spark_input_files, inputs, listed)  # (URI, start of its default ids, path) in order
    raw = reader([uri for uri, _, _ in files])
    spark_files = spark.createDataFrame(
        [(uri, i, prefix) for i, (uri, prefix, _) in enumerate(files)], "__f string, __fidx long, __prefix string"
    )
    extra = []
    if kind == "parquet":
        columns = [(f.name, f.dataType.simpleString()) for f in raw.schema.fields]
        _checked(_check_record_columns, columns, text_col, id_col, order_col)
        source = [F.col(text_col).cast("string").alias(_TEXT)]
        source += [F.col(id_col).cast("string").alias(_ID)] if id_col else []
        extra = [F.col(order_col).cast("long").alias("__order")] if order_col else []
        extra += [F.struct(*[F.col(f"`{c}`") for c in raw.columns]).alias(_RECORD)] if records else []
    else:
        _check_jsonl_fields(spark, files[0], text_col, id_col, order_col)
        source = [F.col("value").cast("binary").alias(_LINE)]
        source += [F.lit(None).cast("string").alias(_ID)] if id_col else []
        if order_col:
            order = F.from_json("value", f"`{order_col}` long", {"mode": "PERMISSIVE"})
            extra = [order.getField(order_col).alias("__order")]
    base = raw.select(F.input_file_name().alias("__f"), F.monotonically_increasing_id().alias(_VID), *source, *extra)
    base = base.join(F.broadcast(spark_files), "__f")
    # Document order: the order column when given (ties: the scan's order), else (file, row).
    o1 = F.col("__order") if order_col else F.col("__fidx")
    if id_col is None:
        base = _number_rows(base).withColumn(_ID, F.concat(F.col("__prefix"), F.col("__line").cast("string")))
    kept_record = [_RECORD] if records and kind == "parquet" else []
    source = _LINE if kind == "jsonl" else _TEXT
    return base.select(_VID, o1.alias(_O1), F.col(_VID).alias(_O2), _ID, source, *kept_record)


def _number_rows(base: "DataFrame") -> "DataFrame":
    """`base` with `__line`, the row's number in its file from one: Spark reads a file's
    splits in order, at most one per partition of a file, so it is the rows of its file in
    earlier partitions plus its place in its partition (one pass counts them)."""
    from pyspark.sql import functions as F

    pid = F.shiftright(F.col(_VID), _ROW_BITS)
    low = F.col(_VID).bitwiseAND((1 << _ROW_BITS) - 1)
    counts = base.groupBy("__fidx", pid.alias("__pid")).agg(F.count(F.lit(1)).alias("n"), F.min(low).alias("first"))
    starts, before = [], {}
    for r in sorted(counts.collect(), key=lambda r: (r["__fidx"], r["__pid"])):
        starts.append((r["__fidx"], r["__pid"], before.get(r["__fidx"], 0) - r["first"] + 1))
        before[r["__fidx"]] = before.get(r["__fidx"], 0) + r["n"]
    table = base.sparkSession.createDataFrame(starts or [(0, 0, 0)], "__fidx long, __pid long, __start long")
    numbered = base.withColumn("__pid", pid).join(F.broadcast(table), ["__fidx", "__pid"])
    return numbered.withColumn("__line", F.col("__start") + low)


def _check_jsonl_fields(spark: "SparkSession", first: tuple, text_col: str, id_col: str | None, order_col: str | None):
    """The engine's early check of the first input's first records (`check_jsonl_fields`,
    as `tessera dedup` does it), on its first 50 lines: read here when it is a local
    uncompressed file, else through Spark."""
    uri, _, path = first
    if path.startswith("/") and not path.endswith((".gz", ".bz2", ".zst", ".zstd")):
        with open(path, encoding="utf-8", errors="replace") as f:
            sample = [line for _, line in zip(range(50), f)]
    else:
        sample = [r[0] for r in spark.read.text(uri).limit(50).collect()]
    _checked(check_jsonl_fields, path, sample, text_col, id_col, order_col)
