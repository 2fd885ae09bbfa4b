"""tessera.MinHash: the engine's hash family item by item, as datasketch's MinHash."""

from __future__ import annotations

import copy
import pickle
import random

import numpy as np
import pytest

import tessera

MASK64 = (1 << 64) - 1


def words(n: int, seed: int) -> list[str]:
    rng = random.Random(seed)
    return [f"w{rng.getrandbits(40)}" for _ in range(n)]


def test_str_and_bytes_are_the_same_item_and_order_does_not_matter():
    a, b = tessera.MinHash(), tessera.MinHash()
    a.update_batch(["alpha", "beta", "gamma", "beta"])
    for item in [b"gamma", b"alpha", "beta"]:
        b.update(item)
    assert a == b
    assert a.jaccard(b) == 1.0
    with pytest.raises(TypeError):
        a.update(3)


def test_digest_is_uint64_of_32_bit_values_and_empty_is_all_ones():
    m = tessera.MinHash(num_perm=64, seed=5)
    assert m.is_empty() and len(m) == 64 and m.num_perm == 64 and m.seed == 5
    assert (m.digest() == 0xFFFFFFFF).all()
    m.update("x")
    d = m.digest()
    assert d.dtype == np.uint64 and d.shape == (64,)
    assert (d < 2**32).all() and not m.is_empty()
    assert (m.hashvalues == d).all()
    m.clear()
    assert m.is_empty()


def splitmix64(seed: int):
    state = seed & MASK64
    while True:
        state = (state + 0x9E3779B97F4A7C15) & MASK64
        z = state
        z = ((z ^ (z >> 30)) * 0xBF58476D1CE4E5B9) & MASK64
        z = ((z ^ (z >> 27)) * 0x94D049BB133111EB) & MASK64
        yield z ^ (z >> 31)


def test_values_follow_the_documented_family_over_xxh3():
    """The contract bindings and Spark jobs rely on: xxh3-64 of the item's bytes, then
    h_i(x) = ((a_i * x + b_i) mod 2**64) >> 32 with a_i (odd) and b_i from SplitMix64."""
    xxhash = pytest.importorskip("xxhash")
    items = [b"alpha", "beta".encode(), "сибирь".encode()]
    num_perm, seed = 16, 9
    rng = splitmix64(seed)
    coeffs = []
    for _ in range(num_perm):
        a = next(rng) | 1
        b = next(rng)
        coeffs.append((a, b))
    xs = [xxhash.xxh3_64_intdigest(i) for i in items]
    expected = [min(((a * x + b) & MASK64) >> 32 for x in xs) for a, b in coeffs]
    m = tessera.MinHash(num_perm=num_perm, seed=seed)
    m.update_batch([b"alpha", "beta", "сибирь"])
    assert m.digest().tolist() == expected


@pytest.mark.parametrize("shared,only_a,only_b", [(300, 100, 100), (50, 200, 10), (500, 20, 30), (0, 100, 100)])
def test_estimate_is_near_the_true_jaccard(shared, only_a, only_b):
    common = words(shared, 1)
    a_items = common + words(only_a, 2)
    b_items = common + words(only_b, 3)
    truth = shared / (shared + only_a + only_b)
    a, b = tessera.MinHash(num_perm=256), tessera.MinHash(num_perm=256)
    a.update_batch(a_items)
    b.update_batch(b_items)
    # Standard error at most 0.5 / sqrt(256) = 0.031: 4 of them.
    assert abs(a.jaccard(b) - truth) <= 0.125, (a.jaccard(b), truth)


def test_estimates_agree_with_datasketch_on_the_same_sets():
    datasketch = pytest.importorskip("datasketch")
    rng = random.Random(11)
    for trial in range(6):
        shared, only = rng.randint(50, 400), rng.randint(0, 300)
        common = words(shared, 100 + trial)
        a_items, b_items = common + words(only, 200 + trial), common + words(only, 300 + trial)
        ours_a, ours_b = tessera.MinHash(num_perm=256), tessera.MinHash(num_perm=256)
        ours_a.update_batch(a_items)
        ours_b.update_batch(b_items)
        theirs_a, theirs_b = datasketch.MinHash(num_perm=256), datasketch.MinHash(num_perm=256)
        theirs_a.update_batch([w.encode() for w in a_items])
        theirs_b.update_batch([w.encode() for w in b_items])
        truth = shared / (shared + 2 * only)
        assert abs(ours_a.jaccard(ours_b) - truth) <= 0.125
        assert abs(ours_a.jaccard(ours_b) - theirs_a.jaccard(theirs_b)) <= 0.2


def test_merge_is_the_union_and_copy_is_independent():
    a_items, b_items = words(200, 4), words(150, 5)
    a, b, union = tessera.MinHash(), tessera.MinHash(), tessera.MinHash()
    a.update_batch(a_items)
    b.update_batch(b_items)
    union.update_batch(a_items + b_items)
    c = a.copy()
    c.merge(b)
    assert c == union
    assert a != union
    assert copy.deepcopy(a) == a and copy.copy(a) is not a


def test_different_settings_do_not_compare():
    a, b, c = tessera.MinHash(num_perm=64), tessera.MinHash(num_perm=128), tessera.MinHash(num_perm=64, seed=2)
    for other in (b, c):
        with pytest.raises(ValueError, match="different settings"):
            a.jaccard(other)
        with pytest.raises(ValueError):
            a.merge(other)
    with pytest.raises(ValueError):
        tessera.MinHash(num_perm=0)
    with pytest.raises(ValueError):
        tessera.MinHash(num_perm=5000)


def test_pickle_and_hashvalues_round_trip():
    m = tessera.MinHash(num_perm=32, seed=7)
    m.update_batch(words(50, 6))
    again = pickle.loads(pickle.dumps(m))
    assert again == m and again.seed == 7 and again.num_perm == 32
    from_values = tessera.MinHash(seed=7, hashvalues=m.digest())
    assert from_values == m
    assert tessera.MinHash(seed=7, hashvalues=m.digest().astype(np.uint32)) == m
    assert tessera.MinHash(seed=7, hashvalues=m.digest().tolist()) == m
    with pytest.raises(ValueError, match="below 2\\*\\*32"):
        tessera.MinHash(hashvalues=[2**32])


def test_bulk_equals_one_by_one():
    sets = [words(n, n) for n in (0, 1, 10, 300)]
    bulk = tessera.MinHash.bulk(sets, num_perm=64, seed=3)
    for items, m in zip(sets, bulk):
        one = tessera.MinHash(num_perm=64, seed=3)
        one.update_batch(items)
        assert m == one
    assert bulk[0].is_empty()


def test_long_batches_fold_like_single_updates():
    items = words(70_000, 8)
    a, b = tessera.MinHash(), tessera.MinHash()
    a.update_batch(iter(items))
    for w in items[:1000]:
        b.update(w)
    b.update_batch(items[1000:])
    assert a == b


# --- datasketch parity -----------------------------------------------------------------


def identity(x):
    return x


def test_count_is_datasketchs_estimate():
    datasketch = pytest.importorskip("datasketch")
    for n in (0, 1, 10, 1000, 20000):
        m = tessera.MinHash(num_perm=256)
        m.update_batch(words(n, n))
        theirs = datasketch.MinHash(num_perm=256, hashvalues=m.hashvalues, scheme="legacy")
        assert m.count() == pytest.approx(theirs.count(), rel=1e-12, abs=1e-9)
        if n >= 1000:
            assert abs(m.count() - n) / n < 0.2


def test_hashfunc_replaces_xxh3_and_permutations_are_the_family():
    m = tessera.MinHash(num_perm=8, seed=3, hashfunc=identity)
    m.update_batch([12, 2**64 - 1, -1])
    a, b = (row.tolist() for row in m.permutations)
    rng = splitmix64(3)
    assert [(x, y) for x, y in zip(a, b)] == [(next(rng) | 1, next(rng)) for _ in range(8)]
    xs = [12, 2**64 - 1, (-1) & MASK64]  # a negative hash is read as two's complement
    assert m.hashvalues.tolist() == [min(((ai * x + bi) & MASK64) >> 32 for x in xs) for ai, bi in zip(a, b)]
    assert m.hashfunc is identity and tessera.MinHash().hashfunc is None
    one = tessera.MinHash(num_perm=8, seed=3, hashfunc=identity)
    for x in (12, 2**64 - 1, -1):
        one.update(x)
    assert one == m
    with pytest.raises(ValueError, match="hashfunc must return an int"):
        tessera.MinHash(hashfunc=lambda x: "no").update(1)
    with pytest.raises(ValueError, match="callable"):
        tessera.MinHash(hashfunc=3)


def test_hashfunc_survives_pickle_copy_union_bulk_and_generator():
    m = tessera.MinHash(num_perm=16, hashfunc=identity, gpu_mode="detect")
    m.update_batch(range(100))
    for again in (pickle.loads(pickle.dumps(m)), m.copy()):
        assert again == m and again.hashfunc is identity and again._gpu_mode == "detect"
    other = tessera.MinHash(num_perm=16, hashfunc=identity)
    other.update_batch(range(50, 200))
    u = tessera.MinHash.union(m, other)
    both = tessera.MinHash(num_perm=16, hashfunc=identity)
    both.update_batch(range(200))
    assert u == both and u.hashfunc is identity
    with pytest.raises(ValueError, match="less than 2"):
        tessera.MinHash.union(m)
    with pytest.raises(ValueError):
        tessera.MinHash.union(m, tessera.MinHash(num_perm=16, seed=2))
    batches = [range(0, 10), range(5, 30), []]
    bulk = tessera.MinHash.bulk(batches, num_perm=16, hashfunc=identity)
    gen = tessera.MinHash.generator(iter(batches), num_perm=16, hashfunc=identity)
    for items, x, y in zip(batches, bulk, gen):
        one = tessera.MinHash(num_perm=16, hashfunc=identity)
        one.update_batch(items)
        assert x == one == y and x.hashfunc is identity


def test_datasketch_constructor_arguments():
    m = tessera.MinHash(num_perm=8, seed=5)
    assert tessera.MinHash(num_perm=8, seed=5, permutations=m.permutations) == m
    with pytest.raises(ValueError, match="permutations"):
        tessera.MinHash(num_perm=8, seed=6, permutations=m.permutations)
    with pytest.raises(ValueError, match="scheme"):
        tessera.MinHash(scheme="affine32")
    with pytest.raises(ValueError, match="gpu_mode"):
        tessera.MinHash(gpu_mode="sometimes")
    with pytest.raises(RuntimeError, match="GPU"):
        tessera.MinHash(gpu_mode="always").update_batch([b"x"])
    with pytest.warns(DeprecationWarning):
        tessera.MinHash(hashobj=object())
    m.hashvalues = list(range(8))
    assert m.hashvalues.tolist() == list(range(8))
    with pytest.raises(ValueError):
        m.hashvalues = [1, 2]
