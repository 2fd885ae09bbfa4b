"""The methods that hash the text itself, on Spark: ``exact`` (identical texts, the first
kept) and ``lines`` (lines an earlier document had are removed). Keys, the rule for a
document left with nothing, and the text written back are the engine's kernels
(``_read_rows``, ``_exact_keys``, ``_line_key_rows``, ``_lines_outcome``,
``_remove_lines``); Spark groups the keys:

* exact: documents are grouped by their 128-bit key; in document order the first of a
  group is kept and the others name it as their cluster (similarity 1);
* lines: every non-blank line becomes a row (document, line number, key); the first
  document (in document order) holding a key keeps it, and each later document's lines
  with that key are removed, which gives each document its removed lines, then its
  verdict and text.

The answer equals ``tessera dedup --method exact|lines`` on the same records."""

from __future__ import annotations

from typing import TYPE_CHECKING, Iterator

from ._job import _ID, _LINE, _O1, _O2, _TEXT, _VID, _buffers, _JsonFields, _row_input, _Run, _strings

if TYPE_CHECKING:  # pragma: no cover
    import pyarrow as pa
    from pyspark.sql import DataFrame

_HI = "__tessera_hi"  # an exact key's high 64 bits
_LO = "__tessera_lo"  # its low 64 bits
_LINENO = "__tessera_lineno"
_LKEY = "__tessera_lkey"
_REMOVED = "__tessera_removed"

METHODS = ("minhash", "exact", "lines")


def _read_batches(json_fields: _JsonFields | None, batches: Iterator["pa.RecordBatch"]) -> Iterator["pa.RecordBatch"]:
    """Each row's id and text, read by the engine's rule (texts, or raw JSONL lines); a
    row that gives no document keeps a null text (a failure), a blank JSONL line is
    dropped (no record), as `tessera dedup` reads them."""
    import pyarrow as pa

    from tessera._tessera import _read_rows

    for batch in batches:
        offsets, data, valid, fields = _row_input(batch, json_fields)
        ids = batch.column(_ID)
        status, read_ids, texts = _read_rows(offsets, data, valid, **fields)
        ok = status == 0
        id_col = _strings(read_ids, ok) if read_ids is not None else ids
        out = pa.RecordBatch.from_arrays(
            [batch.column(_VID), batch.column(_O1), batch.column(_O2), id_col, _strings(texts, ok)],
            names=[_VID, _O1, _O2, _ID, _TEXT],
        )
        blank = status == 1
        yield out.filter(pa.array(~blank)) if blank.any() else out


def _exact_batches(batches: Iterator["pa.RecordBatch"]) -> Iterator["pa.RecordBatch"]:
    import pyarrow as pa

    from tessera._tessera import _exact_keys

    for batch in batches:
        offsets, data, _ = _buffers(batch.column(_TEXT))
        high, low = _exact_keys(offsets, data)
        yield pa.RecordBatch.from_arrays(
            [batch.column(_VID), batch.column(_O1), batch.column(_O2), batch.column(_ID), pa.array(high), pa.array(low)],
            names=[_VID, _O1, _O2, _ID, _HI, _LO],
        )


def _line_batches(batches: Iterator["pa.RecordBatch"]) -> Iterator["pa.RecordBatch"]:
    import numpy as np
    import pyarrow as pa

    from tessera._tessera import _line_key_rows

    for batch in batches:
        offsets, data, _ = _buffers(batch.column(_TEXT))
        rows, lines, keys = _line_key_rows(offsets, data)
        take = pa.array(rows.astype(np.int64))
        yield pa.RecordBatch.from_arrays(
            [batch.column(c).take(take) for c in (_VID, _O1, _O2)] + [pa.array(lines), pa.array(keys)],
            names=[_VID, _O1, _O2, _LINENO, _LKEY],
        )


def _outcome_batches(batches: Iterator["pa.RecordBatch"]) -> Iterator["pa.RecordBatch"]:
    """Each document's verdict (the engine's `lines_outcome`) and its text without its
    removed lines."""
    import pyarrow as pa

    from tessera._tessera import _lines_outcome, _remove_lines

    for batch in batches:
        texts = batch.column(_TEXT).to_pylist()
        removed = [sorted(r) if r else [] for r in batch.column(_REMOVED).to_pylist()]
        kept, similarity, out = [], [], []
        for text, gone in zip(texts, removed):
            k, s = _lines_outcome(text, gone)
            kept.append(k)
            similarity.append(s)
            out.append(_remove_lines(text, gone) if gone else text)
        ids = batch.column(_ID)
        yield pa.RecordBatch.from_arrays(
            [
                batch.column(_VID),
                batch.column(_O1),
                batch.column(_O2),
                ids,
                ids,
                pa.array(kept, pa.bool_()),
                pa.array(similarity, pa.float64()),
                pa.array(removed, pa.list_(pa.int32())),
                pa.array(out, pa.string()),
            ],
            names=[_VID, _O1, _O2, "id", "cluster", "kept", "similarity", "removed_lines", "text"],
        )


def dedup_hashed(
    docs: "DataFrame", method: str, json_fields: _JsonFields | None = None, partitions: int | None = None
) -> _Run:
    """The answer of `method` ("exact" or "lines") for `docs` (the columns `_dedup_ordered`
    takes): `result` has _VID, _O1, _O2, id, cluster, kept, similarity (lines: and
    removed_lines, text) for every document."""
    from pyspark import StorageLevel
    from pyspark.sql import Window
    from pyspark.sql import functions as F

    source = _LINE if json_fields else _TEXT
    source_col = F.col(source).cast("binary" if json_fields else "string")
    read = docs.select(_VID, _O1, _O2, _ID, source_col.alias(source)).mapInArrow(
        lambda batches: _read_batches(json_fields, batches),
        f"{_VID} long, {_O1} long, {_O2} long, {_ID} string, {_TEXT} string",
    )
    read = read.persist(StorageLevel.MEMORY_AND_DISK)
    good = read.where(F.col(_TEXT).isNotNull())
    if method == "exact":
        keyed = good.mapInArrow(
            _exact_batches, f"{_VID} long, {_O1} long, {_O2} long, {_ID} string, {_HI} long, {_LO} long"
        )
        if partitions:
            keyed = keyed.repartition(partitions, _HI, _LO)
        first = Window.partitionBy(_HI, _LO).orderBy(_O1, _O2)
        result = keyed.select(
            _VID,
            _O1,
            _O2,
            F.col(_ID).alias("id"),
            F.first(_ID).over(first).alias("cluster"),
            (F.row_number().over(first) == 1).alias("kept"),
            F.lit(1.0).alias("similarity"),
        )
    elif method == "lines":
        lines = good.select(_VID, _O1, _O2, _TEXT).mapInArrow(
            _line_batches, f"{_VID} long, {_O1} long, {_O2} long, {_LINENO} int, {_LKEY} long"
        )
        if partitions:
            lines = lines.repartition(partitions, _LKEY)
        order = F.struct(_O1, _O2)
        first = lines.groupBy(_LKEY).agg(F.min(order).alias("__first"))
        removed = (
            lines.join(first, _LKEY)
            .where(order > F.col("__first"))
            .groupBy(_VID)
            .agg(F.collect_list(_LINENO).alias(_REMOVED))
        )
        result = good.join(removed, _VID, "left").mapInArrow(
            _outcome_batches,
            f"{_VID} long, {_O1} long, {_O2} long, id string, cluster string, kept boolean, similarity double, "
            "removed_lines array<int>, text string",
        )
    else:
        raise ValueError(f"not a hashing method: {method!r}")
    result = result.persist(StorageLevel.MEMORY_AND_DISK)
    return _Run(result, read, result)
