"""tessera.SimHash and tessera.SimHashIndex (Manku's permuted tables)."""

from __future__ import annotations

import pickle
import random

import pytest

import tessera
from conftest import demo_texts, edit


def test_near_texts_are_close_and_unrelated_ones_far():
    texts = demo_texts()
    press = texts["printing-press"]
    a, b = tessera.SimHash(press), tessera.SimHash(edit(press, 30, 1))
    other = tessera.SimHash(texts["honey-bees"])
    assert a.distance(b) <= 6 < a.distance(other)
    assert a.distance(a.value) == 0 and a == tessera.SimHash(press)
    # The normalizer: case and stems do not change terms.
    assert tessera.SimHash("Printing presses printed books") == tessera.SimHash("printing press print book")
    assert tessera.SimHash("Printing presses printed books", stemming=False) != tessera.SimHash(
        "printing press print book", stemming=False
    )
    assert tessera.SimHash("").value == 0
    with pytest.raises(ValueError):
        tessera.SimHash("text", language="xx")


def test_features_weights_and_ints():
    feats = ["alpha", "beta", "gamma", "delta"]
    a = tessera.SimHash(feats)
    assert a == tessera.SimHash([f.encode() for f in reversed(feats)])
    assert a == tessera.SimHash([(f, 1.0) for f in feats])
    # Repeats count as weight.
    assert tessera.SimHash(["alpha", "alpha", "beta"]) == tessera.SimHash([("alpha", 2.0), ("beta", 1.0)])
    assert tessera.SimHash(a.value) == a and int(a) == a.value
    assert tessera.SimHash(2**64 - 1).value == 2**64 - 1
    assert pickle.loads(pickle.dumps(a)) == a
    assert len({a, tessera.SimHash(a.value)}) == 1
    with pytest.raises(TypeError):
        tessera.SimHash([1, 2])
    with pytest.raises(TypeError):
        tessera.SimHash(-1)
    with pytest.raises(TypeError):
        a.distance("x")


def planted(n: int, k: int, seed: int) -> list[int]:
    rng = random.Random(seed)
    fps: list[int] = []
    for i in range(n):
        if i and rng.random() < 0.5:
            f = fps[rng.randrange(i)]
            for _ in range(rng.randint(0, k + 2)):
                f ^= 1 << rng.randrange(64)
            fps.append(f)
        else:
            fps.append(rng.getrandbits(64))
    return fps


@pytest.mark.parametrize("k", [0, 1, 3, 5])
def test_index_equals_a_full_scan(k):
    fps = planted(1500, k, k)
    index = tessera.SimHashIndex(k=k)
    live: dict[int, int] = {}
    rng = random.Random(k)
    queries = fps[:60] + [rng.getrandbits(64) for _ in range(20)]

    def check():
        for q in queries:
            for kk in range(k + 1):
                expected = [key for key, f in live.items() if bin(f ^ q).count("1") <= kk]
                assert index.query(q, kk) == expected
            assert index.query(tessera.SimHash(q)) == [key for key, f in live.items() if bin(f ^ q).count("1") <= k]

    # Adds in waves, with queries between them (tables rebuilt, fingerprints past them
    # scanned), and removes.
    for start, stop in [(0, 10), (10, 600), (600, 650), (650, 1500)]:
        for i in range(start, stop):
            index.add(i, fps[i])
            live[i] = fps[i]
        check()
    for i in range(0, 1500, 7):
        index.remove(i)
        del live[i]
    check()
    assert len(index) == len(live) and index.keys() == list(live)


def test_index_errors_and_constructor_pairs():
    index = tessera.SimHashIndex(objs=[("a", 0), ("b", tessera.SimHash(1))], k=2)
    assert index.query(0) == ["a", "b"] and index.k == 2 and "a" in index
    with pytest.raises(ValueError, match="already"):
        index.add("a", 5)
    with pytest.raises(ValueError, match="exceeds"):
        index.query(0, 3)
    with pytest.raises(ValueError, match="not in"):
        index.remove("zzz")
    with pytest.raises(ValueError):
        tessera.SimHashIndex(k=9)
