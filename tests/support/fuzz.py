"""Run schemathesis (its CLI, as a user would) against a running local runner and read its JSON report.

Each run is bounded: ``FUZZ_MAX_EXAMPLES`` cases per operation and phase, ``FUZZ_MAX_TIME`` seconds
in all. In ``make test`` the phases are the two that end by themselves (``examples``, ``coverage``: every
operation, a fixed set of cases, about 2,500 for the signed-in portal), and the time bound only stops a stuck run:
with hypothesis's ``fuzzing`` phase inside a 60 s bound, how many operations a run reached depended on how busy the
machine was (41 of 48 on a loaded one, a failure that was not the service's). ``make fuzz`` adds ``fuzzing`` and
``stateful`` and raises both bounds. The seed is fixed unless ``FUZZ_SEED`` is set, so a failure found in CI is
found again by the same command.

``make test`` runs a short stateful phase too (``FUZZ_STATEFUL_EXAMPLES`` scenarios of at most six linked requests,
and no time bound: schemathesis repeats a stateful phase until a time bound is spent, so under one a run's length,
and what it reached, would be the machine's load; without one it runs its scenarios once). ``make fuzz`` runs it
long, under ``FUZZ_MAX_TIME``.

``FUZZ_PHASES`` picks the phases. The stateless ones (examples, coverage, fuzzing) run with every path parameter
fixed to a resource that exists (``fuzzing_ground``), so cases reach the handlers' logic instead of a 404; the
stateful one (``make fuzz`` only) runs on its own, with hardly anything fixed: its requests take their ids from the
answers before them, along the documents' OpenAPI links (``stack/openapi/links.py``), which a fixed value would
override. Every call's phase, operation and status is kept (``FuzzRun.calls``, from ``fuzz_hooks``).
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from stack.template import ROOT
from tests.support.load import upload_object
from tests.support.runner import LocalService, portal
from tests.support.s3_post import JPEG

MAX_EXAMPLES = int(os.environ.get("FUZZ_MAX_EXAMPLES", "12"))
MAX_TIME = int(os.environ.get("FUZZ_MAX_TIME", "600"))  # a stuck run's end, not a budget (the phases end)
SEED = os.environ.get("FUZZ_SEED", "20261123")
PHASES = os.environ.get("FUZZ_PHASES", "examples,coverage")
STATELESS = ",".join(p for p in PHASES.split(",") if p and p != "stateful")
STATEFUL = "stateful" in PHASES.split(",")  # the long stateful run (make fuzz); else the short one
STATEFUL_EXAMPLES = int(os.environ.get("FUZZ_STATEFUL_EXAMPLES", "20"))  # make test's: scenarios, run once
# Every check schemathesis has, less the two that need a chain of requests (the stateful run has them:
# ``STATEFUL_EXCLUDED_CHECKS``): a stateless case's ids are fixed, so a DELETE's next case finds nothing.
#
# positive_data_acceptance ("a schema-valid request is accepted") is left out of the short run: some
# refusals are business state or rules JSON Schema cannot state (402 at a plan's workspace limit, lone
# UTF-16 surrogates in a JSON string, r2's key grammar), and the check would have the documents claim
# less than the service checks. ``make fuzz`` runs it, to read, not to gate.
EXCLUDED_CHECKS = os.environ.get(
    "FUZZ_EXCLUDED_CHECKS", "use_after_free,ensure_resource_availability,positive_data_acceptance"
)
# Along the links: a resource just created is there (ensure_resource_availability), one just deleted is not
# (use_after_free).
STATEFUL_EXCLUDED_CHECKS = os.environ.get("FUZZ_STATEFUL_EXCLUDED_CHECKS", "positive_data_acceptance")
# A request the schema forbids must be refused: schemathesis's list of refusals, and API Gateway's own (a body, a URL,
# a head over its quotas: 413, 414, 431), which every operation documents. A query string of 2,048 non-ASCII
# characters is a refusal all the same when it is 414 rather than 400.
REFUSALS = """
[checks.negative_data_rejection]
expected-statuses = ["400", "401", "403", "404", "405", "406", "409", "413", "414", "415", "422", "428", "429", "431",
                     "5xx"]
"""
# Operations that accept no valid request by design, so "a schema-valid request is accepted" cannot
# hold: bare ``/v1/r2`` (no object key) exists only to answer 400 INVALID_PATH, as documented.
NO_VALID_REQUEST = """
[[operations]]
include-path = "/v1/r2"
checks.positive_data_acceptance.enabled = false
"""


@dataclass(frozen=True)
class FuzzRun:
    label: str
    exit_code: int
    report: dict[str, Any]
    output: str
    calls: list[dict[str, Any]]  # every call's phase, operation and status (fuzz_hooks.after_call)

    @property
    def operations(self) -> int:
        return int(self.report["operations"]["tested"])

    @property
    def cases(self) -> int:
        return int(self.report["test_cases"]["generated"])

    @property
    def failures(self) -> list[dict[str, Any]]:
        return list(self.report["failures"]) + list(self.report["errors"])

    def succeeded(self, phase: str) -> set[str]:
        """The operations that answered a 2xx in ``phase``."""
        return {c["operation"] for c in self.calls if c["phase"] == phase and 200 <= c["status"] < 300}

    def summary(self) -> str:
        return f"{self.label}: {self.operations} operations, {self.cases} cases, {len(self.failures)} failures"


def fuzz(
    label: str,
    base_url: str,
    report_dir: Path,
    *,
    headers: dict[str, str] | None = None,
    parameters: dict[str, str] | None = None,
    exclude_operations: tuple[str, ...] = (),
    max_time: int | None = MAX_TIME,
    max_examples: int = MAX_EXAMPLES,
    operation_parameters: dict[str, dict[str, str]] | None = None,
    phases: str = STATELESS,
    excluded_checks: str = EXCLUDED_CHECKS,
    infer_links: bool = True,
    include_path_regex: str | None = None,
) -> FuzzRun:
    """One ``st run`` against ``base_url``'s own ``/openapi.json``; its JSON report and console output.

    ``parameters`` are fixed for every operation; ``operation_parameters`` (by operation, ``"DELETE /path"``) for
    one operation, over them. Without ``infer_links`` the stateful phase follows the document's links only, not
    the ones schemathesis guesses besides. ``max_time`` None: no time bound, the phases run their cases once.
    """
    report_dir.mkdir(parents=True, exist_ok=True)
    config = report_dir / f"{label}.toml"
    per_operation = "".join(
        f"\n[[operations]]\ninclude-name = {json.dumps(name)}\n[operations.parameters]\n{_values(values)}"
        for name, values in (operation_parameters or {}).items()
    )
    inference = "" if infer_links else "\n[phases.stateful.inference]\nalgorithms = []\n"
    values = _values(parameters or {})
    config.write_text(f"[parameters]\n{values}{REFUSALS}{NO_VALID_REQUEST}{per_operation}{inference}")
    report = report_dir / f"{label}.json"
    st = Path(sys.executable).with_name("st")
    command = [
        str(st), "--config-file", str(config), "run", f"{base_url}/openapi.json",
        "--checks", "all", "--exclude-checks", excluded_checks, "--phases", phases,
        "--max-examples", str(max_examples), *(["--max-time", str(max_time)] if max_time else []), "--seed", SEED,
        "--workers", "2", "--request-timeout", "30", "--warnings", "off", "--no-color",
        "--report", "json", "--report-json-path", str(report), "--output-truncate", "true",
    ]  # fmt: skip
    for name, value in (headers or {}).items():
        command += ["--header", f"{name}: {value}"]
    for operation in exclude_operations:
        command += ["--exclude-name", operation]
    if include_path_regex:
        command += ["--include-path-regex", include_path_regex]
    calls = report_dir / f"{label}.calls.jsonl"
    calls.unlink(missing_ok=True)
    env = os.environ | {"SCHEMATHESIS_HOOKS": "tests.support.fuzz_hooks", "PYTHONPATH": str(ROOT),
                        "FUZZ_CALL_LOG": str(calls)}  # fmt: skip
    limit = (max_time or MAX_TIME) * 4 + 120  # a hung run fails the test instead of CI
    done = subprocess.run(command, check=False, cwd=ROOT, env=env, capture_output=True, text=True, timeout=limit)
    output = done.stdout + done.stderr
    (report_dir / f"{label}.log").write_text(output)  # the console's account (the stateful phase's links, too)
    if not report.exists():
        raise AssertionError(f"schemathesis wrote no report ({done.returncode}):\n{output[-4000:]}")
    made = [json.loads(line) for line in calls.read_text().splitlines()] if calls.exists() else []
    return FuzzRun(label, done.returncode, json.loads(report.read_text()), output, made)


def _values(values: dict[str, str]) -> str:
    return "".join(f"{json.dumps(k)} = {json.dumps(v)}\n" for k, v in values.items())


@dataclass(frozen=True)
class Ground:
    """What a workspace holds for the fuzzer: path parameters naming live resources, and, for each DELETE, another
    resource of the kind (a DELETE's first case deletes it: the other operations keep theirs)."""

    parameters: dict[str, str]
    deletions: dict[str, dict[str, str]]
    agent: str
    media: str  # an object of the agent's folder, as a post names it (agent-relative)
    object: str  # the same object, as an item and /objects name it (workspace-relative)


def fuzzing_ground(service: LocalService, jwt: str, workspace_id: str) -> Ground:
    """An agent, a post, an item, a brand, a workflow and an object in ``workspace_id`` (twice: the second of each
    for its DELETE), through the portal's API."""
    base = f"/api/workspaces/{workspace_id}"

    def made(path: str, body: dict[str, Any], kind: str) -> str:
        created = portal(service, "POST", base + path, jwt, body)
        assert created.status == 201, (path, created.body)
        return str(created.json()[kind]["id"])

    agent, spare_agent = (made("/agents", {"name": name}, "agent") for name in ("Fuzzed agent", "Fuzzed spare"))
    media = [f"media/fuzzed-{n}.jpg" for n in range(2)]  # agent-relative, as a post names its media
    objects = [f"projects/{agent}/{key}" for key in media]  # workspace-relative, as an item and /objects do
    for path in objects:
        upload_object(service, jwt, workspace_id, path, JPEG)
    post = {"key": media[0], "kind": "image", "channels": ["web"], "category": "fuzz"}
    posts = [made(f"/agents/{agent}/posts", post | {"publish": n == 0}, "post") for n in range(2)]
    item = {"kind": "image", "r2Key": objects[0]}
    items = [made(f"/agents/{agent}/items", item | {"name": f"Item {n}"}, "item") for n in range(2)]
    brands = [made("/brands", {"name": f"Fuzzed brand {n}"}, "brand") for n in range(2)]
    workflows = [made("/workflows", {"name": f"Fuzzed workflow {n}"}, "workflow") for n in range(2)]
    parameters = {"path.workspaceId": workspace_id, "path.agentId": agent, "path.postId": posts[0],
                  "path.itemId": items[0], "path.brandId": brands[0], "path.workflowId": workflows[0],
                  "path.path": objects[0]}  # fmt: skip
    workspace = "DELETE /api/workspaces/{workspaceId}"
    deletions = {
        f"{workspace}/agents/{{agentId}}": {"path.agentId": spare_agent},
        f"{workspace}/agents/{{agentId}}/posts/{{postId}}": {"path.postId": posts[1]},
        f"{workspace}/agents/{{agentId}}/items/{{itemId}}": {"path.itemId": items[1]},
        f"{workspace}/brands/{{brandId}}": {"path.brandId": brands[1]},
        f"{workspace}/workflows/{{workflowId}}": {"path.workflowId": workflows[1]},
        f"{workspace}/objects/{{path}}": {"path.path": objects[1]},
    }
    return Ground(parameters, deletions, agent, media[0], objects[0])
