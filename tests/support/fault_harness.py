"""The fault suite's machinery: one scenario per operation, probed once cleanly, then failed at every call.

A scenario prepares what a case needs outside AWS (``prepare``: environment, clocks; optional), arranges its
state in AWS, acts (the operation under test, with the injector armed) and verifies (the client's answer, then a
recovery as a client or SQS would retry, then the invariants). ``probe`` runs the act once, cleanly, at
collection time in a moto of its own, so the parametrised ids name each position and the call made there
(``07-dynamodb.TransactWriteItems-throughput``).

Every test of a module starts from the template's resources and nothing else (``Arrangements.fresh``), and a
scenario's arrangement is made once per module: its first case arranges through the API, and the moto state and
the arranged value are kept, then put back as they were for each later case (``arranged``). Arranging (users,
workspaces, agents, posts, objects, sessions) was about half of a case's time.
"""

from __future__ import annotations

import copy
import dataclasses
import fcntl
import json
import tempfile
import threading
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Protocol

import pytest

from core.platform import providers as platform_providers
from core.platform import together
from core.platform.secrets import SECRETS, CachedSecret
from tests.conftest import Aws, function_environment
from tests.support.fault_injection import Call, Fault, Injector, Plan, attach_to_core_clients, faults_for
from tests.support.lambdas import HttpResult, StreamedResult, stack
from tests.support.moto_state import Backends, put_back, taken
from tests.support.portal import Portal

ACT_SECONDS = 30  # an operation that has not answered by then is a hang
JSON = "application/json; charset=utf-8"


def environment() -> dict[str, str]:
    """What tests/conftest.py's ``lambda_environment`` sets: dummy AWS and the template's function environment."""
    return function_environment()


@dataclass
class Arrangements:
    """A module's moto as the template's resources left it, and each scenario's arranged state (moto's, and the
    value its ``arrange`` returned), to be put back for the scenario's next case."""

    fresh: Backends
    made: dict[str, Made] = field(default_factory=dict)


@dataclass(frozen=True)
class Made:
    """A scenario's arrangement: moto's state, the value ``arrange`` returned, and the secrets it read (cached in
    the container, so its act reads them no more)."""

    backends: Backends
    value: Any
    secrets: tuple[CachedSecret, ...]


@dataclass
class World:
    """The module's moto, this test's monkeypatch and scratch directory, and the injector on core's clients.
    ``arrangements``: the module's (each test then starts from the template's resources alone); None in ``probe``'s
    moto of its own."""

    aws: Aws
    monkeypatch: pytest.MonkeyPatch
    tmp: Path
    arrangements: Arrangements | None = None
    injector: Injector = field(default_factory=Injector)

    def __post_init__(self) -> None:
        self.monkeypatch.setenv("MAIL_TRANSPORT", "outbox")
        self.monkeypatch.setenv("OUTBOX_DIR", str(self.tmp / "outbox"))
        attach_to_core_clients(self.injector, self.monkeypatch)
        # Reads a request issues together run one after another here, so each AWS call keeps its position.
        self.monkeypatch.setattr(together, "run", together.in_order)
        if self.arrangements is not None:
            put_back(self.arrangements.fresh)
        platform_providers.reset()

    @property
    def portal(self) -> Portal:
        return Portal(self.aws, self.tmp / "outbox")


class Arranged(Protocol):
    """What ``arranged`` needs of a scenario."""

    name: str

    # Optional: ``prepare(world)``, what each case sets outside AWS (environment, patched clocks), before its
    # arrangement is made or put back; ``cold = True``: the act starts with the signing secrets unread.

    def arrange(self, world: World) -> Any:
        """The state the act starts from, made in AWS; the same for every case (so it is made once per module)."""
        ...


class Scenario(Arranged, Protocol):
    def act(self, world: World, state: Any) -> Any: ...

    def verify(self, world: World, state: Any, result: Any, fault: Fault | None) -> None: ...

    def hole(self, calls: list[Call], position: int, fault: Fault) -> str | None:
        """Why the service is expected to misbehave for this case (an xfail reason), or None."""
        ...


@dataclass(frozen=True)
class Case:
    scenario: Scenario
    position: int
    fault: Fault
    expected: tuple[Call, ...]  # the probed calls up to and including ``position``


def open_moto() -> tuple[Any, Aws]:
    """A started ``mock_aws`` with every table, bucket, secret and queue of template.yaml (stop it when done); reads
    answered as the runner's moto and the ``aws`` fixture's answer them (the same documents, without moto's model
    walk)."""
    from moto import mock_aws

    from local.aws.emulator import create_resources, make_dynamodb_reads_fast, make_moto_dynamodb_as_in_the_runner

    make_moto_dynamodb_as_in_the_runner()
    make_dynamodb_reads_fast()
    mock = mock_aws()
    mock.start()
    clients = Aws()
    create_resources(stack(), clients.dynamodb, clients.s3, secrets=clients.secrets, sqs=clients.sqs)
    return mock, clients


_probed: dict[str, list[Call]] = {}


@contextmanager
def lambda_moto() -> Iterator[tuple[pytest.MonkeyPatch, Aws]]:
    """A moto of its own with the functions' environment set, outside any test's fixtures; undone on exit."""
    with pytest.MonkeyPatch.context() as monkeypatch:
        monkeypatch.delenv("AWS_ENDPOINT_URL", raising=False)
        monkeypatch.delenv("AWS_PROFILE", raising=False)
        for name, value in environment().items():
            monkeypatch.setenv(name, value)
        mock, clients = open_moto()
        try:
            yield monkeypatch, clients
        finally:
            mock.stop()
            platform_providers.reset()


# Where xdist's workers share their probes (the faults conftest sets it to a directory of the run's own): each
# worker collects the whole suite, so each probed every scenario, 20 s of CPU a worker; now each scenario is probed
# by one worker and read by the other. None outside xdist.
SHARED_PROBES: list[Path] = []


def probe(scenario: Scenario) -> list[Call]:
    """The calls a clean run of the scenario's act makes (once per run, in a moto of its own)."""
    if scenario.name not in _probed:
        _probe_shared(scenario, wait=True)
    return _probed[scenario.name]


def probe_all(scenarios: list[Scenario]) -> None:
    """Every scenario probed: first those no other worker is probing (a claim it cannot take now is skipped), then
    the rest, once their probes are written; so two workers collecting a module at once share its probes."""
    skipped = [s for s in scenarios if s.name not in _probed and not _probe_shared(s, wait=False)]
    for scenario in skipped:
        probe(scenario)


def _probe_shared(scenario: Scenario, *, wait: bool) -> bool:
    """``scenario`` probed here, or read from the worker that probed it; False when another worker holds it and
    ``wait`` is False."""
    if not SHARED_PROBES:
        _probed[scenario.name] = _probe_here(scenario)
        return True
    kept = SHARED_PROBES[0] / f"{scenario.name}.json"
    with (SHARED_PROBES[0] / f"{scenario.name}.lock").open("w") as lock:
        try:
            fcntl.flock(lock, fcntl.LOCK_EX | (0 if wait else fcntl.LOCK_NB))
        except BlockingIOError:
            return False
        if kept.exists():
            _probed[scenario.name] = [Call(**call) for call in json.loads(kept.read_text())]
        else:
            calls = _probe_here(scenario)
            kept.with_suffix(".tmp").write_text(json.dumps([dataclasses.asdict(call) for call in calls]))
            kept.with_suffix(".tmp").rename(kept)
            _probed[scenario.name] = calls
    return True


def _probe_here(scenario: Scenario) -> list[Call]:
    with lambda_moto() as (monkeypatch, clients), tempfile.TemporaryDirectory() as tmp:
        world = World(clients, monkeypatch, Path(tmp))
        state = arranged(world, scenario)
        with world.injector.armed() as calls:
            scenario.act(world, state)
        return list(calls)


def cases(scenario: Scenario) -> list[Any]:
    """Every (position, fault) of the scenario as pytest params; known holes are strict xfails."""
    calls = probe(scenario)
    params = []
    for position, call in enumerate(calls):
        for fault in faults_for(call, position):
            case = Case(scenario, position, fault, tuple(calls[: position + 1]))
            reason = scenario.hole(calls, position, fault)
            marks = [pytest.mark.xfail(strict=True, reason=f"hole: {reason}")] if reason else []
            params.append(
                pytest.param(case, id=f"{scenario.name}-{position:02d}-{call.label}-{fault.name}", marks=marks)
            )
    return params


def bounded[T](work: Callable[[], T], seconds: float = ACT_SECONDS) -> T:
    """``work()``'s result, or a failure if it has not returned within ``seconds`` (a hang, not a slow test)."""
    outcome: dict[str, Any] = {}

    def run() -> None:
        try:
            outcome["value"] = work()
        except BaseException as exc:  # handed back to the test
            outcome["error"] = exc

    worker = threading.Thread(target=run, name="fault-act", daemon=True)
    worker.start()
    worker.join(seconds)
    assert not worker.is_alive(), f"the operation hung for more than {seconds} s"
    if "error" in outcome:
        raise outcome["error"]
    return outcome["value"]


def arranged(world: World, scenario: Arranged) -> Any:
    """The scenario prepared, and its arrangement: made the first time in the module, put back after."""
    prepare = getattr(scenario, "prepare", None)
    if prepare is not None:
        prepare(world)
    value = _arrangement(world, scenario)
    if getattr(scenario, "cold", False):
        # A container whose signing secrets are not read yet (a cold start, or five minutes on): the act reads them
        # from Secrets Manager, so the injector fails those reads too.
        for secret in SECRETS:
            secret.cache_clear()
    return value


def _arrangement(world: World, scenario: Arranged) -> Any:
    kept = world.arrangements
    if kept is None:
        return scenario.arrange(world)
    made = kept.made.get(scenario.name)
    if made is not None:
        put_back(made.backends)
        for secret in made.secrets:
            secret()  # read as the arrangement read it, before the injector is armed
        return copy.deepcopy(made.value)
    value = scenario.arrange(world)
    kept.made[scenario.name] = Made(taken(), copy.deepcopy(value), tuple(s for s in SECRETS if s.cached))
    return value


def run_case(world: World, case: Case) -> None:
    scenario = case.scenario
    state = arranged(world, scenario)
    with world.injector.armed(Plan(case.position, case.fault)) as calls:
        result = bounded(lambda: scenario.act(world, state))
    assert world.injector.fired, f"no call at position {case.position}: {[c.label for c in calls]}"
    assert tuple(calls[: case.position + 1]) == case.expected, "the calls before the fault differ from the probe"
    scenario.verify(world, state, result, case.fault)


def run_clean(world: World, scenario: Scenario) -> None:
    """The baseline: unfaulted, the operation makes exactly the probed calls and passes its own checks."""
    state = arranged(world, scenario)
    with world.injector.armed() as calls:
        result = bounded(lambda: scenario.act(world, state))
    assert calls == probe(scenario)
    scenario.verify(world, state, result, None)


# --- what a client may be told


def framed_error(result: HttpResult | StreamedResult) -> dict[str, Any]:
    """A 4xx/5xx with a JSON ``{error, code}`` body: never an empty or unframed answer."""
    assert 400 <= result.status < 600, (result.status, result.body)
    assert result.header("Content-Type") == JSON, (result.status, result.headers)
    body = json.loads(result.body)
    assert set(body) == {"error", "code"}, body
    assert isinstance(body["error"], str) and body["error"] and body["code"].isupper(), body
    return body


def answered(result: HttpResult, ok: int = 200) -> bool:
    """True for the success status; otherwise asserts a framed error and returns False."""
    if result.status == ok:
        return True
    framed_error(result)
    return False
