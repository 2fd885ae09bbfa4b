"""tessera.Index: the engine's index on real texts, compared with the command line."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

import tessera
from conftest import DEMO, demo_texts, edit, run_cli


@pytest.fixture()
def library(tmp_path) -> tessera.Index:
    index = tessera.Index.create(tmp_path / "lib")
    texts = demo_texts()
    names = ["printing-press", "honey-bees", "siberian-rivers"]
    out = index.add([texts[n] for n in names], titles=names, origins=[f"{n}.txt" for n in names])
    assert [a["origin"] for a in out["added"]] == [f"{n}.txt" for n in names]
    return index


def test_create_add_check_near_delete(tmp_path, library):
    texts = demo_texts()
    with pytest.raises(FileExistsError):
        tessera.Index.create(tmp_path / "lib")
    again = tessera.Index.open(tmp_path / "lib")
    assert again.path == tmp_path / "lib"
    assert again.settings["shingles"]["size"] == 3

    report = library.check(texts["thesis"])
    assert report["suspect"]["name"] == "text"
    titles = {s["title"] for s in report["sources"]}
    assert {"printing-press", "honey-bees", "siberian-rivers"} <= titles
    assert 0 < report["totals"]["originality"] < 100

    hits = library.near(edit(texts["honey-bees"], 40, 2), top=2)
    assert hits[0]["title"] == "honey-bees" and hits[0]["jaccard"] > 0.5
    assert set(hits[0]) >= {"doc", "collection", "seen_at", "estimated_jaccard", "simhash_distance"}
    doc = hits[0]["doc"]
    assert library.delete([doc]) == 1
    with pytest.raises(tessera.TesseraError, match="unknown document 999"):
        library.delete([999])
    assert all(h["doc"] != doc for h in library.near(texts["honey-bees"]))
    stats = library.stats()
    assert stats["collections"][0]["docs"] == 2


def test_if_new_attaches_contained_texts(library):
    texts = demo_texts()
    out = library.add([texts["printing-press"], "A new note about clocks, gears and the towers that held them."], if_new=True)
    assert len(out["added"]) == 1
    (seen,) = out["seen"]
    assert seen["into_origin"] == "printing-press.txt" and seen["containment"] == 1.0
    assert not seen["same_origin"]
    out = library.add([texts["printing-press"][:800]], if_new=0.5, origins=["printing-press.txt"])
    assert out["added"] == [] and out["seen"][0]["same_origin"]
    with pytest.raises(ValueError, match="containment"):
        library.add(["x"], if_new=1.5)
    with pytest.raises(TypeError):
        library.add(["x"], if_new="yes")


def test_repeats_are_skipped_unless_forced_and_titles_come_from_the_first_line(tmp_path):
    index = tessera.Index.create(tmp_path / "lib")
    text = "The Clockmakers of Prague\n" + demo_texts()["printing-press"]
    first = index.add([text, text])
    # The default origin is the text's hash: the same text twice is one document.
    assert len(first["added"]) == 1 and first["seen"][0]["same_origin"]
    assert index.add([text])["added"] == []
    assert len(index.add([text], force=True)["added"]) == 1
    with pytest.raises(ValueError, match="together"):
        index.add([text], force=True, if_new=True)
    assert index.stats()["collections"][0]["docs"] == 2
    report = index.check(text)
    assert report["sources"][0]["title"] == "The Clockmakers of Prague"
    # The forced second copy is credited nothing and listed as the first one's copy.
    first, copy = report["sources"]
    assert first["copies"] == [copy["id"]] and copy["copy_of"] == [first["id"]]
    assert copy["share_in_report"] == 0 and copy["share_in_text"] == first["share_in_text"] > 90


def test_add_paths_lists_failures_and_checks_files(tmp_path):
    index = tessera.Index.create(tmp_path / "idx", shingle_size=3)
    bad = tmp_path / "bad.bin"
    bad.write_bytes(bytes(range(256)) * 20)
    out = index.add_paths([DEMO / "library", bad], collection="web")
    assert len(out["added"]) == 3 and out["failed"][0]["origin"].endswith("bad.bin")
    report = index.check(DEMO / "thesis.txt")
    assert report["suspect"]["name"].endswith("thesis.txt")
    assert len(report["sources"]) == 3
    with pytest.raises(TypeError):
        index.check(42)
    with pytest.raises(tessera.TesseraError, match="missing.txt"):
        index.check(tmp_path / "missing.txt")


def test_errors_are_python_exceptions(tmp_path, library):
    with pytest.raises(tessera.TesseraError, match="nowhere"):
        tessera.Index.open(tmp_path / "nowhere")
    with pytest.raises(ValueError):
        library.add(["text"], collection="bad name/with slash")
    with pytest.raises(ValueError, match="kind"):
        library.add(["text"], kind="other")
    with pytest.raises(ValueError, match="keeps its documents' texts"):
        library.add(["text"], keep_texts=False)
    empty = tessera.Index.create(tmp_path / "empty")
    with pytest.raises(tessera.TesseraError, match="no documents"):
        empty.check("some text")


def test_check_stats_and_near_equal_the_cli(tmp_path, tessera_bin):
    lib = tmp_path / "cli-lib"
    run_cli(tessera_bin, "index", "--index", lib, DEMO / "library")
    index = tessera.Index.open(lib)
    check = run_cli(tessera_bin, "check", "--index", lib, "--format", "json", DEMO / "thesis.txt")
    assert index.check(Path(DEMO / "thesis.txt")) == json.loads(check.stdout)
    stats = run_cli(tessera_bin, "stats", "--index", lib, "--format", "json")
    assert index.stats() == json.loads(stats.stdout)
    near = run_cli(tessera_bin, "near", "--index", lib, "--format", "json", DEMO / "library" / "honey-bees.txt")
    assert index.near((DEMO / "library" / "honey-bees.txt").read_text(encoding="utf-8")) == json.loads(near.stdout)
    merged = index.optimize(max_segments=1)
    assert set(merged) >= {"merges", "docs", "purged"}


def test_bad_arguments_are_refused_as_the_cli_refuses_them(tmp_path):
    index = tessera.Index.create(tmp_path / "lib")
    with pytest.raises(ValueError, match="more titles than texts"):
        index.add(["one text here"], titles=["one", "two"])
    with pytest.raises(ValueError, match="more origins than texts"):
        index.add(["one text here"], origins=["a.txt", "b.txt"])
    assert index.add(["one text here"], titles=["one"])["added"]
    with pytest.raises(ValueError, match="max segments must be at least 1"):
        index.optimize(max_segments=0)
    assert index.optimize(max_segments=1)["docs"] >= 0


def test_a_text_over_the_cap_is_refused_before_it_costs_memory(tmp_path):
    # The CLI's cap for one document (issue 52): a ValueError naming the limit, in every
    # call that takes texts, and nothing added.
    index = tessera.Index.create(tmp_path / "lib")
    long = "word " * (tessera.MAX_TEXT_BYTES // 5 + 1)
    assert len(long.encode()) > tessera.MAX_TEXT_BYTES == 16 * 1024 * 1024
    with pytest.raises(ValueError, match="text 2: its text is over the limit of 16777216 bytes"):
        index.add(["a short text of a few words", long])
    assert sum(c["docs"] for c in index.stats()["collections"]) == 0
    with pytest.raises(ValueError, match="over the limit of 16777216 bytes"):
        index.check(long)
    with pytest.raises(ValueError, match="over the limit of 16777216 bytes for one document"):
        tessera.sketch(["fine", long])
    with pytest.raises(ValueError, match="over the limit of 16777216 bytes for one document"):
        tessera.dedup(["fine", long])


def test_texts_are_kept_by_default_and_a_submission_is_found_by_the_next_check(tmp_path, library):
    texts = demo_texts()
    report = library.check(texts["thesis"])
    assert report["sources"] and all(s["text_kept"] for s in report["sources"])
    assert library.stats()["collections"][0]["text_bytes"] > 0
    snapshots = tessera.Index.create(tmp_path / "snapshots")
    snapshots.add([texts["honey-bees"]], keep_texts=False)
    assert snapshots.stats()["collections"][0]["keep_texts"] is False

    first = library.check(texts["thesis"], name="anna.txt", title="Anna's thesis", submit_to="theses")
    assert all(s["collection"] != "theses" for s in first["sources"])
    second = library.check(texts["thesis"], name="boris.txt", submit_to="theses")
    earlier = [s for s in second["sources"] if s["collection"] == "theses"]
    assert len(earlier) == 1 and earlier[0]["title"] == "Anna's thesis"
    assert earlier[0]["submission"]["identical"] is True
    assert library.delete([earlier[0]["id"]]) == 1
    third = library.check(texts["thesis"], name="clara.txt")
    # Boris's submission is left, under the text's own title.
    left = [s for s in third["sources"] if s["collection"] == "theses"]
    assert [s["title"] for s in left] == ["The Circulation of Knowledge: A Short Essay"]
