"""Every default of dedup is the engine's (``tessera.DEDUP_DEFAULTS``, made from
``tessera_engine::dedup_defaults``): the stubs in ``_tessera.pyi`` state them as literals,
and the Python signatures, the Spark job's and the extension's own must agree with them."""

from __future__ import annotations

import ast
import inspect
import re
from pathlib import Path

import pytest

import tessera
from tessera import DEDUP_DEFAULTS

STUBS = Path(tessera.__file__).with_name("_tessera.pyi")

# Keyword arguments named after a default of another name.
ALIASES = {"text_col": "text_field"}


def defaults() -> dict:
    return DEDUP_DEFAULTS._asdict()


def stub_tree() -> ast.Module:
    return ast.parse(STUBS.read_text(encoding="utf-8"))


def stub_function(name: str) -> ast.FunctionDef:
    """A stub's function, or a class's method as `Class.method`."""
    owner, _, name = name.rpartition(".")
    body = stub_class(owner).body if owner else stub_tree().body
    for node in body:
        if isinstance(node, ast.FunctionDef) and node.name == name:
            return node
    raise AssertionError(f"no {name} in {STUBS}")


def stub_class(name: str) -> ast.ClassDef:
    for node in stub_tree().body:
        if isinstance(node, ast.ClassDef) and node.name == name:
            return node
    raise AssertionError(f"no class {name} in {STUBS}")


def stub_defaults(function: ast.FunctionDef) -> dict:
    """The literal defaults of a stub's parameters, by name."""
    args = function.args
    positional = args.posonlyargs + args.args
    pairs = list(zip(positional[len(positional) - len(args.defaults) :], args.defaults))
    pairs += [(a, d) for a, d in zip(args.kwonlyargs, args.kw_defaults) if d is not None]
    return {a.arg: ast.literal_eval(d) for a, d in pairs}


def signature_defaults(function) -> dict:
    return {
        name: p.default
        for name, p in inspect.signature(function).parameters.items()
        if p.default is not inspect.Parameter.empty
    }


def engine_part(values: dict) -> dict:
    """The values of `values` that are engine defaults, by the defaults' names."""
    known = defaults()
    return {ALIASES.get(k, k): v for k, v in values.items() if ALIASES.get(k, k) in known}


@pytest.mark.parametrize("name", ["sketch", "_dedup_columns", "DedupPlan.__new__", "check_jsonl_fields"])
def test_the_stubs_state_the_engine_defaults(name):
    stated = engine_part(stub_defaults(stub_function(name)))
    assert stated, f"{name} states no engine default"
    assert stated == {k: defaults()[k] for k in stated}


def test_the_stub_of_the_defaults_object_says_the_engine_values():
    said = {}
    for node in stub_class("DedupDefaults").body:
        if isinstance(node, ast.FunctionDef) and (doc := ast.get_docstring(node)):
            if m := re.search(r"\(default (.+?)\)", doc):
                said[node.name] = ast.literal_eval(m.group(1))
    assert set(said) >= set(defaults()) - {"exact_budget"}
    assert said == {k: defaults()[k] for k in said}
    assert {n.name for n in stub_class("DedupDefaults").body if isinstance(n, ast.FunctionDef)} >= set(defaults())


def test_python_signatures_are_the_stubs_and_the_engines():
    # tessera.dedup wraps _dedup_columns: the same keyword arguments and defaults.
    ours = signature_defaults(tessera.dedup)
    ours.pop("as_arrow")
    assert ours == stub_defaults(stub_function("_dedup_columns"))
    assert engine_part(ours) == {k: defaults()[k] for k in engine_part(ours)}


def test_the_spark_job_reads_the_engine_defaults():
    from tessera.spark import dedup
    from tessera.spark._cli import _parser

    # The job's verification is its own ("exact" or "estimate": a cluster has no one
    # memory budget for "auto").
    stated = engine_part({k: v for k, v in signature_defaults(dedup).items() if k != "verify"})
    assert set(stated) >= {"threshold", "num_perm", "seed", "shingle_size", "stop_words", "stemming", "short_words"}
    assert stated == {k: defaults()[k] for k in stated}
    args = vars(_parser().parse_args(["dedup", "in.jsonl", "--output", "out"]))
    args["stop_words"] = not args.pop("keep_stop_words")
    args["stemming"] = not args.pop("no_stemming")
    parsed = engine_part({k: v for k, v in args.items() if k != "verify"})
    assert set(parsed) >= set(stated) | {"text_field"}
    assert parsed == {k: defaults()[k] for k in parsed}


def test_the_extension_signatures_are_the_engines(texts):
    d = defaults()
    plan = tessera.kernels.DedupPlan()
    assert (plan.threshold, plan.num_perm, plan.seed) == (d["threshold"], d["num_perm"], d["seed"])
    settings = {k: d[k] for k in ("num_perm", "seed", "shingle_size", "stop_words", "stemming", "short_words")}
    sample = texts[:20]
    assert (tessera.sketch(sample) == tessera.sketch(sample, **settings)).all()
    explicit = {k: d[k] for k in ("method", "threshold", "max_distance", "verify")} | settings
    assert tessera.dedup(sample, as_arrow=False) == tessera.dedup(sample, as_arrow=False, **explicit)
