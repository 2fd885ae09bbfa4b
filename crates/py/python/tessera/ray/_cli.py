"""`python -m tessera.ray --index ROOT ...`: deploys the application on a Ray cluster."""

from __future__ import annotations

import argparse
import sys
import time
from typing import Optional, Sequence

from ._app import DEFAULTS


def parser() -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(
        prog="python -m tessera.ray",
        description="Serve a sharded Tessera index (folders shard-S-of-N) on Ray Serve: "
        "the JSON API of `tessera serve` for checks and adds.",
    )
    p.add_argument("--index", required=True, help="the folder of the shards (tessera.build_shards)")
    p.add_argument("--address", default="auto", help="the Ray cluster to join (default: auto, the local one)")
    p.add_argument("--host", default="127.0.0.1",
                   help="the address the HTTP proxy listens on (default 127.0.0.1; 0.0.0.0 to serve other machines)")
    p.add_argument("--port", type=int, default=8000, help="HTTP port (default 8000)")
    p.add_argument("--proxy-location", default="HeadOnly", choices=["HeadOnly", "EveryNode", "Disabled"],
                   help="where Serve runs HTTP proxies (default HeadOnly)")
    p.add_argument("--name", default="tessera", help="the Serve application's name")
    p.add_argument("--replicas", default=str(DEFAULTS["replicas"]),
                   help="replicas per shard: a count, or one count per shard separated by commas (2,2,1)")
    p.add_argument("--ingress-replicas", type=int, default=DEFAULTS["ingress_replicas"])
    p.add_argument("--call-timeout", type=float, default=DEFAULTS["call_timeout_s"],
                   help="seconds one call to a shard may take")
    p.add_argument("--check-timeout", type=float, default=DEFAULTS["check_timeout_s"], help="a check's deadline")
    p.add_argument("--add-timeout", type=float, default=DEFAULTS["add_timeout_s"])
    p.add_argument("--max-upload-bytes", type=int, default=DEFAULTS["max_upload_bytes"])
    p.add_argument("--max-ongoing-requests", type=int, default=DEFAULTS["max_ongoing_requests"])
    p.add_argument("--num-cpus", type=float, default=DEFAULTS["num_cpus"], help="CPUs reserved per replica")
    p.add_argument("--reports", default=None, help="the folder of finished checks (default ROOT/checks)")
    p.add_argument("--block", action="store_true", help="stay in the foreground; Ctrl-C removes the application")
    return p


def main(argv: Optional[Sequence[str]] = None) -> int:
    args = parser().parse_args(argv)
    import ray
    from ray import serve

    from ._app import app

    application = app(
        args.index,
        replicas=[int(r) for r in args.replicas.split(",")] if "," in args.replicas else int(args.replicas),
        ingress_replicas=args.ingress_replicas,
        call_timeout_s=args.call_timeout,
        check_timeout_s=args.check_timeout,
        add_timeout_s=args.add_timeout,
        max_upload_bytes=args.max_upload_bytes,
        max_ongoing_requests=args.max_ongoing_requests,
        num_cpus=args.num_cpus,
        reports=args.reports,
    )
    ray.init(address=args.address, log_to_driver=False)
    serve.start(http_options={"host": args.host, "port": args.port}, proxy_location=args.proxy_location)
    serve.run(application, name=args.name, route_prefix="/")
    print(f"tessera: {args.name} serving on http://{args.host}:{args.port} (GET /api/health)", file=sys.stderr)
    if args.block:
        try:
            while True:
                time.sleep(3600)
        except KeyboardInterrupt:
            serve.delete(args.name)
    return 0
