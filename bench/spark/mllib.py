#!/usr/bin/env python3
"""Spark MLlib's own near-duplicate join, the Spark-native peer of tessera.spark:
RegexTokenizer (lowercase words) -> NGram(3) (word 3-shingles) -> HashingTF (binary,
2^20 features) -> MinHashLSH(numHashTables) -> approxSimilarityJoin(self, Jaccard distance
<= 1 - threshold). Writes the joined pairs (a, b, distance; a < b) as Parquet and prints
a JSON summary (documents, pairs, seconds).

    python bench/spark/mllib.py 'DATA/part-*.jsonl' OUT --master 'local[2]' --tables 5
"""

from __future__ import annotations

import argparse
import json
import sys
import time


def main() -> None:
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("inputs", nargs="+")
    p.add_argument("out")
    p.add_argument("--master", default="local[2]")
    p.add_argument("--tables", type=int, default=5, help="MinHashLSH numHashTables (default 5, as Spark's example)")
    p.add_argument("--threshold", type=float, default=0.8, help="Jaccard similarity (default 0.8)")
    p.add_argument("--conf", action="append", default=[])
    args = p.parse_args()

    from pyspark.ml import Pipeline
    from pyspark.ml.feature import HashingTF, MinHashLSH, NGram, RegexTokenizer
    from pyspark.sql import SparkSession
    from pyspark.sql import functions as F

    builder = SparkSession.builder.appName("mllib-minhash").master(args.master)
    builder = builder.config("spark.ui.showConsoleProgress", "false")
    for conf in args.conf:
        key, _, value = conf.partition("=")
        builder = builder.config(key, value)
    spark = builder.getOrCreate()
    started = time.perf_counter()
    docs = spark.read.schema("id string, text string").json(args.inputs)
    pipeline = Pipeline(
        stages=[
            RegexTokenizer(inputCol="text", outputCol="tokens", pattern=r"\W+", toLowercase=True),
            NGram(n=3, inputCol="tokens", outputCol="shingles"),
            HashingTF(inputCol="shingles", outputCol="features", numFeatures=1 << 20, binary=True),
        ]
    )
    features = pipeline.fit(docs).transform(docs)
    # MinHashLSH refuses empty vectors: texts of fewer than three words have no 3-shingle.
    features = features.where(F.size("shingles") > 0).select("id", "features").persist()
    documents = features.count()
    model = MinHashLSH(inputCol="features", outputCol="hashes", numHashTables=args.tables, seed=1).fit(features)
    # approxSimilarityJoin keeps distance < threshold; the tiny margin keeps distance == 0.2.
    pairs = model.approxSimilarityJoin(features, features, 1 - args.threshold + 1e-9, distCol="distance")
    pairs = pairs.select(
        F.col("datasetA.id").alias("a"), F.col("datasetB.id").alias("b"), "distance"
    ).where(F.col("a") < F.col("b"))
    pairs.write.mode("overwrite").parquet(args.out)
    seconds = time.perf_counter() - started
    n_pairs = spark.read.parquet(args.out).count()
    print(json.dumps({"documents": documents, "pairs": n_pairs, "seconds": round(seconds, 3), "tables": args.tables}))
    spark.stop()
    sys.stdout.flush()


if __name__ == "__main__":
    main()
