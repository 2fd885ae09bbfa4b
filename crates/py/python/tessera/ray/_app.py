"""The deployments of the Ray application and the function that binds them.

* ``shard-SSS`` (one per shard, ``replicas`` each): ``tessera.Shard`` on the shard's folder,
  ``answer(request) -> bytes``; its health check reads the shard's last commit.
* ``writer-SSS`` (one per shard, one replica): ``tessera.Index.open`` on the shard's folder,
  the shard's one writer; an add answers once the shard has committed it.
* ``ingress``: the JSON API (FastAPI). A check is ``tessera.ShardedIndex`` over a
  :class:`RayShardClient` to the shard deployments: the engine splits the check and
  merges the answers; the ingress only carries bytes.
"""


import asyncio
import hashlib
import os
import re
import threading
import time
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Any, Optional, Union

from fastapi import FastAPI, Request
from fastapi.exceptions import RequestValidationError
from fastapi.responses import JSONResponse
from ray import serve
from starlette.exceptions import HTTPException as StarletteHTTPException

import tessera

from . import _http
from ._client import RayShardClient, _first_line
from ._http import ApiError

_SHARD_DIR = re.compile(r"^shard-(\d+)-of-(\d+)$")

DEFAULTS: dict[str, Any] = {
    "replicas": 1,
    "call_timeout_s": 10.0,
    "check_timeout_s": 60.0,
    "add_timeout_s": 120.0,
    "health_timeout_s": 5.0,
    "max_upload_bytes": 100 * 1000 * 1000,
    "ingress_replicas": 1,
    "max_ongoing_requests": 32,
    "num_cpus": 0.0,
    "reports": None,
}


def shard_dirs(root: Path) -> list[Path]:
    """The shards' folders under `root` (`shard-S-of-N`, all S of one N), in shard order."""
    found = sorted(
        (int(m.group(1)), int(m.group(2)), p)
        for p in Path(root).iterdir()
        if p.is_dir() and (m := _SHARD_DIR.match(p.name))
    )
    if not found:
        raise ValueError(f"{root} holds no shard folders (shard-S-of-N): build them with tessera.build_shards")
    n = found[0][1]
    if [(s, k) for s, k, _ in found] != [(s, n) for s in range(n)]:
        raise ValueError(f"{root} holds shard folders of several counts or with gaps: {[p.name for *_, p in found]}")
    return [p for *_, p in found]


def shard_for(origin: str, text: str, shards: int) -> int:
    """The shard whose writer adds a document: a stable hash of its origin (of its text
    when it has none) through the engine's `shard_of`, so the same origin always goes to
    the same writer (which is what recognises a repeat) and every writer gives the
    document an id its shard owns."""
    key = origin.encode("utf-8") if origin else b"text:" + text.encode("utf-8")
    digest = int.from_bytes(hashlib.blake2b(key, digest_size=8).digest(), "little")
    return tessera.shard_of(digest, shards)


@serve.deployment(ray_actor_options={"num_cpus": 0}, max_ongoing_requests=32, health_check_period_s=2,
                  health_check_timeout_s=10, graceful_shutdown_timeout_s=2)
class ShardReplica:
    """A replica of one shard: answers a sharded check's requests (read only)."""

    def __init__(self, path: str):
        self._path = path
        self._shard = tessera.Shard(path)

    def answer(self, request: bytes) -> bytes:
        return self._shard.answer(request)

    def live_docs(self) -> int:
        return self._shard.live_docs()

    def pid(self) -> int:
        """The replica's process (tests kill it)."""
        return os.getpid()

    def check_health(self) -> None:
        # Raises (and Ray replaces the replica) when the shard's last commit cannot be read.
        self._shard.live_docs()


@serve.deployment(num_replicas=1, ray_actor_options={"num_cpus": 0}, max_ongoing_requests=8,
                  health_check_period_s=2, health_check_timeout_s=30, graceful_shutdown_timeout_s=10)
class ShardWriter:
    """The one writer of one shard: adds under ids the shard owns, committed before the
    answer."""

    def __init__(self, path: str):
        self._path = path
        self._index = tessera.Index.open(path)
        self._lock = threading.Lock()

    def add(self, request: dict[str, Any]) -> dict[str, Any]:
        docs = request["documents"]
        try:
            with self._lock:
                return self._index.add(
                    [d["text"] for d in docs],
                    titles=[d["title"] for d in docs],
                    origins=[d["origin"] for d in docs],
                    collection=request["collection"],
                    kind=request["kind"],
                    keep_texts=request["keep_texts"],
                    force=request["force"],
                )
        except Exception as e:  # noqa: BLE001 - answered as the server answers it
            error = _http.engine_error(e)
            return {"error": error.body()["error"], "status": error.status}

    def pid(self) -> int:
        return os.getpid()

    def check_health(self) -> None:
        tessera.Shard(self._path).live_docs()


api = FastAPI(title="Tessera on Ray Serve", docs_url=None, redoc_url=None)


@api.exception_handler(StarletteHTTPException)
async def _http_error(request: Request, exc: StarletteHTTPException) -> JSONResponse:
    # FastAPI's own refusals (no such route, method) in the API's error body.
    code = {404: "not_found", 405: "method_not_allowed"}.get(exc.status_code, "bad_request")
    return JSONResponse({"error": {"code": code, "message": str(exc.detail)}}, status_code=exc.status_code)


@api.exception_handler(RequestValidationError)
async def _validation_error(request: Request, exc: RequestValidationError) -> JSONResponse:
    return JSONResponse({"error": {"code": "bad_request", "message": str(exc.errors())}}, status_code=400)


def _error_response(error: ApiError) -> JSONResponse:
    headers = {"Retry-After": str(error.retry_after)} if error.retry_after is not None else None
    return JSONResponse(error.body(), status_code=error.status, headers=headers)


@serve.deployment(ray_actor_options={"num_cpus": 0}, max_ongoing_requests=32)
@serve.ingress(api)
class Ingress:
    """`tessera serve`'s JSON API for checks and adds over the shards' deployments."""

    def __init__(self, root: str, shards: list, writers: list, options: dict[str, Any]):
        self._root = Path(root)
        self._dirs = shard_dirs(self._root)
        self._shards = shards
        self._writers = writers
        self._opts = {**DEFAULTS, **options}
        self._collections: Optional[tuple[int, float]] = None
        self._store = _http.ReportStore(Path(self._opts["reports"] or self._root / "checks"))
        self._pool = ThreadPoolExecutor(max_workers=int(self._opts["max_ongoing_requests"]),
                                        thread_name_prefix="tessera-ingress")

    async def _run(self, fn, *args):
        return await asyncio.get_running_loop().run_in_executor(self._pool, fn, *args)

    async def _body(self, request: Request) -> bytes:
        limit = int(self._opts["max_upload_bytes"])
        too_large = ApiError(413, "too_large", f"uploads are limited to {limit} bytes")
        length = request.headers.get("content-length")
        if length is not None and length.isdigit() and int(length) > limit:
            raise too_large
        chunks, size = [], 0
        async for chunk in request.stream():
            size += len(chunk)
            if size > limit:
                raise too_large
            chunks.append(chunk)
        return b"".join(chunks)

    # -- checks ---------------------------------------------------------------------------

    def _check(self, job: dict[str, Any]) -> dict[str, Any]:
        deadline = time.monotonic() + float(self._opts["check_timeout_s"])
        client = RayShardClient(self._shards, deadline, float(self._opts["call_timeout_s"]))
        sharded = tessera.ShardedIndex(self._dirs[0], client)
        report = sharded.check(job["document"], name=job["name"], title=job["title"], **job["filters"])
        job["retried"] = client.retried
        # The number of collections, for the record's progress: asked of the shards at most
        # every 30 s (one more fan-out per check otherwise).
        now = time.monotonic()
        if self._collections is None or now - self._collections[1] > 30:
            self._collections = (len(sharded.collections()), now)
        return report

    @api.post("/api/checks")
    async def create_check(self, request: Request):
        started_ms = int(time.time() * 1000)
        try:
            content_type = request.headers.get("content-type", "")
            if content_type.startswith("application/json"):
                job = _http.check_from_json(_http.parse_json(await self._body(request)))
            elif content_type.startswith("multipart/form-data"):
                job = _http.check_from_form(_http.multipart_parts(content_type, await self._body(request)))
            else:
                raise ApiError(415, "unsupported_media_type",
                               'send multipart/form-data with a file field, or application/json {"text": ...}')
            t0 = time.perf_counter()
            try:
                report = await self._run(self._check, job)
            except (tessera.TesseraError, ValueError) as e:
                raise _http.engine_error(e) from None
            check_ms = (time.perf_counter() - t0) * 1000
            check_id = _http.new_check_id()
            collections = self._collections[0] if self._collections else 0
            record = _http.check_record(check_id, job["name"], job["title"], job["bytes"], started_ms, report,
                                        collections)
            await self._run(self._store.put, record)
        except ApiError as e:
            return _error_response(e)
        url = f"/api/checks/{check_id}"
        body = {"id": check_id, "status": "done", "url": url, "members": [], "skipped": []}
        headers = {"Location": url, "Server-Timing": f"check;dur={check_ms:.1f}"}
        if job.get("retried"):
            # Calls asked again after a replica died under them (the check is still whole).
            headers["X-Tessera-Shard-Retries"] = str(job["retried"])
        return JSONResponse(body, status_code=202, headers=headers)

    @api.get("/api/checks/{check_id}")
    async def get_check(self, check_id: str, report: Optional[bool] = None):
        record = await self._run(self._store.get, check_id)
        if record is None:
            return _error_response(ApiError(404, "not_found", f"no check {check_id}"))
        if report is False:
            record["report"] = None
        return JSONResponse(record)

    # -- adds -----------------------------------------------------------------------------

    def _add(self, add: dict[str, Any]) -> dict[str, Any]:
        n = len(self._writers)
        per_shard: dict[int, list[int]] = {}
        for i, doc in enumerate(add["documents"]):
            per_shard.setdefault(shard_for(doc["origin"], doc["text"], n), []).append(i)
        calls = {}
        for s, idx in sorted(per_shard.items()):
            part = {**add, "documents": [add["documents"][i] for i in idx]}
            calls[s] = self._writers[s].add.remote(part)
        deadline = time.monotonic() + float(self._opts["add_timeout_s"])
        answers, failed = {}, []
        for s, response in calls.items():
            try:
                answers[s] = response.result(timeout_s=max(0.1, deadline - time.monotonic()))
            except TimeoutError:
                response.cancel()
                failed.append(f"shard {s} of {n}'s writer did not answer within {self._opts['add_timeout_s']} s")
            except Exception as e:  # noqa: BLE001 - a writer that is down is named
                failed.append(f"shard {s} of {n}'s writer did not answer: {_first_line(e)}")
        if failed:
            done = sorted(answers)
            raise _http.unavailable(
                "; ".join(failed)
                + (f" (the documents of shards {done} were committed; the same request sent again adds "
                   "nothing twice: a document already held from the same origin with the same text is skipped)"
                   if done else "")
            )
        for s in sorted(answers):
            if "error" in answers[s]:
                err = answers[s]
                raise ApiError(err["status"], err["error"]["code"], f"shard {s} of {n}: {err['error']['message']}")
        outcome: dict[int, dict[str, Any]] = {}
        for s, idx in per_shard.items():
            summary = answers[s]
            added, seen = list(summary["added"]), list(summary["seen"])
            a = b = 0
            for i in idx:
                doc = add["documents"][i]
                if a < len(added) and added[a]["origin"] == doc["origin"]:
                    got = added[a]
                    a += 1
                    outcome[i] = {"added": {"id": got["id"], "origin": got["origin"],
                                            "title": got.get("title", doc["title"])}}
                elif b < len(seen) and seen[b]["origin"] == doc["origin"]:
                    got = seen[b]
                    b += 1
                    outcome[i] = {"skipped": {"origin": got["origin"], "duplicate_of": got["into"],
                                              "containment": got["containment"], "same_origin": got["same_origin"]}}
        out: dict[str, list] = {"added": [], "skipped": [], "failed": []}
        for i in sorted(outcome):
            for key, value in outcome[i].items():
                out[key].append(value)
        return out

    @api.post("/api/documents")
    async def add_documents(self, request: Request):
        try:
            content_type = request.headers.get("content-type", "")
            if not content_type.startswith("application/json"):
                raise ApiError(415, "unsupported_media_type",
                               "send application/json (the Ray application takes no multipart adds)")
            add = _http.add_from_json(_http.parse_json(await self._body(request)))
            return JSONResponse(await self._run(self._add, add))
        except ApiError as e:
            return _error_response(e)

    # -- health ---------------------------------------------------------------------------

    def _health(self) -> dict[str, Any]:
        n = len(self._shards)
        deadline = time.monotonic() + float(self._opts["health_timeout_s"])
        calls = [h.live_docs.remote() for h in self._shards]
        docs, down = [], []
        for s, response in enumerate(calls):
            try:
                docs.append(response.result(timeout_s=max(0.1, deadline - time.monotonic())))
            except TimeoutError:
                response.cancel()
                down.append(f"shard {s} of {n} did not answer within {self._opts['health_timeout_s']} s")
            except Exception as e:  # noqa: BLE001 - a shard that is down is named
                down.append(f"shard {s} of {n} did not answer: {_first_line(e)}")
        if down:
            raise _http.unavailable("; ".join(down))
        return {
            "status": "ok",
            "version": tessera.__version__,
            "shards": n,
            "replicas": self._opts["replicas"],
            "documents": sum(docs),
            "shard_documents": docs,
            "max_upload_bytes": self._opts["max_upload_bytes"],
            "submissions": None,
        }

    @api.get("/api/health")
    async def health(self):
        try:
            return JSONResponse(await self._run(self._health))
        except ApiError as e:
            return _error_response(e)


def app(index: Union[str, "os.PathLike[str]"], **options: Any):
    """The application for the shards under `index` (folders `shard-S-of-N`, made by
    `tessera.build_shards`), for `serve.run`.

    Options (``DEFAULTS``): ``replicas`` per shard (a count, or a list of one count per
    shard; Serve takes no fewer than 1); ``call_timeout_s``, the longest a call
    to a shard waits; ``check_timeout_s``, a check's deadline; ``add_timeout_s``;
    ``health_timeout_s``; ``max_upload_bytes``; ``ingress_replicas``;
    ``max_ongoing_requests`` (per ingress replica, and per shard replica); ``num_cpus``
    reserved per replica (0: placed by memory alone); ``reports``, the folder of finished
    checks (default ``checks/`` in `index`; every ingress replica must reach it).
    """
    unknown = set(options) - set(DEFAULTS)
    if unknown:
        raise TypeError(f"unknown option {sorted(unknown)[0]!r}; options are {', '.join(sorted(DEFAULTS))}")
    opts = {**DEFAULTS, **options}
    root = Path(index).resolve()
    dirs = shard_dirs(root)
    actor = {"num_cpus": float(opts["num_cpus"])}
    ongoing = int(opts["max_ongoing_requests"])
    replicas = opts["replicas"]
    if isinstance(replicas, (list, tuple)):
        if len(replicas) != len(dirs):
            raise ValueError(f"replicas: {len(replicas)} counts for {len(dirs)} shards")
        replicas = [int(r) for r in replicas]
    else:
        replicas = [int(replicas)] * len(dirs)
    if min(replicas) < 1:
        raise ValueError("replicas: every shard needs at least 1 replica")
    opts["replicas"] = replicas
    shards = [
        ShardReplica.options(name=f"shard-{s:03}", num_replicas=replicas[s], ray_actor_options=actor,
                             max_ongoing_requests=ongoing).bind(str(d))
        for s, d in enumerate(dirs)
    ]
    writers = [ShardWriter.options(name=f"writer-{s:03}", ray_actor_options=actor).bind(str(d))
               for s, d in enumerate(dirs)]
    opts["reports"] = str(opts["reports"]) if opts["reports"] else None
    return Ingress.options(name="ingress", num_replicas=int(opts["ingress_replicas"]), ray_actor_options=actor,
                           max_ongoing_requests=ongoing).bind(str(root), shards, writers, opts)


def build_app(args: dict[str, Any]):
    """The application builder `serve run` / `serve deploy` configs name
    (``import_path: tessera.ray:build_app``): ``args`` are :func:`app`'s, with ``index``."""
    args = dict(args)
    index = args.pop("index", None)
    if not index:
        raise ValueError("args.index: the folder of the shards (shard-S-of-N) is required")
    return app(index, **args)
