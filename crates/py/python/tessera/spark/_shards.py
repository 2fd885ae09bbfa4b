"""The shards of an index built on Spark, ``python -m tessera.spark index INPUT...
--output DIR --shards N``: one task a shard, each writing an ordinary index folder
(``tessera.shard_path``) with the engine, every document under the id one index holding
the same documents in the same order would give it (docs/design.md 9.2). Records are read
as ``dedup`` reads them (Parquet or JSONL, in order, ``FILE:LINE`` ids), the id becoming the
document's origin; numbering, partitioning and sorting are Spark's, the rest the
engine's."""

from __future__ import annotations

import os
from functools import partial
from typing import TYPE_CHECKING

from ._hashes import _read_batches
from ._inputs import _absolute, read_inputs
from ._job import _ID, _LINE, _O1, _O2, _TEXT, _VID, TesseraSparkError, _checked, _JsonFields

if TYPE_CHECKING:  # pragma: no cover
    from pyspark.sql import SparkSession

# Documents a shard's task hands the engine per add (one segment each): a shard's
# documents arrive sorted by id as a stream, so its memory is this batch's, not the shard's.
ADD_BATCH = 20_000


def build_index_shards(
    spark: "SparkSession",
    inputs: list[str],
    output: str,
    shards: int,
    *,
    text_col: str = "text",
    id_col: str | None = None,
    order_col: str | None = None,
    fmt: str | None = None,
    collection: str | None = None,
    kind: str | None = None,
    keep_texts: bool | None = None,
    shingle_size: int | None = None,
    stop_words: bool | None = None,
    stemming: bool | None = None,
    language: str | None = None,
) -> dict:
    """Builds the `shards` shards of a new index under `output` (a folder every executor
    can write: local or shared) from the records of `inputs`; returns the summary:
    documents added in all and per shard, and the records that gave no document (a row
    without a text, or a text over ``MAX_TEXT_BYTES``): their count and the first 20.
    Fingerprint settings left None are ``Index.create``'s defaults, the collection's
    ``Index.add``'s. Reports of the shards
    checked together (``ShardedIndex.open(output)``) equal one index's holding the same
    documents."""
    import tessera

    out = _absolute(output)
    _checked(tessera.shard_path, out, 0, shards)  # the engine's rule: at least one shard
    if ":" in out.split("/")[0]:
        raise TesseraSparkError(f"{output}: shards are written by the engine to a folder (local or shared), not a URI")
    if os.path.isdir(out) and any(os.scandir(out)):
        raise TesseraSparkError(f"{output} is not empty: shards are built into a new folder")
    given = dict(shingle_size=shingle_size, stop_words=stop_words, stemming=stemming, language=language)
    settings = {k: v for k, v in given.items() if v is not None}
    docs = read_inputs(spark, inputs, text_col, id_col, order_col, fmt)
    json_fields = _JsonFields(text_col, id_col) if _LINE in docs.columns else None
    schema = f"{_VID} long, {_O1} long, {_O2} long, {_ID} string, {_TEXT} string"
    read = docs.mapInArrow(partial(_read_batches, json_fields), schema).cache()
    try:
        from pyspark.sql import functions as F

        # A record gives a document when it has a text within the engine's cap (as `tessera
        # index` refuses a longer one by name); only those are numbered.
        usable = F.col(_TEXT).isNotNull() & (F.octet_length(_TEXT) <= tessera.MAX_TEXT_BYTES)
        refused = read.where(~usable).select(_ID, _TEXT)
        failed_count = refused.count()
        failed = [{"origin": r[_ID], "reason": _failure(r[_TEXT])} for r in refused.take(20)]
        ordered = read.where(usable).orderBy(_O1, _O2).select(_ID, _TEXT)
        numbered = ordered.rdd.zipWithIndex().map(lambda pair: (pair[1], (pair[0][0], pair[0][1])))
        n = shards
        by_shard = numbered.repartitionAndSortWithinPartitions(n, partitionFunc=partial(_owner, n))
        given = dict(collection=collection, kind=kind, keep_texts=keep_texts)
        options = {k: v for k, v in given.items() if v is not None}
        written = by_shard.mapPartitionsWithIndex(partial(_write_shard, out, n, settings, options)).collect()
    finally:
        read.unpersist()
    written.sort(key=lambda w: w["shard"])
    return dict(
        shards=n,
        added=sum(w["added"] for w in written),
        per_shard=[w["added"] for w in written],
        failed=failed_count,
        failed_first=failed,
        path=out,
    )


def _failure(text: str | None) -> str:
    import tessera

    if text is None:
        return "no text (a null or missing text field, or an unreadable line)"
    return f"the text is over {tessera.MAX_TEXT_BYTES} bytes"


def _owner(shards: int, doc: int) -> int:
    """The shard owning document number `doc` (the engine's `shard_of`)."""
    from tessera._tessera import shard_of

    return shard_of(doc, shards)


def _write_shard(out: str, shards: int, settings: dict, options: dict, shard: int, rows):
    """One shard's task: its documents `(id, (origin, text))`, sorted by id, added to a new
    index at its folder in batches. A shard folder adds only under the ids it owns, and
    every id below the last is some shard's, so each document gets its number as its id:
    checked against what the engine answers. A shard without documents is still made."""
    import tessera

    index = tessera.Index.create(tessera.shard_path(out, shard, shards), **settings)
    added = 0
    batch: list[tuple[int, str, str]] = []

    def flush():
        nonlocal added
        ids = [doc for doc, _, _ in batch]
        texts, origins = [text for _, _, text in batch], [origin for _, origin, _ in batch]
        summary = index.add(texts, origins=origins, force=True, **options)
        got = [a["id"] for a in summary["added"]]
        if got != ids or summary["failed"]:
            first = summary["failed"][0] if summary["failed"] else None
            raise RuntimeError(
                f"shard {shard} of {shards}: the engine gave ids {got[:3]}... for documents {ids[:3]}..."
                + (f" ({first['origin']}: {first['reason']})" if first else "")
            )
        added += len(batch)
        batch.clear()

    for doc, (origin, text) in rows:
        batch.append((doc, origin, text))
        if len(batch) >= ADD_BATCH:
            flush()
    if batch:
        flush()
    yield {"shard": shard, "added": added}
