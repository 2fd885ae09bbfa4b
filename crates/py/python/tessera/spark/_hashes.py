"""The methods that hash the text itself (``exact``, ``lines``) on Spark. Keys, verdicts
and texts are the engine's kernels; Spark groups the keys: exact keeps the first document
(in document order) of each key and names it as the others' cluster; lines removes from
each document the lines whose key an earlier document had."""

from __future__ import annotations

from ._job import _ID, _LINE, _O1, _O2, _TEXT, _VID, _buffers, _JsonFields, _row_input, _Run, _strings

_HI, _LO = "__tessera_hi", "__tessera_lo"  # an exact key's 64-bit halves
_LINENO, _LKEY, _REMOVED = "__tessera_lineno", "__tessera_lkey", "__tessera_removed"
METHODS = ("minhash", "exact", "lines")


def _read_batches(json_fields: _JsonFields | None, batches):
    """Each row's id and text by the engine's rule (`_read_rows`): a row that gives no
    document keeps a null text (a failure), a blank JSONL line is dropped."""
    import pyarrow as pa

    from tessera._tessera import _read_rows

    for batch in batches:
        offsets, data, valid, fields = _row_input(batch, json_fields)
        status, read_ids, texts = _read_rows(offsets, data, valid, **fields)
        ok = status == 0
        ids = _strings(read_ids, ok) if read_ids is not None else batch.column(_ID)
        out = pa.RecordBatch.from_arrays(
            [batch.column(_VID), batch.column(_O1), batch.column(_O2), ids, _strings(texts, ok)],
            names=[_VID, _O1, _O2, _ID, _TEXT],
        )
        yield out.filter(pa.array(status != 1)) if (status == 1).any() else out


def _exact_batches(batches):
    import pyarrow as pa

    from tessera._tessera import _exact_keys

    for batch in batches:
        high, low = _exact_keys(*_buffers(batch.column(_TEXT))[:2])
        columns = [batch.column(c) for c in (_VID, _O1, _O2, _ID)] + [pa.array(high), pa.array(low)]
        yield pa.RecordBatch.from_arrays(columns, names=[_VID, _O1, _O2, _ID, _HI, _LO])


def _line_batches(batches):
    import pyarrow as pa

    from tessera._tessera import _line_key_rows

    for batch in batches:
        rows, lines, keys = _line_key_rows(*_buffers(batch.column(_TEXT))[:2])
        take = pa.array(rows)
        columns = [batch.column(c).take(take) for c in (_VID, _O1, _O2)] + [pa.array(lines), pa.array(keys)]
        yield pa.RecordBatch.from_arrays(columns, names=[_VID, _O1, _O2, _LINENO, _LKEY])


def _outcome_batches(batches):
    """Each document's verdict, removed lines and text without them (`_lines_verdicts`)."""
    import pyarrow as pa

    from tessera._tessera import _lines_verdicts

    for batch in batches:
        kept, similarity, removed, texts = _lines_verdicts(
            batch.column(_TEXT).to_pylist(), batch.column(_REMOVED).to_pylist()
        )
        ids = batch.column(_ID)
        columns = [batch.column(_VID), batch.column(_O1), batch.column(_O2), ids, ids, pa.array(kept, pa.bool_())]
        columns += [pa.array(similarity, pa.float64()), pa.array(removed, pa.list_(pa.int32()))]
        columns += [pa.array(texts, pa.string())]
        names = [_VID, _O1, _O2, "id", "cluster", "kept", "similarity", "removed_lines", "text"]
        yield pa.RecordBatch.from_arrays(columns, names=names)


def dedup_hashed(docs, method: str, json_fields: _JsonFields | None = None, partitions: int | None = None) -> _Run:
    """The answer of `method` ("exact" or "lines") for `docs` (as `_dedup_ordered` takes
    them): _VID, _O1, _O2, id, cluster, kept, similarity (lines: and removed_lines, text)."""
    from pyspark import StorageLevel
    from pyspark.sql import Window
    from pyspark.sql import functions as F

    source = _LINE if json_fields else _TEXT
    read = docs.select(_VID, _O1, _O2, _ID, F.col(source).cast("binary" if json_fields else "string").alias(source))
    read = read.mapInArrow(
        lambda batches: _read_batches(json_fields, batches),
        f"{_VID} long, {_O1} long, {_O2} long, {_ID} string, {_TEXT} string",
    )
    read = read.persist(StorageLevel.MEMORY_AND_DISK)
    good = read.where(F.col(_TEXT).isNotNull())
    if method == "exact":
        keys = f"{_VID} long, {_O1} long, {_O2} long, {_ID} string, {_HI} long, {_LO} long"
        keyed = good.mapInArrow(_exact_batches, keys)
        keyed = keyed.repartition(partitions, _HI, _LO) if partitions else keyed
        first = Window.partitionBy(_HI, _LO).orderBy(_O1, _O2)
        result = keyed.select(
            _VID, _O1, _O2, F.col(_ID).alias("id"), F.first(_ID).over(first).alias("cluster"),
            (F.row_number().over(first) == 1).alias("kept"), F.lit(1.0).alias("similarity"),
        )
    elif method == "lines":
        lines = good.select(_VID, _O1, _O2, _TEXT).mapInArrow(
            _line_batches, f"{_VID} long, {_O1} long, {_O2} long, {_LINENO} int, {_LKEY} long"
        )
        lines = lines.repartition(partitions, _LKEY) if partitions else lines
        order = F.struct(_O1, _O2)
        first = lines.groupBy(_LKEY).agg(F.min(order).alias("__first"))
        removed = lines.join(first, _LKEY).where(order > F.col("__first")).groupBy(_VID)
        removed = removed.agg(F.collect_list(_LINENO).alias(_REMOVED))
        result = good.join(removed, _VID, "left").mapInArrow(
            _outcome_batches,
            f"{_VID} long, {_O1} long, {_O2} long, id string, cluster string, kept boolean, similarity double, "
            "removed_lines array<int>, text string",
        )
    else:
        raise ValueError(f"not a hashing method: {method!r}")
    result = result.persist(StorageLevel.MEMORY_AND_DISK)
    return _Run(result, read, result)
