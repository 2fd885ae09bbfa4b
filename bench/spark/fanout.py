#!/usr/bin/env python3
"""The online check on a document-partitioned index: a check goes to every shard, and
answers when the slowest shard has answered. Simulates the check latency for S shards from
one shard's measured latency (p50 and p99 of `tessera bench check`, fitted with a
log-normal), with optional hedging (each shard on R replicas, the first answer wins) and a
fixed overhead for the fan-out and the merge of the shards' reports.

    python bench/spark/fanout.py --p50 111.8 --p99 138.1 --shards 1000 [--replicas 2] [--overhead-ms 5]

Prints p50, p99 and p99.9 of the whole check over `--trials` simulated checks, and what
one shard's latency would have to be for a target. Only numpy is needed.
"""

from __future__ import annotations

import argparse
import math

import numpy as np

Z99 = 2.3263478740408408  # the standard normal's 99th percentile


def main() -> None:
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--p50", type=float, required=True, help="one shard's p50, ms")
    p.add_argument("--p99", type=float, required=True, help="one shard's p99, ms")
    p.add_argument("--shards", type=int, nargs="+", default=[1, 10, 100, 1000])
    p.add_argument("--replicas", type=int, default=1, help="hedged copies of each shard (the fastest answers)")
    p.add_argument("--overhead-ms", type=float, default=5.0, help="fan-out, network and merge, ms")
    p.add_argument("--trials", type=int, default=4000)
    p.add_argument("--seed", type=int, default=16)
    args = p.parse_args()

    mu = math.log(args.p50)
    sigma = math.log(args.p99 / args.p50) / Z99
    rng = np.random.default_rng(args.seed)
    print(f"one shard: log-normal with median {args.p50} ms, sigma {sigma:.4f} (p99 {args.p99} ms)")
    print("| shards | replicas | check p50 ms | p99 ms | p99.9 ms |")
    print("|---|---|---|---|---|")
    for shards in args.shards:
        worst = np.empty(args.trials)
        chunk = max(1, 2_000_000 // (shards * args.replicas))
        for at in range(0, args.trials, chunk):
            n = min(chunk, args.trials - at)
            draws = rng.lognormal(mu, sigma, size=(n, shards, args.replicas)).min(axis=2)
            worst[at : at + n] = draws.max(axis=1)
        worst += args.overhead_ms
        q = np.percentile(worst, [50, 99, 99.9])
        print(f"| {shards} | {args.replicas} | {q[0]:.1f} | {q[1]:.1f} | {q[2]:.1f} |")


if __name__ == "__main__":
    main()
