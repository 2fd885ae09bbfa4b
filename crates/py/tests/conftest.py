"""Shared fixtures: real texts, and the `tessera` command line to compare with."""

from __future__ import annotations

import json
import os
import random
import shutil
import subprocess
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[3]
DEMO = REPO / "testdata" / "demo"
PAN_SOURCES = REPO.parent / "shared" / "eval" / "pan13-training" / "src"


def demo_texts() -> dict[str, str]:
    """The bundled demo library and thesis (English prose, a few hundred words each)."""
    texts = {p.stem: p.read_text(encoding="utf-8") for p in sorted((DEMO / "library").glob("*.txt"))}
    texts["thesis"] = (DEMO / "thesis.txt").read_text(encoding="utf-8")
    return texts


def edit(text: str, every: int, seed: int) -> str:
    """A light edit: every `every`-th word replaced by another word."""
    rng = random.Random(seed)
    words = text.split()
    for i in range(every // 2, len(words), every):
        words[i] = rng.choice(["apple", "river", "stone", "lamp", "window", "garden"])
    return " ".join(words)


def synthetic(n: int, words: int, seed: int) -> list[str]:
    """Texts of random words from a small vocabulary (no two alike)."""
    rng = random.Random(seed)
    vocab = [
        "".join(rng.choice("abcdefghijklmnopqrstuvwxyz") for _ in range(rng.randint(3, 9)))
        for _ in range(3000)
    ]
    return [" ".join(rng.choice(vocab) for _ in range(words)) for _ in range(n)]


def corpus(n_sources: int = 150) -> list[str]:
    """A collection with planted near-duplicates: PAN sources when ../shared/eval has them
    (else synthetic texts), the demo texts, and light edits and exact copies of some."""
    if PAN_SOURCES.is_dir():
        base = [
            p.read_text(encoding="utf-8", errors="replace")[:6000]
            for p in sorted(PAN_SOURCES.glob("*.txt"))[:n_sources]
        ]
    else:
        base = synthetic(n_sources, 400, 7)
    base += list(demo_texts().values())
    out = list(base)
    rng = random.Random(3)
    for i in rng.sample(range(len(base)), 40):
        choice = rng.random()
        if choice < 0.4:
            out.append(base[i])
        elif choice < 0.8:
            out.append(edit(base[i], 25, i))
        else:
            out.append(edit(base[i], 6, i))
    out.append("")
    out.append("Short text.")
    rng.shuffle(out)
    return out


@pytest.fixture(scope="session")
def texts() -> list[str]:
    return corpus()


def _build_cli() -> Path | None:
    target = Path(os.environ.get("CARGO_TARGET_DIR", REPO / "target"))
    if not target.is_absolute():
        target = REPO / target
    binary = target / "debug" / "tessera"
    cargo = shutil.which("cargo")
    if cargo is not None:
        # Up to date in a moment when `cargo test` built it; a cold build takes minutes.
        done = subprocess.run(
            [cargo, "build", "-q", "-p", "tessera-cli", "--bin", "tessera"],
            cwd=REPO,
            env={**os.environ, "CARGO_TARGET_DIR": str(target)},
        )
        if done.returncode != 0:
            return None
    return binary if binary.is_file() else None


@pytest.fixture(scope="session")
def tessera_bin() -> Path:
    """The `tessera` binary: $TESSERA_BIN, or built from this checkout (skips the test
    only when it cannot be built)."""
    given = os.environ.get("TESSERA_BIN")
    if given:
        path = Path(given)
        assert path.is_file(), f"TESSERA_BIN={given} is not a file"
        return path
    built = _build_cli()
    if built is None:
        pytest.skip("the tessera command line cannot be built here (no cargo, or the build failed)")
    return built


def run_cli(binary: Path, *args: str | os.PathLike) -> subprocess.CompletedProcess:
    done = subprocess.run(
        [str(binary), "-q", *map(str, args)], capture_output=True, text=True, check=False
    )
    assert done.returncode == 0, f"tessera {args} failed ({done.returncode}): {done.stderr}"
    return done


def write_jsonl(path: Path, records: list[dict]) -> Path:
    with path.open("w", encoding="utf-8") as f:
        for r in records:
            f.write(json.dumps(r, ensure_ascii=False) + "\n")
    return path


def read_jsonl(path: Path) -> list[dict]:
    return [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines() if line.strip()]
