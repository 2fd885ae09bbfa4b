"""The case suite (testdata/cases/*.toml, format in its README.md) through the bindings:
every source added with `Index.add_paths` (as a file named as the case names it, under
`sources/<collection>/`), the suspect checked with `Index.check` with the case's filters as
keyword arguments, each report held to the case's expectations by the rules of the
README ("How a runner checks a case"), as the CLI's and the server's runners hold theirs.
"""

from __future__ import annotations

import tomllib
from pathlib import Path

import pytest

import tessera
from conftest import REPO

TESTDATA = REPO / "testdata"
CASES = sorted((TESTDATA / "cases").glob("*.toml"))


def load(path: Path) -> dict:
    return tomllib.loads(path.read_text(encoding="utf-8"))


CHECK_CASES = [p for p in CASES if "suspect" in load(p)]


def file_bytes(entry: dict) -> bytes:
    if "text" in entry:
        return entry["text"].encode("utf-8")
    return (TESTDATA / entry["path"]).read_bytes()


def file_name(entry: dict) -> str:
    return entry.get("name") or Path(entry["path"]).name


def name_of(origin: str) -> str:
    """What the case calls a source: the last segment of its origin (an archive member's
    own name)."""
    return origin.split("!/")[-1].replace("\\", "/").split("/")[-1]


def filter_kwargs(case: dict) -> dict:
    f = case.get("filters", {})
    return {
        "exclude_quotes": f.get("exclude_quotes", False),
        "exclude_bibliography": f.get("exclude_bibliography", False),
        "min_words": f.get("min_words", 0),
        "min_percent": float(f.get("min_percent", 0.0)),
    }


def near(span: dict, want: list[int], tolerance: int) -> bool:
    return abs(span["start"] - want[0]) <= tolerance and abs(span["end"] - want[1]) <= tolerance


def check_report(case: dict, expect: dict, report: dict) -> list[str]:
    errors = []
    tol = case.get("tolerance", {})
    chars, percent = tol.get("chars", 3), tol.get("percent", 0.5)
    names = {s["id"]: name_of(s["origin"]) for s in report["sources"]}
    if "totals" in expect:
        for field, want in expect["totals"].items():
            have = report["totals"][field]
            if abs(have - want) > percent:
                errors.append(f"totals.{field}: {have:.2f}, expected {want:.2f}")
    used = [False] * len(report["blocks"])
    for want in expect.get("blocks", []):
        t = want.get("tolerance", chars)
        for i, b in enumerate(report["blocks"]):
            if (
                not used[i]
                and names.get(b["source"]) == want["source"]
                and b["kind"] == want["kind"]
                and ("reason" not in want or b["reason"] == want["reason"])
                and b.get("excluded") == want.get("excluded")
                and near(b["suspect_span"]["chars"], want["suspect"], t)
                and near(b["source_span"]["chars"], want["in_source"], t)
            ):
                used[i] = True
                break
        else:
            errors.append(f"no block {want}")
    errors += [f"unexpected block {b}" for b, u in zip(report["blocks"], used) if not u]
    if "sources" in expect:
        got = {name_of(s["origin"]) for s in report["sources"]}
        want = {s["name"] for s in expect["sources"]}
        if got != want:
            errors.append(f"sources {got}, expected {want}")
    notices = report["suspect"].get("warnings", [])
    want_notices = expect.get("notices", [])
    if [(n["kind"], n["message"]) for n in notices] != [(n["kind"], n["message"]) for n in want_notices]:
        errors.append(f"notices {notices}, expected {want_notices}")
    filters = case.get("filters")
    want_filters = None
    if filters and any(filter_kwargs(case).values()):
        want_filters = filter_kwargs(case)
    if report.get("filters") != want_filters:
        errors.append(f"filters {report.get('filters')}, expected {want_filters}")
    return errors


@pytest.mark.parametrize("path", CHECK_CASES, ids=[p.stem for p in CHECK_CASES])
def test_case_through_the_bindings(tmp_path, path):
    case = load(path)
    index = tessera.Index.create(tmp_path / "index")
    for source in case.get("sources", []):
        name = file_name(source)
        collection = source.get("collection", "main")
        target = tmp_path / "sources" / collection / name
        target.parent.mkdir(parents=True, exist_ok=True)
        target.write_bytes(file_bytes(source))
        added = index.add_paths(
            [target],
            collection=collection,
            kind=source.get("kind", "source"),
            keep_texts=source.get("keep_texts", False),
            if_new=source.get("if_new", False) or None,
        )
        assert not added["failed"], added
    suspect = case["suspect"]
    name = file_name(suspect)
    target = tmp_path / name
    target.write_bytes(file_bytes(suspect))
    answer = index.check(target, **filter_kwargs(case))
    # An archive's members are named by the path checked: the case names them from its
    # directory, as the CLI (run there) does.
    relative = lambda n: n.removeprefix(f"{tmp_path}/")  # noqa: E731
    documents = (
        [(relative(m["name"]), m.get("report", m)) for m in answer] if isinstance(answer, list) else [(name, answer)]
    )
    errors = []
    for doc, report in documents:
        expect = next(
            (e for e in case["expect"] if e.get("document") == doc or ("document" not in e and len(documents) == 1)),
            None,
        )
        if expect is None:
            errors.append(f"no [[expect]] for {doc}")
            continue
        errors += [f"{doc}: {e}" for e in check_report(case, expect, report)]
    assert not errors, "\n".join(errors)


def test_a_percent_out_of_range_is_refused(tmp_path):
    index = tessera.Index.create(tmp_path / "index")
    index.add(["A honey bee colony is a single family that can hold fifty thousand workers."])
    with pytest.raises(ValueError, match="min_percent"):
        index.check("Some text to check.", min_percent=101)
