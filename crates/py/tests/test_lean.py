"""tessera.LeanMinHash: a frozen MinHash in datasketch's byte layout."""

from __future__ import annotations

import copy
import pickle
import struct

import numpy as np
import pytest

import tessera


def mh(items, num_perm=16, seed=1) -> tessera.MinHash:
    m = tessera.MinHash(num_perm=num_perm, seed=seed)
    m.update_batch(items)
    return m


def test_layout_is_seed_int64_count_int32_then_uint32_values():
    m = mh(["a", "b", "c"], num_perm=5, seed=42)
    lean = tessera.LeanMinHash(m)
    assert lean.bytesize() == 8 + 4 + 4 * 5
    for order, expected_order in (("@", "<"), ("=", "<"), ("<", "<"), (">", ">"), ("!", ">")):
        buf = bytearray(lean.bytesize(order))
        lean.serialize(buf, order)
        assert bytes(buf) == struct.pack(f"{expected_order}qi5I", 42, 5, *m.hashvalues.tolist())
        assert tessera.LeanMinHash.deserialize(buf, order) == lean


def test_bytes_equal_datasketch_and_each_reads_the_other():
    datasketch = pytest.importorskip("datasketch")
    for num_perm, seed in ((1, 1), (16, 7), (128, 1), (257, 2**40)):
        m = mh([f"w{i}" for i in range(50)], num_perm=num_perm, seed=seed)
        ours = tessera.LeanMinHash(m)
        # datasketch 2 asks which scheme made the values; "legacy" is its layout
        # without a scheme field, the one tessera writes.
        theirs = datasketch.LeanMinHash(seed=seed, hashvalues=m.hashvalues, scheme="legacy")
        for order in "@=<>!":
            a, b = bytearray(ours.bytesize(order)), bytearray(theirs.bytesize(order))
            ours.serialize(a, order)
            theirs.serialize(b, order)
            assert a == b and len(a) == ours.bytesize(order) == theirs.bytesize(order)
            back = datasketch.LeanMinHash.deserialize(a, order)
            assert back.seed == seed and back.hashvalues.tolist() == m.hashvalues.tolist()
            assert tessera.LeanMinHash.deserialize(b, order) == ours
        assert ours.count() == pytest.approx(theirs.count(), rel=1e-12)


def test_serialize_into_a_shared_buffer_and_errors():
    leans = [tessera.LeanMinHash(mh([str(i)], num_perm=8)) for i in range(3)]
    size = leans[0].bytesize()
    buf = bytearray(size * 3)
    view = memoryview(buf)
    for i, lean in enumerate(leans):
        lean.serialize(view[i * size :])
    assert [tessera.LeanMinHash.deserialize(view[i * size :]) for i in range(3)] == leans
    assert tessera.LeanMinHash.deserialize(bytes(buf)) == leans[0]
    with pytest.raises(ValueError, match="enough space"):
        leans[0].serialize(bytearray(size - 1))
    with pytest.raises(ValueError):
        tessera.LeanMinHash.deserialize(bytes(buf[: size - 1]))
    with pytest.raises(ValueError):
        tessera.LeanMinHash.deserialize(b"\x00" * 5)
    with pytest.raises(ValueError, match="byteorder"):
        leans[0].bytesize("x")
    # datasketch 2's layout with a scheme (negative count) holds another family's values.
    with pytest.raises(ValueError, match="scheme"):
        tessera.LeanMinHash.deserialize(struct.pack("<qiB2I", 1, -2, 1, 5, 6))


def test_frozen_but_a_minhash():
    m = mh(["x", "y"])
    lean = tessera.LeanMinHash(m)
    assert isinstance(lean, tessera.MinHash) and not isinstance(m, tessera.LeanMinHash)
    with pytest.raises(TypeError):
        lean.update("z")
    with pytest.raises(TypeError):
        lean.update_batch(["z"])
    assert lean.jaccard(m) == 1.0 and lean.count() == m.count() and len(lean) == 16
    assert (lean.digest() == m.digest()).all() and lean.seed == m.seed
    # datasketch: equal only to a LeanMinHash (the same class, seed and values).
    assert lean != m and lean == tessera.LeanMinHash(seed=1, hashvalues=m.hashvalues)
    m.update("z")
    assert tessera.LeanMinHash(m) != lean  # built from a copy of the values
    with pytest.raises(ValueError, match="Init parameters"):
        tessera.LeanMinHash()
    with pytest.raises(ValueError, match="scheme"):
        tessera.LeanMinHash(m, scheme="affine32")


def test_pickle_copy_hash_and_union():
    lean = tessera.LeanMinHash(mh(["a", "b"], seed=3))
    for again in (pickle.loads(pickle.dumps(lean)), lean.copy(), copy.copy(lean), copy.deepcopy(lean)):
        assert type(again) is tessera.LeanMinHash and again == lean and again.seed == 3
        assert hash(again) == hash(lean)
    other = tessera.LeanMinHash(mh(["c"], seed=3))
    assert hash(other) != hash(lean) and {lean: 1}[lean.copy()] == 1
    u = tessera.LeanMinHash.union(lean, other)
    assert type(u) is tessera.LeanMinHash
    assert (u.hashvalues == np.minimum(lean.hashvalues, other.hashvalues)).all()


def test_lsh_and_forest_take_it():
    m = mh([f"w{i}" for i in range(20)], num_perm=128)
    lean = tessera.LeanMinHash(m)
    lsh = tessera.MinHashLSH(threshold=0.5)
    lsh.insert("lean", lean)
    assert lsh.query(m) == ["lean"]
    forest = tessera.MinHashLSHForest()
    forest.add("lean", lean)
    forest.index()
    assert forest.query(m, 1) == ["lean"]
