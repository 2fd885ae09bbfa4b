"""Tessera's near-duplicate dedup on Apache Spark: the answer of ``tessera dedup``, on a cluster.

Two ways in:

* ``python -m tessera.spark dedup INPUT... --text-col text --id-col id --output OUT``
  reads Parquet or JSONL files, writes Parquet with ``id, cluster, kept, similarity`` (one
  row per document, in document order) and prints a summary;
* :func:`dedup` takes a DataFrame inside an existing Spark program and returns that
  DataFrame.

Every rule comes from the Rust engine through :class:`tessera.kernels.DedupPlan`; Spark
only moves data:

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

import argparse
import json
import os
import re
import sys
import time
from dataclasses import asdict, dataclass
from typing import TYPE_CHECKING, Iterator
from urllib.parse import unquote, urlsplit

if TYPE_CHECKING:  # pragma: no cover
    import numpy
    import pyarrow as pa
    from pyspark.sql import DataFrame, SparkSession

__all__ = ["dedup", "main"]

# Internal column names (chosen so they cannot clash with a user's columns).
_VID = "__tessera_vid"  # unique document number (not in document order)
_O1 = "__tessera_o1"  # document order, first key (input file)
_O2 = "__tessera_o2"  # document order, second key (row)
_ID = "__tessera_id"
_TEXT = "__tessera_text"
_SIG = "__tessera_sig"
_DIGEST = "__tessera_digest"  # a document's row digest (exact verification)
_ROW = "__tessera_row"  # a document's row (text or JSONL line), for exact verification
_KEYS = "__tessera_keys"
_COMP = "__tessera_comp"
_LINE = "__tessera_line"  # a JSONL line's bytes, parsed by the engine's rule on executors

# Candidate pairs up to this many are collected on the driver, and their components found
# there by union-find (16 bytes a pair: 20 million pairs are 320 MB as collected, about
# 1 GB of driver memory at the peak, while they are sorted and joined); above it,
# large-star/small-star rounds on the cluster.
DRIVER_PAIRS = 20_000_000

# Large-star/small-star rounds needed grow as log^2 of the component size; far fewer in practice.
_MAX_ROUNDS = 200

# Low bits of monotonically_increasing_id(): the row within a partition.
_ROW_BITS = 33


class TesseraSparkError(ValueError):
    """A dedup run cannot start: a missing column, a bad input, bad settings."""


@dataclass(frozen=True)
class _Settings:
    """The DedupPlan settings, sent to executors (the plan is built there once)."""

    threshold: float = 0.8
    num_perm: int = 128
    seed: int = 1
    shingle_size: int = 3
    stop_words: bool = True
    stemming: bool = True
    language: str | None = None
    short_words: int = 10

    def plan(self):
        return _plan(self)


@dataclass(frozen=True)
class _JsonFields:
    """The fields a JSONL line's record is read from (`id`: None for line numbers)."""

    text: str
    id: str | None


_PLANS: dict = {}


def _plan(settings: _Settings):
    """The DedupPlan of `settings`, built once per Python worker."""
    plan = _PLANS.get(settings)
    if plan is None:
        from tessera.kernels import DedupPlan

        plan = DedupPlan(**asdict(settings))
        _PLANS[settings] = plan
    return plan


# ---------------------------------------------------------------------------------------
# Executor side: Arrow batches in, Arrow batches out.


def _binary_of_rows(matrix) -> "pa.Array":
    """A binary Arrow array with one row of `matrix` (little-endian) per value, no copy."""
    import numpy as np
    import pyarrow as pa

    matrix = np.ascontiguousarray(matrix)
    n = matrix.shape[0]
    width = matrix.shape[1] * matrix.dtype.itemsize if matrix.ndim == 2 else 0
    offsets = np.arange(0, (n + 1) * width, width, dtype=np.int32) if width else np.zeros(n + 1, dtype=np.int32)
    return pa.Array.from_buffers(pa.binary(), n, [None, pa.py_buffer(offsets), pa.py_buffer(matrix)])


def _rows_of_binary(array, num_perm: int):
    """The (n, num_perm) uint32 matrix of a binary Arrow array of signatures."""
    import numpy as np
    import pyarrow as pa

    if isinstance(array, pa.ChunkedArray):
        array = array.combine_chunks()
    n = len(array)
    width = num_perm * 4
    if n == 0:
        return np.zeros((0, num_perm), dtype=np.uint32)
    if array.null_count:
        raise ValueError("a signature is missing")
    offsets = np.frombuffer(array.buffers()[1], dtype=np.int32)[array.offset : array.offset + n + 1]
    if not np.all(np.diff(offsets) == width):
        raise ValueError(f"signatures are not {num_perm} values each")
    data = np.frombuffer(array.buffers()[2], dtype=np.uint8)[offsets[0] : offsets[0] + n * width]
    return data.view("<u4").reshape(n, num_perm).astype(np.uint32, copy=False)


def _valid(array) -> "numpy.ndarray":
    """Which values of an Arrow array are not null, as a numpy bool array."""
    import numpy as np
    import pyarrow.compute as pc

    return np.asarray(pc.is_valid(array).to_numpy(zero_copy_only=False), dtype=bool)


def _column(table, name: str):
    """A table's column as one Arrow array."""
    column = table.column(name)
    return column.combine_chunks() if hasattr(column, "combine_chunks") else column


def _buffers(array) -> tuple["numpy.ndarray", "numpy.ndarray", "numpy.ndarray"]:
    """The offsets (int64, n + 1), bytes (uint8, not copied) and validity (bool, n) of a
    string or binary Arrow array."""
    import numpy as np
    import pyarrow as pa

    if isinstance(array, pa.ChunkedArray):
        array = array.combine_chunks()
    n = len(array)
    if n == 0:
        return np.zeros(1, dtype=np.int64), np.zeros(0, dtype=np.uint8), np.zeros(0, dtype=bool)
    large = pa.types.is_large_string(array.type) or pa.types.is_large_binary(array.type)
    buffers = array.buffers()
    offsets = np.frombuffer(buffers[1], dtype=np.int64 if large else np.int32)[array.offset : array.offset + n + 1]
    data = np.frombuffer(buffers[2], dtype=np.uint8) if buffers[2] is not None else np.zeros(0, dtype=np.uint8)
    return offsets.astype(np.int64), data, _valid(array)


def _strings(column: tuple["numpy.ndarray", "numpy.ndarray"], valid: "numpy.ndarray") -> "pa.Array":
    """A string Arrow array of `(offsets, bytes)` (as `DedupPlan.sign_rows` returns them),
    null where not `valid`."""
    import numpy as np
    import pyarrow as pa

    offsets, data = column
    if offsets[-1] >= 2**31:
        raise ValueError("an Arrow batch holds 2 GiB of text or more: lower spark.sql.execution.arrow.maxRecordsPerBatch")
    validity = pa.py_buffer(np.packbits(valid, bitorder="little"))
    return pa.Array.from_buffers(
        pa.string(), len(valid), [validity, pa.py_buffer(offsets.astype(np.int32)), pa.py_buffer(data)]
    )


def _sign_batches(
    settings: _Settings,
    exact: bool,
    keep_row: bool,
    json_fields: _JsonFields | None,
    batches: Iterator["pa.RecordBatch"],
) -> Iterator["pa.RecordBatch"]:
    """Band keys of each batch's documents, by `DedupPlan.sign_rows` on the column's
    buffers: the text column, or with `json_fields` the raw JSONL lines (parsed by the
    engine's rule: a blank line is dropped, as the CLI skips it). With `exact`, each
    document's row digest (`row_digests`: its row read again for exact verification is
    checked against it), else its signature (the estimate verifies with it); null for a
    row that gives no document (no text or id, a record the CLI would skip).
    `keep_row`: the row itself is passed on too (exact verification without a second
    read of the input)."""
    import numpy as np
    import pyarrow as pa

    from tessera._tessera import row_digests

    plan = settings.plan()
    source = _LINE if json_fields else _TEXT
    for batch in batches:
        offsets, data, valid = _buffers(batch.column(source))
        ids = batch.column(_ID)
        if json_fields is None or json_fields.id is None:
            valid &= _valid(ids)
        status, sigs, keys, usable, read_ids, _texts = plan.sign_rows(
            offsets,
            data,
            valid,
            text_field=json_fields.text if json_fields else None,
            id_field=json_fields.id if json_fields else None,
        )
        n = batch.num_rows
        ok = status == 0
        bands = keys.shape[1]
        key_offsets = pa.array(np.arange(0, (n + 1) * bands, bands, dtype=np.int32))
        key_values = pa.array(keys.reshape(-1).view(np.int64))
        keys_col = pa.ListArray.from_arrays(key_offsets, key_values, mask=pa.array(~(ok & usable)))
        id_col = _strings(read_ids, ok) if read_ids is not None else ids
        columns = [batch.column(_VID), batch.column(_O1), batch.column(_O2), id_col, keys_col]
        names = [_VID, _O1, _O2, _ID, _KEYS]
        if exact:
            digests = row_digests(offsets, data).view(np.int64)
            columns.append(pa.array(digests, mask=~ok))
            names.append(_DIGEST)
        else:
            validity = pa.py_buffer(np.packbits(ok, bitorder="little"))
            sig_offsets, sig_data = _binary_of_rows(sigs).buffers()[1:]
            columns.append(pa.Array.from_buffers(pa.binary(), n, [validity, sig_offsets, sig_data]))
            names.append(_SIG)
        if keep_row:
            columns.append(batch.column(source))
            names.append(_ROW)
        out = pa.RecordBatch.from_arrays(columns, names=names)
        blank = status == 1
        yield out.filter(pa.array(~blank)) if blank.any() else out


def _pair_partition(settings: _Settings, batches: Iterator["pa.RecordBatch"]) -> Iterator["pa.RecordBatch"]:
    """Candidate pairs `(a, b)` (document numbers, a before b in document order) of the
    band rows `(band, key, o1, o2, vid)` of one partition: rows are partitioned by (band,
    key), so every bucket is whole here. `DedupPlan.band_row_pairs` sorts them into
    buckets (members in document order) and pairs them, in one call."""
    import numpy as np
    import pyarrow as pa

    plan = settings.plan()
    table = pa.Table.from_batches(list(batches))
    if table.num_rows == 0:
        return
    columns = [_column(table, c).to_numpy().astype(np.int64, copy=False) for c in ("band", "key", _O1, _O2, _VID)]
    pairs = np.asarray(plan.band_row_pairs(*columns), dtype=np.int64).reshape(-1, 2)
    if len(pairs) == 0:
        return
    yield pa.RecordBatch.from_arrays([pa.array(pairs[:, 0]), pa.array(pairs[:, 1])], names=["a", "b"])


def _cluster_partition(
    settings: _Settings, exact: bool, json_fields: _JsonFields | None, batches: Iterator["pa.RecordBatch"]
) -> Iterator["pa.RecordBatch"]:
    """The clusters of the components in one partition. Rows are members (a signature, or
    with `exact` the document's row and its digest: a text, or with `json_fields` a JSONL
    line) or pairs (`b` set; `vid` is the earlier document); every component is whole in
    its partition, so one `DedupPlan.cluster` (`cluster_rows`) call covers them all: the
    rule is per component, and components share no pair."""
    import numpy as np
    import pyarrow as pa

    plan = settings.plan()
    table = pa.Table.from_batches(list(batches))
    out_schema = [(_VID, pa.int64()), ("cluster", pa.string()), ("kept", pa.bool_()), ("similarity", pa.float64())]
    if table.num_rows == 0:
        return
    is_pair = _valid(_column(table, "b"))
    members = table.filter(pa.array(~is_pair))
    pairs = table.filter(pa.array(is_pair))
    comp = _column(members, _COMP).to_numpy()
    vid = _column(members, _VID).to_numpy()
    order = np.lexsort((vid, _column(members, _O2).to_numpy(), _column(members, _O1).to_numpy(), comp))
    vid = vid[order]
    if exact:
        rows = _column(members, _ROW).take(pa.array(order))
        digests = _column(members, _DIGEST).take(pa.array(order)).to_numpy().view(np.uint64)
    else:
        sigs = _rows_of_binary(_column(members, _SIG).take(pa.array(order)), settings.num_perm)
    ids = _column(members, _ID).take(pa.array(order))
    by_vid = np.argsort(vid, kind="stable")
    sorted_vid = vid[by_vid]

    def position(v):
        at = np.searchsorted(sorted_vid, v)
        if np.any(at >= len(sorted_vid)) or np.any(sorted_vid[np.minimum(at, len(sorted_vid) - 1)] != v):
            raise ValueError("a candidate pair names a document outside its component")
        return by_vid[at]

    a = position(_column(pairs, _VID).to_numpy())
    b = position(_column(pairs, "b").to_numpy())
    local = np.unique(np.stack([np.minimum(a, b), np.maximum(a, b)], axis=1).astype(np.int64), axis=0)
    local = local[local[:, 0] != local[:, 1]]
    if exact:
        offsets, data, _ = _buffers(rows)
        text_field = json_fields.text if json_fields else None
        kept, similarity = plan.cluster_rows(offsets, data, digests, local.reshape(-1, 2), text_field=text_field)
    else:
        kept, similarity = plan.cluster(sigs, local.reshape(-1, 2))
    kept = np.asarray(kept, dtype=np.int64)
    cluster_ids = ids.take(pa.array(kept))
    is_kept = kept == np.arange(len(vid))
    schema = pa.schema(out_schema)
    yield pa.RecordBatch.from_arrays(
        [pa.array(vid), cluster_ids, pa.array(is_kept), pa.array(np.asarray(similarity, dtype=np.float64))],
        schema=schema,
    )


# ---------------------------------------------------------------------------------------
# Driver side.


def _components(edges: "DataFrame") -> "DataFrame":
    """Connected components of the undirected graph `edges (a, b)`: rows `(vid, comp)` for
    every vertex in an edge, `comp` the smallest vid of its component. Large-star and
    small-star rounds until the edges form stars around each component's minimum."""
    from pyspark.sql import functions as F

    e = edges.select(F.least("a", "b").alias("u"), F.greatest("a", "b").alias("v")).where("u != v").distinct()
    e = e.localCheckpoint()
    for _ in range(_MAX_ROUNDS):
        # Large star: a vertex's larger neighbours attach to the minimum of its neighbourhood.
        both = e.select(F.col("u").alias("x"), F.col("v").alias("y")).unionByName(
            e.select(F.col("v").alias("x"), F.col("u").alias("y"))
        )
        large = (
            both.groupBy("x")
            .agg(F.collect_list("y").alias("ns"))
            .select(
                F.least(F.col("x"), F.array_min("ns")).alias("u"),
                F.explode(F.filter("ns", lambda n: n > F.col("x"))).alias("v"),
            )
            .distinct()
        )
        # Small star: a vertex and its smaller neighbours attach to the smallest of them.
        small = (
            large.groupBy("v")
            .agg(F.collect_list("u").alias("ns"))
            .select(F.array_min("ns").alias("u"), F.array_union("ns", F.array("v")).alias("all"))
            .select("u", F.explode("all").alias("v"))
            .where("u != v")
            .distinct()
        ).localCheckpoint()
        # Stars around minima: no vertex is both a centre and a leaf, each leaf has one centre.
        ends = small.select(F.col("u").alias("n"), F.lit(1).alias("centre"), F.lit(0).alias("leaf")).unionByName(
            small.select(F.col("v").alias("n"), F.lit(0).alias("centre"), F.lit(1).alias("leaf"))
        )
        not_star = (
            ends.groupBy("n")
            .agg(F.max("centre").alias("centre"), F.sum("leaf").alias("leaf"))
            .where("(centre = 1 AND leaf > 0) OR leaf > 1")
        )
        if not_star.limit(1).count() == 0:
            roots = small.select(F.col("u").alias(_VID)).distinct().withColumn(_COMP, F.col(_VID))
            leaves = small.select(F.col("v").alias(_VID), F.col("u").alias(_COMP))
            return roots.unionByName(leaves)
        e = small
    raise RuntimeError(f"connected components did not converge in {_MAX_ROUNDS} rounds")


@dataclass
class _Run:
    """A dedup run's DataFrames: `result` (_O1, _O2, id, cluster, kept, similarity for
    every document), and the persisted `signed` (every record) and `clustered` (documents
    in a component) it is computed from (unpersist them when done)."""

    result: "DataFrame"
    signed: "DataFrame"
    clustered: "DataFrame"

    def counts(self, written: str) -> tuple[int, int, int]:
        """(documents, clusters, failed), once the result is written as Parquet to
        `written`: rows counted from the Parquet footers and the cached blocks, and the
        duplicates from the small cached `clustered`, without recomputing the result."""
        from pyspark.sql import functions as F

        documents = self.signed.sparkSession.read.parquet(written).count()
        records = self.signed.count()
        merged = self.clustered.where(~F.col("kept")).count()
        return documents, documents - merged, records - documents

    def unpersist(self) -> None:
        self.signed.unpersist()
        self.clustered.unpersist()


def _collect_arrow(df: "DataFrame") -> "pa.Table":
    """A (small) DataFrame as one Arrow table on the driver."""
    import pyarrow as pa

    if hasattr(df, "toArrow"):  # pyspark >= 4
        return df.toArrow()
    batches = df._collect_as_arrow()
    return pa.Table.from_batches(batches) if batches else pa.Table.from_pandas(df.limit(0).toPandas())


def _local_frame(spark: "SparkSession", table: "pa.Table", schema: str) -> "DataFrame":
    """A DataFrame of an Arrow table built on the driver."""
    import pyspark

    if int(pyspark.__version__.split(".")[0]) >= 4:
        return spark.createDataFrame(table, schema)
    return spark.createDataFrame(table.to_pandas(), schema)


def _driver_components(pairs: "DataFrame") -> tuple["DataFrame", "DataFrame", int]:
    """Components of the candidate pairs `(a, b)`, collected on the driver and joined by
    union-find (tessera's `connected_components`): `(components, pair_rows, n)`, rows
    `(_VID, _COMP)` for the `n` documents in a pair, and the distinct pairs as `(_COMP,
    _VID, b)` (`_VID` the earlier document), as `_components` and a join give them on the
    cluster."""
    import numpy as np
    import pyarrow as pa

    from tessera._tessera import connected_components

    table = _collect_arrow(pairs)
    a = table.column("a").to_numpy()
    b = table.column("b").to_numpy()
    lo, hi = np.minimum(a, b), np.maximum(a, b)
    keep = lo != hi
    lo, hi = lo[keep], hi[keep]
    order = np.lexsort((hi, lo))
    lo, hi = lo[order], hi[order]
    first = np.r_[True, (lo[1:] != lo[:-1]) | (hi[1:] != hi[:-1])] if len(lo) else np.zeros(0, dtype=bool)
    lo, hi = np.ascontiguousarray(lo[first], dtype=np.int64), np.ascontiguousarray(hi[first], dtype=np.int64)
    vertices, comp = connected_components(lo, hi)
    spark = pairs.sparkSession
    components = _local_frame(
        spark, pa.table({_VID: vertices, _COMP: comp}), f"{_VID} long, {_COMP} long"
    )
    pair_comp = comp[np.searchsorted(vertices, lo)] if len(lo) else np.zeros(0, dtype=np.int64)
    pair_rows = _local_frame(
        spark, pa.table({_COMP: pair_comp, _VID: lo, "b": hi}), f"{_COMP} long, {_VID} long, b long"
    )
    return components, pair_rows, len(vertices)


def _dedup_ordered(
    docs: "DataFrame",
    settings: _Settings,
    partitions: int | None = None,
    broadcast_rows: int = 1_000_000,
    verify: str = "exact",
    json_fields: _JsonFields | None = None,
    driver_pairs: int = DRIVER_PAIRS,
    reread: bool = False,
) -> _Run:
    """The clusters of `docs` (columns _VID, _O1, _O2, _ID and _TEXT, or with `json_fields`
    _LINE, the raw JSONL line; a null text or id: a record that gives no document).
    Documents in a pair are joined back by broadcast when there are at most
    `broadcast_rows` of them, else by a shuffle join. Components are found on the driver
    when there are at most `driver_pairs` candidate pairs, else on the cluster.

    Exact verification needs the rows of the documents in pairs: with `reread`, `docs` is
    computed a second time for them (it must give every row the same _VID again, as a
    scan of files does; each row is checked against its digest), else every row is cached
    with its band keys (the input's size once more, in memory and on disk)."""
    from pyspark import StorageLevel
    from pyspark.sql import functions as F

    exact = _verify_mode(verify)
    keep_row = exact and not reread
    source = _LINE if json_fields else _TEXT
    row_type = "binary" if json_fields else "string"
    source_col = F.col(source).cast(row_type)
    signed = docs.select(_VID, _O1, _O2, _ID, source_col.alias(source)).mapInArrow(
        lambda batches: _sign_batches(settings, exact, keep_row, json_fields, batches),
        f"{_VID} long, {_O1} long, {_O2} long, {_ID} string, {_KEYS} array<long>, "
        + (f"{_DIGEST} long" if exact else f"{_SIG} binary")
        + (f", {_ROW} {row_type}" if keep_row else ""),
    )
    signed = signed.persist(StorageLevel.MEMORY_AND_DISK)
    # A row gives a document when it has a digest (exact) or a signature (estimate).
    payload = _DIGEST if exact else _SIG
    good = signed.where(F.col(payload).isNotNull())

    bands = good.where(F.col(_KEYS).isNotNull()).select(
        _VID, _O1, _O2, F.posexplode(_KEYS).alias("band", "key")
    )
    by_bucket = bands.repartition(partitions, "band", "key") if partitions else bands.repartition("band", "key")
    pairs = by_bucket.mapInArrow(lambda batches: _pair_partition(settings, batches), "a long, b long")
    pairs = pairs.localCheckpoint()

    if pairs.count() <= driver_pairs:
        components, pair_rows, in_pairs = _driver_components(pairs)
    else:
        components = _components(pairs).localCheckpoint()
        in_pairs = components.count()
        pair_rows = pairs.join(components.withColumnRenamed(_VID, "a"), "a").select(
            _COMP, F.col("a").alias(_VID), "b"
        )
    # Joins with every document shuffle every signature (or row) unless the other side is
    # small enough to broadcast (most documents are in no pair).
    hint = F.broadcast if in_pairs <= broadcast_rows else (lambda df: df)
    members = good.join(hint(components), _VID).select(
        _COMP, _VID, _O1, _O2, _ID, payload, *([_ROW] if keep_row else []), F.lit(None).cast("long").alias("b")
    )
    if exact and reread:
        # The rows of documents in pairs, read again: the scan is filtered by the join
        # before any row reaches Python.
        again = docs.select(_VID, source_col.alias(_ROW))
        members = again.join(hint(members), _VID).select(*members.columns, _ROW)
    pair_rows = pair_rows.select(
        _COMP,
        _VID,
        F.lit(None).cast("long").alias(_O1),
        F.lit(None).cast("long").alias(_O2),
        F.lit(None).cast("string").alias(_ID),
        F.lit(None).cast("long" if exact else "binary").alias(payload),
        *([F.lit(None).cast(row_type).alias(_ROW)] if exact else []),
        "b",
    )
    rows = members.unionByName(pair_rows)
    rows = rows.repartition(partitions, _COMP) if partitions else rows.repartition(_COMP)
    clustered = rows.mapInArrow(
        lambda batches: _cluster_partition(settings, exact, json_fields, batches),
        f"{_VID} long, cluster string, kept boolean, similarity double",
    ).persist(StorageLevel.MEMORY_AND_DISK)
    result = good.select(_VID, _O1, _O2, _ID).join(hint(clustered), _VID, "left").select(
        _O1,
        _O2,
        F.col(_ID).alias("id"),
        F.coalesce("cluster", _ID).alias("cluster"),
        F.coalesce("kept", F.lit(True)).alias("kept"),
        F.coalesce("similarity", F.lit(1.0)).alias("similarity"),
    )
    return _Run(result, signed, clustered)


def _verify_mode(verify: str) -> bool:
    """True for exact verification; the modes of ``tessera dedup --verify`` but "auto"
    (a cluster has no single memory budget: texts of candidates spill to disk)."""
    if verify not in ("exact", "estimate"):
        raise TesseraSparkError(f'verify is "exact" or "estimate", not {verify!r}')
    return verify == "exact"


def _check_settings(settings: _Settings):
    """Builds the plan once on the driver: bad settings fail here, with the engine's message."""
    try:
        return settings.plan()
    except (ValueError, RuntimeError) as e:
        raise TesseraSparkError(str(e)) from e


def _require_columns(df: "DataFrame", *names: str | None) -> None:
    have = df.columns
    for name in names:
        if name is not None and name not in have:
            raise TesseraSparkError(f"the DataFrame has no column {name!r}; columns: {', '.join(have)}")


def dedup(
    df: "DataFrame",
    text_col: str = "text",
    id_col: str = "id",
    threshold: float = 0.8,
    num_perm: int = 128,
    seed: int = 1,
    shingle_size: int = 3,
    stop_words: bool = True,
    stemming: bool = True,
    language: str | None = None,
    short_words: int = 10,
    order_col: str | None = None,
    partitions: int | None = None,
    broadcast_rows: int = 1_000_000,
    verify: str = "exact",
    driver_pairs: int = DRIVER_PAIRS,
) -> "DataFrame":
    """Near-duplicate clusters of the documents of `df`, as ``tessera dedup`` gives them.

    Returns a DataFrame with ``id`` (string), ``cluster`` (the id of the document its
    cluster keeps), ``kept`` and ``similarity`` (to the kept document, 4 digits; 1 for kept
    ones), one row per row of `df` whose text and id are not null, sorted in document
    order. Document order decides which copy is kept (the first): it is `order_col`
    ascending when given (ties: the DataFrame's order), else the DataFrame's own order,
    partition by partition and row by row (for a DataFrame read from one file, the file's
    order). Settings are those of ``tessera dedup`` and :class:`tessera.kernels.DedupPlan`.

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

    The job caches band keys and texts (or signatures); compute the returned DataFrame
    once (write it, or ``cache()`` it).
    """
    from pyspark.sql import functions as F

    settings = _Settings(threshold, num_perm, seed, shingle_size, stop_words, stemming, language, short_words)
    _check_settings(settings)
    if id_col is None:
        raise TesseraSparkError("id_col is required for a DataFrame (the CLI entry point numbers rows itself)")
    _require_columns(df, text_col, id_col, order_col)
    docs = df.select(
        F.monotonically_increasing_id().alias(_VID),
        (F.col(order_col).cast("long") if order_col else F.lit(0).cast("long")).alias(_O1),
        F.col(id_col).cast("string").alias(_ID),
        F.col(text_col).alias(_TEXT),
    ).withColumn(_O2, F.col(_VID))
    _verify_mode(verify)
    run = _dedup_ordered(docs, settings, partitions, broadcast_rows, verify, driver_pairs=driver_pairs)
    return run.result.orderBy(_O1, _O2).select("id", "cluster", "kept", "similarity")


# ---------------------------------------------------------------------------------------
# Reading files in the CLI's order.


def _path_key(uri: str) -> str:
    """A file URI as a path, for sorting the way `tessera dedup` sorts a folder's files."""
    parts = urlsplit(uri)
    return unquote(parts.path) if parts.scheme in ("", "file") else uri


def _format_of(path: str, fmt: str | None) -> str:
    if fmt:
        return fmt
    name = path.lower().rstrip("/")
    for suffix in (".gz", ".zst", ".zstd", ".bz2"):
        if name.endswith(suffix):
            name = name[: -len(suffix)]
    if name.endswith(".parquet"):
        return "parquet"
    if name.endswith(".jsonl") or name.endswith(".ndjson") or name.endswith(".json"):
        return "jsonl"
    if os.path.isdir(path):
        exts = {os.path.splitext(f)[1].lower() for f in os.listdir(path) if not f.startswith((".", "_"))}
        if exts and exts <= {".parquet"}:
            return "parquet"
        if exts and exts <= {".jsonl", ".ndjson", ".json", ".gz"}:
            return "jsonl"
    raise TesseraSparkError(f"cannot tell the format of {path}: name it .parquet or .jsonl, or give --format")


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
) -> "DataFrame":
    """The documents of `inputs` (files, folders, patterns; Parquet or JSONL) as the rows
    `dedup` takes, in the order `tessera dedup` reads them: inputs in the order given, the
    files of a folder or pattern sorted by path, rows (lines) in file order. JSONL inputs
    give each line's bytes (column _LINE, blank lines included; executors read the record
    of each with the engine's rule) instead of the text (_TEXT); with `id_col`, _ID is
    null until then.

    Without `id_col`, ids are those `tessera dedup` gives: the line (JSONL, blank lines
    counted) or row (Parquet) number, or ``FILE:LINE`` for several inputs, which must then
    be plain file paths (named as given)."""
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
    return base.select(_VID, o1.alias(_O1), o2.alias(_O2), _ID, _LINE if kind == "jsonl" else _TEXT)


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
    """Fails early, as `tessera dedup` does, when the first records all miss a field."""
    parts = urlsplit(first_file)
    if parts.scheme in ("", "file") and not first_file.endswith((".gz", ".bz2", ".zst", ".zstd")):
        with open(unquote(parts.path), encoding="utf-8", errors="replace") as f:
            sample = [line for _, line in zip(range(50), f)]
    else:
        sample = [r[0] for r in spark.read.text(first_file).limit(50).collect()]
    seen: set[str] = set()
    records = 0
    for line in sample:
        if not line.strip():
            continue
        try:
            value = json.loads(line)
        except ValueError:
            continue
        if not isinstance(value, dict):
            continue
        records += 1
        if all(n is None or n in value for n in (text_col, id_col, order_col)):
            return
        seen.update(value)
    if records:
        wanted = " and ".join(f"{n!r}" for n in (text_col, id_col, order_col) if n)
        raise TesseraSparkError(
            f"no record has field {wanted} (the first {records} records); fields seen: {', '.join(sorted(seen))}"
        )
    if sample and any(s.strip() for s in sample):
        raise TesseraSparkError("the input does not read as JSONL: its first lines are not JSON objects")


# ---------------------------------------------------------------------------------------
# Command line.


def _parser() -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(
        prog="python -m tessera.spark",
        description="Tessera on Apache Spark: near-duplicate clusters of a corpus, the same as `tessera dedup`.",
    )
    sub = p.add_subparsers(dest="command", required=True)
    d = sub.add_parser("dedup", help="cluster near-duplicate documents; write id, cluster, kept, similarity as Parquet")
    d.add_argument("inputs", nargs="+", metavar="INPUT", help="Parquet or JSONL files, folders or patterns, in order")
    d.add_argument("--output", "-o", required=True, help="where to write the Parquet result (a folder)")
    d.add_argument("--text-col", default="text", help="the column (field) holding the text (default: text)")
    d.add_argument(
        "--id-col",
        default=None,
        help="the column holding the id (default: the line or row number, FILE:LINE for several input files)",
    )
    d.add_argument("--order-col", default=None, help="an integer column giving the document order (default: file order)")
    d.add_argument("--format", choices=["parquet", "jsonl"], default=None, help="input format (default: by name)")
    d.add_argument("--master", default="local[*]", help="Spark master (default: local[*])")
    d.add_argument("--threshold", type=float, default=0.8, help="Jaccard similarity of near-duplicates (default 0.8)")
    d.add_argument("--num-perm", type=int, default=128, help="MinHash functions per signature (default 128)")
    d.add_argument("--seed", type=int, default=1, help="seed of the hash functions (default 1)")
    d.add_argument("--shingle-size", type=int, default=3, help="words per shingle (default 3)")
    d.add_argument("--keep-stop-words", action="store_true", help="keep stop words")
    d.add_argument("--no-stemming", action="store_true", help="do not stem words")
    d.add_argument("--language", default=None, help="the texts' language (default: detected)")
    d.add_argument(
        "--verify",
        choices=["exact", "estimate"],
        default="exact",
        help="verify candidates with the exact Jaccard similarity (default; as tessera dedup) or the estimate",
    )
    d.add_argument("--short-words", type=int, default=10, help="texts with fewer words are shingled cyclically")
    d.add_argument(
        "--partitions", type=int, default=None, help="partitions of the bucket and cluster steps (default: Spark's)"
    )
    d.add_argument(
        "--broadcast-rows",
        type=int,
        default=1_000_000,
        help="documents in pairs joined back by broadcast up to this many, else by a shuffle join (default 1000000)",
    )
    d.add_argument(
        "--driver-pairs",
        type=int,
        default=DRIVER_PAIRS,
        help="find the components of up to this many candidate pairs on the driver (union-find), more on the "
        f"cluster (default {DRIVER_PAIRS})",
    )
    d.add_argument("--conf", action="append", default=[], metavar="KEY=VALUE", help="a Spark setting (repeatable)")
    d.add_argument("--summary-format", choices=["text", "json"], default="text", help="summary format on stderr")
    return p


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
    # Executors run this Python (with the tessera package) unless told otherwise; PySpark
    # reads the variable when the context starts.
    os.environ.setdefault("PYSPARK_PYTHON", sys.executable)
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
    """Spark's file sources look for a streaming sink's metadata folder at every input
    path and, for a pattern (`part-*.jsonl`), log a warning with a stack trace when there
    is no such file: noise for a batch job's patterns. Raised to errors for our session."""
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
    settings = _Settings(
        args.threshold,
        args.num_perm,
        args.seed,
        args.shingle_size,
        not args.keep_stop_words,
        not args.no_stemming,
        args.language,
        args.short_words,
    )
    plan = _check_settings(settings)
    if spark.conf.get("spark.sql.files.minPartitionNum", None) is None:
        # Exact verification reads the input twice and matches rows by their place in
        # the scan; Spark sizes file splits by the cores it has (which change as executors
        # come and go): fix that number for both reads.
        spark.conf.set("spark.sql.files.minPartitionNum", str(spark.sparkContext.defaultParallelism))
    docs = read_inputs(spark, args.inputs, args.text_col, args.id_col, args.order_col, args.format)
    json_fields = _JsonFields(args.text_col, args.id_col) if _LINE in docs.columns else None
    run = _dedup_ordered(
        docs, settings, args.partitions, args.broadcast_rows, args.verify, json_fields, args.driver_pairs, reread=True
    )
    output = _absolute(args.output)
    run.result.orderBy(_O1, _O2).select("id", "cluster", "kept", "similarity").write.mode("overwrite").parquet(output)
    documents, clusters, failed = run.counts(output)
    run.unpersist()
    return {
        "documents": documents,
        "clusters": clusters,
        "duplicates_removed": documents - clusters,
        "failed": int(failed),
        "method": "minhash",
        "verified": args.verify,
        "bands": plan.bands,
        "rows": plan.rows,
        "seconds": round(time.perf_counter() - started, 3),
    }


def main(argv: list[str] | None = None) -> int:
    """`python -m tessera.spark dedup ...`: exit 0, 3 when records were skipped (as
    `tessera dedup`), 2 on bad arguments or input."""
    args = _parser().parse_args(argv)
    try:
        spark = _session(args.master, args.conf)
    except TesseraSparkError as e:
        print(f"error: {e}", file=sys.stderr)
        return 2
    try:
        summary = run_dedup(spark, args)
    except TesseraSparkError as e:
        print(f"error: {e}", file=sys.stderr)
        return 2
    finally:
        spark.stop()
    if args.summary_format == "json":
        print(json.dumps(summary), file=sys.stderr)
    else:
        print(
            f"{summary['documents']} documents, {summary['clusters']} clusters, "
            f"{summary['duplicates_removed']} duplicates removed (minhash, threshold {args.threshold}, "
            f"{summary['bands']} bands of {summary['rows']} rows) in {summary['seconds']:.2f} s; "
            f"{summary['failed']} failed",
            file=sys.stderr,
        )
    return 3 if summary["failed"] else 0


if __name__ == "__main__":
    # Run the imported module's main, so that executors unpickle its functions by reference
    # from their installed tessera package instead of copies of this __main__.
    from tessera.spark import main as _main

    sys.exit(_main())
