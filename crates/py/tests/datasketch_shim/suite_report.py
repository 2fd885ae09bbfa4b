"""A pytest plugin (``-p suite_report``): writes ``{test id: outcome}`` as JSON to the
file named by TESSERA_SUITE_REPORT. A test id is ``file.py::Class::test`` (the file's
base name); a module that fails to import is reported under ``file.py``."""

import json
import os

_outcomes: dict[str, str] = {}


def _id(report) -> str:
    # The suite lies outside pytest's rootdir, so node ids may lose the file: take its
    # base name from the report's path.
    _, _, rest = report.nodeid.partition("::")
    base = os.path.basename(report.location[0]) if report.location else ""
    return f"{base}::{rest}" if rest else base


def pytest_collectreport(report):
    if report.failed:
        _outcomes[_id(report)] = "error"


def pytest_runtest_logreport(report):
    key = _id(report)
    if report.when == "call" or report.outcome != "passed":
        outcome = "skipped" if report.skipped else report.outcome
        if _outcomes.get(key) in (None, "passed"):
            _outcomes[key] = outcome


def pytest_sessionfinish(session, exitstatus):
    with open(os.environ["TESSERA_SUITE_REPORT"], "w", encoding="utf-8") as f:
        json.dump(_outcomes, f, indent=1, sort_keys=True)
