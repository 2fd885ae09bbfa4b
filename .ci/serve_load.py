#!/usr/bin/env python3
"""Bounded load test of `tessera serve` from a second process (standard library only).

Submits N checks at once (one thread each), follows every one until it is done, and
prints: accepted, completed, errors, lost checks, p50/p99 latency from upload to report,
and checks per second over the whole run. Exit 1 on any error or lost check.

    python3 .ci/serve_load.py --base http://127.0.0.1:8080 --checks 200 FILE...

The suspects are the given files, used round-robin, each sent as a multipart upload.
"""
import argparse
import json
import os
import sys
import threading
import time
import urllib.error
import urllib.request
import uuid


def request(method, url, body=None, headers=None):
    req = urllib.request.Request(url, data=body, method=method, headers=headers or {})
    with urllib.request.urlopen(req, timeout=600) as r:
        return r.status, json.loads(r.read() or b"null")


def upload(base, name, data):
    boundary = uuid.uuid4().hex
    body = (f"--{boundary}\r\nContent-Disposition: form-data; name=\"file\"; filename=\"{name}\"\r\n"
            "Content-Type: application/octet-stream\r\n\r\n").encode() + data + f"\r\n--{boundary}--\r\n".encode()
    return request("POST", base + "/api/checks", body, {"Content-Type": f"multipart/form-data; boundary={boundary}"})


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--base", default="http://127.0.0.1:8080")
    ap.add_argument("--checks", type=int, default=200)
    ap.add_argument("files", nargs="+")
    args = ap.parse_args()
    docs = [(os.path.basename(f), open(f, "rb").read()) for f in args.files]

    results = [None] * args.checks
    start_gate = threading.Barrier(args.checks)

    def one(i):
        name, data = docs[i % len(docs)]
        try:
            start_gate.wait()
            t0 = time.monotonic()
            status, accepted = upload(args.base, name, data)
            if status != 202:
                raise RuntimeError(f"upload answered {status}")
            cid = accepted["id"]
            while True:
                _, check = request("GET", f"{args.base}/api/checks/{cid}?report=false")
                if check["status"] in ("done", "failed"):
                    break
                time.sleep(0.05)
            if check["status"] != "done":
                raise RuntimeError(f"check {cid} failed: {check['error']}")
            _, full = request("GET", f"{args.base}/api/checks/{cid}")
            if not full.get("report") or full["report"]["suspect"]["name"] != name:
                raise RuntimeError(f"check {cid} has no report for {name}")
            results[i] = ("ok", time.monotonic() - t0, cid)
        except (OSError, RuntimeError, KeyError, ValueError, urllib.error.HTTPError) as e:
            results[i] = ("error", repr(e), None)

    threads = [threading.Thread(target=one, args=(i,)) for i in range(args.checks)]
    t_start = time.monotonic()
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    wall = time.monotonic() - t_start

    ok = sorted(r[1] for r in results if r and r[0] == "ok")
    errors = [r[1] for r in results if r and r[0] == "error"]
    lost = sum(1 for r in results if r is None)
    ids = {r[2] for r in results if r and r[0] == "ok"}

    def q(p):
        return ok[min(len(ok) - 1, int(p * len(ok)))] if ok else float("nan")

    print(json.dumps({
        "checks": args.checks, "completed": len(ok), "distinct_ids": len(ids), "errors": len(errors), "lost": lost,
        "p50_s": round(q(0.50), 3), "p99_s": round(q(0.99), 3), "max_s": round(ok[-1], 3) if ok else None,
        "wall_s": round(wall, 2), "checks_per_s": round(len(ok) / wall, 1),
    }, indent=2))
    for e in errors[:5]:
        print("error:", e, file=sys.stderr)
    return 1 if errors or lost or len(ids) != args.checks else 0


if __name__ == "__main__":
    sys.exit(main())
