"""The online check on Ray Serve (tessera.ray, issue 50) on a real two-node Ray cluster on
loopback: `ray start --head` and a second raylet joined with `ray start --address`, the
application deployed with `python -m tessera.ray`, checks and adds through its HTTP API,
a shard replica killed with kill -9 under a load of checks, a shard left without
replicas. Runs when TESSERA_RAY=1 (CI sets it); skipped where Ray cannot be imported.

The nodes take the loopback addresses 127.0.0.2 and 127.0.0.3: Ray replaces 127.0.0.1
and localhost by the machine's routable address (`resolve_ip_for_localhost`), which would
take the cluster's traffic off loopback; any other 127.x address it keeps. The HTTP proxy
listens on 127.0.0.1.
"""

from __future__ import annotations

import json
import os
import random
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import threading
import time
import urllib.error
import urllib.request
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import pytest

import tessera
from conftest import corpus, demo_texts, edit

pytestmark = pytest.mark.skipif(os.environ.get("TESSERA_RAY") != "1", reason="TESSERA_RAY=1 runs the Ray tests")

HEAD_IP, WORKER_IP = "127.0.0.2", "127.0.0.3"
SHARDS = 3
CALL_TIMEOUT_S = 5.0
CHECK_TIMEOUT_S = 20.0
MAX_UPLOAD = 2_000_000
APP = "tessera"


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def _ray_bin() -> str:
    return str(Path(sys.executable).parent / "ray")


def _library() -> tuple[list[str], list[str]]:
    texts = [t for t in corpus(150) if len(t.split()) > 30]
    return texts, [f"doc-{i:03}.txt" for i in range(len(texts))]


def _suspects(texts: list[str], n: int, seed: int) -> list[str]:
    rng = random.Random(seed)
    out = [demo_texts()["thesis"]]
    for k in range(n - 1):
        parts = []
        for i in rng.sample(range(len(texts)), 3):
            words = texts[i].split()
            start = rng.randrange(max(1, len(words) - 100))
            parts.append(" ".join(words[start : start + 100]))
        parts.append("An own closing sentence that no source has written before, surely.")
        out.append(edit(" ".join(parts), 9, k) if k % 2 else " ".join(parts))
    return out


class Http:
    def __init__(self, port: int):
        self.base = f"http://127.0.0.1:{port}"

    def request(self, method: str, path: str, body: bytes | None = None, content_type: str | None = None,
                timeout: float = 60) -> tuple[int, dict, dict]:
        headers = {"content-type": content_type} if content_type else {}
        req = urllib.request.Request(self.base + path, data=body, headers=headers, method=method)
        try:
            with urllib.request.urlopen(req, timeout=timeout) as r:
                return r.status, dict(r.headers), json.loads(r.read())
        except urllib.error.HTTPError as e:
            return e.code, dict(e.headers), json.loads(e.read())

    def post_json(self, path: str, data, timeout: float = 60):
        return self.request("POST", path, json.dumps(data).encode(), "application/json", timeout)

    def get(self, path: str):
        return self.request("GET", path)

    def check(self, text: str, name: str) -> tuple[int, dict]:
        status, _, body = self.post_json("/api/checks", {"text": text, "name": name})
        if status != 202:
            return status, body
        status, _, record = self.get(body["url"])
        assert status == 200
        return 202, record["report"]


@pytest.fixture(scope="module")
def cluster():
    """A head and a worker node on loopback; `ray stop --force` afterwards, always."""
    ray = pytest.importorskip("ray", reason="Ray is not installed (pip install 'ray[serve]')")
    pytest.importorskip("ray.serve", reason="Ray Serve is not installed (pip install 'ray[serve]')")
    import tessera.ray  # noqa: F401 - the application's package, used by the tests below
    port = _free_port()
    temp = tempfile.mkdtemp(prefix="tray-", dir="/tmp")  # Ray's socket paths must stay short
    env = {**os.environ, "RAY_USAGE_STATS_ENABLED": "0"}
    common = ["--num-cpus", "2", "--disable-usage-stats"]
    try:
        subprocess.run([_ray_bin(), "start", "--head", "--node-ip-address", HEAD_IP, "--port", str(port),
                        "--include-dashboard=false", "--temp-dir", temp, *common],
                       check=True, env=env, timeout=180, capture_output=True)
        subprocess.run([_ray_bin(), "start", "--address", f"{HEAD_IP}:{port}", "--node-ip-address", WORKER_IP,
                        *common], check=True, env=env, timeout=180, capture_output=True)
        ray.init(address=f"{HEAD_IP}:{port}", log_to_driver=False)
        assert len([n for n in ray.nodes() if n["Alive"]]) == 2
        yield f"{HEAD_IP}:{port}"
    finally:
        try:
            ray.shutdown()
        finally:
            subprocess.run([_ray_bin(), "stop", "--force"], env=env, timeout=120, capture_output=True)
            shutil.rmtree(temp, ignore_errors=True)


@pytest.fixture(scope="module")
def served(cluster, tmp_path_factory):
    """3 shards (and one index of the same documents) served by the application, 2
    replicas a shard, deployed by `python -m tessera.ray`."""
    texts, origins = _library()
    base = tmp_path_factory.mktemp("ray")
    root = base / "shards"
    tessera.build_shards(root, SHARDS, texts, origins=origins, collection="lib")
    one = tessera.Index.create(base / "one")
    one.add(texts, origins=origins, collection="lib")
    port = _free_port()
    t0 = time.monotonic()
    subprocess.run(
        [sys.executable, "-m", "tessera.ray", "--index", str(root), "--address", cluster, "--port", str(port),
         "--replicas", "2", "--call-timeout", str(CALL_TIMEOUT_S), "--check-timeout", str(CHECK_TIMEOUT_S),
         "--max-upload-bytes", str(MAX_UPLOAD)],
        check=True, timeout=300,
    )
    print(f"deployed in {time.monotonic() - t0:.1f} s")
    return {"root": root, "one": one, "texts": texts, "origins": origins, "http": Http(port), "port": port}


def _handle(name: str):
    from ray import serve

    return serve.get_deployment_handle(name, app_name=APP)


def _replica_pids(name: str, want: int, seconds: float = 60) -> set[int]:
    """The pids of a deployment's replicas, asked through its handle until `want` differ."""
    handle, pids, end = _handle(name), set(), time.monotonic() + seconds
    while len(pids) < want and time.monotonic() < end:
        pids.add(handle.pid.remote().result(timeout_s=10))
    return pids


def test_checks_through_http_equal_one_index(served):
    http, root, one = served["http"], served["root"], served["one"]
    status, _, health = http.get("/api/health")
    assert status == 200 and health["status"] == "ok"
    assert health["shards"] == SHARDS and health["documents"] == len(served["texts"])
    local = tessera.ShardedIndex.open(root)
    found = 0
    for i, text in enumerate(_suspects(served["texts"], 6, 5)):
        status, report = http.check(text, f"s{i}.txt")
        assert status == 202, report
        want = one.check(text, name=f"s{i}.txt")
        assert report == local.check(text, name=f"s{i}.txt") == want
        found += bool(want["sources"])
    assert found >= 5
    # A file upload with the filters as form fields, the report as ShardedIndex gives it.
    thesis = demo_texts()["thesis"].encode()
    boundary = "tesseraboundary"
    form = (
        f"--{boundary}\r\nContent-Disposition: form-data; name=\"file\"; filename=\"dir/thesis.txt\"\r\n"
        f"Content-Type: text/plain\r\n\r\n"
    ).encode() + thesis + (
        f"\r\n--{boundary}\r\nContent-Disposition: form-data; name=\"min_words\"\r\n\r\n8"
        f"\r\n--{boundary}\r\nContent-Disposition: form-data; name=\"title\"\r\n\r\nA thesis\r\n--{boundary}--\r\n"
    ).encode()
    status, headers, accepted = http.request("POST", "/api/checks", form, f"multipart/form-data; boundary={boundary}")
    assert status == 202 and headers["location"] == accepted["url"], accepted
    status, _, record = http.get(accepted["url"])
    assert record["status"] == "done" and record["name"] == "thesis.txt"
    assert record["report"] == local.check(thesis, name="thesis.txt", title="A thesis", min_words=8)
    status, _, record = http.get(accepted["url"] + "?report=false")
    assert status == 200 and record["report"] is None
    # Reports are files under the index's folder: every ingress replica reads them.
    assert (root / "checks" / f"{accepted['id']}.json").is_file()


def test_bad_requests_are_answered_as_the_server_answers_them(served):
    http = served["http"]

    cases = [
        (http.request("POST", "/api/checks", b"text", "text/plain"), 415, "unsupported_media_type"),
        (http.post_json("/api/checks", {"text": "  "}), 422, "empty"),
        (http.request("POST", "/api/checks", b"{not json", "application/json"), 400, "bad_request"),
        (http.post_json("/api/checks", {"text": "t", "colour": 1}), 422, "bad_request"),
        (http.post_json("/api/checks", {"text": "x" * (MAX_UPLOAD + 10)}), 413, "too_large"),
        (http.post_json("/api/checks", {"text": "some text", "filters": {"min_percent": 120}}), 422, "invalid_filters"),
        (http.get("/api/checks/" + "0" * 32), 404, "not_found"),
        (http.get("/api/checks/not-a-check-id"), 404, "not_found"),
        (http.get("/api/nothing-here"), 404, "not_found"),
        (http.post_json("/api/documents", {"collection": "bad name", "documents": []}), 400, "bad_request"),
        (http.post_json("/api/documents", {"collection": "lib", "documents": [{"text": ""}]}), 422, "empty"),
        (http.post_json("/api/documents", {"collection": "lib", "if_new": True, "documents": []}), 400, "bad_request"),
    ]
    for (status, _, body), want_status, want_code in cases:
        assert (status, body["error"]["code"]) == (want_status, want_code), body
        assert body["error"]["message"]
    status, _, body = http.request("POST", "/api/checks", b"\x00\x01binary\xff" * 50, "multipart/form-data; boundary=b")
    assert status == 400, body
    boundary = "b0"
    form = (f"--{boundary}\r\nContent-Disposition: form-data; name=\"file\"; filename=\"x.bin\"\r\n\r\n").encode()
    form += b"\x00\x01\x02binary\xff" * 40 + f"\r\n--{boundary}--\r\n".encode()
    status, _, body = http.request("POST", "/api/checks", form, f"multipart/form-data; boundary={boundary}")
    assert (status, body["error"]["code"]) == (415, "unsupported_format"), body


def test_an_add_lands_in_its_owning_shard_and_is_found(served):
    http, root = served["http"], served["root"]
    press = demo_texts()["printing-press"]
    new = edit(press, 40, 1) + " A closing line nobody indexed before about kites over Lisbon harbour."
    before = [tessera.Shard(d).live_docs() for d in tessera.ray.shard_dirs(root)]
    status, _, added = http.post_json(
        "/api/documents", {"collection": "lib", "documents": [{"text": new, "origin": "late/press.txt", "title": "Late"}]}
    )
    assert status == 200, added
    assert added["skipped"] == [] and added["failed"] == []
    [doc] = added["added"]
    assert doc["origin"] == "late/press.txt" and doc["title"] == "Late"
    owner = tessera.ray.shard_for("late/press.txt", new, SHARDS)
    assert tessera.shard_of(doc["id"], SHARDS) == owner and doc["id"] >= len(served["texts"])
    after = [tessera.Shard(d).live_docs() for d in tessera.ray.shard_dirs(root)]
    assert [a - b for a, b in zip(after, before)] == [int(s == owner) for s in range(SHARDS)]
    status, report = http.check(new, "again.txt")
    assert status == 202 and doc["id"] in [s["id"] for s in report["sources"]]
    # The same document sent again is a repeat: skipped, nothing added twice.
    status, _, again = http.post_json("/api/documents", {"collection": "lib", "documents": [{"text": new, "origin": "late/press.txt"}]})
    assert status == 200 and again["added"] == []
    assert again["skipped"] == [{"origin": "late/press.txt", "duplicate_of": doc["id"], "containment": 1.0, "same_origin": True}]


def test_a_replica_killed_under_load(served):
    """kill -9 of a shard replica's process during concurrent checks: each check completes
    or gets a 503 JSON, none past its deadline; Ray starts a new replica; checks succeed
    again and no acknowledged add is lost."""
    http, texts = served["http"], served["texts"]
    # Adds acknowledged before the kill, one per shard at least.
    acked = []
    for k in range(6):
        text = edit(texts[k], 7, 100 + k) + f" Unique closing words number {k} about lanterns and herons."
        status, _, added = http.post_json("/api/documents", {"collection": "lib", "documents": [{"text": text, "origin": f"before-kill-{k}"}]})
        assert status == 200 and len(added["added"]) == 1
        acked.append((text, added["added"][0]["id"]))
    victim = "shard-001"
    pids = _replica_pids(victim, 2)
    assert len(pids) == 2, pids
    target = sorted(pids)[0]
    suspects = _suspects(texts, 32, 11)
    outcomes: list[tuple[int, dict, float]] = []
    lock = threading.Lock()
    started = threading.Event()

    def one(i: int) -> None:
        t0 = time.monotonic()
        status, headers, body = http.post_json("/api/checks", {"text": suspects[i], "name": f"load{i}.txt"}, timeout=120)
        with lock:
            outcomes.append((status, {"retry": headers.get("retry-after"), "retried": headers.get("x-tessera-shard-retries"), **body}, time.monotonic() - t0))
        started.set()

    with ThreadPoolExecutor(8) as pool:
        futures = [pool.submit(one, i) for i in range(len(suspects))]
        started.wait(60)
        os.kill(target, signal.SIGKILL)
        for f in futures:
            f.result()
    assert len(outcomes) == len(suspects)
    for status, body, seconds in outcomes:
        assert status in (202, 503), body
        if status == 503:
            assert body["error"]["code"] == "shard_unavailable" and "shard 1 of 3" in body["error"]["message"], body
            assert body["retry"] == "1"
        # Nothing hangs past the check's deadline (plus HTTP and queueing slack).
        assert seconds < CHECK_TIMEOUT_S + 15, (status, seconds)
    ok = sum(s == 202 for s, _, _ in outcomes)
    retried = sum(int(b.get("retried") or 0) for _, b, _ in outcomes)
    print(f"under kill -9: {ok} of {len(outcomes)} checks answered, {len(outcomes) - ok} 503, {retried} calls asked again")
    # Ray starts a new replica in the killed one's place.
    end, fresh = time.monotonic() + 120, set()
    while time.monotonic() < end:
        fresh = _replica_pids(victim, 2, seconds=10)
        if len(fresh) == 2 and target not in fresh:
            break
        time.sleep(1)
    assert len(fresh) == 2 and target not in fresh, (target, fresh)
    # Checks succeed again, and every acknowledged add is found.
    for text, doc in acked:
        status, report = http.check(text, "after.txt")
        assert status == 202, report
        assert doc in [s["id"] for s in report["sources"]]


def _replica_processes(deployment: str) -> list[int]:
    """This machine's processes of a deployment's replicas, by the title Ray gives them."""
    title = f"ray::ServeReplica:{APP}:{deployment}".encode()
    out = []
    for entry in os.listdir("/proc"):
        if entry.isdigit():
            try:
                with open(f"/proc/{entry}/cmdline", "rb") as f:
                    if f.read().startswith(title):
                        out.append(int(entry))
            except OSError:
                pass
    return out


def test_a_shard_without_live_replicas_fails_checks_with_503(served):
    """Every replica of shard 2 killed as soon as it appears (Serve takes no
    num_replicas=0): checks fail with 503 naming the shard within their deadline, never a
    report that looks complete; once the killing stops, Ray brings the shard back."""
    http = served["http"]
    stop, killed = threading.Event(), []

    def killer() -> None:
        while not stop.is_set():
            for pid in _replica_processes("shard-002"):
                try:
                    os.kill(pid, signal.SIGKILL)
                    killed.append(pid)
                except ProcessLookupError:
                    pass
            time.sleep(0.1)

    thread = threading.Thread(target=killer)
    thread.start()
    try:
        time.sleep(2)
        for i in range(2):
            t0 = time.monotonic()
            status, headers, body = http.post_json("/api/checks", {"text": served["texts"][3 + i], "name": "x.txt"})
            assert status == 503 and headers.get("retry-after") == "1", body
            assert body["error"]["code"] == "shard_unavailable"
            assert "shard 2 of 3 did not answer" in body["error"]["message"], body
            assert time.monotonic() - t0 < CHECK_TIMEOUT_S + 10
        status, _, body = http.get("/api/health")
        assert status == 503 and "shard 2 of 3" in body["error"]["message"], body
    finally:
        stop.set()
        thread.join()
    assert killed
    end = time.monotonic() + 120
    while time.monotonic() < end and http.get("/api/health")[0] != 200:
        time.sleep(1)
    status, report = http.check(served["texts"][3], "x.txt")
    assert status == 202 and report == served["one"].check(served["texts"][3], name="x.txt")


def test_the_serve_configs_build(served):
    yaml = pytest.importorskip("yaml")
    from ray.serve.schema import ServeDeploySchema

    import tessera.ray

    repo = Path(__file__).resolve().parents[3]
    for name in ("serve-1node.yaml", "serve-nnode.yaml"):
        config = yaml.safe_load((repo / "deploy" / "ray" / name).read_text())
        schema = ServeDeploySchema.model_validate(config) if hasattr(ServeDeploySchema, "model_validate") else ServeDeploySchema.parse_obj(config)
        [application] = schema.applications
        assert application.import_path == "tessera.ray:build_app"
        assert config["http_options"]["host"] == "127.0.0.1"
        args = {**application.args, "index": str(served["root"])}
        tessera.ray.build_app(args)
