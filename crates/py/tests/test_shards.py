"""A sharded index from Python (issue 50): built with `build_shards`, checked through
`ShardedIndex` in this process or through a client carrying bytes (what the Ray
application does), the report equal to one index's holding the same documents."""

from __future__ import annotations

import random

import pytest

import tessera
from conftest import corpus, demo_texts, edit


def _library() -> tuple[list[str], list[str]]:
    texts = [t for t in corpus(80) if len(t.split()) > 30]
    return texts, [f"doc-{i:03}.txt" for i in range(len(texts))]


def _suspects(texts: list[str]) -> list[str]:
    rng = random.Random(5)
    out = [demo_texts()["thesis"]]
    for k in range(4):
        parts = []
        for i in rng.sample(range(len(texts)), 3):
            words = texts[i].split()
            start = rng.randrange(max(1, len(words) - 120))
            parts.append(" ".join(words[start : start + 120]))
        parts.append("An own closing sentence that no source has written before, surely.")
        out.append(edit(" ".join(parts), 9, k) if k % 2 else " ".join(parts))
    return out


class _Client:
    """Carries requests to `Shard`s in this process, as the Ray application's client
    carries them to replicas: bytes in, bytes out."""

    def __init__(self, root, shards: int, down: int | None = None):
        self.shards = shards
        self.calls = 0
        self.down = down
        self._shards = [tessera.Shard(root / f"shard-{s:03}-of-{shards:03}") for s in range(shards)]

    def call(self, shard: int, request: bytes) -> bytes:
        self.calls += 1
        if shard == self.down and self.calls > self.shards:
            raise ConnectionError(f"replica of shard {shard} is gone")
        return self._shards[shard].answer(request)


@pytest.mark.parametrize("shards", [1, 2, 5])
def test_sharded_reports_equal_one_index(tmp_path, shards):
    texts, origins = _library()
    one = tessera.Index.create(tmp_path / "one")
    one.add(texts, origins=origins, collection="lib")
    root = tmp_path / "shards"
    added = tessera.build_shards(root, shards, texts, origins=origins, collection="lib")
    assert len(added["added"]) == len(texts)
    local = tessera.ShardedIndex.open(root)
    client = _Client(root, shards)
    remote = tessera.ShardedIndex(root / f"shard-000-of-{shards:03}", client)
    assert local.shards == remote.shards == shards
    assert [c["docs"] for c in local.collections()] == [len(texts)]
    found = 0
    for i, text in enumerate(_suspects(texts)):
        want = one.check(text, name=f"s{i}.txt")
        assert local.check(text, name=f"s{i}.txt") == want
        assert remote.check(text, name=f"s{i}.txt") == want
        found += bool(want["sources"])
    assert found >= 4
    assert client.calls > 0
    # Every document lives in the shard owning its id.
    for s in range(shards):
        shard = tessera.Shard(root / f"shard-{s:03}-of-{shards:03}")
        assert shard.shard == (s, shards)
    assert sum(tessera.shard_of(d, shards) == 0 for d in range(len(texts))) == tessera.Shard(
        root / f"shard-000-of-{shards:03}"
    ).live_docs()


def test_a_shard_that_does_not_answer_is_named(tmp_path):
    texts, origins = _library()
    root = tmp_path / "shards"
    tessera.build_shards(root, 3, texts, origins=origins, collection="lib")
    sharded = tessera.ShardedIndex(root / "shard-000-of-003", _Client(root, 3, down=2))
    with pytest.raises(tessera.ShardUnavailableError, match="shard 2 of 3 did not answer: replica of shard 2 is gone"):
        sharded.check(texts[4])
    assert issubclass(tessera.ShardUnavailableError, tessera.TesseraError)


def test_a_client_must_answer_bytes(tmp_path):
    texts, origins = _library()
    root = tmp_path / "shards"
    tessera.build_shards(root, 2, texts[:10], origins=origins[:10], collection="lib")

    class Wrong:
        shards = 2

        def call(self, shard, request):
            return "not bytes"

    with pytest.raises(tessera.ShardUnavailableError, match="returned str instead of bytes"):
        tessera.ShardedIndex(root / "shard-000-of-002", Wrong()).check(texts[0])
    with pytest.raises(TypeError, match="client.shards"):
        tessera.ShardedIndex(root / "shard-000-of-002", object())


def test_adds_to_a_shard_take_ids_it_owns(tmp_path):
    texts, origins = _library()
    root = tmp_path / "shards"
    tessera.build_shards(root, 3, texts[:30], origins=origins[:30], collection="lib")
    press = demo_texts()["printing-press"]
    writer = tessera.Index.open(root / "shard-001-of-003")
    doc = writer.add([press], origins=["late.txt"], collection="lib")["added"][0]["id"]
    assert tessera.shard_of(doc, 3) == 1 and doc >= 30
    report = tessera.ShardedIndex.open(root).check(press)
    assert doc in [s["id"] for s in report["sources"]]
