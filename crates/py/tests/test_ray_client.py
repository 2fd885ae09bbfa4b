"""The Ray application's shard client (tessera.ray.RayShardClient) over stand-in deployment
handles: a replica that died under a call is asked again once, a second death or a call
past its deadline fails the check with ShardUnavailableError naming the shard. Needs Ray
importable (the package imports it), not a cluster."""

from __future__ import annotations

import time

import pytest

import tessera
from conftest import corpus

pytest.importorskip("ray.serve", reason="Ray Serve is not installed (pip install 'ray[serve]')")

from tessera.ray import RayShardClient, ShardCallError  # noqa: E402


class ActorDiedError(Exception):
    """Named as Ray's: the client tells a dead replica by the error's class name."""


class Response:
    def __init__(self, outcome):
        self.outcome, self.cancelled = outcome, False

    def result(self, timeout_s=None):
        if isinstance(self.outcome, float):
            time.sleep(min(self.outcome, timeout_s))
            raise TimeoutError
        if isinstance(self.outcome, BaseException):
            raise self.outcome
        return self.outcome()

    def cancel(self):
        self.cancelled = True


class Handle:
    """A deployment handle whose first `deaths` calls meet a dead replica (or, with
    `slow`, never answer)."""

    def __init__(self, shard: tessera.Shard, deaths: int = 0, slow: bool = False):
        self.shard, self.deaths, self.slow, self.calls, self.responses = shard, deaths, slow, 0, []
        self.answer = self

    def remote(self, request: bytes) -> Response:
        self.calls += 1
        if self.slow:
            outcome = 60.0
        elif self.calls <= self.deaths:
            outcome = ActorDiedError("The actor died unexpectedly before finishing this task.")
        else:
            outcome = lambda: self.shard.answer(request)  # noqa: E731
        self.responses.append(Response(outcome))
        return self.responses[-1]


def _shards(tmp_path, n=3):
    texts = [t for t in corpus(60) if len(t.split()) > 30]
    tessera.build_shards(tmp_path, n, texts, collection="lib")
    return texts, [tessera.Shard(tmp_path / f"shard-{s:03}-of-{n:03}") for s in range(n)]


def test_a_replica_dead_under_a_call_is_asked_again(tmp_path):
    texts, shards = _shards(tmp_path)
    handles = [Handle(s) for s in shards]
    handles[1].deaths = 1
    client = RayShardClient(handles, time.monotonic() + 30, call_timeout_s=5)
    report = tessera.ShardedIndex(tmp_path / "shard-000-of-003", client).check(texts[7])
    assert report == tessera.ShardedIndex.open(tmp_path).check(texts[7])
    assert client.retried == 1


def test_a_second_death_and_a_deadline_name_the_shard(tmp_path):
    texts, shards = _shards(tmp_path)
    handles = [Handle(s) for s in shards]
    handles[2].deaths = 10
    client = RayShardClient(handles, time.monotonic() + 30, call_timeout_s=5)
    with pytest.raises(tessera.ShardUnavailableError, match=r"shard 2 of 3 did not answer: its replicas died under 2 calls \(ActorDiedError"):
        tessera.ShardedIndex(tmp_path / "shard-000-of-003", client).check(texts[7])
    handles = [Handle(s) for s in shards]
    handles[0].slow = True
    t0 = time.monotonic()
    client = RayShardClient(handles, time.monotonic() + 1.0, call_timeout_s=5)
    with pytest.raises(tessera.ShardUnavailableError, match=r"shard 0 of 3 did not answer: no replica answered within 1\.0 s"):
        tessera.ShardedIndex(tmp_path / "shard-000-of-003", client).check(texts[7])
    assert time.monotonic() - t0 < 3
    assert handles[0].responses[-1].cancelled


def test_other_failures_are_not_asked_again(tmp_path):
    _, shards = _shards(tmp_path, 2)
    handles = [Handle(s) for s in shards]
    handles[0].remote = lambda request: Response(RuntimeError("boom\nsecond line"))
    client = RayShardClient(handles, time.monotonic() + 30)
    with pytest.raises(ShardCallError, match="^RuntimeError: boom$"):
        client.call(0, b"x")
    assert client.retried == 0
