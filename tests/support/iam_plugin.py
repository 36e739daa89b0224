"""The pytest side of ``iam_check``: every test's function calls judged, a denied one failing the test, and the
grants the run needed written out for ``docs/security.md`` (``python -m tests.support.iam_report``).

Each process of a run (xdist's workers) writes the grants it saw used, with the first test that needed each, to
``.local/iam/used/<worker>.json`` when it ends; the controller empties that directory when the run begins, so
the files are one run's. A grant used only by a runner's worker is named by the test whose runner it was.
"""

from __future__ import annotations

import dataclasses
import json
import os
import shutil
from collections.abc import Iterator
from functools import cache
from pathlib import Path

import pytest

from stack.template import ACCOUNT_ID, ROOT, TEMPLATE
from tests.support.iam_check import Grant, PolicyCheck, dump_policies, install
from tests.support.iam_eval import Statement
from tests.support.iam_policies import REGION, emulated_resources, function_policies, partition_keys

USED = Path(os.environ.get("IAM_CHECK_USED") or ROOT / ".local" / "iam" / "used")  # a nested run: its own
SITE = ROOT / "tests" / "support" / "iam_site"  # a sitecustomize that installs the check in a runner's workers


@cache
def check() -> PolicyCheck:
    """The process's check: every function's statements, resolved to the names tests and runners give resources.

    ``IAM_CHECK_REMOVE="BrainR2Function=s3:GetObject ..."`` takes those actions out of those functions' policies,
    as an edit of template.yaml would: how tests/unit/infra/test_iam_check.py shows that the suite then fails.
    """
    policies = function_policies(TEMPLATE, emulated_resources())
    for removal in os.environ.get("IAM_CHECK_REMOVE", "").split():
        function, action = removal.split("=", 1)
        policies[function] = [without(s, action) for s in policies[function]]
    found = PolicyCheck(policies, REGION, ACCOUNT_ID, partition_keys=partition_keys(TEMPLATE, emulated_resources()))
    install(found)
    return found


def without(statement: Statement, action: str) -> Statement:
    kept = tuple(a for a in statement.actions if a.lower() != action.lower())
    if statement.effect != "Allow" or statement.not_action or kept == statement.actions:
        return statement
    return dataclasses.replace(statement, actions=kept or ("none:Removed",))


def pytest_configure(config: pytest.Config) -> None:
    if not hasattr(config, "workerinput"):  # the controller (or a run without xdist): a new run's record
        shutil.rmtree(USED, ignore_errors=True)


@pytest.fixture(autouse=True)
def calls_within_each_functions_policy(request: pytest.FixtureRequest) -> Iterator[None]:
    """A handler's call its own policy does not allow fails the test, even when the handler hid AWS's error."""
    judged = check()
    judged.taken_violations()  # a module fixture's calls before this test were judged when that fixture's test ran
    judged.test = request.node.nodeid
    yield
    denied = judged.taken_violations()
    if denied:
        pytest.fail("calls outside the calling function's IAM policy (template.yaml):\n" + "\n".join(denied[:20]))


def pytest_sessionfinish(session: pytest.Session) -> None:
    if not check.cache_info().currsize:
        return
    worker = getattr(session.config, "workerinput", {}).get("workerid", "main")
    USED.mkdir(parents=True, exist_ok=True)
    used = [[*grant, test] for grant, test in sorted(check().used.items())]
    (USED / f"{worker}.{os.getpid()}.json").write_text(json.dumps(used))


def runner_environment(directory: Path) -> dict[str, str]:
    """What a runner's functions need to judge their own calls: the policies, and where to write what they saw."""
    directory.mkdir(parents=True, exist_ok=True)
    (directory / "policies.json").write_text(dump_policies(check().policies))
    (directory / "partition_keys.json").write_text(json.dumps(check().partition_keys))
    return {"IAM_CHECK_DIR": str(directory), "IAM_CHECK_ACCOUNT": ACCOUNT_ID, "PYTHONPATH": str(SITE)}


def collect_runner(directory: Path, starter: str) -> list[str]:
    """The denials a runner's workers wrote; the run's ``used`` takes their grants, named by the test that started
    the runner (the calls were made by the tests that shared it)."""
    judged, denied = check(), []
    for report in sorted(directory.glob("*.jsonl")):
        for line in report.read_text().splitlines():
            entry = json.loads(line)
            if "denied" in entry:
                denied.append(entry["denied"])
            else:
                judged.used.setdefault(tuple(entry["grant"]), f"{starter} (and the tests sharing its runner)")
        report.unlink()
    return denied


def whole_run_used(directory: Path = USED) -> dict[Grant, str]:
    """Every grant a run used, with a test that used it, from all its processes' files."""
    merged: dict[Grant, str] = {}
    for path in sorted(directory.glob("*.json")):
        for function, action, resource, test in json.loads(path.read_text()):
            merged.setdefault((function, action, resource), test)
    return merged
