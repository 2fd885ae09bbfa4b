"""Tessera's near-duplicate dedup on Apache Spark: the answer of ``tessera dedup``, on a cluster.

Two ways in:

* ``python -m tessera.spark dedup INPUT... --text-col text --id-col id --output OUT``
  reads Parquet or JSONL files, writes Parquet with ``id, cluster, kept, similarity`` (one
  row per document, in document order), with ``--write-kept DIR`` the kept records
  themselves, and prints a summary;
* :func:`dedup` takes a DataFrame inside an existing Spark program and returns that
  DataFrame (or, with ``records=True``, its kept rows).

``--method exact|lines`` (``method=``) hash the text itself instead (``_hashes``).

Every rule comes from the Rust engine: the kernels of :class:`tessera.kernels.DedupPlan`,
the defaults of ``tessera.DEDUP_DEFAULTS``, the input formats and the check of a JSONL
input's first records (``record_format``, ``check_jsonl_fields``); Spark only moves data
(``_job``: the job's steps; ``_inputs``: the files in the command's order; ``_cli``: the
command line):

1. executors sign each Arrow batch in one ``DedupPlan.sign_rows`` call on the column's
   buffers: texts, or raw JSONL lines, which the kernel reads by the engine's JSONL rule
   (the CLI's); each document's band keys are cached with its id and order, and its row
   digest (exact verification) or its signature (``num_perm`` little-endian u32s in a
   binary column, ``verify="estimate"``);
2. band rows ``(band, key, document)`` are grouped by Spark's shuffle; each bucket of two or
   more documents, its members in document order, gives candidate pairs
   (``DedupPlan.bucket_pairs``, which caps the predecessors a member takes);
3. the connected components of the candidate graph are found on the driver by union-find
   when there are at most ``driver_pairs`` pairs, else with large-star / small-star
   rounds (Kiveris et al., "Connected Components in MapReduce and Beyond", 2014) on
   DataFrames;
4. the engine's no-chaining clustering depends only on the candidate graph and the
   document order, so it is computed per component: a component's members (document
   order) and its pairs go to one task, which calls ``DedupPlan.cluster_rows`` (exact
   verification, the CLI's default, on the rows of documents in a pair: the command
   reads its input again for them, each checked against its digest; ``dedup(df)``
   caches every row instead) or ``DedupPlan.cluster`` (``verify="estimate"``); a
   document in no pair is kept alone with similarity 1.

Document order is the order ``tessera dedup`` reads: inputs in the order given, the files of
a folder or a pattern sorted by path, rows in file order.
"""

from __future__ import annotations

import os
import sys
from typing import TYPE_CHECKING

from tessera._tessera import DEDUP_DEFAULTS as _D

from ._cli import main, run_dedup
from ._inputs import read_inputs
from ._hashes import METHODS, dedup_hashed
from ._job import _ID, _O1, _O2, _RECORD, _TEXT, _VID, DRIVER_PAIRS, TesseraSparkError, _dedup_ordered, _plan, _verify_mode

if TYPE_CHECKING:  # pragma: no cover
    from pyspark.sql import DataFrame

__all__ = ["TesseraSparkError", "dedup", "main", "read_inputs", "run_dedup"]

# Executors must import tessera: unless told otherwise, they run this Python (the one with
# the package, a virtual environment's whether or not it is activated). PySpark reads the
# variable when a session's context starts, so this holds for sessions built after
# `import tessera.spark`; an explicit PYSPARK_PYTHON or spark.pyspark.python wins.
os.environ.setdefault("PYSPARK_PYTHON", sys.executable)


def _require_columns(df: "DataFrame", *names: str | None) -> None:
    have = df.columns
    for name in names:
        if name is not None and name not in have:
            raise TesseraSparkError(f"the DataFrame has no column {name!r}; columns: {', '.join(have)}")




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
    broadcast_rows: int = 1_000_000,
    verify: str = "exact",
    driver_pairs: int = DRIVER_PAIRS,
    method: str = _D.method,
    records: bool = False,
) -> "DataFrame":
    """Near-duplicate clusters of the documents of `df`, as ``tessera dedup`` gives them.

    Returns a DataFrame with ``id`` (string), ``cluster`` (the id of the document its
    cluster keeps), ``kept`` and ``similarity`` (to the kept document, 4 digits; 1 for kept
    ones), one row per row of `df` whose text and id are not null, sorted in document
    order. Document order decides which copy is kept (the first): it is `order_col`
    ascending when given (ties: the DataFrame's order), else the DataFrame's own order,
    partition by partition and row by row (for a DataFrame read from one file, the file's
    order). Settings (their defaults ``tessera.DEDUP_DEFAULTS``) are those of ``tessera
    dedup`` and :class:`tessera.kernels.DedupPlan`.

    `verify` is "exact" (default: the exact Jaccard similarity of the shingle sets, as
    ``tessera dedup`` verifies while its sets fit its memory budget; each text is cached
    with its band keys, on disk when memory is short, as the DataFrame cannot be computed
    twice with the same row numbers) or "estimate" (the signatures' estimate, as
    ``tessera dedup --verify estimate``; the signatures are cached instead).

    `partitions` sets the partitions of the bucket and cluster steps (default: Spark's
    ``spark.sql.shuffle.partitions``). Documents in candidate pairs are joined back to the
    cache by broadcast when there are at most `broadcast_rows` of them, else by a
    shuffle join (which moves every cached row once more). The connected components of the
    candidate pairs are found on the driver (union-find) when there are at most
    `driver_pairs` pairs, else by large-star/small-star rounds on the cluster.

    `method` is "minhash" (near-duplicates, default), "exact" (identical texts, whitespace
    runs counting as one space: the first is kept, the others name it, similarity 1) or
    "lines" (lines an earlier document had are removed from later ones; each document is
    its own cluster, not kept when nothing is left, its similarity the share of its
    characters removed; two more columns: ``removed_lines``, 0-based, and ``text``, the
    text without them), as ``tessera dedup --method``. SimHash stays on one machine (its
    term weights are the whole collection's).

    `records=True` returns the kept rows of `df` themselves instead, every column as it
    was (with "lines", `text_col` without its removed lines), in document order: what
    ``tessera dedup --write-kept`` writes. The rows of `df` are cached for it (the input's
    size, in memory and on disk).

    The job caches band keys and texts (or signatures); compute the returned DataFrame
    once (write it, or ``cache()`` it).
    """
    from pyspark.sql import functions as F

    plan = _plan(
        threshold=threshold,
        num_perm=num_perm,
        seed=seed,
        shingle_size=shingle_size,
        stop_words=stop_words,
        stemming=stemming,
        language=language,
        short_words=short_words,
    )
    if id_col is None:
        raise TesseraSparkError("id_col is required for a DataFrame (the CLI entry point numbers rows itself)")
    _require_columns(df, text_col, id_col, order_col)
    if method not in METHODS:
        raise TesseraSparkError(f"method is one of {', '.join(METHODS)}, not {method!r}")
    docs = df.select(
        F.monotonically_increasing_id().alias(_VID),
        (F.col(order_col).cast("long") if order_col else F.lit(0).cast("long")).alias(_O1),
        F.col(id_col).cast("string").alias(_ID),
        F.col(text_col).alias(_TEXT),
        *([F.struct(*[F.col(f"`{c}`") for c in df.columns]).alias(_RECORD)] if records else []),
    ).withColumn(_O2, F.col(_VID))
    if records:
        # Row numbers are the rows' identity between the run and the records it keeps.
        from pyspark import StorageLevel

        docs = docs.persist(StorageLevel.MEMORY_AND_DISK)
    _verify_mode(verify)
    if method == "minhash":
        run = _dedup_ordered(docs, plan, partitions, broadcast_rows, verify, driver_pairs=driver_pairs)
    else:
        run = dedup_hashed(docs, method, partitions=partitions)
    if records:
        kept = run.result.where(F.col("kept")).select(_VID, *(["text"] if method == "lines" else []))
        record = F.col(_RECORD)
        if method == "lines":
            record = record.withField(f"`{text_col}`", F.col("text"))
        rows = docs.select(_VID, _O1, _O2, _RECORD).join(kept, _VID).orderBy(_O1, _O2)
        return rows.select(record.alias(_RECORD)).select(f"{_RECORD}.*")
    columns = ["id", "cluster", "kept", "similarity"] + (["removed_lines", "text"] if method == "lines" else [])
    return run.result.orderBy(_O1, _O2).select(*columns)


