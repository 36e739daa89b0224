"""The order in which the workers take the test files: the longest first, as last measured.

``--dist loadfile`` hands a worker a whole file each time it runs low; by default xdist queues files by their number
of tests, so files of one long test (a fuzz run, the newcomer journey, each load test) came last, and the run ended
with one worker busy for a minute while the other had nothing left. Longest first leaves short files to fill the
end. One exception at the start: the first file to need a runner waits for the published demo it is copied from
(``stack/demo_template.py``, a minute on one core the first time), so the longest runner file goes first and the
in-process files that follow keep the other worker busy meanwhile.

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
WARM_UP_SECONDS = 90  # in-process work queued behind the first runner file: about the demo template's first build


def _file(item: pytest.Item) -> str:
    return item.nodeid.split("::", 1)[0]


def planned(files: list[str], seconds: dict[str, float]) -> list[str]:
    """``files`` longest first, but the longest runner file first of all and in-process files right after it."""
    by_suite: dict[str, list[float]] = defaultdict(list)
    for name, spent in seconds.items():
        by_suite[name.split("/")[1]].append(spent)
    known = {name: seconds.get(name, statistics.median(by_suite.get(name.split("/")[1], [1.0]))) for name in files}
    longest = sorted(files, key=lambda name: -known[name])
    runners = [name for name in longest if name.split("/")[1] in RUNNER_SUITES]
    if not runners:
        return longest
    order, queued = [runners[0]], 0.0
    for name in longest:
        if queued >= WARM_UP_SECONDS:
            break
        if name.split("/")[1] not in RUNNER_SUITES:
            order.append(name)
            queued += known[name]
    return order + [name for name in longest if name not in set(order)]


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
