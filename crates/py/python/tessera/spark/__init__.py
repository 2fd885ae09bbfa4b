"""Tessera on Apache Spark: the answer of ``tessera dedup``, and the shards of an index,
on a cluster.

``python -m tessera.spark dedup INPUT... --output OUT`` (:mod:`._cli`) reads Parquet or
JSONL files and writes Parquet rows ``id, cluster, kept, similarity`` in document order;
:func:`dedup` takes a DataFrame inside a Spark program. ``python -m tessera.spark index
INPUT... --output DIR --shards N`` (:func:`build_index_shards`, ``_shards``) builds the
shards of a new index, one task a shard, for ``ShardedIndex`` and the Ray application. Every rule comes from the Rust
engine's kernels (:mod:`tessera.kernels`, ``tessera.DEDUP_DEFAULTS``); Spark only moves
data: ``_job`` (MinHash), ``_hashes`` (exact, lines), ``_inputs`` (the files in order).
Usage: crates/py/README.md, "Spark"; the steps and what they move: docs/scale.md.
"""

from __future__ import annotations

import os
import sys
from typing import TYPE_CHECKING

from tessera._tessera import DEDUP_DEFAULTS as _D

from ._cli import main, run_dedup, run_index
from ._hashes import METHODS, dedup_hashed
from ._inputs import read_inputs
from ._shards import build_index_shards
from ._job import (
    _ID, _O1, _O2, _RECORD, _TEXT, _VID, BROADCAST_ROWS, DRIVER_PAIRS, VERIFY, TesseraSparkError, _dedup_ordered,
    _kept_records, _plan, _verify_mode,
)

if TYPE_CHECKING:  # pragma: no cover
    from pyspark.sql import DataFrame

__all__ = ["TesseraSparkError", "build_index_shards", "dedup", "main", "read_inputs", "run_dedup", "run_index"]

# Executors must import tessera: unless told otherwise (PYSPARK_PYTHON, spark.pyspark.python),
# sessions built after `import tessera.spark` run this Python, which has the package.
os.environ.setdefault("PYSPARK_PYTHON", sys.executable)


def dedup(
    df: "DataFrame",
    text_col: str = _D.text_field,
    id_col: str = "id",
    threshold: float = _D.threshold,
    num_perm: int = _D.num_perm,
    seed: int = _D.seed,
    shingle_size: int = _D.shingle_size,
    stop_words: bool = _D.stop_words,
    stemming: bool = _D.stemming,
    language: str | None = None,
    short_words: int = _D.short_words,
    order_col: str | None = None,
    partitions: int | None = None,
    broadcast_rows: int = BROADCAST_ROWS,
    verify: str = VERIFY,
    driver_pairs: int = DRIVER_PAIRS,
    method: str = _D.method,
    records: bool = False,
) -> "DataFrame":
    """The clusters of the documents of `df` as ``tessera dedup`` gives them: ``id``,
    ``cluster`` (the id of the document its cluster keeps), ``kept``, ``similarity`` (and
    with method "lines" ``removed_lines``, ``text``), one row per row with a text and an
    id, in document order: `order_col` ascending when given, else the DataFrame's order.
    `records=True` returns the kept rows of `df` themselves, every column. Settings are
    those of ``tessera dedup`` (defaults ``tessera.DEDUP_DEFAULTS``); `verify` ("exact"
    or "estimate"), `partitions`, `broadcast_rows`, `driver_pairs` and `method`: see
    crates/py/README.md, "Spark". Compute the result once (write or ``cache()`` it)."""
    from pyspark.sql import functions as F

    plan = _plan(
        threshold=threshold, num_perm=num_perm, seed=seed, shingle_size=shingle_size, stop_words=stop_words,
        stemming=stemming, language=language, short_words=short_words,
    )
    if id_col is None:
        raise TesseraSparkError("id_col is required for a DataFrame (the CLI entry point numbers rows itself)")
    for name in (text_col, id_col, order_col):
        if name is not None and name not in df.columns:
            raise TesseraSparkError(f"the DataFrame has no column {name!r}; columns: {', '.join(df.columns)}")
    if method not in METHODS:
        raise TesseraSparkError(f"method is one of {', '.join(METHODS)}, not {method!r}")
    docs = df.select(
        F.monotonically_increasing_id().alias(_VID),
        (F.col(order_col).cast("long") if order_col else F.lit(0).cast("long")).alias(_O1),
        F.col(id_col).cast("string").alias(_ID),
        F.col(text_col).alias(_TEXT),
        *([F.struct(*[F.col(f"`{c}`") for c in df.columns]).alias(_RECORD)] if records else []),
    ).withColumn(_O2, F.col(_VID))
    if records:  # row numbers are the rows' identity between the run and the records it keeps
        from pyspark import StorageLevel

        docs = docs.persist(StorageLevel.MEMORY_AND_DISK)
    _verify_mode(verify)
    if method == "minhash":
        run = _dedup_ordered(docs, plan, partitions, broadcast_rows, verify, driver_pairs=driver_pairs)
    else:
        run = dedup_hashed(docs, method, partitions=partitions)
    if records:
        return _kept_records(docs, run.result, method, text_col)
    columns = ["id", "cluster", "kept", "similarity"] + (["removed_lines", "text"] if method == "lines" else [])
    return run.result.orderBy(_O1, _O2).select(*columns)
