"""The order in which the workers take the test files: the files that run in the test process first, then those that
start runners, each part longest first, as last measured.

``make test`` runs the package check (a second ``sam build``, then a runner and a smoke) and the deploy check
(LocalStack) beside the suite for its first minutes: runner files then would fight them for the two cores. So the
in-process files go first; the first runner file is queued about ``WARM_UP_SECONDS`` of in-process work before their
end, so that the demo template it waits for (``stack/demo_template.py``: a minute on one core, the first time) is
published while the other worker still has in-process files to run. Each part longest first, so the run does not
end with one worker alone on a long file (xdist's default queues files by their number of tests, which put the
one-test files of a minute each last).

Measured (a fresh clone's ``.ci/run``): xdist's default order, suite 796 s; every file longest first, runner files
leading, 948 s (they fought the package and deploy checks).

``tests/durations.json`` holds each file's seconds (its tests' setup, call and teardown), as measured:
``make durations`` updates it from the JUnit report the last run left in ``.local/junit.xml``. A file it
does not list counts as the median of its directory. The order only moves files, never a test within its file.
"""

from __future__ import annotations

import json
import statistics
import sys
import xml.etree.ElementTree as ET
from collections import defaultdict
from pathlib import Path

import pytest

DURATIONS = Path(__file__).resolve().parents[1] / "durations.json"
# Suites whose files start a runner (or use one a conftest starts); the others run in the test process.
RUNNER_SUITES = frozenset({"attack", "browser", "client", "e2e", "fuzz", "load", "local"})
WARM_UP_SECONDS = 120  # in-process work left when the first runner file starts: about the demo template's first build


def _file(item: pytest.Item) -> str:
    return item.nodeid.split("::", 1)[0]


def planned(files: list[str], seconds: dict[str, float]) -> list[str]:
    """The in-process files longest first, the first runner file ``WARM_UP_SECONDS`` before their end, then the
    other runner files longest first."""
    by_suite: dict[str, list[float]] = defaultdict(list)
    for name, spent in seconds.items():
        by_suite[name.split("/")[1]].append(spent)
    known = {name: seconds.get(name, statistics.median(by_suite.get(name.split("/")[1], [1.0]))) for name in files}
    longest = sorted(files, key=lambda name: -known[name])
    runners = [name for name in longest if name.split("/")[1] in RUNNER_SUITES]
    in_process = [name for name in longest if name.split("/")[1] not in RUNNER_SUITES]
    if not runners:
        return longest
    cut, left = len(in_process), 0.0
    while cut > 0 and left < WARM_UP_SECONDS:
        cut -= 1
        left += known[in_process[cut]]
    return in_process[:cut] + runners[:1] + in_process[cut:] + runners[1:]


@pytest.hookimpl(trylast=True)
def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    seconds = json.loads(DURATIONS.read_text()) if DURATIONS.exists() else {}
    files = list(dict.fromkeys(_file(item) for item in items))
    rank = {name: n for n, name in enumerate(planned(files, seconds))}
    items.sort(key=lambda item: rank[_file(item)])  # stable: a file's tests keep their order


def measured(junit: Path) -> dict[str, float]:
    """Each test file's seconds in a JUnit report (pytest's: ``time`` is setup, call and teardown)."""
    spent: dict[str, float] = defaultdict(float)
    for case in ET.parse(junit).iter("testcase"):  # noqa: S314 - the report pytest just wrote here
        module = ".".join(part for part in case.get("classname", "").split(".") if not part[:1].isupper())
        spent[module.replace(".", "/") + ".py"] += float(case.get("time", 0))
    return {name: round(value, 1) for name, value in sorted(spent.items())}


if __name__ == "__main__":
    # A report of some suites only (make unit, ...) updates their files and keeps the others' figures.
    kept = json.loads(DURATIONS.read_text()) if DURATIONS.exists() else {}
    DURATIONS.write_text(json.dumps(dict(sorted((kept | measured(Path(sys.argv[1]))).items())), indent=1) + "\n")
    print(f"wrote {DURATIONS}")
