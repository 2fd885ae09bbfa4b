"""Translated borrowings through tessera.Index: a Russian source indexed, an English text
translating a passage of it checked, with the dictionary the system has (Debian's
mueller7-dict, which CI installs; skipped without it)."""

from __future__ import annotations

from pathlib import Path

import pytest

import tessera

pytestmark = pytest.mark.skipif(
    not Path("/usr/share/dictd/mueller7.index").exists(), reason="Debian's mueller7-dict is not installed"
)

RUSSIAN = (
    "Глава первая. Была весна и шёл дождь. Все ждали лета.\n\n"
    "Старый доктор Самойленко жил в маленьком городе у реки. Каждое утро он ходил в сад. "
    "Его жена любила цветы и розы. Зимой снег покрывал дороги, и никто не приходил в гости. "
    "Вечером доктор читал книги и письма сына. Сын писал редко, но длинные письма. "
    "Грустный доктор сидел у окна молча.\n\nПотом пришла осень. Дети пошли в школу. "
    "Учитель рассказывал им о далёких странах, о морях и горах.\n"
)
OTHER = (
    "Инженер строил мост через овраг. Рабочие носили камни и брёвна. "
    "К осени мост был готов, и по нему поехали телеги с хлебом. Инженер уехал в столицу.\n"
)
ENGLISH = (
    "The committee met on Tuesday to discuss the budget of the museum. Several members asked for more time.\n\n"
    "The old doctor Samoylenko lived in a small town by the river. Every morning he walked in the garden. "
    "His wife loved flowers and roses. In winter the snow covered the roads, and nobody came to visit. "
    "In the evening the doctor read books and the letters of his son. His son wrote rarely, but long letters. "
    "The sad doctor sat by the window, silent.\n\n"
    "The chairman closed the meeting at noon and the members went home for lunch.\n"
)


def test_a_translated_passage_is_reported_as_a_translation(tmp_path):
    index = tessera.Index.create(tmp_path / "lib")
    index.add([RUSSIAN, OTHER], titles=["doctor", "bridge"])
    report = index.check(ENGLISH, name="thesis")
    assert [b["found_by"] for b in report["blocks"]] == ["translation"]
    span = report["blocks"][0]["suspect_span"]["chars"]
    found = ENGLISH[span["start"] : span["end"]]
    assert found.startswith("The old doctor") and found.endswith("silent."), found
    assert [s["title"] for s in report["sources"]] == ["doctor"]

    off = tessera.Index.open(tmp_path / "lib", cross_language="off")
    assert off.check(ENGLISH)["blocks"] == []


def test_an_unknown_cross_language_mode_is_a_value_error(tmp_path):
    tessera.Index.create(tmp_path / "lib")
    with pytest.raises(ValueError, match="cross-language must be on, off or auto"):
        tessera.Index.open(tmp_path / "lib", cross_language="sometimes")
