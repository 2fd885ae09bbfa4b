"""Tessera's online check on Ray Serve: a sharded index served as one, with the JSON API of
``tessera serve`` for checks and adds (issue 50).

Two ways in:

* ``python -m tessera.ray --index ROOT [--replicas 2] [--host 127.0.0.1] [--port 8000]``
  deploys the application on the Ray cluster it joins (``--address``, default ``auto``)
  and returns, the application running on the cluster (``--block`` stays in the
  foreground); ``serve run deploy/ray/serve-1node.yaml`` does the same from a config
  (``import_path: tessera.ray:build_app``);
* :func:`app` gives the application for ``serve.run`` in a program.

``ROOT`` holds the shards, folders ``shard-S-of-N`` that ``tessera.build_shards`` makes,
each an ordinary index, at a path every node reads (local disk copied to each node, or a
shared folder). What runs:

* a deployment per shard, ``shard-SSS``, of ``replicas`` replicas, each holding
  ``tessera.Shard`` read only: ``answer(request: bytes) -> bytes``; its health check
  reads the shard's last commit, so Ray replaces a replica that cannot;
* a writer per shard, ``writer-SSS``, one replica holding ``tessera.Index.open`` on the
  shard: the shard's one writer, which adds under ids the shard owns and answers once it
  has committed;
* ``ingress`` (FastAPI): ``POST /api/checks`` (JSON text or a multipart file, the
  server's fields and filters), ``GET /api/checks/{id}``, ``POST /api/documents``
  (each document to the writer of the shard its origin hashes to), ``GET /api/health``.

How a check is split and merged is the engine's: the ingress makes a
``tessera.ShardedIndex`` over a :class:`RayShardClient`, which carries request bytes to a
replica of each shard with a deadline, asks again once when a replica died under the
call, and otherwise raises; the check then fails with ``503`` JSON naming the shard
(``Retry-After: 1``), never with a report that looks complete.
"""

from __future__ import annotations

from ._app import DEFAULTS, Ingress, ShardReplica, ShardWriter, app, build_app, shard_dirs, shard_for
from ._client import RayShardClient, ShardCallError

__all__ = [
    "DEFAULTS",
    "Ingress",
    "RayShardClient",
    "ShardCallError",
    "ShardReplica",
    "ShardWriter",
    "app",
    "build_app",
    "shard_dirs",
    "shard_for",
]
