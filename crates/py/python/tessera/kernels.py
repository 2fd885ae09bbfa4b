"""The pieces of a distributed MinHash dedup, for jobs that spread the work over many
machines (``tessera.spark``): the engine's ``MinHashPlan`` as ``DedupPlan``.

Running them in this order gives the answer of ``tessera.dedup`` and ``tessera dedup``:

1. ``plan.signatures(texts)`` per document (parallel, without the GIL);
2. ``plan.band_keys(signatures)``: documents sharing the key of one band are a bucket;
3. ``plan.bucket_pairs(sizes, members)``: the candidate pairs of buckets whose members
   are in document order (or ``plan.band_row_pairs(band, key, o1, o2, vid)``, which
   groups and orders unsorted band rows itself, as a Spark partition holds them);
4. ``plan.cluster(signatures, pairs)`` on each connected component of the candidate
   pairs, members in document order (``plan.cluster_texts(texts, pairs)`` or
   ``plan.cluster_rows(offsets, data, digests, pairs)`` to verify with the exact
   similarity, as ``tessera dedup`` does by default; ``row_digests`` gives the digests
   of rows when they are signed).
"""

from ._tessera import DedupPlan, row_digests

__all__ = ["DedupPlan", "row_digests"]
