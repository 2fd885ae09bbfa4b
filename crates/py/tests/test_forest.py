"""tessera.MinHashLSHForest: datasketch's LSH Forest (prefix trees as sorted arrays)."""

from __future__ import annotations

import pickle
import random

import pytest

import tessera


def sets(n: int, seed: int) -> list[list[str]]:
    """Sets that overlap in varied amounts: each takes a window of a shared vocabulary."""
    rng = random.Random(seed)
    out = []
    for _ in range(n):
        start, size = rng.randint(0, 300), rng.randint(5, 60)
        out.append([f"w{j}" for j in range(start, start + size)])
    return out


def signatures(n: int, seed: int, num_perm: int = 128) -> list[tessera.MinHash]:
    return tessera.MinHash.bulk(sets(n, seed), num_perm=num_perm)


@pytest.mark.parametrize("num_perm,l", [(128, 8), (64, 4), (100, 7), (32, 32)])
def test_top_k_equals_datasketch_for_the_same_hash_values(num_perm, l):
    datasketch = pytest.importorskip("datasketch")
    ms = signatures(150, num_perm + l, num_perm)
    ours, theirs = tessera.MinHashLSHForest(num_perm=num_perm, l=l), datasketch.MinHashLSHForest(num_perm=num_perm, l=l)
    for i, m in enumerate(ms):
        ours.add(i, m)
        theirs.add(i, datasketch.MinHash(hashvalues=m.hashvalues, scheme="legacy"))
    ours.index()
    theirs.index()
    assert (ours.k, ours.l, ours.hashranges) == (theirs.k, theirs.l, theirs.hashranges)
    queries = signatures(20, 99, num_perm) + ms[:20]
    for q in queries:
        tq = datasketch.MinHash(hashvalues=q.hashvalues, scheme="legacy")
        for k in (1, 5, 10, 40, 500):
            got = ours.query(q, k)
            assert len(got) == len(set(got)) <= k
            assert set(got) == set(theirs.query(tq, k)), (k,)
    assert ours.keys == theirs.keys
    assert [{h: list(v) for h, v in t.items()} for t in ours.hashtables] == [dict(t) for t in theirs.hashtables]
    for i in (0, 7, 149):
        assert (ours.get_minhash_hashvalues(i) == theirs.get_minhash_hashvalues(i)).all()


def test_index_add_contains_and_errors():
    ms = signatures(10, 1)
    forest = tessera.MinHashLSHForest()
    assert forest.is_empty()
    for i, m in enumerate(ms[:5]):
        forest.add(f"k{i}", m)
    assert forest.is_empty() and "k0" in forest and "k9" not in forest
    forest.index()
    assert not forest.is_empty() and forest.query(ms[0], 1) == ["k0"]
    forest.add("late", ms[9])
    assert "late" in forest and "late" not in forest.query(ms[9], 5)  # until index()
    forest.index()
    assert forest.query(ms[9], 1) == ["late"]
    with pytest.raises(ValueError, match="already"):
        forest.add("k0", ms[0])
    with pytest.raises(ValueError, match="k must be positive"):
        forest.query(ms[0], 0)
    with pytest.raises(ValueError, match="out of range"):
        forest.add("short", tessera.MinHash(num_perm=64))
    with pytest.raises(ValueError, match="seed"):
        forest.add("other seed", tessera.MinHash(seed=2))
    with pytest.raises(KeyError):
        forest.get_minhash_hashvalues("absent")
    hv = forest.get_minhash_hashvalues("k1")
    assert tessera.MinHash(hashvalues=hv).jaccard(ms[1]) == 1.0
    for bad in (dict(l=0), dict(num_perm=0), dict(num_perm=4, l=8)):
        with pytest.raises(ValueError):
            tessera.MinHashLSHForest(**bad)


def test_pickle_round_trip_keeps_what_is_searchable():
    ms = signatures(40, 3)
    forest = tessera.MinHashLSHForest(num_perm=128, l=16)
    keys = [("t", i) if i % 2 else i for i in range(40)]
    for key, m in zip(keys[:30], ms[:30]):
        forest.add(key, m)
    forest.index()
    for key, m in zip(keys[30:], ms[30:]):
        forest.add(key, m)  # added, not yet indexed
    again = pickle.loads(pickle.dumps(forest))
    assert (again.l, again.k, again.hashranges) == (forest.l, forest.k, forest.hashranges)
    assert again.keys == forest.keys and again.hashtables == forest.hashtables
    for m in ms:
        assert again.query(m, 7) == forest.query(m, 7)
    again.index()
    forest.index()
    assert [again.query(m, 3) for m in ms] == [forest.query(m, 3) for m in ms]
