#!/usr/bin/env python3
"""Peak memory of `tessera serve` under many uploads at once (issue 18's target: at most
500 MB of RSS under 200 concurrent uploads).

Starts the server on an index (built from the demo library when missing), sends
`--clients` uploads of `--size` bytes each at the same moment (multipart, each on its own
connection, from as many threads), then waits until the queue is empty, sampling the
server's resident memory every 20 ms. Prints one line per run:

    clients 200  size 1048576  accepted 64  busy 136  too_large 0  other 0  peak_rss_mb 71.2  ...

`busy` answers (503 + Retry-After) are the concurrency limit at work (`--max-requests`,
default 64); with `--retry` a client sends again after the advertised delay until it is
accepted, so every upload ends up checked.

    python3 bench/server_load.py --tessera target/release/tessera --clients 200 --size 1048576 --retry
"""

from __future__ import annotations

import argparse
import http.client
import json
import os
import random
import shutil
import socket
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def rss_kb(pid: int) -> int:
    try:
        for line in Path(f"/proc/{pid}/status").read_text().splitlines():
            if line.startswith("VmRSS:"):
                return int(line.split()[1])
    except FileNotFoundError:
        pass
    return 0


def hwm_kb(pid: int) -> int:
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith("VmHWM:"):
            return int(line.split()[1])
    return 0


def document(size: int, seed: int) -> bytes:
    """A plain-text document of `size` bytes: words from the demo library, shuffled."""
    words = " ".join(p.read_text() for p in sorted((ROOT / "testdata/demo/library").glob("*.txt"))).split()
    rng = random.Random(seed)
    out, n = [], 0
    while n < size:
        w = rng.choice(words)
        out.append(w)
        n += len(w) + 1
    return " ".join(out).encode()[:size]


def upload(port: int, body: bytes, name: str, retry: bool, results: list, start: threading.Event) -> None:
    boundary = "tesseraload" + name
    head = (
        f"--{boundary}\r\nContent-Disposition: form-data; name=\"file\"; filename=\"{name}\"\r\n"
        "Content-Type: text/plain\r\n\r\n"
    ).encode()
    payload = head + body + f"\r\n--{boundary}--\r\n".encode()
    start.wait()
    while True:
        try:
            conn = http.client.HTTPConnection("127.0.0.1", port, timeout=600)
            conn.request("POST", "/api/checks", payload, {"Content-Type": f"multipart/form-data; boundary={boundary}"})
            r = conn.getresponse()
            status, retry_after = r.status, r.getheader("Retry-After")
            r.read()
            conn.close()
        except OSError as e:
            results.append(("error", str(e)))
            return
        if status == 503 and retry:
            time.sleep(float(retry_after or 1) * (0.5 + random.random()))
            continue
        results.append((status, None))
        return


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--tessera", default=str(ROOT / "target/release/tessera"))
    ap.add_argument("--clients", type=int, default=200)
    ap.add_argument("--size", type=int, default=12 * 1024, help="bytes per upload")
    ap.add_argument("--retry", action="store_true", help="send again after 503 busy until accepted")
    ap.add_argument("--max-requests", type=int, default=None)
    ap.add_argument("--keep", action="store_true", help="keep the temporary directory")
    args = ap.parse_args()

    tmp = Path(tempfile.mkdtemp(prefix="tessera-load-"))
    try:
        index = tmp / "idx"
        subprocess.run(
            [args.tessera, "-q", "index", "--index", str(index), "--keep-texts", str(ROOT / "testdata/demo/library")],
            check=True,
            stdout=subprocess.DEVNULL,
        )
        port = free_port()
        cmd = [args.tessera, "serve", "--index", str(index), "--addr", f"127.0.0.1:{port}"]
        if args.max_requests:
            cmd += ["--max-requests", str(args.max_requests)]
        server = subprocess.Popen(cmd, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        for _ in range(200):
            try:
                http.client.HTTPConnection("127.0.0.1", port, timeout=1).request("GET", "/api/health")
                break
            except OSError:
                time.sleep(0.05)
        idle_kb = rss_kb(server.pid)
        bodies = [document(args.size, i) for i in range(min(args.clients, 16))]
        results: list = []
        start = threading.Event()
        threads = [
            threading.Thread(
                target=upload, args=(port, bodies[i % len(bodies)], f"d{i}.txt", args.retry, results, start)
            )
            for i in range(args.clients)
        ]
        for t in threads:
            t.start()
        peak = 0
        began = time.monotonic()
        start.set()
        while any(t.is_alive() for t in threads):
            peak = max(peak, rss_kb(server.pid))
            time.sleep(0.02)
        sent_s = time.monotonic() - began
        peak_sending = peak
        # Until the queue is empty: checking costs memory too.
        while True:
            peak = max(peak, rss_kb(server.pid))
            conn = http.client.HTTPConnection("127.0.0.1", port, timeout=10)
            conn.request("GET", "/api/health")
            health = json.loads(conn.getresponse().read())
            if health.get("queued", 0) == 0 and health.get("running", 0) == 0:
                break
            time.sleep(0.05)
        done_s = time.monotonic() - began
        hwm = hwm_kb(server.pid)
        server.terminate()
        server.wait(timeout=30)
        count = lambda pred: sum(1 for s, _ in results if pred(s))  # noqa: E731
        print(
            f"clients {args.clients}  size {args.size}  accepted {count(lambda s: s == 202)}  "
            f"busy {count(lambda s: s == 503)}  too_large {count(lambda s: s == 413)}  "
            f"other {count(lambda s: s not in (202, 503, 413))}  idle_rss_mb {idle_kb / 1024:.1f}  "
            f"peak_rss_mb {max(peak, hwm) / 1024:.1f} (while sending {peak_sending / 1024:.1f})  sent_s {sent_s:.1f}  drained_s {done_s:.1f}"
        )
        errors = [e for s, e in results if s == "error"]
        if errors:
            print(f"connection errors: {len(errors)} (first: {errors[0]})", file=sys.stderr)
        return 0
    finally:
        if not args.keep:
            shutil.rmtree(tmp, ignore_errors=True)


if __name__ == "__main__":
    sys.exit(main())
