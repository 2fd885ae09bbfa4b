"""The HTTP side of the Ray application: reading requests as `tessera serve` reads them
(JSON or multipart, the same fields and refusals), the error body of every failure
(`{"error": {"code", "message"}}`, core's wire type), and the store of finished checks.

The store is a folder every ingress replica reads (by default `checks/` in the index's
folder, which every node already reaches): a check's record is written to a temporary
file, flushed and renamed into place, so a reader sees a whole record or none, and a
record outlives the replica, the application and the cluster that made it. A Ray actor
would hold the reports in one process's memory: lost when it dies, and one more thing to
place and restart.
"""

from __future__ import annotations

import email.parser
import email.policy
import json
import os
import re
import secrets
import time
from pathlib import Path
from typing import Any, Optional

# As `tessera serve`: a check id is 128 random bits in hex, checked for shape before any
# file is opened; collection names as the server takes them.
_CHECK_ID = re.compile(r"^[0-9a-f]{32}$")
_COLLECTION = re.compile(r"^[A-Za-z0-9_.-]{1,64}$")
FILTER_FIELDS = ("exclude_quotes", "exclude_bibliography", "min_words", "min_percent")
ADD_FIELDS = {"collection", "kind", "keep_texts", "if_new", "if_new_threshold", "force", "documents"}
CHECK_FIELDS = {"text", "name", "title", "submit_to", "filters"}


class ApiError(Exception):
    """An answer other than success: status, a stable code and a sentence."""

    def __init__(self, status: int, code: str, message: str, retry_after: Optional[int] = None):
        super().__init__(message)
        self.status, self.code, self.message, self.retry_after = status, code, message, retry_after

    def body(self) -> dict[str, Any]:
        return {"error": {"code": self.code, "message": self.message}}


def bad_request(message: str) -> ApiError:
    return ApiError(400, "bad_request", message)


def unavailable(message: str) -> ApiError:
    """A shard did not answer: retryable (503 with `Retry-After`)."""
    return ApiError(503, "shard_unavailable", message, retry_after=1)


def engine_error(e: BaseException) -> ApiError:
    """An error of the engine as `tessera serve` answers it (crates/server/src/error.rs).
    Python's exceptions carry the engine's message, not its kind: the kind is read back
    from the message's known endings."""
    import tessera

    message = str(e)
    if isinstance(e, tessera.ShardUnavailableError):
        return unavailable(message)
    if isinstance(e, ValueError):
        if "over the limit" in message:
            return ApiError(413, "too_large", message)
        return bad_request(message)
    if isinstance(e, tessera.TesseraError):
        if any(m in message for m in ("not a text document", "its members are separate documents", "unsupported")):
            return ApiError(415, "unsupported_format", message)
        if "has no text" in message or "damaged" in message or "encrypted" in message:
            return ApiError(422, "unreadable_document", message)
        if "locked" in message:
            return ApiError(409, "index_locked", message)
    return ApiError(500, "internal", message)


def clean_name(raw: str) -> str:
    """An upload's name as the server shows it: its last path part, without control
    characters or leading dots, at most 200 characters; `document` when nothing is left."""
    last = re.split(r"[/\\]", raw)[-1]
    cleaned = "".join(c for c in last if c.isprintable())[:200].strip().lstrip(".")
    return cleaned or "document"


def parse_json(body: bytes) -> Any:
    try:
        return json.loads(body)
    except (ValueError, UnicodeDecodeError) as e:
        raise bad_request(f"Failed to parse the request body as JSON: {e}") from None


def _shape(message: str) -> ApiError:
    # axum's Json answers a body of the wrong shape 422 (a syntax error 400).
    return ApiError(422, "bad_request", f"Failed to deserialize the JSON body into the target type: {message}")


def _switch(value: str, field: str) -> bool:
    v = value.strip().lower()
    if v in ("true", "on", "1"):
        return True
    if v in ("false", "off", "0", ""):
        return False
    raise bad_request(f"{field} must be true or false")


def filters_from(raw: Any, form: bool = False) -> dict[str, Any]:
    """The report filters of a check (JSON `filters`, or the four multipart fields): the
    keyword arguments of `ShardedIndex.check`; `422 invalid_filters` for `min_percent`
    outside 0 to 100."""
    if raw is None:
        return {}
    if not isinstance(raw, dict):
        raise _shape("filters: expected an object")
    out: dict[str, Any] = {}
    for key, value in raw.items():
        if key not in FILTER_FIELDS:
            raise _shape(f"filters: unknown field `{key}`, expected one of {', '.join(FILTER_FIELDS)}")
        if key in ("exclude_quotes", "exclude_bibliography"):
            value = _switch(value, key) if form else value
            if not isinstance(value, bool):
                raise _shape(f"filters.{key}: expected a boolean")
        elif key == "min_words":
            try:
                value = int(value) if form else value
            except ValueError:
                raise bad_request("min_words is not a number") from None
            if not isinstance(value, int) or isinstance(value, bool) or value < 0:
                raise _shape("filters.min_words: expected a non-negative integer")
        else:
            try:
                value = float(value) if form else value
            except ValueError:
                raise bad_request("min_percent is not a number") from None
            if not isinstance(value, (int, float)) or isinstance(value, bool):
                raise _shape("filters.min_percent: expected a number")
            if not 0 <= value <= 100:
                raise ApiError(422, "invalid_filters", f"min_percent must lie in 0 to 100 (got {value})")
            value = float(value)
        out[key] = value
    return out


def multipart_parts(content_type: str, body: bytes) -> list[tuple[str, Optional[str], bytes]]:
    """`(field name, file name or None, bytes)` of a multipart/form-data body."""
    head = f"Content-Type: {content_type}\r\nMIME-Version: 1.0\r\n\r\n".encode("latin-1", "replace")
    message = email.parser.BytesParser(policy=email.policy.HTTP).parsebytes(head + body)
    if not message.is_multipart():
        raise bad_request("the multipart body could not be read")
    out = []
    for part in message.iter_parts():
        name = part.get_param("name", header="content-disposition")
        if name is None:
            raise bad_request("a multipart part has no name")
        payload = part.get_payload(decode=True) or b""
        out.append((str(name), part.get_filename(), payload))
    return out


def check_from_json(data: Any) -> dict[str, Any]:
    """`{"text", "name"?, "title"?, "submit_to"?, "filters"?}` read as the server reads it."""
    if not isinstance(data, dict):
        raise _shape("expected an object")
    unknown = set(data) - CHECK_FIELDS
    if unknown:
        raise _shape(f"unknown field `{sorted(unknown)[0]}`")
    text = data.get("text")
    if not isinstance(text, str):
        raise _shape("missing field `text`" if text is None else "text: expected a string")
    for key in ("name", "title", "submit_to"):
        if data.get(key) is not None and not isinstance(data[key], str):
            raise _shape(f"{key}: expected a string")
    if not text.strip():
        raise ApiError(422, "empty", "the text is empty")
    no_submissions(data.get("submit_to"))
    return {
        "document": text,
        "name": clean_name(data.get("name") or "text"),
        "title": data.get("title"),
        "filters": filters_from(data.get("filters")),
        "bytes": len(text.encode("utf-8")),
    }


def check_from_form(parts: list[tuple[str, Optional[str], bytes]]) -> dict[str, Any]:
    """A multipart check: one `file` part, optional `title`, `submit_to` and filter fields."""
    upload: Optional[tuple[str, bytes]] = None
    title: Optional[str] = None
    raw_filters: dict[str, str] = {}
    for name, file_name, payload in parts:
        if file_name is not None or name == "file":
            if upload is not None:
                raise bad_request("send one file per check")
            if not payload:
                raise ApiError(415, "unsupported_format", f"{clean_name(file_name or 'document')}: the file is empty")
            upload = (clean_name(file_name or "document"), payload)
        elif name == "title":
            title = payload.decode("utf-8", "replace")
        elif name == "submit_to":
            no_submissions(payload.decode("utf-8", "replace"))
        elif name in FILTER_FIELDS:
            raw_filters[name] = payload.decode("utf-8", "replace")
        else:
            raise bad_request(f"unknown form field {name!r}")
    if upload is None:
        raise bad_request("the form has no file field")
    return {
        "document": upload[1],
        "name": upload[0],
        "title": title,
        "filters": filters_from(raw_filters, form=True) if raw_filters else {},
        "bytes": len(upload[1]),
    }


def no_submissions(submit_to: Optional[str]) -> None:
    if submit_to:
        raise bad_request(
            "submit_to: the Ray application does not keep submissions yet "
            "(a submission is an add to the owning shard after the check; send it to POST /api/documents)"
        )


def add_from_json(data: Any) -> dict[str, Any]:
    """The add-documents request (core's wire `AddDocuments`), checked as the server
    checks it."""
    if not isinstance(data, dict):
        raise _shape("expected an object")
    unknown = set(data) - ADD_FIELDS
    if unknown:
        raise _shape(f"unknown field `{sorted(unknown)[0]}`, expected one of {', '.join(sorted(ADD_FIELDS))}")
    for key in ("collection", "documents"):
        if key not in data:
            raise _shape(f"missing field `{key}`")
    collection = data["collection"]
    if not isinstance(collection, str):
        raise _shape("collection: expected a string")
    if not _COLLECTION.match(collection):
        raise bad_request(f"collection name {collection!r} must match [A-Za-z0-9_.-]{{1,64}}")
    kind = data.get("kind")
    if kind is not None and kind not in ("source", "citation"):
        raise bad_request(f"unknown collection kind {kind!r} (source or citation)")
    keep_texts = data.get("keep_texts")
    if keep_texts is not None and not isinstance(keep_texts, bool):
        raise _shape("keep_texts: expected a boolean")
    for key in ("if_new", "force"):
        if not isinstance(data.get(key, False), bool):
            raise _shape(f"{key}: expected a boolean")
    threshold = data.get("if_new_threshold")
    if threshold is not None and (isinstance(threshold, bool) or not isinstance(threshold, (int, float))):
        raise _shape("if_new_threshold: expected a number")
    if threshold is not None and not 0 < threshold <= 1:
        raise bad_request(f"if_new_threshold must lie in (0, 1] (got {threshold})")
    if data.get("if_new") and data.get("force"):
        raise bad_request("force and if_new exclude each other")
    if data.get("if_new") or threshold is not None:
        raise bad_request(
            "if_new is not supported by the Ray application: whether a document is new depends on "
            "every shard's documents, and each shard's writer sees only its own (add without it)"
        )
    documents = data["documents"]
    if not isinstance(documents, list):
        raise _shape("documents: expected a sequence")
    docs = []
    for i, doc in enumerate(documents):
        if not isinstance(doc, dict) or not isinstance(doc.get("text"), str):
            raise _shape(f"documents[{i}]: missing field `text`")
        if set(doc) - {"text", "title", "origin"}:
            raise _shape(f"documents[{i}]: unknown field `{sorted(set(doc) - {'text', 'title', 'origin'})[0]}`")
        title, origin = doc.get("title", ""), doc.get("origin", "")
        if not isinstance(title, str) or not isinstance(origin, str):
            raise _shape(f"documents[{i}]: title and origin are strings")
        if not doc["text"].strip():
            raise ApiError(422, "empty", f"document {origin!r} has no text")
        docs.append({"text": doc["text"], "title": title, "origin": origin})
    return {
        "collection": collection,
        "kind": kind or "source",
        "keep_texts": keep_texts,
        "force": bool(data.get("force", False)),
        "documents": docs,
    }


class ReportStore:
    """Finished checks, one JSON file each (`<id>.json`), in a folder every ingress
    replica reads."""

    def __init__(self, folder: Path):
        self.folder = Path(folder)

    def put(self, record: dict[str, Any]) -> None:
        self.folder.mkdir(parents=True, exist_ok=True)
        final = self.folder / f"{record['id']}.json"
        tmp = self.folder / f".{record['id']}.{os.getpid()}.{secrets.token_hex(4)}.tmp"
        data = json.dumps(record, ensure_ascii=False, separators=(",", ":")).encode("utf-8")
        with open(tmp, "wb") as f:
            f.write(data)
            f.flush()
            os.fsync(f.fileno())
        os.replace(tmp, final)
        try:
            fd = os.open(self.folder, os.O_RDONLY)
        except OSError:
            return
        try:
            os.fsync(fd)
        finally:
            os.close(fd)

    def get(self, check_id: str) -> Optional[dict[str, Any]]:
        if not _CHECK_ID.match(check_id):
            return None
        try:
            return json.loads((self.folder / f"{check_id}.json").read_bytes())
        except FileNotFoundError:
            return None


def new_check_id() -> str:
    return secrets.token_hex(16)


def check_record(check_id: str, name: str, title: Optional[str], upload_bytes: int, started_ms: int,
                 report: dict[str, Any], collections: int) -> dict[str, Any]:
    """A finished check as `GET /api/checks/{id}` answers it (the server's fields)."""
    now = int(time.time() * 1000)
    return {
        "id": check_id,
        "status": "done",
        "stage": "finished",
        "name": name,
        "title": title,
        "upload_bytes": upload_bytes,
        "created_ms": started_ms,
        "updated_ms": now,
        "queue_position": None,
        "progress": {"collections_total": collections, "collections_done": collections},
        "percent": 100,
        "error": None,
        "warnings": [],
        "late_collections": [],
        "attempts": 1,
        "edits": [],
        "submit_to": None,
        "submitted": None,
        "submission_removed": False,
        "report": report,
    }
