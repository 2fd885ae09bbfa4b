"""What carries a sharded check's request bytes to a shard's replicas on Ray Serve: the
client ``tessera.ShardedIndex`` calls (``shards``, ``call(shard, request) -> bytes``).

The engine calls ``call`` from a thread per shard at once; each call waits on its
deployment handle with a deadline (``result(timeout_s=...)``), which releases the GIL
meanwhile. A replica that died under the call (``kill -9``, its node gone) is asked once
more, which Serve routes to another replica (or to the one it started instead); any
other failure, and a second death, raises, and the engine names the shard in a
``tessera.ShardUnavailableError``. No call waits past the check's deadline.
"""

from __future__ import annotations

import time
from typing import Any, Sequence

# The errors of a replica that is gone: its actor died or cannot be reached (Ray's
# RayActorError covers ActorDiedError and ActorUnavailableError).
_DEAD_NAMES = ("RayActorError", "ActorDiedError", "ActorUnavailableError", "WorkerCrashedError")


def _is_dead_replica(error: BaseException) -> bool:
    return any(type(e).__name__ in _DEAD_NAMES for e in _chain(error))


def _chain(error: BaseException):
    seen = 0
    e: BaseException | None = error
    while e is not None and seen < 8:
        yield e
        e = e.__cause__ or e.__context__
        seen += 1


def _first_line(error: BaseException) -> str:
    text = str(error).strip().splitlines()
    return f"{type(error).__name__}: {text[0] if text else ''}".rstrip(": ")


class ShardCallError(ConnectionError):
    """A call to a shard's replicas failed (the engine puts the message in the
    ``ShardUnavailableError`` it raises, after the shard's name)."""


class RayShardClient:
    """Calls ``handles[shard].answer.remote(request)`` with a deadline.

    Args:
        handles: one Serve deployment handle per shard, in shard order (each to a
            deployment whose replicas hold ``tessera.Shard``).
        deadline: ``time.monotonic()`` past which no call waits (the check's deadline).
        call_timeout_s: the longest one call waits.
        retries: calls asked again after a replica died (1: another replica once).
    """

    def __init__(self, handles: Sequence[Any], deadline: float, call_timeout_s: float = 10.0, retries: int = 1):
        self._handles = list(handles)
        self.shards = len(self._handles)
        self._deadline = deadline
        self._call_timeout_s = call_timeout_s
        self._retries = retries
        self.retried = 0

    def call(self, shard: int, request: bytes) -> bytes:
        handle = self._handles[shard]
        dead: list[str] = []
        while True:
            remaining = self._deadline - time.monotonic()
            if remaining <= 0:
                raise ShardCallError("the check's deadline passed before it was asked" + _after(dead))
            timeout = min(self._call_timeout_s, remaining)
            response = handle.answer.remote(request)
            try:
                answer = response.result(timeout_s=timeout)
            except TimeoutError:
                response.cancel()
                raise ShardCallError(f"no replica answered within {timeout:.1f} s" + _after(dead)) from None
            except Exception as e:  # noqa: BLE001 - classified: a dead replica is asked again
                if not _is_dead_replica(e):
                    raise ShardCallError(_first_line(e)) from e
                dead.append(_first_line(e))
                if len(dead) > self._retries:
                    raise ShardCallError(f"its replicas died under {len(dead)} calls ({dead[-1]})") from e
                self.retried += 1
                continue
            if not isinstance(answer, bytes):
                raise ShardCallError(f"its replica answered {type(answer).__name__} instead of bytes")
            return answer


def _after(dead: list[str]) -> str:
    return f" (after a replica died: {dead[-1]})" if dead else ""
