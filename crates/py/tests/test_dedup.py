"""tessera.sketch and tessera.dedup against the `tessera` command line on the same
records, and the kernels of the Spark job against tessera.dedup."""

from __future__ import annotations

import json
import pickle
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

import tessera
from conftest import REPO, read_jsonl, run_cli, write_jsonl

SETTINGS = [
    dict(method="minhash"),
    dict(method="minhash", threshold=0.5, exact=True),
    dict(method="minhash", threshold=0.7, verify="estimate"),
    dict(method="minhash", threshold=0.7, num_perm=64, seed=9, shingle_size=2, stop_words=False, stemming=False),
    dict(method="simhash"),
    dict(method="simhash", max_distance=6, short_words=20),
]


def cli_flags(s: dict) -> list[str]:
    flags = ["--method", s.get("method", "minhash")]
    for name in ("threshold", "max_distance", "num_perm", "seed", "shingle_size", "short_words"):
        if name in s:
            flags += ["--" + name.replace("_", "-"), str(s[name])]
    if s.get("exact"):
        flags.append("--exact")
    if s.get("verify"):
        flags += ["--verify", s["verify"]]
    if s.get("stop_words") is False:
        flags.append("--keep-stop-words")
    if s.get("stemming") is False:
        flags.append("--no-stemming")
    return flags


@pytest.mark.parametrize("settings", SETTINGS, ids=lambda s: "-".join(f"{k}={v}" for k, v in s.items()))
def test_dedup_equals_the_cli(tmp_path, tessera_bin, texts, settings):
    data = write_jsonl(tmp_path / "data.jsonl", [{"text": t} for t in texts])
    out = tmp_path / "clusters.jsonl"
    run_cli(tessera_bin, "dedup", data, "-o", out, *cli_flags(settings))
    expected = read_jsonl(out)
    got = tessera.dedup(texts, as_arrow=False, **settings)
    assert got == expected
    assert sum(not r["kept"] for r in got) > 0


def boilerplate_texts(n: int = 120, seed: int = 7) -> list[str]:
    """Pages: a menu and a notice most pages share, lines of their own, some pages copied
    whole (with other whitespace), some that are nothing but boilerplate."""
    import random

    rng = random.Random(seed)
    words = "harbour railway council market school river bridge winter festival museum".split()
    shared = ["Home | News | Sport | Contact", "This site uses cookies.", "All rights reserved 2026."]
    texts: list[str] = []
    for i in range(n):
        own = [" ".join(rng.choice(words) for _ in range(8)) + f" {i}." for _ in range(rng.randint(0, 4))]
        lines = [shared[0]] + own + ([""] if i % 4 == 0 else []) + rng.sample(shared[1:], rng.randint(0, 2))
        texts.append("\n".join(lines) + ("\n" if i % 2 else ""))
        if i % 9 == 0 and texts:
            texts.append("  " + texts[rng.randrange(len(texts))].replace(" ", "  ") + "\r\n")
    return texts


@pytest.mark.parametrize("method", ["exact", "lines"])
def test_exact_and_lines_equal_the_cli(tmp_path, tessera_bin, method):
    texts = boilerplate_texts()
    data = write_jsonl(tmp_path / "data.jsonl", [{"text": t, "n": i} for i, t in enumerate(texts)])
    out = tmp_path / "clusters.jsonl"
    kept_file = tmp_path / "kept.jsonl"
    run_cli(tessera_bin, "dedup", data, "-o", out, "--method", method, "--write-kept", kept_file)
    expected = read_jsonl(out)
    got = tessera.dedup(texts, method=method, as_arrow=False)
    cli_kept = read_jsonl(kept_file)
    if method == "exact":
        assert got == expected
        assert sum(not r["kept"] for r in got) >= 10
        assert [texts[int(r["id"]) - 1] for r in got if r["kept"]] == [k["text"] for k in cli_kept]
    else:
        for row, line in zip(got, expected, strict=True):
            assert row.pop("text") == tessera._tessera._remove_lines(texts[int(row["id"]) - 1], row["removed_lines"])
            if not row["removed_lines"]:
                row.pop("removed_lines")
            assert row == line
        assert sum(len(r.get("removed_lines", [])) for r in expected) > 100
        assert any(not r["kept"] for r in expected) and any(r["kept"] and 0 < r["similarity"] < 1 for r in expected)
        # The records out: the kept ones with their text left, the other fields as they were.
        table = tessera.dedup(texts, method="lines")
        rows = [r for r in table.to_pylist() if r["kept"]]
        assert [r["text"] for r in rows] == [k["text"] for k in cli_kept]
        assert [k["n"] for k in cli_kept] == [int(r["id"]) - 1 for r in rows]
        summary = json.loads(table.schema.metadata[b"tessera.summary"])
        assert summary["lines_removed"] == sum(len(r["removed_lines"]) for r in table.to_pylist())


def test_dedup_refuses_an_unknown_method():
    with pytest.raises(ValueError, match="method must be one of minhash, simhash, exact, lines"):
        tessera.dedup(["a"], method="suffix")


def test_dedup_with_ids_equals_the_cli(tmp_path, tessera_bin, texts):
    ids = [f"doc-{i:04d}" if i % 3 else i for i in range(len(texts))]
    records = [{"key": k, "body": t} for k, t in zip(ids, texts)]
    data = write_jsonl(tmp_path / "data.jsonl", records)
    out = tmp_path / "clusters.jsonl"
    run_cli(tessera_bin, "dedup", data, "--text-field", "body", "--id-field", "key", "-o", out)
    table = tessera.dedup(texts, ids=ids)
    assert table.to_pylist() == read_jsonl(out)


def test_sketch_equals_the_cli_signatures(tmp_path, tessera_bin, texts):
    data = write_jsonl(tmp_path / "data.jsonl", [{"text": t} for t in texts])
    for flags, kwargs in [
        ([], {}),
        (["--num-perm", "64", "--seed", "5", "--shingle-size", "4", "--keep-stop-words"],
         dict(num_perm=64, seed=5, shingle_size=4, stop_words=False)),
    ]:
        sigs = tmp_path / "sigs.jsonl"
        run_cli(tessera_bin, "dedup", data, "-o", tmp_path / "c.jsonl", "--write-signatures", sigs, *flags)
        expected = np.array([r["minhash"] for r in read_jsonl(sigs)], dtype=np.uint64)
        got = tessera.sketch(texts, **kwargs)
        assert got.dtype == np.uint64 and got.shape == expected.shape
        assert (got == expected).all()


def test_dedup_table_and_list_shapes():
    pa = pytest.importorskip("pyarrow")
    texts = ["a b c d e f g h i j k l", "x y z w v", "a b c d e f g h i j k l"]
    table = tessera.dedup(texts)
    assert isinstance(table, pa.Table)
    assert table.schema.names == ["id", "cluster", "kept", "similarity"]
    assert [str(t) for t in table.schema.types] == ["string", "string", "bool", "double"]
    assert table.column("cluster").to_pylist() == ["1", "2", "1"]
    summary = json.loads(table.schema.metadata[b"tessera.summary"])
    assert summary == {
        "documents": 3,
        "clusters": 2,
        "duplicates_removed": 1,
        "method": "minhash",
        "verified": "exact",
        "bands": 17,
        "rows": 7,
    }
    rows = tessera.dedup(iter(texts), ids=["x", 7, "z"], as_arrow=False)
    assert rows[2] == {"id": "z", "cluster": "x", "kept": False, "similarity": 1.0}
    with pytest.raises(ValueError, match="ids ran out"):
        tessera.dedup(texts, ids=["a"])
    with pytest.raises(ValueError, match="more ids"):
        tessera.dedup(texts, ids=["a", "b", "c", "d"])
    with pytest.raises(TypeError):
        tessera.dedup(["ok", None])
    with pytest.raises(TypeError):
        tessera.dedup(["ok"], ids=[1.5])
    with pytest.raises(ValueError, match="threshold"):
        tessera.dedup(texts, threshold=1.5)
    with pytest.raises(ValueError, match="method"):
        tessera.dedup(texts, method="lsh")
    assert tessera.dedup([], as_arrow=False) == []


def test_dedup_case_suite():
    """testdata/cases/dedup.toml, the case every surface runs."""
    if sys.version_info < (3, 11):
        pytest.skip("tomllib is Python 3.11+")
    import tomllib

    case = tomllib.loads((REPO / "testdata" / "cases" / "dedup.toml").read_text(encoding="utf-8"))["dedup"]
    records = [json.loads(line) for line in case["jsonl"].splitlines() if line.strip()]
    texts, ids = [r["text"] for r in records], [r[case["id_field"]] for r in records]
    for run in case["runs"]:
        settings = {k: v for k, v in run.items() if k != "clusters"}
        rows = tessera.dedup(texts, ids=ids, as_arrow=False, **settings)
        clusters: dict[str, list[str]] = {}
        for r in rows:
            clusters.setdefault(r["cluster"], []).append(r["id"])
        got = sorted(sorted(m) for m in clusters.values() if len(m) > 1)
        assert got == sorted(sorted(c) for c in run["clusters"]), run


def test_sketch_settings_and_empty_texts():
    texts = ["The printing press changed how books were made in Europe.", "", None]
    s = tessera.sketch(texts)
    assert s.shape == (3, 128) and (s[1] == 0xFFFFFFFF).all() and (s[2] == 0xFFFFFFFF).all()
    assert not (s[0] == 0xFFFFFFFF).all()
    assert (tessera.sketch(texts[:1], seed=2) != s[:1]).any()
    assert (tessera.sketch(texts[:1], shingle_size=2) != s[:1]).any()
    assert tessera.sketch(texts[:1], num_perm=32).shape == (1, 32)
    assert tessera.sketch([]).shape == (0, 128)
    for bad in (dict(num_perm=0), dict(shingle_size=0), dict(language="xx")):
        with pytest.raises(ValueError):
            tessera.sketch(texts, **bad)
    with pytest.raises(TypeError):
        tessera.sketch([b"bytes"])


def test_plan_pieces_give_the_dedup_answer(texts):
    """The Spark job's recipe run in plain Python: buckets by band key, pairs per bucket,
    components, clustering per component. It must equal tessera.dedup."""
    plan = tessera.kernels.DedupPlan(threshold=0.7)
    # The dedup's bands (chosen for recall), which MinHashLSH's balanced ones are not.
    lsh = tessera.MinHashLSH(threshold=0.7)
    assert plan.bands > lsh.b and plan.bands * plan.rows <= 128
    assert (plan.num_perm, plan.threshold, plan.seed) == (128, 0.7, 1)
    sigs = plan.signatures(texts)
    assert sigs.dtype == np.uint32 and (sigs == tessera.sketch(texts)).all()
    keys, usable = plan.band_keys(sigs)
    assert keys.shape == (len(texts), plan.bands) and usable.dtype == np.bool_
    assert not usable[texts.index("")]
    buckets: dict[tuple[int, int], list[int]] = {}
    for doc in range(len(texts)):
        if usable[doc]:
            for band in range(plan.bands):
                buckets.setdefault((band, int(keys[doc, band])), []).append(doc)
    groups = [m for m in buckets.values() if len(m) > 1]
    sizes = np.array([len(m) for m in groups], dtype=np.int64)
    members = np.array([d for m in groups for d in m], dtype=np.int64)
    pairs = plan.bucket_pairs(sizes, members)
    assert pairs.shape[1] == 2 and (pairs[:, 0] < pairs[:, 1]).all()

    parent = list(range(len(texts)))

    def find(x: int) -> int:
        while parent[x] != x:
            parent[x] = parent[parent[x]]
            x = parent[x]
        return x

    for a, b in pairs:
        parent[find(int(a))] = find(int(b))
    components: dict[int, list[int]] = {}
    for doc in range(len(texts)):
        components.setdefault(find(doc), []).append(doc)
    pair_set = {(int(a), int(b)) for a, b in pairs}
    # plan.cluster verifies with the estimate, plan.cluster_texts exactly (the default).
    for verify in ("estimate", "exact"):
        kept = list(range(len(texts)))
        similarity = [1.0] * len(texts)
        for docs in components.values():
            pos = {d: i for i, d in enumerate(docs)}
            local = np.array([(pos[a], pos[b]) for a, b in pair_set if a in pos], dtype=np.int64).reshape(-1, 2)
            if verify == "estimate":
                k, s = plan.cluster(sigs[docs], local)
            else:
                k, s = plan.cluster_texts([texts[d] for d in docs], local)
            assert k.dtype == np.uint32 and s.dtype == np.float64
            for i, d in enumerate(docs):
                kept[d], similarity[d] = docs[int(k[i])], float(s[i])
        expected = tessera.dedup(texts, threshold=0.7, as_arrow=False, verify=verify)
        assert [str(k + 1) for k in kept] == [r["cluster"] for r in expected], verify
        assert similarity == [r["similarity"] for r in expected], verify
        assert sum(not r["kept"] for r in expected) > 0


def test_band_row_pairs_equal_bucket_pairs_of_the_sorted_buckets():
    """The Spark job's pairing of a partition's band rows (shuffled, whole buckets, some
    past 64 members) equals grouping them by (band, key), ordering each bucket by
    (o1, o2, vid) and calling bucket_pairs."""
    plan = tessera.kernels.DedupPlan(num_perm=64)
    rng = np.random.default_rng(7)
    n = 3000
    band = rng.integers(0, 4, n)
    # Half the rows in a few large buckets, half in many small ones (most of them alone).
    key = np.where(rng.random(n) < 0.5, rng.integers(-2, 2, n), rng.integers(-2000, 2000, n)) * (1 << 40)
    o1 = rng.integers(0, 3, n)
    o2 = rng.integers(0, 1000, n)
    vid = rng.permutation(n).astype(np.int64)
    got = plan.band_row_pairs(band, key, o1, o2, vid)
    buckets: dict[tuple[int, int], list[tuple[int, int, int]]] = {}
    for i in range(n):
        buckets.setdefault((int(band[i]), int(key[i])), []).append((int(o1[i]), int(o2[i]), int(vid[i])))
    groups = [[m[2] for m in sorted(ms)] for ms in buckets.values() if len(ms) > 1]
    assert max(len(g) for g in groups) > 64
    sizes = np.array([len(g) for g in groups], dtype=np.int64)
    members = np.array([v for g in groups for v in g], dtype=np.int64)
    expected = plan.bucket_pairs(sizes, members)
    assert got.shape[1] == 2 and len(got) == len(expected)
    assert sorted(map(tuple, got.tolist())) == sorted(map(tuple, expected.tolist()))
    order = rng.permutation(n)
    again = plan.band_row_pairs(band[order], key[order], o1[order], o2[order], vid[order])
    assert sorted(map(tuple, again.tolist())) == sorted(map(tuple, got.tolist()))
    with pytest.raises(ValueError, match="band rows"):
        plan.band_row_pairs(band, key, o1, o2, vid[:-1])


def test_plan_checks_its_inputs_and_pickles():
    plan = tessera.kernels.DedupPlan(num_perm=64, language="en", stemming=False)
    again = pickle.loads(pickle.dumps(plan))
    assert repr(again) == repr(plan)
    text = ["Printing presses printed books across Europe in the fifteenth century."]
    assert (again.signatures(text) == plan.signatures(text)).all()
    assert (plan.signatures(text) == tessera.sketch(text, num_perm=64, language="en", stemming=False)).all()
    with pytest.raises(ValueError, match="64"):
        plan.band_keys(np.zeros((2, 128), dtype=np.uint32))
    with pytest.raises(ValueError, match="add up"):
        plan.bucket_pairs(np.array([2], dtype=np.int64), np.array([1, 2, 3], dtype=np.int64))
    with pytest.raises(ValueError, match="past"):
        plan.cluster(np.zeros((2, 64), dtype=np.uint32), np.array([[0, 5]], dtype=np.int64))
    assert plan.bucket_pairs(np.array([], dtype=np.int64), np.array([], dtype=np.int64)).shape == (0, 2)
    # A bucket past 64 members pairs each with its 64 nearest predecessors only.
    big = plan.bucket_pairs(np.array([100], dtype=np.int64), np.arange(100, dtype=np.int64) * 10)
    assert len(big) == sum(min(i, 64) for i in range(100))
    assert (big % 10 == 0).all()
    with pytest.raises(ValueError):
        tessera.kernels.DedupPlan(threshold=1.0)


def _arrow_buffers(values: list[bytes]) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    offsets = np.cumsum([0] + [len(v) for v in values]).astype(np.int64)
    data = np.frombuffer(b"".join(values), dtype=np.uint8)
    return offsets, data, np.ones(len(values), dtype=bool)


def test_sign_rows_reads_jsonl_lines_as_the_cli(tmp_path, tessera_bin, texts):
    """The Spark job signs raw JSONL lines with DedupPlan.sign_rows: the records the CLI
    reads (and skips) must be the same, with the same ids, texts and signatures."""
    lines = [json.dumps({"id": f"d{i}", "text": t}) for i, t in enumerate(texts[:40])]
    lines += [
        "   ",  # blank: no record, no failure
        "{not json",
        json.dumps({"id": "n", "text": 5}),  # a text that is not a string
        json.dumps({"id": "m", "body": "x"}),  # no text
        json.dumps({"id": 17, "text": texts[0]}),  # a number id, an exact copy
        json.dumps({"id": None, "text": "x y z"}),  # an id that is not a string or number
        json.dumps(["text", "x"]),
    ]
    path = tmp_path / "lines.jsonl"
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")
    out = tmp_path / "cli.jsonl"
    cmd = [str(tessera_bin), "-q", "dedup", str(path), "--id-field", "id", "-o", str(out), "--format", "json"]
    done = subprocess.run(cmd, capture_output=True, text=True)
    assert done.returncode == 3, done.stderr  # records were skipped
    cli = read_jsonl(out)
    plan = tessera.kernels.DedupPlan()
    raw = [line.encode() for line in lines]
    status, sigs, keys, usable, ids, kept_texts = plan.sign_rows(
        *_arrow_buffers(raw), text_field="text", id_field="id", keep_text=True
    )
    assert list(status) == [0] * 40 + [1, 2, 2, 2, 0, 2, 2]
    documents = np.flatnonzero(status == 0)

    def strings(column):
        offsets, data = column
        return [bytes(data[offsets[i] : offsets[i + 1]]).decode() for i in range(len(offsets) - 1)]

    assert [strings(ids)[i] for i in documents] == [r["id"] for r in cli]
    read = [strings(kept_texts)[i] for i in documents]
    assert read == texts[:40] + [texts[0]]
    assert (sigs[documents] == plan.signatures(read)).all()
    want_keys, want_usable = plan.band_keys(sigs[documents])
    assert (keys[documents] == want_keys).all() and (usable[documents] == want_usable).all()
    assert not usable[status != 0].any() and not sigs[status != 0].any()
    # Texts (a Parquet column): rows not valid, or not UTF-8, give no document.
    offsets, data, valid = _arrow_buffers([b"alpha beta gamma delta", b"\xff\xfe", b"x"])
    valid[2] = False
    status, sigs, *_rest, ids, kept = plan.sign_rows(offsets, data, valid)
    assert list(status) == [0, 2, 2] and ids is None and kept is None
    assert (sigs[0] == plan.signatures(["alpha beta gamma delta"])[0]).all()
    with pytest.raises(ValueError, match="offsets"):
        plan.sign_rows(np.array([0, 5], dtype=np.int64), data[:2], np.ones(1, dtype=bool))


def test_cluster_rows_equals_cluster_texts_and_checks_each_row(texts):
    """The Spark job's exact verification clusters the raw rows it read again (JSONL lines
    or texts) with DedupPlan.cluster_rows: the answer of cluster_texts on the rows' texts,
    and a row that is not the one signed (its digest differs) or gives no text is refused."""
    plan = tessera.kernels.DedupPlan(threshold=0.6)
    docs = texts[:30] + [texts[3] + " one more word", texts[3], texts[7].replace("the", "a", 3)]
    sigs = plan.signatures(docs)
    keys, usable = plan.band_keys(sigs)
    pairs = sorted(
        {(i, j) for i in range(len(docs)) for j in range(i + 1, len(docs)) if (keys[i] == keys[j]).any()}
    )
    local = np.array(pairs, dtype=np.int64).reshape(-1, 2)
    assert len(local) >= 3
    want_kept, want_sim = plan.cluster_texts(docs, local)
    assert (want_kept != np.arange(len(docs))).sum() >= 2
    lines = [json.dumps({"id": f"d{i}", "text": t}).encode() for i, t in enumerate(docs)]
    for rows, field in ((lines, "text"), ([t.encode() for t in docs], None)):
        offsets, data, _ = _arrow_buffers(rows)
        digests = tessera.kernels.row_digests(offsets, data)
        assert digests.dtype == np.uint64 and len(set(digests.tolist())) == len(set(rows))
        kept, sim = plan.cluster_rows(offsets, data, digests, local, text_field=field)
        assert (kept == want_kept).all() and (sim == want_sim).all()
        changed = digests.copy()
        changed[31] ^= 1
        with pytest.raises(ValueError, match="row 31 is not the row that was signed"):
            plan.cluster_rows(offsets, data, changed, local, text_field=field)
        with pytest.raises(ValueError, match="one per row"):
            plan.cluster_rows(offsets, data, digests[:-1], local, text_field=field)
    bad = [b'{"id": "x", "body": "no text"}']
    offsets, data, _ = _arrow_buffers(bad)
    with pytest.raises(ValueError, match="row 0 gives no text"):
        plan.cluster_rows(offsets, data, tessera.kernels.row_digests(offsets, data), local[:0], text_field="text")


def test_connected_components_by_union_find():
    a = np.array([5, 7, 9, 3, 100, 200], dtype=np.int64)
    b = np.array([7, 9, 1, 1, 300, 100], dtype=np.int64)
    vertices, comp = tessera._tessera.connected_components(a, b)
    assert list(vertices) == [1, 3, 5, 7, 9, 100, 200, 300]
    assert list(comp) == [1, 1, 1, 1, 1, 100, 100, 100]
    empty = np.zeros(0, dtype=np.int64)
    assert [len(x) for x in tessera._tessera.connected_components(empty, empty)] == [0, 0]


def test_importing_the_spark_job_points_executors_at_this_python():
    # Issue 49: `tessera.spark.dedup(df)` failed on executors running another Python
    # (without the package) when the virtual environment was not activated.
    code = "import os; os.environ.pop('PYSPARK_PYTHON', None); import tessera.spark; print(os.environ['PYSPARK_PYTHON'])"
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert Path(done.stdout.strip()).resolve() == Path(sys.executable).resolve()
    kept = subprocess.run(
        [sys.executable, "-c", "import os, tessera.spark; print(os.environ['PYSPARK_PYTHON'])"],
        capture_output=True, text=True, check=True, env={**__import__("os").environ, "PYSPARK_PYTHON": "/opt/py"},
    )
    assert kept.stdout.strip() == "/opt/py"
