"""The MinHash job of :mod:`tessera.spark` (its steps: docs/scale.md, "The Spark job"):
executors sign Arrow batches and cluster components with the engine's kernels
(:class:`tessera.kernels.DedupPlan`); Spark moves band rows, pairs and components."""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING

from tessera._tessera import DedupPlan

if TYPE_CHECKING:  # pragma: no cover
    import numpy
    import pyarrow as pa
    from pyspark.sql import DataFrame, SparkSession

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
_RECORD = "__tessera_record"  # a Parquet row's every column, for writing records back

# Candidate pairs up to this many are joined on the driver by union-find (16 bytes a pair:
# 20 million are 320 MB as collected, about 1 GB of driver memory at the peak); above it,
# large-star/small-star rounds on the cluster.
DRIVER_PAIRS = 20_000_000
BROADCAST_ROWS = 1_000_000  # documents in pairs joined back by broadcast up to this many
VERIFY = "exact"  # as `tessera dedup` while the sets fit; "auto" needs one memory budget
_MAX_ROUNDS = 200  # large-star/small-star rounds grow as log^2 of a component's size
_ROW_BITS = 33  # low bits of monotonically_increasing_id(): the row within a partition


class TesseraSparkError(ValueError):
    """A dedup run cannot start: a missing column, a bad input, bad settings."""


@dataclass(frozen=True)
class _JsonFields:
    """The fields a JSONL line's record is read from (`id`: None for line numbers)."""

    text: str
    id: str | None


def _checked(rule, *args, **kwargs):
    """The engine's `rule` (a kernel) called on the driver, its error the job's."""
    try:
        return rule(*args, **kwargs)
    except (ValueError, RuntimeError) as e:
        raise TesseraSparkError(str(e)) from None


def _plan(**settings) -> DedupPlan:
    """The engine's plan of `settings`, built on the driver so that bad settings fail here
    with the engine's message; executors get it pickled."""
    return _checked(DedupPlan, **settings)


# ---------------------------------------------------------------------------------------
# Executor side: Arrow batches in, Arrow batches out.


def _valid(array) -> "numpy.ndarray":
    """Which values of an Arrow array are not null, as a numpy bool array."""
    import numpy as np
    import pyarrow.compute as pc

    return np.asarray(pc.is_valid(array).to_numpy(zero_copy_only=False), dtype=bool)


def _column(table, name: str):
    """A table's column as one Arrow array."""
    return table.column(name).combine_chunks()


def _table(batches):
    """A partition's batches as one Arrow table; None when it has no row (Spark's 200
    shuffle partitions over a small input leave most empty)."""
    import pyarrow as pa

    batches = list(batches)
    table = pa.Table.from_batches(batches) if batches else None
    return table if table is not None and table.num_rows else None


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


def _row_input(batch: "pa.RecordBatch", json_fields: _JsonFields | None) -> tuple:
    """What the engine's row kernels (`DedupPlan.sign_rows`, `_read_rows`) take of a batch:
    the buffers of its text or raw JSONL column, which rows may give a document (a null
    row does not, nor a null id unless the JSONL lines carry their ids), and the fields to
    read the lines by."""
    offsets, data, valid = _buffers(batch.column(_LINE if json_fields else _TEXT))
    if json_fields is None or json_fields.id is None:
        valid &= _valid(batch.column(_ID))
    fields = {"text_field": json_fields.text, "id_field": json_fields.id} if json_fields else {}
    return offsets, data, valid, fields


def _sign_batches(plan: DedupPlan, exact: bool, keep_row: bool, json_fields: _JsonFields | None, batches):
    """Band keys of each batch's documents (`DedupPlan.sign_rows` on the text or raw JSONL
    column's buffers; a blank line dropped), and with `exact` each one's row digest
    (`row_digests`, checked when the row is read again), else its signature; null for a
    row that gives no document. `keep_row`: the row itself too (exact verification
    without a second read)."""
    import numpy as np
    import pyarrow as pa

    from tessera._tessera import row_digests

    source = _LINE if json_fields else _TEXT
    for batch in batches:
        offsets, data, valid, fields = _row_input(batch, json_fields)
        status, sigs, keys, usable, read_ids, _texts = plan.sign_rows(offsets, data, valid, **fields)
        n, ok = batch.num_rows, status == 0
        key_offsets = pa.array(np.arange(n + 1, dtype=np.int32) * keys.shape[1])
        key_values = pa.array(keys.reshape(-1).view(np.int64))
        columns = {c: batch.column(c) for c in (_VID, _O1, _O2)}
        columns[_ID] = _strings(read_ids, ok) if read_ids is not None else batch.column(_ID)
        columns[_KEYS] = pa.ListArray.from_arrays(key_offsets, key_values, mask=pa.array(~(ok & usable)))
        if exact:
            columns[_DIGEST] = pa.array(row_digests(offsets, data).view(np.int64), mask=~ok)
        else:  # each signature's num_perm little-endian u32s as one binary value
            validity = pa.py_buffer(np.packbits(ok, bitorder="little"))
            sigs = np.ascontiguousarray(sigs)
            sig_offsets = pa.py_buffer(np.arange(n + 1, dtype=np.int32) * (sigs.shape[1] * sigs.dtype.itemsize))
            columns[_SIG] = pa.Array.from_buffers(pa.binary(), n, [validity, sig_offsets, pa.py_buffer(sigs)])
        if keep_row:
            columns[_ROW] = batch.column(source)
        out = pa.RecordBatch.from_arrays(list(columns.values()), names=list(columns))
        blank = status == 1
        yield out.filter(pa.array(~blank)) if blank.any() else out


def _pair_partition(plan: DedupPlan, batches):
    """Candidate pairs `(a, b)` (a before b in document order) of one partition's band rows
    `(band, key, o1, o2, vid)`, partitioned by (band, key) so every bucket is whole here:
    one `DedupPlan.band_row_pairs` call."""
    import numpy as np
    import pyarrow as pa

    table = _table(batches)
    if table is None:
        return
    columns = [_column(table, c).to_numpy().astype(np.int64, copy=False) for c in ("band", "key", _O1, _O2, _VID)]
    pairs = np.asarray(plan.band_row_pairs(*columns), dtype=np.int64).reshape(-1, 2)
    if len(pairs) == 0:
        return
    yield pa.RecordBatch.from_arrays([pa.array(pairs[:, 0]), pa.array(pairs[:, 1])], names=["a", "b"])


def _cluster_partition(plan: DedupPlan, exact: bool, json_fields: _JsonFields | None, batches):
    """The clusters of one partition's components, each whole there: rows are members (a
    signature, or with `exact` a row, text or JSONL line, and its digest) or pairs (`b`
    set, `vid` the earlier document). Components share no pair, so one
    `DedupPlan.cluster` (`cluster_rows`) call covers them all."""
    import numpy as np
    import pyarrow as pa

    from tessera._tessera import _member_pairs

    table = _table(batches)
    if table is None:
        return
    is_pair = _valid(_column(table, "b"))
    members, pairs = table.filter(pa.array(~is_pair)), table.filter(pa.array(is_pair))
    comp, vid = _column(members, _COMP).to_numpy(), _column(members, _VID).to_numpy()
    order = pa.array(np.lexsort((vid, _column(members, _O2).to_numpy(), _column(members, _O1).to_numpy(), comp)))
    vid = vid[order.to_numpy()]
    local = _member_pairs(vid, _column(pairs, _VID).to_numpy(), _column(pairs, "b").to_numpy())
    if exact:
        offsets, data, _ = _buffers(_column(members, _ROW).take(order))
        digests = _column(members, _DIGEST).take(order).to_numpy().view(np.uint64)
        text_field = json_fields.text if json_fields else None
        kept, similarity = plan.cluster_rows(offsets, data, digests, local, text_field=text_field)
    else:
        offsets, data, _ = _buffers(_column(members, _SIG).take(order))
        kept, similarity = plan.cluster(data[offsets[0] : offsets[-1]].view("<u4").reshape(-1, plan.num_perm), local)
    kept = np.asarray(kept, dtype=np.int64)
    yield pa.RecordBatch.from_arrays(
        [pa.array(vid), _column(members, _ID).take(order).take(pa.array(kept)), pa.array(kept == np.arange(len(vid)))]
        + [pa.array(np.asarray(similarity, dtype=np.float64))],
        names=[_VID, "cluster", "kept", "similarity"],
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
    """A run's `result` (_VID, _O1, _O2, id, cluster, kept, similarity for every document;
    lines: and removed_lines, text), and the persisted `signed` (every record) and
    `clustered` (documents in a component) it comes from (unpersist them when done)."""

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
    the engine's union-find (`_pair_components`): `(components, pair_rows, n)`, rows
    `(_VID, _COMP)` for the `n` documents in a pair and the distinct pairs as `(_COMP,
    _VID, b)` (`_VID` the earlier document), as `_components` and a join give them."""
    import numpy as np
    import pyarrow as pa

    from tessera._tessera import _pair_components

    table = _collect_arrow(pairs)
    a, b = (np.ascontiguousarray(table.column(c).to_numpy(), dtype=np.int64) for c in ("a", "b"))
    vertices, comp, lo, hi, pair_comp = _pair_components(a, b)
    spark = pairs.sparkSession
    components = _local_frame(spark, pa.table({_VID: vertices, _COMP: comp}), f"{_VID} long, {_COMP} long")
    pair_rows = pa.table({_COMP: pair_comp, _VID: lo, "b": hi})
    pair_rows = _local_frame(spark, pair_rows, f"{_COMP} long, {_VID} long, b long")
    return components, pair_rows, len(vertices)


def _dedup_ordered(
    docs: "DataFrame",
    plan: DedupPlan,
    partitions: int | None = None,
    broadcast_rows: int = BROADCAST_ROWS,
    verify: str = VERIFY,
    json_fields: _JsonFields | None = None,
    driver_pairs: int = DRIVER_PAIRS,
    reread: bool = False,
) -> _Run:
    """The clusters of `docs` (_VID, _O1, _O2, _ID and _TEXT, or with `json_fields` _LINE;
    a null text or id gives no document). `broadcast_rows`, `driver_pairs`: see `dedup`.
    Exact verification needs the rows of documents in pairs: with `reread`, `docs` is
    computed again for them (giving every row the same _VID, as a scan of files does;
    each row is checked against its digest), else every row is cached with its keys."""
    from pyspark import StorageLevel
    from pyspark.sql import functions as F

    exact = _verify_mode(verify)
    keep_row = exact and not reread
    source = _LINE if json_fields else _TEXT
    row_type = "binary" if json_fields else "string"
    source_col = F.col(source).cast(row_type)
    signed = docs.select(_VID, _O1, _O2, _ID, source_col.alias(source)).mapInArrow(
        lambda batches: _sign_batches(plan, exact, keep_row, json_fields, batches),
        f"{_VID} long, {_O1} long, {_O2} long, {_ID} string, {_KEYS} array<long>, "
        + (f"{_DIGEST} long" if exact else f"{_SIG} binary")
        + (f", {_ROW} {row_type}" if keep_row else ""),
    )
    signed = signed.persist(StorageLevel.MEMORY_AND_DISK)
    # A row gives a document when it has a digest (exact) or a signature (estimate).
    payload = _DIGEST if exact else _SIG
    good = signed.where(F.col(payload).isNotNull())

    bands = good.where(F.col(_KEYS).isNotNull()).select(_VID, _O1, _O2, F.posexplode(_KEYS).alias("band", "key"))
    by_bucket = bands.repartition(partitions, "band", "key") if partitions else bands.repartition("band", "key")
    pairs = by_bucket.mapInArrow(lambda batches: _pair_partition(plan, batches), "a long, b long")
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
    none = [(_O1, "long"), (_O2, "long"), (_ID, "string"), (payload, "long" if exact else "binary")]
    none += [(_ROW, row_type)] if exact else []
    pair_rows = pair_rows.select(_COMP, _VID, *[F.lit(None).cast(t).alias(c) for c, t in none], "b")
    rows = members.unionByName(pair_rows)
    rows = rows.repartition(partitions, _COMP) if partitions else rows.repartition(_COMP)
    clustered = rows.mapInArrow(
        lambda batches: _cluster_partition(plan, exact, json_fields, batches),
        f"{_VID} long, cluster string, kept boolean, similarity double",
    ).persist(StorageLevel.MEMORY_AND_DISK)
    # A document in no pair is kept alone, similarity 1.
    result = good.select(_VID, _O1, _O2, _ID).join(hint(clustered), _VID, "left").select(
        _VID, _O1, _O2, F.col(_ID).alias("id"), F.coalesce("cluster", _ID).alias("cluster"),
        F.coalesce("kept", F.lit(True)).alias("kept"), F.coalesce("similarity", F.lit(1.0)).alias("similarity"),
    )
    return _Run(result, signed, clustered)


def _kept_records(rows: "DataFrame", result: "DataFrame", method: str, text_col: str) -> "DataFrame":
    """The kept rows of `rows` (_VID, _O1, _O2, _RECORD) as they were, in document order;
    with the lines method, the text column without its removed lines."""
    from pyspark.sql import functions as F

    record = F.col(_RECORD)
    if method == "lines":
        record = record.withField(f"`{text_col}`", F.col("text"))
    kept = result.where(F.col("kept")).select(_VID, *(["text"] if method == "lines" else []))
    rows = rows.select(_VID, _O1, _O2, _RECORD).join(kept, _VID).orderBy(_O1, _O2)
    return rows.select(record.alias(_RECORD)).select(f"{_RECORD}.*")


def _verify_mode(verify: str) -> bool:
    """True for exact verification (`verify`: ``tessera dedup --verify`` but "auto")."""
    if verify not in ("exact", "estimate"):
        raise TesseraSparkError(f'verify is "exact" or "estimate", not {verify!r}')
    return verify == "exact"


