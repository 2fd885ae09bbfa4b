"""Tessera: near-duplicates and borrowed text, over a Rust engine.

Sketches in the shapes datasketch and rensa users know (``MinHash``, ``MinHashLSH``,
``SimHash``, ``SimHashIndex``), whole texts through Tessera's own normalizer
(``sketch``, ``dedup``; the same values and clusters as the ``tessera`` command line,
with the engine's defaults, ``DEDUP_DEFAULTS``) and the index on disk (``Index``: add, check, near, delete, stats). The work runs in
Rust, in parallel and without the GIL where it is a batch.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, Iterable, Optional, Union

from ._tessera import (
    DEDUP_DEFAULTS,
    MAX_TEXT_BYTES,
    DedupPlan,
    Index,
    LeanMinHash,
    MinHash,
    MinHashLSHForest,
    RedisConnectionError,
    RedisInsertionSession,
    RedisMinHashLSH,
    Shard,
    ShardedIndex,
    ShardUnavailableError,
    SimHash,
    SimHashIndex,
    TesseraError,
    __version__,
    _dedup_columns,
    _remove_lines,
    build_shards,
    shard_of,
    shard_path,
    sketch,
)
from ._tessera import MinHashLSH as _MinHashLSH

from . import kernels

if TYPE_CHECKING:  # pragma: no cover
    import pyarrow  # type: ignore[import-untyped]

__all__ = [
    "DEDUP_DEFAULTS",
    "Index",
    "LeanMinHash",
    "MAX_TEXT_BYTES",
    "MinHash",
    "MinHashLSH",
    "MinHashLSHForest",
    "RedisConnectionError",
    "RedisInsertionSession",
    "RedisMinHashLSH",
    "Shard",
    "ShardUnavailableError",
    "ShardedIndex",
    "SimHash",
    "SimHashIndex",
    "TesseraError",
    "__version__",
    "build_shards",
    "dedup",
    "kernels",
    "shard_of",
    "shard_path",
    "sketch",
]


class _MinHashLSHType(type):
    """MinHashLSH's metaclass: an LSH in memory (or loaded from disk) and one in Redis
    are both ``isinstance(x, tessera.MinHashLSH)``, whichever class made them."""

    def __instancecheck__(cls, obj: object) -> bool:
        if cls is MinHashLSH:
            return isinstance(obj, (_MinHashLSH, RedisMinHashLSH))
        return super().__instancecheck__(obj)

    def __subclasscheck__(cls, sub: type) -> bool:
        if cls is MinHashLSH:
            return issubclass(sub, (_MinHashLSH, RedisMinHashLSH))
        return super().__subclasscheck__(sub)


class MinHashLSH(_MinHashLSH, metaclass=_MinHashLSHType):
    __doc__ = _MinHashLSH.__doc__
    __slots__ = ()

    def __new__(
        cls,
        threshold: float = 0.8,
        num_perm: int = 128,
        weights: tuple[float, float] = (0.5, 0.5),
        params: Optional[tuple[int, int]] = None,
        storage_config: Optional[dict[str, Any]] = None,
        **kwargs: Any,
    ) -> Any:
        """The in-memory LSH, or with ``storage_config={"type": "redis", "redis": {...},
        "basename": b"..."}`` (datasketch's shape) a ``RedisMinHashLSH`` that every
        process opening the same basename shares. Other arguments go to the chosen
        class unchanged."""
        if isinstance(storage_config, dict) and storage_config.get("type") == "redis":
            return RedisMinHashLSH(threshold, num_perm, weights, params, storage_config, **kwargs)
        if storage_config is not None:
            kwargs["storage_config"] = storage_config
        return super().__new__(cls, threshold, num_perm, weights, params, **kwargs)


def dedup(
    texts: Iterable[str],
    ids: Optional[Iterable[Union[str, int]]] = None,
    method: str = DEDUP_DEFAULTS.method,
    threshold: float = DEDUP_DEFAULTS.threshold,
    max_distance: int = DEDUP_DEFAULTS.max_distance,
    num_perm: int = DEDUP_DEFAULTS.num_perm,
    seed: int = DEDUP_DEFAULTS.seed,
    verify: str = DEDUP_DEFAULTS.verify,
    exact: bool = False,
    shingle_size: int = DEDUP_DEFAULTS.shingle_size,
    stop_words: bool = DEDUP_DEFAULTS.stop_words,
    stemming: bool = DEDUP_DEFAULTS.stemming,
    language: Optional[str] = None,
    short_words: int = DEDUP_DEFAULTS.short_words,
    as_arrow: Optional[bool] = None,
) -> Union["pyarrow.Table", list[dict[str, Any]]]:
    """Near-duplicate clusters of texts, as ``tessera dedup`` finds them.

    The engine's deduplicator (the one ``tessera dedup`` runs): Tessera's normalizer and
    word shingles, MinHash signatures with LSH bands chosen for ``threshold`` (or 64-bit
    SimHash with tf-idf weights and permuted tables for ``method="simhash"``), each
    candidate checked against its cluster's kept document (no chaining; the first
    document of a cluster is kept). The answer is the CLI's for the same records: the
    same ids, clusters, kept flags and similarities (rounded to 4 decimals). Defaults are
    the engine's (``DEDUP_DEFAULTS``), the command line's.

    Args:
        texts: the documents' texts, in order (str).
        ids: one id per text (str, or int written in decimal). Default: "1", "2", ...,
            the line numbers ``tessera dedup`` gives the records of one JSONL file.
        method: "minhash" (Jaccard similarity of shingle sets), "simhash" (Hamming
            distance of fingerprints), "exact" (identical texts, whitespace runs counting
            as one space) or "lines" (lines seen in an earlier text are removed from later
            ones: boilerplate; a text left with no line is not kept).
        threshold: MinHash: the Jaccard similarity of near-duplicates, in (0, 1).
        max_distance: SimHash: the largest Hamming distance of near-duplicates (<= 8).
        num_perm: MinHash: hash functions per signature.
        seed: MinHash: seed of the hash functions.
        verify: MinHash: how candidates are verified: "exact" (the Jaccard similarity of
            the shingle sets, kept in memory at 8 bytes per distinct shingle),
            "estimate" (the signatures' share of equal values) or "auto" (default: exact
            while the sets fit 2 GiB), as ``tessera dedup --verify``.
        exact: the same as ``verify="exact"`` (``tessera dedup --exact``).
        shingle_size: words per shingle.
        stop_words: drop stop words.
        stemming: reduce words to Snowball stems.
        language: force the language of Latin-script words (ISO 639-1); None detects it.
        short_words: texts of fewer terms are shingled cyclically.
        as_arrow: True: a ``pyarrow.Table`` (ImportError without pyarrow); False: a list
            of dicts; None (default): a table when pyarrow is importable.

    Returns:
        One row per text, in order, with columns ``id`` (string), ``cluster`` (string:
        the id of the cluster's kept document), ``kept`` (bool) and ``similarity``
        (float64: to the kept document; 1 for kept documents). With ``method="lines"``
        each text is its own cluster, ``similarity`` is the share of its characters in
        removed lines, and two more columns give ``removed_lines`` (list of int64: 0-based
        line numbers) and ``text`` (the text without them: the records out). A table
        carries the run's totals (documents, clusters, duplicates_removed, method,
        verified, bands, rows, lines_removed) as JSON in its schema metadata under
        ``b"tessera.summary"``.

    Raises:
        ValueError: a setting out of range, or ids not one per text.
        TypeError: a text that is not a str, an id that is not a str or int.
    """
    lines = method == "lines"
    if lines:
        # The texts are needed twice: sketched, then written without their removed lines.
        texts = list(texts)
    ids_col, cluster_col, kept_col, sim_col, summary, removed_col = _dedup_columns(
        texts,
        ids,
        method=method,
        threshold=threshold,
        max_distance=max_distance,
        num_perm=num_perm,
        seed=seed,
        verify=verify,
        exact=exact,
        shingle_size=shingle_size,
        stop_words=stop_words,
        stemming=stemming,
        language=language,
        short_words=short_words,
    )
    text_col = [_remove_lines(t, r) for t, r in zip(texts, removed_col)] if lines else []
    if as_arrow is None:
        try:
            import pyarrow  # noqa: F401
        except ImportError:
            as_arrow = False
        else:
            as_arrow = True
    if as_arrow:
        import json

        import pyarrow as pa

        fields = [
            ("id", pa.string()),
            ("cluster", pa.string()),
            ("kept", pa.bool_()),
            ("similarity", pa.float64()),
        ]
        arrays = [
            pa.array(ids_col, pa.string()),
            pa.array(cluster_col, pa.string()),
            pa.array(kept_col, pa.bool_()),
            pa.array(sim_col, pa.float64()),
        ]
        if lines:
            fields += [("removed_lines", pa.list_(pa.int64())), ("text", pa.string())]
            arrays += [pa.array(removed_col, pa.list_(pa.int64())), pa.array(text_col, pa.string())]
        schema = pa.schema(fields, metadata={b"tessera.summary": json.dumps(summary).encode()})
        return pa.Table.from_arrays(arrays, schema=schema)
    rows = [
        {"id": i, "cluster": c, "kept": bool(k), "similarity": float(s)}
        for i, c, k, s in zip(ids_col, cluster_col, kept_col, sim_col)
    ]
    if lines:
        for row, removed, text in zip(rows, removed_col, text_col):
            row["removed_lines"] = list(removed)
            row["text"] = text
    return rows
