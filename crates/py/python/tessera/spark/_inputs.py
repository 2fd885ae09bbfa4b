"""Reading the job's input files in the order ``tessera dedup`` reads them: inputs in the
order given, the files of a folder or pattern sorted by path, rows (lines) in file order,
with the command's default ids (the line or row number, ``FILE:LINE`` for several
inputs). Formats and the early check of a JSONL input's fields are the engine's rules
(``record_format``, ``check_jsonl_fields``)."""

from __future__ import annotations

import json
import os
import re
from typing import TYPE_CHECKING
from urllib.parse import unquote, urlsplit

from tessera._tessera import check_jsonl_fields, record_format

from ._job import _ID, _LINE, _O1, _O2, _RECORD, _ROW_BITS, _TEXT, _VID, TesseraSparkError

if TYPE_CHECKING:  # pragma: no cover
    from pyspark.sql import DataFrame, SparkSession

def _path_key(uri: str) -> str:
    """A file URI as a path, for sorting the way `tessera dedup` sorts a folder's files."""
    parts = urlsplit(uri)
    return unquote(parts.path) if parts.scheme in ("", "file") else uri


def _format_by_name(name: str) -> str | None:
    """The engine's rule for a file name (`record_format`, as `tessera dedup` reads it),
    of the formats the job reads, and what Spark reads besides: `.bz2` (Hadoop's codec)
    and `.json` lines."""
    stem = re.sub(r"\.(gz|zst|zstd|bz2)$", "", name.lower().rstrip("/"))
    found = record_format(stem) or ("jsonl" if stem.endswith(".json") else None)
    return found if found in ("parquet", "jsonl") else None


def _format_of(path: str, fmt: str | None) -> str:
    """`fmt`, else the format the name says, else (a folder) the one format of its files."""
    found = fmt or _format_by_name(path)
    if found is None and os.path.isdir(path):
        formats = {_format_by_name(f) for f in os.listdir(path) if not f.startswith((".", "_"))}
        found = formats.pop() if len(formats) == 1 else None
    if found is None:
        raise TesseraSparkError(f"cannot tell the format of {path}: name it .parquet or .jsonl, or give --format")
    return found


def _absolute(path: str) -> str:
    """A local path made absolute (executors do not share the driver's working folder);
    URIs (hdfs://, s3a://, file:) as given."""
    return path if ":" in path.split("/")[0] else os.path.abspath(path)


def _is_plain_file(arg: str) -> bool:
    return os.path.isfile(arg) and not any(c in arg for c in "*?[")


def read_inputs(
    spark: "SparkSession",
    inputs: list[str],
    text_col: str = "text",
    id_col: str | None = None,
    order_col: str | None = None,
    fmt: str | None = None,
    records: bool = False,
) -> "DataFrame":
    """The documents of `inputs` (files, folders, patterns; Parquet or JSONL) as the rows
    `dedup` takes, in the order `tessera dedup` reads them: inputs in the order given, the
    files of a folder or pattern sorted by path, rows (lines) in file order. JSONL inputs
    give each line's bytes (column _LINE, blank lines included; executors read the record
    of each with the engine's rule) instead of the text (_TEXT); with `id_col`, _ID is
    null until then.

    Without `id_col`, ids are those `tessera dedup` gives: the line (JSONL, blank lines
    counted) or row (Parquet) number, or ``FILE:LINE`` for several inputs, which must then
    be plain file paths (named as given).

    `records`: Parquet rows also carry every column of the input in a struct (_RECORD),
    for writing the records back; a second reading gives every row the same _VID (the
    scan's splits are fixed by ``spark.sql.files.minPartitionNum``)."""
    from pyspark.sql import functions as F

    if not inputs:
        raise TesseraSparkError("no input")
    formats = {_format_of(p, fmt) for p in inputs}
    if len(formats) > 1:
        raise TesseraSparkError("inputs mix Parquet and JSONL; run dedup on each, or give them in one format")
    kind = formats.pop()
    if id_col is None and len(inputs) > 1 and not all(_is_plain_file(p) for p in inputs):
        raise TesseraSparkError(
            "several inputs with folders or patterns need --id-col: the default ids (FILE:LINE) name files as given"
        )

    def reader(paths):
        if kind == "parquet":
            return spark.read.parquet(*paths)
        return spark.read.option("lineSep", "\n").text(paths)

    # Files in order, each with its index and, for default ids, its name in ids.
    files: list[tuple[str, int, str]] = []
    seen: set[str] = set()
    for arg in inputs:
        try:
            listed = reader([_absolute(arg)]).inputFiles()
        except Exception as e:  # noqa: BLE001 - Spark's AnalysisException names the path
            raise TesseraSparkError(f"cannot read {arg}: {str(e).splitlines()[0]}") from e
        if not listed:
            raise TesseraSparkError(f"{arg}: no file")
        for uri in sorted(listed, key=_path_key):
            if uri in seen:
                raise TesseraSparkError(f"{_path_key(uri)} is given twice")
            seen.add(uri)
            files.append((uri, len(files), arg))
    raw = reader([u for u, _, _ in files])
    spark_files = spark.createDataFrame([(u, i, n) for u, i, n in files], "__f string, __fidx long, __fname string")

    if kind == "parquet":
        _require_parquet_columns(raw, text_col, id_col, order_col)
        text = F.col(text_col).cast("string")
        ident = F.col(id_col).cast("string") if id_col else None
        extra = [F.col(order_col).cast("long").alias("__order")] if order_col else []
        if records:
            extra.append(F.struct(*[F.col(f"`{c}`") for c in raw.columns]).alias(_RECORD))
        base = raw.select(
            F.input_file_name().alias("__f"),
            F.monotonically_increasing_id().alias(_VID),
            text.alias(_TEXT),
            *([ident.alias(_ID)] if ident is not None else []),
            *extra,
        )
    else:
        # Raw lines: executors parse them with the engine's JSONL rule as they sign them,
        # and drop blank lines (which still count for line numbers).
        _check_jsonl_fields(spark, files[0][0], text_col, id_col, order_col)
        extra = []
        if order_col:
            order = F.from_json("value", f"`{order_col}` long", {"mode": "PERMISSIVE"})
            extra = [order.getField(order_col).alias("__order")]
        base = raw.select(
            F.input_file_name().alias("__f"),
            F.monotonically_increasing_id().alias(_VID),
            F.col("value").cast("binary").alias(_LINE),
            *([F.lit(None).cast("string").alias(_ID)] if id_col else []),
            *extra,
        )
    base = base.join(F.broadcast(spark_files), "__f")
    # Document order: the order column when given (ties: the scan's order), else (file, row).
    o1, o2 = (F.col("__order"), F.col(_VID)) if order_col else (F.col("__fidx"), F.col(_VID))
    if id_col is None:
        numbered = _number_rows(base)
        line = F.col("__line").cast("string")
        ident = F.concat_ws(":", F.col("__fname"), line) if len(inputs) > 1 else line
        base = numbered.withColumn(_ID, ident)
    kept_record = [_RECORD] if records and kind == "parquet" else []
    return base.select(_VID, o1.alias(_O1), o2.alias(_O2), _ID, _LINE if kind == "jsonl" else _TEXT, *kept_record)


def _number_rows(base: "DataFrame") -> "DataFrame":
    """`base` with `__line`: the row's number in its file, from one. Spark reads a file's
    splits in order, a file at most once per partition (a full split fills a partition),
    so a row's number is the rows of its file in earlier partitions plus its place in its
    partition. One extra pass counts the rows per (file, partition)."""
    from pyspark.sql import functions as F

    pid = F.shiftright(F.col(_VID), _ROW_BITS)
    low = F.col(_VID).bitwiseAND((1 << _ROW_BITS) - 1)
    counts = (
        base.groupBy("__fidx", pid.alias("__pid"))
        .agg(F.count(F.lit(1)).alias("n"), F.min(low).alias("first"))
        .collect()
    )
    starts = []
    for fidx in sorted({r["__fidx"] for r in counts}):
        before = 0
        for r in sorted((r for r in counts if r["__fidx"] == fidx), key=lambda r: r["__pid"]):
            starts.append((fidx, r["__pid"], before - r["first"] + 1))
            before += r["n"]
    spark = base.sparkSession
    table = spark.createDataFrame(starts or [(0, 0, 0)], "__fidx long, __pid long, __start long")
    return base.withColumn("__pid", pid).join(F.broadcast(table), ["__fidx", "__pid"]).withColumn(
        "__line", F.col("__start") + low
    )


def _require_parquet_columns(df: "DataFrame", text_col: str, id_col: str | None, order_col: str | None) -> None:
    """The columns exist and have types `tessera dedup` reads: a string (or UTF-8 bytes)
    text, a string or integer id, an integer order."""
    from pyspark.sql import types as T

    types = {f.name: f.dataType for f in df.schema.fields}
    have = ", ".join(types)
    integers = (T.ByteType, T.ShortType, T.IntegerType, T.LongType)
    wanted = [
        (text_col, (T.StringType, T.BinaryType), "a string"),
        (id_col, (T.StringType, *integers), "a string or integer"),
        (order_col, integers, "an integer"),
    ]
    for name, kinds, what in wanted:
        if name is None:
            continue
        if name not in types:
            raise TesseraSparkError(f"the input has no column {name!r}; columns: {have}")
        if not isinstance(types[name], kinds):
            raise TesseraSparkError(f"column {name!r} is {types[name].simpleString()}, not {what}")


def _check_jsonl_fields(
    spark: "SparkSession", first_file: str, text_col: str, id_col: str | None, order_col: str | None
) -> None:
    """Fails early, as `tessera dedup` does (the engine's check of an input's first
    records), when the first records all miss a field; and when none has `order_col`."""
    parts = urlsplit(first_file)
    if parts.scheme in ("", "file") and not first_file.endswith((".gz", ".bz2", ".zst", ".zstd")):
        with open(unquote(parts.path), encoding="utf-8", errors="replace") as f:
            sample = [line for _, line in zip(range(50), f)]
    else:
        sample = [r[0] for r in spark.read.text(first_file).limit(50).collect()]
    try:
        check_jsonl_fields(_path_key(first_file), sample, text_col, id_col)
    except ValueError as e:
        raise TesseraSparkError(str(e)) from None
    if order_col is not None:
        records = [v for v in map(_json_object, sample) if v is not None]
        if records and not any(order_col in v for v in records):
            seen = ", ".join(sorted({k for v in records for k in v}))
            raise TesseraSparkError(f"no record has field {order_col} (the first {len(records)} records); fields seen: {seen}")


def _json_object(line: str) -> dict | None:
    """A JSONL line's object, None for a line that is not one."""
    try:
        value = json.loads(line)
    except ValueError:
        return None
    return value if isinstance(value, dict) else None
