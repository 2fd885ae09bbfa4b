"""The Redis-backed MinHashLSH on a real redis-server.

A redis-server (Debian's `redis-server`) is started on 127.0.0.1 at a free port, without
persistence, in a temporary directory, once for this module. Without the program the
tests skip, unless TESSERA_REDIS=1 (CI) makes that a failure.
"""

from __future__ import annotations

import os
import pickle
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import textwrap
import time
from pathlib import Path
from typing import Iterator

import numpy as np
import pytest

import tessera

REQUIRED = os.environ.get("TESSERA_REDIS") == "1"
EMPTY = np.full(128, 0xFFFFFFFF, dtype=np.uint64)


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def ping(port: int) -> bool:
    try:
        with socket.create_connection(("127.0.0.1", port), timeout=0.5) as s:
            s.sendall(b"PING\r\n")
            return s.recv(16).startswith(b"+PONG")
    except OSError:
        return False


class Server:
    """One redis-server process on 127.0.0.1."""

    def __init__(self, workdir: Path) -> None:
        program = shutil.which("redis-server")
        if program is None:
            if REQUIRED:
                pytest.fail("redis-server is not installed and TESSERA_REDIS=1 requires the Redis tests")
            pytest.skip("redis-server is not installed (apt-get install redis-server)")
        for _ in range(5):  # a free port can be taken between the check and the bind
            self.port = free_port()
            self.proc = subprocess.Popen(
                [program, "--port", str(self.port), "--bind", "127.0.0.1", "--save", "",
                 "--appendonly", "no", "--dir", str(workdir)],
                stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
            )
            deadline = time.monotonic() + 10
            while time.monotonic() < deadline and self.proc.poll() is None:
                if ping(self.port):
                    return
                time.sleep(0.05)
            self.stop()
        pytest.fail("redis-server did not start")

    def config(self, basename: bytes, **redis: object) -> dict:
        return {"type": "redis", "redis": {"host": "127.0.0.1", "port": self.port, **redis}, "basename": basename}

    def stop(self) -> None:
        if self.proc.poll() is None:
            self.proc.send_signal(signal.SIGCONT)
            self.proc.terminate()
            try:
                self.proc.wait(10)
            except subprocess.TimeoutExpired:
                self.proc.kill()
                self.proc.wait()


@pytest.fixture(scope="module")
def server() -> Iterator[Server]:
    with tempfile.TemporaryDirectory(prefix="tessera-redis-") as d:
        s = Server(Path(d))
        yield s
        s.stop()


@pytest.fixture
def basename(request: pytest.FixtureRequest) -> bytes:
    return f"t-{request.node.name}-{os.getpid()}".encode()


def signatures(n: int, seed: int = 7) -> np.ndarray:
    """n signatures in clusters of near-copies: each cluster's rows differ from its first
    in 0 to 40 of 128 values, so queries find 1 to several keys."""
    rng = np.random.default_rng(seed)
    out = rng.integers(0, 2**32 - 1, size=(n, 128), dtype=np.uint64)
    for i in range(n):
        if i % 5:
            base = out[i - i % 5].copy()
            pos = rng.choice(128, size=int(rng.integers(0, 41)), replace=False)
            base[pos] = rng.integers(0, 2**32 - 1, size=len(pos), dtype=np.uint64)
            out[i] = base
    return out


def key_of(i: int) -> object:
    # All three key types: str, int (also beyond 64 bits), bytes.
    return (f"doc-{i}", i, f"b{i}".encode(), 2**70 + i)[i % 4]


def test_same_answers_as_in_memory(server: Server, basename: bytes) -> None:
    sigs = signatures(400)
    mem = tessera.MinHashLSH(threshold=0.7)
    red = tessera.MinHashLSH(threshold=0.7, storage_config=server.config(basename))
    assert type(red) is tessera.RedisMinHashLSH
    assert isinstance(red, tessera.MinHashLSH) and isinstance(mem, tessera.MinHashLSH)
    assert (red.b, red.r) == (mem.b, mem.r)
    assert red.is_empty() and len(red) == 0 and red.seed is None
    minhashes = [tessera.MinHash(hashvalues=row) for row in sigs]
    for i, m in enumerate(minhashes[:200]):
        mem.insert(key_of(i), m)
        red.insert(key_of(i), m)
    with red.insertion_session(buffer_size=64) as session:
        for i, m in enumerate(minhashes[200:], 200):
            mem.insert(key_of(i), m)
            session.insert(key_of(i), m)
    # An empty signature is stored but found by nothing, as in memory.
    empty = tessera.MinHash(hashvalues=EMPTY)
    mem.insert("empty", empty)
    red.insert("empty", empty)
    assert len(red) == len(mem) == 401 and not red.is_empty() and red.seed == 1
    assert red.keys() == mem.keys()
    hits = 0
    for m in minhashes + [empty]:
        got = red.query(m)
        assert got == mem.query(m)  # the same keys, in insertion order
        hits += len(got)
    assert hits > 500  # the clusters make answers of several keys
    assert red.query_batch(minhashes[:50] + [empty]) == [mem.query(m) for m in minhashes[:50] + [empty]]
    assert red.query_batch([]) == []
    assert "doc-0" in red and 1 in red and b"b2" in red and 2**70 + 3 in red
    assert "doc-1" not in red and 1.5 not in red


def test_duplicates_and_bad_arguments(server: Server, basename: bytes) -> None:
    lsh = tessera.MinHashLSH(storage_config=server.config(basename))
    m = tessera.MinHash(hashvalues=signatures(1)[0])
    lsh.insert("a", m)
    with pytest.raises(ValueError, match="already in the LSH"):
        lsh.insert("a", m)
    with pytest.raises(ValueError, match=r"1 key\(s\) already in the LSH.*'a'"):
        with lsh.insertion_session() as s:
            s.insert("b", m)
            s.insert("a", m)
    assert set(lsh.keys()) == {"a", "b"}
    with pytest.raises(TypeError, match="str, bytes or int keys"):
        lsh.insert(("a", 1), m)
    with pytest.raises(TypeError, match="str, bytes or int keys"):
        lsh.insert(True, m)
    with pytest.raises(ValueError, match="num_perm 64"):
        lsh.insert("c", tessera.MinHash(num_perm=64))
    with pytest.raises(ValueError, match="seed 2 in an LSH of MinHashes of seed 1"):
        lsh.insert("c", tessera.MinHash(seed=2, hashvalues=signatures(1)[0]))
    with pytest.raises(ValueError, match="seed 2"):
        lsh.query(tessera.MinHash(seed=2, hashvalues=signatures(1)[0]))
    # Another object on the basename learns the seed from Redis.
    other = tessera.MinHashLSH(storage_config=server.config(basename))
    with pytest.raises(ValueError, match="seed 2"):
        other.query(tessera.MinHash(seed=2, hashvalues=signatures(1)[0]))
    for bad, match in [
        ({"type": "redis", "redis": {"hots": "x"}}, "not a setting tessera understands"),
        ({"type": "redis", "bucket": 1}, "not understood"),
        ({"type": "redis", "basename": b""}, "must not be empty"),
        ({"type": "redis", "redis": {"socket_timeout": -1}}, "positive number"),
    ]:
        with pytest.raises(ValueError, match=match):
            tessera.RedisMinHashLSH(storage_config=bad)
    with pytest.raises(TypeError, match="needs storage_config"):
        tessera.RedisMinHashLSH()


def test_remove(server: Server, basename: bytes) -> None:
    sigs = signatures(50)
    mem = tessera.MinHashLSH()
    red = tessera.MinHashLSH(storage_config=server.config(basename))
    ms = [tessera.MinHash(hashvalues=row) for row in sigs]
    for i, m in enumerate(ms):
        mem.insert(i, m)
        red.insert(i, m)
    for i in range(0, 50, 3):
        mem.remove(i)
        red.remove(i)
    assert len(red) == len(mem) and red.keys() == mem.keys() and 0 not in red
    for m in ms:
        assert red.query(m) == mem.query(m)
    with pytest.raises(ValueError, match="not in the LSH"):
        red.remove(0)
    with pytest.raises(ValueError, match="not in the LSH"):
        red.remove(1.5)
    # A removed key can come back with another signature; its old buckets forgot it.
    red.insert(0, ms[1])
    assert 0 in red.query(ms[1]) and 0 not in red.query(ms[0])
    for i in list(red.keys()):
        red.remove(i)
    assert red.is_empty() and red.keys() == [] and red.query(ms[1]) == []


WRITER = textwrap.dedent(
    """
    import sys, numpy as np, tessera
    port, basename, start, shared = int(sys.argv[1]), sys.argv[2].encode(), int(sys.argv[3]), int(sys.argv[4])
    cfg = {"type": "redis", "redis": {"host": "127.0.0.1", "port": port}, "basename": basename}
    lsh = tessera.MinHashLSH(threshold=0.7, storage_config=cfg)
    rng = np.random.default_rng(start)
    rows = rng.integers(0, 2**32 - 1, size=(2000, 128), dtype=np.uint64)
    won = 0
    with lsh.insertion_session(buffer_size=100) as s:
        for i, row in enumerate(rows):
            s.insert(f"w{start}-{i}", tessera.MinHash(hashvalues=row))
            if i % 100 == 0 and i // 100 < shared:
                # Both writers race for the same key: exactly one may win it.
                try:
                    lsh.insert(f"shared-{i // 100}", tessera.MinHash(hashvalues=row))
                    won += 1
                except ValueError:
                    pass
    print(won)
    """
)

READER = textwrap.dedent(
    """
    import sys, time, numpy as np, tessera
    port, basename = int(sys.argv[1]), sys.argv[2].encode()
    cfg = {"type": "redis", "redis": {"host": "127.0.0.1", "port": port}, "basename": basename}
    lsh = tessera.MinHashLSH(threshold=0.7, storage_config=cfg)
    rows = np.random.default_rng(1).integers(0, 2**32 - 1, size=(2000, 128), dtype=np.uint64)
    ms = [tessera.MinHash(hashvalues=r) for r in rows]
    seen = 0
    deadline = time.monotonic() + 60
    while time.monotonic() < deadline:
        found = lsh.query_batch(ms)
        for i, keys in enumerate(found):
            allowed = {f"w1-{i}"} | ({f"shared-{i // 100}"} if i % 100 == 0 and i // 100 < 20 else set())
            assert set(keys) <= allowed, keys
        seen = max(seen, sum(f"w1-{i}" in keys for i, keys in enumerate(found)))
        if seen == 2000:
            break
    print(seen)
    """
)


def test_two_writers_and_a_reader_in_other_processes(server: Server, basename: bytes) -> None:
    args = [str(server.port), basename.decode()]
    # The basename exists first, so that all three open the same parameters.
    tessera.MinHashLSH(threshold=0.7, storage_config=server.config(basename))
    reader = subprocess.Popen([sys.executable, "-c", READER, *args], stdout=subprocess.PIPE, text=True)
    writers = [
        subprocess.Popen([sys.executable, "-c", WRITER, *args, str(start), "20"], stdout=subprocess.PIPE, text=True)
        for start in (1, 2)
    ]
    won = [int(w.communicate(timeout=120)[0]) for w in writers]
    assert all(w.returncode == 0 for w in writers)
    out, _ = reader.communicate(timeout=120)
    assert reader.returncode == 0 and int(out) == 2000  # the reader saw every key of writer 1 arrive
    assert sum(won) == 20  # each shared key went to exactly one writer
    lsh = tessera.MinHashLSH(threshold=0.7, storage_config=server.config(basename))
    assert len(lsh) == 4020
    for start in (1, 2):
        rows = np.random.default_rng(start).integers(0, 2**32 - 1, size=(2000, 128), dtype=np.uint64)
        found = lsh.query_batch([tessera.MinHash(hashvalues=r) for r in rows])
        for i, keys in enumerate(found):
            want = {f"w{start}-{i}"}
            if i % 100 == 0 and i // 100 < 20:
                want.add(f"shared-{i // 100}")
            # A shared key carries the signature of the writer that won it.
            assert want - set(keys) <= {f"shared-{i // 100}"} and set(keys) <= want


def test_reopened_by_another_process_and_pickled(server: Server, basename: bytes) -> None:
    sigs = signatures(40)
    lsh = tessera.MinHashLSH(threshold=0.6, params=(16, 8), storage_config=server.config(basename))
    for i, row in enumerate(sigs):
        lsh.insert(f"k{i}", tessera.MinHash(hashvalues=row))
    want = [lsh.query(tessera.MinHash(hashvalues=row)) for row in sigs]
    np.save(Path(tempfile.gettempdir()) / f"{basename.decode()}.npy", sigs)
    script = textwrap.dedent(
        """
        import json, sys, numpy as np, tessera
        port, basename, path = int(sys.argv[1]), sys.argv[2].encode(), sys.argv[3]
        cfg = {"type": "redis", "redis": {"host": "127.0.0.1", "port": port}, "basename": basename}
        lsh = tessera.MinHashLSH(threshold=0.6, params=(16, 8), storage_config=cfg)
        sigs = np.load(path)
        print(json.dumps([len(lsh), [lsh.query(tessera.MinHash(hashvalues=r)) for r in sigs]]))
        """
    )
    path = Path(tempfile.gettempdir()) / f"{basename.decode()}.npy"
    try:
        out = subprocess.run(
            [sys.executable, "-c", script, str(server.port), basename.decode(), str(path)],
            capture_output=True, text=True, timeout=60, check=True,
        ).stdout
    finally:
        path.unlink()
    import json

    assert json.loads(out) == [40, want]
    again = pickle.loads(pickle.dumps(lsh))
    assert type(again) is tessera.RedisMinHashLSH and again.basename == basename
    assert [again.query(tessera.MinHash(hashvalues=row)) for row in sigs] == want
    assert "127.0.0.1" in repr(again) and again.storage_config["basename"] == basename


def test_other_parameters_refused(server: Server, basename: bytes) -> None:
    tessera.MinHashLSH(threshold=0.8, storage_config=server.config(basename))
    tessera.MinHashLSH(threshold=0.8, storage_config=server.config(basename))  # the same: fine
    with pytest.raises(ValueError, match=r"threshold 0\.8 \(given 0\.5\)"):
        tessera.MinHashLSH(threshold=0.5, storage_config=server.config(basename))
    with pytest.raises(ValueError, match="num_perm 128 \\(given 256\\)"):
        tessera.MinHashLSH(threshold=0.8, num_perm=256, storage_config=server.config(basename))
    with pytest.raises(ValueError, match="bands"):
        tessera.MinHashLSH(threshold=0.8, params=(4, 4), storage_config=server.config(basename))


def test_environment_settings_and_transactions(server: Server, basename: bytes, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("TESSERA_TEST_REDIS_PORT", str(server.port))
    cfg = {
        "type": "redis",
        "redis": {"host": {"env": "TESSERA_TEST_NO_SUCH_VAR", "default": "127.0.0.1"},
                  "port": {"env": "TESSERA_TEST_REDIS_PORT"}},
        "redis_buffer": {"transaction": True},
        "basename": basename,
    }
    lsh = tessera.MinHashLSH(storage_config=cfg)
    ms = [tessera.MinHash(hashvalues=row) for row in signatures(20)]
    with lsh.insertion_session(buffer_size=7) as s:
        for i, m in enumerate(ms):
            s.insert(i, m)
    assert len(lsh) == 20 and all(i in lsh.query(m) for i, m in enumerate(ms))


def test_no_server_is_a_clear_error_at_once(basename: bytes) -> None:
    if shutil.which("redis-server") is None and not REQUIRED:
        pytest.skip("redis-server is not installed")
    port = free_port()  # nothing listens there
    start = time.monotonic()
    cfg = {"type": "redis", "redis": {"host": "127.0.0.1", "port": port}, "basename": basename}
    with pytest.raises(tessera.RedisConnectionError, match=f"redis at 127.0.0.1:{port}: connection refused") as e:
        tessera.MinHashLSH(storage_config=cfg)
    assert isinstance(e.value, ConnectionError) and isinstance(e.value, tessera.TesseraError)
    assert time.monotonic() - start < 5


def test_a_stopped_server_times_out_and_a_resumed_one_answers_again(basename: bytes) -> None:
    with tempfile.TemporaryDirectory(prefix="tessera-redis-") as d:
        own = Server(Path(d))
        try:
            lsh = tessera.MinHashLSH(storage_config=own.config(basename, socket_timeout=0.5))
            m = tessera.MinHash(hashvalues=signatures(1)[0])
            lsh.insert("a", m)
            own.proc.send_signal(signal.SIGSTOP)
            start = time.monotonic()
            with pytest.raises(tessera.RedisConnectionError, match=f"127.0.0.1:{own.port}: no answer after"):
                lsh.query(m)
            assert time.monotonic() - start < 5
            own.proc.send_signal(signal.SIGCONT)
            assert lsh.query(m) == ["a"]  # a new connection after the broken one
        finally:
            own.stop()


def test_prepickle_keys(server: Server, basename: bytes) -> None:
    lsh = tessera.MinHashLSH(storage_config=server.config(basename), prepickle=True)
    assert lsh.prepickle
    ms = [tessera.MinHash(hashvalues=row) for row in signatures(10)]
    keys = [("doc", i) for i in range(10)]
    with lsh.insertion_session() as s:
        for k, m in zip(keys, ms):
            s.insert(k, m, check_duplication=False)
    assert lsh.keys() == keys and ("doc", 3) in lsh and ("doc", 3) in lsh.query(ms[3])
    lsh.remove(("doc", 3))
    assert ("doc", 3) not in lsh
    with pytest.raises(ValueError, match="prepickle true \\(given false\\)"):
        tessera.MinHashLSH(storage_config=server.config(basename))


def test_benchmark_script_runs() -> None:
    """bench_redis.py on a thousand signatures (seconds), so that it never rots."""
    if shutil.which("redis-server") is None and not REQUIRED:
        pytest.skip("redis-server is not installed")
    for module in ("redis", "datasketch"):
        if REQUIRED:
            __import__(module)
        else:
            pytest.importorskip(module)
    bench = Path(__file__).resolve().parents[1] / "bench_redis.py"
    out = subprocess.run(
        [sys.executable, str(bench), "--n", "1000", "--queries", "50"],
        capture_output=True, text=True, timeout=120, check=True,
    ).stdout
    assert "tessera RedisMinHashLSH" in out and "datasketch" in out
    assert "the same keys for every query" in out, out
