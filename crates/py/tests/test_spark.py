"""The Spark job (tessera.spark) against `tessera dedup` on the same files: a standalone
cluster on 127.0.0.1 (a master and two workers from the pyspark wheel), the job submitted
to it, and a local[2] session for `tessera.spark.dedup(df)`. Needs java and pyspark;
runs when TESSERA_SPARK=1 (CI sets it), else skipped.
"""

from __future__ import annotations

import json
import os
import random
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

pytestmark = pytest.mark.skipif(os.environ.get("TESSERA_SPARK") != "1", reason="TESSERA_SPARK=1 runs the Spark tests")

REPO = Path(__file__).resolve().parents[3]
CLUSTER_SCRIPT = REPO / "scripts" / "spark-cluster.sh"
# Small settings so a few hundred documents still take several partitions and splits:
# the order of split files is part of what is tested.
SPARK_CONF = [
    "spark.sql.shuffle.partitions=4",
    "spark.sql.files.maxPartitionBytes=16384",
    "spark.ui.enabled=false",
]


# ---------------------------------------------------------------------------------------
# The planted corpus.

ENGLISH = (
    "the of and to in is was for on that with as by at from this are be it an or which "
    "running runs ran walked walking houses house cities city played playing studies "
    "studied teacher teachers reading readers connection connected quickly quick"
).split()


def _vocabulary(rng: random.Random, letters: str, n: int) -> list[str]:
    return ["".join(rng.choice(letters) for _ in range(rng.randint(3, 9))) for _ in range(n)]


def _edited(rng: random.Random, words: list[str], rate: float, vocab: list[str]) -> list[str]:
    """`words` with each word replaced with probability `rate`, and one in 50 deleted."""
    out = []
    for w in words:
        if rng.random() < rate:
            out.append(rng.choice(vocab))
        elif rng.random() < rate / 4:
            continue
        else:
            out.append(w)
    return out


def planted_records(seed: int = 16) -> list[dict]:
    """A few hundred records: originals (English-like and Russian-like), copies edited at
    known rates (0 to 30 % of words), exact copies, copies with other case and punctuation,
    short texts (cyclic shingles), empty and symbol-only texts; shuffled."""
    rng = random.Random(seed)
    latin = _vocabulary(rng, "abcdefghijklmnopqrstuvwxyz", 2500) + ENGLISH * 8
    cyrillic = _vocabulary(rng, "абвгдеёжзийклмнопрстуфхцчшщыэюя", 1500)
    texts: list[str] = []
    for i in range(70):
        vocab = cyrillic if i % 7 == 0 else latin
        words = [rng.choice(vocab) for _ in range(rng.randint(40, 400))]
        texts.append(" ".join(words))
        for rate in rng.sample([0.0, 0.005, 0.01, 0.02, 0.03, 0.05, 0.1, 0.3], rng.randint(0, 4)):
            texts.append(" ".join(_edited(rng, words, rate, vocab)))
        if i % 9 == 0:
            texts.append(" ".join(words).upper().replace(" ", ", ") + ".")
    for _ in range(12):
        short = " ".join(rng.choice(latin) for _ in range(rng.randint(1, 9)))
        texts += [short] * rng.randint(1, 3)
    texts += ["", "", "   ", "!!! ??? ...", "—"]
    rng.shuffle(texts)
    return [{"id": f"doc-{i:04d}", "text": t, "lang": "x"} for i, t in enumerate(texts)]


def write_jsonl_files(folder: Path, records: list[dict], parts: int = 3) -> list[Path]:
    """`records` spread over `parts` JSONL files (part-0.jsonl ...), with blank lines and two
    records the CLI skips (a line that is not JSON, a record without a text) in between."""
    folder.mkdir(parents=True, exist_ok=True)
    size = (len(records) + parts - 1) // parts
    paths = []
    for p in range(parts):
        path = folder / f"part-{p}.jsonl"
        with path.open("w", encoding="utf-8") as f:
            for k, record in enumerate(records[p * size : (p + 1) * size]):
                f.write(json.dumps(record, ensure_ascii=False) + "\n")
                if k % 23 == 5:
                    f.write("\n")
            if p == 1:
                f.write("{not json\n")
                f.write(json.dumps({"id": "no-text", "body": "x"}) + "\n")
        paths.append(path)
    return paths


# ---------------------------------------------------------------------------------------
# The command line to compare with.


def tessera_binary() -> Path:
    """TESSERA_BIN, or the newest of target/release/tessera and target/debug/tessera (built
    with cargo when neither exists)."""
    if os.environ.get("TESSERA_BIN"):
        return Path(os.environ["TESSERA_BIN"])
    target = Path(os.environ.get("CARGO_TARGET_DIR", REPO / "target"))
    built = [p for p in (target / "release" / "tessera", target / "debug" / "tessera") if p.exists()]
    if not built:
        subprocess.run(["cargo", "build", "-p", "tessera-cli", "--locked"], cwd=REPO, check=True)
        built = [target / "debug" / "tessera"]
    return max(built, key=lambda p: p.stat().st_mtime)


def cli_dedup(inputs: list[Path], out: Path, *flags: str) -> tuple[list[dict], dict]:
    """`tessera dedup` of `inputs`: its lines and its JSON summary (exit 3: records skipped)."""
    done = subprocess.run(
        [str(tessera_binary()), "-q", "dedup", *map(str, inputs), "-o", str(out), "--format", "json", *flags],
        capture_output=True,
        text=True,
    )
    assert done.returncode in (0, 3), done.stderr
    summary = json.loads([line for line in done.stderr.splitlines() if line.startswith("{")][-1])
    lines = [json.loads(line) for line in out.read_text(encoding="utf-8").splitlines()]
    return lines, summary


def read_parquet_rows(path: Path) -> list[dict]:
    import pyarrow.parquet as pq

    return pq.read_table(path).to_pylist()


def spark_job(inputs: list[Path], out: Path, master: str, *flags: str) -> tuple[list[dict], dict, int]:
    """`python -m tessera.spark dedup` as a user runs it: its rows, summary and exit code."""
    conf = [a for c in SPARK_CONF for a in ("--conf", c)]
    done = subprocess.run(
        [sys.executable, "-m", "tessera.spark", "dedup", *map(str, inputs), "--output", str(out), "--master", master]
        + ["--summary-format", "json", *conf, *flags],
        capture_output=True,
        text=True,
    )
    assert done.returncode in (0, 3), done.stderr[-5000:]
    summary = json.loads([line for line in done.stderr.splitlines() if line.startswith("{")][-1])
    return read_parquet_rows(out), summary, done.returncode


def assert_same_answer(spark_rows: list[dict], cli_lines: list[dict]) -> None:
    """The same documents in the same order, each with the same cluster, kept flag and
    similarity."""
    assert [r["id"] for r in spark_rows] == [line["id"] for line in cli_lines]
    differing = [(r, line) for r, line in zip(spark_rows, cli_lines) if r != line]
    assert not differing, f"{len(differing)} documents differ, the first: {differing[:3]}"


# ---------------------------------------------------------------------------------------
# Fixtures.


@pytest.fixture(scope="module")
def corpus_files(tmp_path_factory) -> list[Path]:
    return write_jsonl_files(tmp_path_factory.mktemp("corpus"), planted_records())


@pytest.fixture(scope="module")
def cli_by_id(corpus_files, tmp_path_factory) -> tuple[list[dict], dict]:
    lines, summary = cli_dedup(corpus_files, tmp_path_factory.mktemp("cli") / "out.jsonl", "--id-field", "id")
    # The planted set must exercise clustering, or equal answers would prove little.
    assert summary["duplicates_removed"] >= 40, summary
    assert summary["failed"] == 2, summary
    assert any(not line["kept"] and line["similarity"] < 1.0 for line in lines)
    return lines, summary


@pytest.fixture(scope="module")
def spark_cluster(tmp_path_factory):
    """A standalone master and two workers on 127.0.0.1, stopped at the end."""
    if shutil.which("java") is None:
        pytest.fail("java is not on PATH (apt-get install openjdk-17-jre-headless)")
    folder = tmp_path_factory.mktemp("spark-cluster")
    env = dict(os.environ, PYTHON=sys.executable)
    stop = lambda: subprocess.run(["bash", str(CLUSTER_SCRIPT), "stop", str(folder)], env=env, check=False)  # noqa: E731
    started = subprocess.run(
        ["bash", str(CLUSTER_SCRIPT), "start", str(folder), "2"], env=env, capture_output=True, text=True
    )
    if started.returncode != 0:
        stop()
        pytest.fail(f"the standalone cluster did not start: {started.stderr}")
    try:
        yield started.stdout.strip()
    finally:
        stop()


@pytest.fixture(scope="module")
def local_spark():
    """A local[2] session in this process, for tessera.spark.dedup(df)."""
    from pyspark.sql import SparkSession

    os.environ.setdefault("PYSPARK_PYTHON", sys.executable)
    builder = SparkSession.builder.master("local[2]").appName("tessera-test")
    for conf in SPARK_CONF:
        key, _, value = conf.partition("=")
        builder = builder.config(key, value)
    spark = builder.getOrCreate()
    try:
        yield spark
    finally:
        spark.stop()


# ---------------------------------------------------------------------------------------
# Tests.


def test_the_job_on_a_standalone_cluster_gives_the_cli_answer(spark_cluster, corpus_files, cli_by_id, tmp_path):
    assert spark_cluster.startswith("spark://127.0.0.1:")
    lines, summary = cli_by_id
    # A pattern, as a user gives a folder of shards: files in sorted order, as the CLI.
    pattern = str(corpus_files[0].parent / "part-*.jsonl")
    rows, spark_summary, code = spark_job([Path(pattern)], tmp_path / "out", spark_cluster, "--id-col", "id")
    assert_same_answer(rows, lines)
    for key in ("documents", "clusters", "duplicates_removed", "failed", "bands", "rows"):
        assert spark_summary[key] == summary[key], key
    assert code == 3  # records were skipped, as the CLI's exit status 3 says


def test_default_ids_and_the_order_files_are_given_in_match_the_cli(spark_cluster, corpus_files, tmp_path):
    # Files out of sorted order, no id field: ids are FILE:LINE with blank lines counted.
    files = [corpus_files[2], corpus_files[0], corpus_files[1]]
    lines, _ = cli_dedup(files, tmp_path / "cli.jsonl", "--threshold", "0.7", "--num-perm", "64", "--seed", "5")
    # --broadcast-rows 0 and --driver-pairs 0: the path of a large corpus, components by
    # large-star/small-star rounds and the documents of the pairs joined back by a shuffle
    # join, instead of the driver's union-find and the broadcast a small corpus gets.
    flags = ["--threshold", "0.7", "--num-perm", "64", "--seed", "5", "--broadcast-rows", "0", "--driver-pairs", "0"]
    rows, _, _ = spark_job(files, tmp_path / "out", spark_cluster, *flags)
    assert lines[0]["id"] == f"{files[0]}:1"
    assert_same_answer(rows, lines)


def test_the_dataframe_function_on_local_spark_gives_the_cli_answer(local_spark, corpus_files, cli_by_id):
    from tessera.spark import dedup

    lines, _ = cli_by_id
    records = [json.loads(line) for path in corpus_files for line in path.read_text(encoding="utf-8").splitlines()
               if line.strip() and line.startswith("{\"")]
    # The order column gives the document order, whatever the DataFrame's partitioning.
    rows = [(r["id"], r.get("text"), n) for n, r in enumerate(records)]
    rng = random.Random(3)
    rng.shuffle(rows)
    df = local_spark.createDataFrame(rows, "id string, text string, n long").repartition(3)
    got = [r.asDict() for r in dedup(df, text_col="text", id_col="id", order_col="n").collect()]
    assert_same_answer(got, lines)


def test_sparks_default_200_shuffle_partitions_give_the_cli_answer(local_spark, corpus_files, cli_by_id):
    # Issue 49: with Spark's default of 200 shuffle partitions most are empty, and an empty
    # partition has no Arrow batch (pa.Table.from_batches([]) raised "Must pass schema").
    from tessera.spark import dedup

    lines, _ = cli_by_id
    records = [json.loads(line) for path in corpus_files for line in path.read_text(encoding="utf-8").splitlines()
               if line.strip() and line.startswith("{\"")]
    rows = [(r["id"], r.get("text"), n) for n, r in enumerate(records)]
    before = local_spark.conf.get("spark.sql.shuffle.partitions")
    local_spark.conf.set("spark.sql.shuffle.partitions", "200")
    try:
        df = local_spark.createDataFrame(rows, "id string, text string, n long")
        got = [r.asDict() for r in dedup(df, text_col="text", id_col="id", order_col="n").collect()]
    finally:
        local_spark.conf.set("spark.sql.shuffle.partitions", before)
    assert_same_answer(got, lines)


def test_parquet_input_and_settings_match_the_cli(local_spark, corpus_files, tmp_path):
    import pyarrow as pa
    import pyarrow.parquet as pq

    from tessera.spark import run_dedup
    from tessera.spark._cli import _parser

    records = [json.loads(line) for path in corpus_files for line in path.read_text(encoding="utf-8").splitlines()
               if line.strip() and line.startswith("{\"") and "text" in json.loads(line)]
    table = pa.table({"text": [r["text"] for r in records], "key": list(range(1000, 1000 + len(records)))})
    path = tmp_path / "records.parquet"
    pq.write_table(table, path, row_group_size=40)
    flags = ["--threshold", "0.6", "--shingle-size", "2", "--keep-stop-words", "--no-stemming", "--short-words", "5"]
    # Both verifications: the estimate (signatures cached), and exact (the default: the
    # Parquet file read a second time for the texts of documents in pairs).
    for verify in ("estimate", "exact"):
        out = tmp_path / f"out-{verify}"
        lines, summary = cli_dedup([path], tmp_path / f"cli-{verify}.jsonl", "--id-field", "key", *flags,
                                   "--verify", verify)
        args = _parser().parse_args(["dedup", str(path), "--id-col", "key", "--output", str(out), *flags,
                                     "--verify", verify])
        spark_summary = run_dedup(local_spark, args)
        assert_same_answer(read_parquet_rows(out), lines)
        assert spark_summary["duplicates_removed"] == summary["duplicates_removed"] > 0


def test_rows_that_change_between_the_two_reads_fail_the_job(local_spark, corpus_files):
    """Exact verification reads the input a second time for the rows of documents in
    pairs; a row that is not the one signed (here: each query stamps the texts with its own
    time) must fail the job with a clear message, not cluster another text."""
    from pyspark.sql import functions as F

    from tessera.kernels import DedupPlan
    from tessera.spark._job import _ID, _O1, _O2, _TEXT, _VID, _dedup_ordered

    records = [json.loads(line) for path in corpus_files for line in path.read_text(encoding="utf-8").splitlines()
               if line.startswith("{\"") and "text" in json.loads(line) and "id" in json.loads(line)]
    df = local_spark.createDataFrame([(str(r["id"]), r["text"]) for r in records], "id string, text string")
    docs = df.select(
        F.monotonically_increasing_id().alias(_VID),
        F.lit(0).cast("long").alias(_O1),
        F.col("id").alias(_ID),
        F.concat("text", F.lit(" "), F.current_timestamp().cast("string")).alias(_TEXT),
    ).withColumn(_O2, F.col(_VID))
    run = _dedup_ordered(docs, DedupPlan(threshold=0.7), reread=True)
    with pytest.raises(Exception, match="the input changed between the job's reads"):
        run.result.collect()
    run.unpersist()


def test_a_missing_column_is_a_clear_error(local_spark, corpus_files, tmp_path):
    from tessera.spark import TesseraSparkError, dedup, run_dedup
    from tessera.spark._cli import _parser

    df = local_spark.createDataFrame([("a", "some text")], "id string, body string")
    with pytest.raises(TesseraSparkError, match="no column 'text'; columns: id, body"):
        dedup(df)
    args = _parser().parse_args(["dedup", str(corpus_files[0]), "--text-col", "body", "--output", str(tmp_path / "o")])
    with pytest.raises(TesseraSparkError, match="no record has field body .*fields seen: id, lang, text"):
        run_dedup(local_spark, args)
    with pytest.raises(TesseraSparkError, match="threshold"):
        dedup(local_spark.createDataFrame([("a", "t")], "id string, text string"), threshold=1.5)


def test_connected_components_match_union_find(local_spark):
    from tessera.spark._job import _COMP, _VID, _components, _driver_components

    rng = random.Random(5)
    edges = [(i, i + 1) for i in range(100, 160)]  # a long path: many large/small-star rounds
    edges += [(1000, 1000 + k) for k in range(1, 30)]  # a star around its minimum
    edges += [(1500 + k, 1400) for k in range(1, 10)]  # a star around a larger centre
    edges += [(rng.randrange(2000, 2300), rng.randrange(2000, 2300)) for _ in range(200)]
    edges = [(b, a) if rng.random() < 0.5 else (a, b) for a, b in edges if a != b]
    parent: dict[int, int] = {}

    def find(x: int) -> int:
        parent.setdefault(x, x)
        while parent[x] != x:
            x = parent[x]
        return x

    for a, b in edges:
        ra, rb = find(a), find(b)
        if ra != rb:
            parent[max(ra, rb)] = min(ra, rb)
    want = {v: find(v) for edge in edges for v in edge}
    frame = local_spark.createDataFrame(edges, "a long, b long")
    got = {row[0]: row[1] for row in _components(frame).collect()}
    assert got == want
    # The driver's union-find (below --driver-pairs) gives the same components, and every
    # distinct pair once, named by its earlier document.
    components, pair_rows, n = _driver_components(frame)
    assert n == len(want)
    assert {row[0]: row[1] for row in components.collect()} == want
    distinct = {(min(a, b), max(a, b)) for a, b in edges}
    rows = pair_rows.collect()
    assert sorted((r[_VID], r["b"]) for r in rows) == sorted(distinct)
    assert all(r[_COMP] == want[r[_VID]] for r in rows)


# ---------------------------------------------------------------------------------------
# Exact and lines dedup, and the kept records written back.


def _cli_rows(lines: list[dict]) -> list[dict]:
    """The CLI's lines in the job's shape (removed_lines is always there in Parquet)."""
    return [dict(line, removed_lines=line.get("removed_lines", [])) for line in lines]


def _text_part_lines(folder: Path) -> list[str]:
    """The lines of a Spark text output, its part files in order."""
    return [line for part in sorted(folder.glob("part-*")) for line in part.read_text(encoding="utf-8").splitlines()]


@pytest.mark.parametrize("method", ["exact", "lines"])
def test_exact_and_lines_methods_and_their_kept_records_match_the_cli(local_spark, tmp_path, method):
    from test_dedup import boilerplate_texts

    from tessera.spark import dedup, run_dedup
    from tessera.spark._cli import _parser

    texts = boilerplate_texts(300)
    data = tmp_path / "pages.jsonl"
    with data.open("w", encoding="utf-8") as f:
        for i, t in enumerate(texts):
            f.write(json.dumps({"id": f"p{i}", "text": t, "n": i}) + "\n")
            if i % 50 == 7:
                f.write("\n")  # a blank line: no record
        f.write('{"id": "bad"}\n')  # no text: skipped, as the CLI skips it
    lines, summary = cli_dedup([data], tmp_path / "cli.jsonl", "--id-field", "id", "--method", method,
                               "--write-kept", str(tmp_path / "kept.jsonl"))
    out, kept_dir = tmp_path / "out", tmp_path / "kept"
    args = _parser().parse_args(["dedup", str(data), "--id-col", "id", "--method", method, "--output", str(out),
                                 "--write-kept", str(kept_dir)])
    spark_summary = run_dedup(local_spark, args)
    rows = read_parquet_rows(out)
    if method == "exact":
        assert rows == lines
    else:
        assert rows == _cli_rows(lines)
        assert spark_summary["lines_removed"] == summary["lines_removed"] > 100
    for key in ("documents", "clusters", "duplicates_removed", "failed"):
        assert spark_summary[key] == summary[key], key
    assert summary["duplicates_removed"] > 0 and summary["failed"] == 1
    # The kept records, byte for byte as the CLI writes them.
    cli_kept = (tmp_path / "kept.jsonl").read_text(encoding="utf-8").splitlines()
    assert _text_part_lines(kept_dir) == cli_kept

    # The DataFrame function: its answer, and the kept rows themselves with records=True.
    df = local_spark.createDataFrame([(f"p{i}", t, i) for i, t in enumerate(texts)], "id string, text string, n long")
    got = [r.asDict() for r in dedup(df, id_col="id", order_col="n", method=method).collect()]
    want = [line for line in (_cli_rows(lines) if method == "lines" else lines)]
    if method == "lines":
        assert [dict(r, text=None) for r in got] == [dict(w, text=None) for w in want]
    else:
        assert got == want
    kept_rows = [r.asDict() for r in dedup(df, id_col="id", order_col="n", method=method, records=True).collect()]
    assert [(r["id"], r["text"], r["n"]) for r in kept_rows] == [
        (k["id"], k["text"], k["n"]) for k in map(json.loads, cli_kept)
    ]


def test_parquet_records_are_written_back_with_every_column(local_spark, tmp_path):
    import pyarrow as pa
    import pyarrow.parquet as pq

    from tessera.spark import run_dedup
    from tessera.spark._cli import _parser

    from test_dedup import boilerplate_texts

    # Near-duplicates for minhash, pages sharing boilerplate lines for lines.
    texts = [r["text"] for r in planted_records()[:150]] + boilerplate_texts(80)
    table = pa.table({
        "key": list(range(len(texts))),
        "text": texts,
        "lang": ["en"] * len(texts),
    })
    path = tmp_path / "records.parquet"
    pq.write_table(table, path, row_group_size=30)
    for method in ("minhash", "lines"):
        cli_kept = tmp_path / f"cli-{method}.parquet"
        _, summary = cli_dedup([path], tmp_path / f"cli-{method}.jsonl", "--id-field", "key", "--method", method,
                               "--write-kept", str(cli_kept))
        args = _parser().parse_args(["dedup", str(path), "--id-col", "key", "--method", method, "--output",
                                     str(tmp_path / f"out-{method}"), "--write-kept", str(tmp_path / f"kept-{method}")])
        run_dedup(local_spark, args)
        got = pq.read_table(tmp_path / f"kept-{method}").to_pylist()
        assert got == pq.read_table(cli_kept).to_pylist()
        assert len(got) == summary["documents"] - summary["duplicates_removed"]


def _records_as_the_engine_reads_them(paths: list[Path]) -> list[tuple[str, str]]:
    """`(id, text)` of the JSONL records that give a document, in order (blank lines,
    lines that are not JSON and records without a text give none)."""
    out = []
    for path in paths:
        for line in path.read_text(encoding="utf-8").splitlines():
            try:
                record = json.loads(line) if line.strip() else None
            except json.JSONDecodeError:
                record = None
            if isinstance(record, dict) and isinstance(record.get("text"), str):
                out.append((record["id"], record["text"]))
    return out


def test_index_shards_built_on_a_standalone_cluster_check_as_one_index(spark_cluster, corpus_files, tmp_path):
    import tessera

    shards = tmp_path / "shards"
    pattern = str(corpus_files[0].parent / "part-*.jsonl")
    conf = [a for c in SPARK_CONF for a in ("--conf", c)]
    done = subprocess.run(
        [sys.executable, "-m", "tessera.spark", "index", pattern, "--output", str(shards), "--shards", "3"]
        + ["--id-col", "id", "--master", spark_cluster, "--summary-format", "json", *conf],
        capture_output=True,
        text=True,
    )
    assert done.returncode == 3, done.stderr[-5000:]  # the two records without a text
    summary = json.loads([line for line in done.stderr.splitlines() if line.startswith("{")][-1])
    records = _records_as_the_engine_reads_them(corpus_files)
    assert summary["added"] == len(records) and summary["failed"] == 2, summary
    assert len(summary["per_shard"]) == 3 and all(n > 0 for n in summary["per_shard"]), summary
    assert sorted(p.name for p in shards.iterdir()) == [f"shard-00{s}-of-003" for s in range(3)]

    # One index holding the same documents in the same order.
    one = tessera.Index.create(tmp_path / "one")
    added = one.add([t for _, t in records], origins=[i for i, _ in records], force=True)
    assert [a["id"] for a in added["added"]] == list(range(len(records)))
    # Each shard holds the documents whose id it owns, under those ids.
    for s in range(3):
        owned = [d for d in range(len(records)) if tessera.shard_of(d, 3) == s]
        assert tessera.Shard(tessera.shard_path(shards, s, 3)).live_docs() == len(owned)
    sharded = tessera.ShardedIndex.open(shards)
    rng = random.Random(5)
    for _ in range(4):
        picks = rng.sample([t for _, t in records if len(t) > 300], 3)
        suspect = " ".join(p[: rng.randint(200, 600)] for p in picks) + " and some words of its own here"
        report = sharded.check(suspect)
        assert report["sources"], "the suspect borrows from indexed records"
        assert report == one.check(suspect)
    # The folder is new: a second build into it is refused by name.
    again = subprocess.run(
        [sys.executable, "-m", "tessera.spark", "index", pattern, "--output", str(shards), "--shards", "3",
         "--master", "local[1]"],
        capture_output=True,
        text=True,
    )
    assert again.returncode == 2 and "is not empty" in again.stderr, again.stderr[-2000:]
