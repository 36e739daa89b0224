"""Shared fixtures: a fake AWS environment, moto with the template's resources, and handler invocation.

Credentials are dummies and ``AWS_MAX_ATTEMPTS=1``, so a call that moto does not
intercept fails fast instead of reaching (or retrying against) real AWS.
"""

from __future__ import annotations

import functools
import gc
import os
from collections.abc import Iterator
from typing import Any

import botocore.loaders
import botocore.session
import pytest

from core.platform import providers as platform_providers
from tests.support.lambdas import stack
from tests.support.moto_state import with_template_resources

# Every log line the run writes is scanned for secrets; the run fails if one holds any (tests/support/log_scan.py).
# Every AWS call a handler makes is judged against its own IAM policy; the test fails on a denied one
# (tests/support/iam_plugin.py).
pytest_plugins = ["tests.support.log_scan", "tests.support.iam_plugin"]

# One botocore Loader per test process. Each Session makes its own, and the Loader caches the service models it parsed
# per instance: moto's mock_aws starts every test on a new default session, and the functions' clients are made
# anew after platform_providers.reset(), so every test parsed the same ~20 JSON models again (0.16 s of a 0.24 s moto
# set-up).
# The models are the same files: parsed once, shared, as they are between the clients of one session.
botocore.session.create_loader = botocore.loaders.create_loader = functools.cache(botocore.loaders.create_loader)


def pytest_collection_finish(session: pytest.Session) -> None:
    """What collection built (thousands of items, the modules, botocore's models) is moved out of the collector's
    sight, and it runs less often: moto's items and their copies make large heaps, and each full collection walked
    all of it. In tests/integration/brain the collector took 13 s of CPU plainly, 4.4 s with this
    (``gc.callbacks`` timing every collection; docs/decisions.md, "the collector in test processes")."""
    gc.collect()
    gc.freeze()
    gc.set_threshold(50_000, 10, 10)


# Runners the suites start on an empty state begin from a copy of a demo published once through the API
# (stack/demo_template.py), not from a publish of their own: a minute of CPU each, on two cores.
os.environ.setdefault("LOCAL_DEMO_TEMPLATE", "1")

FAKE_AWS = {
    "AWS_ACCESS_KEY_ID": "testing",
    "AWS_SECRET_ACCESS_KEY": "testing",
    "AWS_SESSION_TOKEN": "testing",
    "AWS_DEFAULT_REGION": "us-east-1",
    "AWS_REGION": "us-east-1",
    "AWS_MAX_ATTEMPTS": "1",
    "AWS_CONFIG_FILE": "/dev/null",
    "AWS_SHARED_CREDENTIALS_FILE": "/dev/null",
}


def function_environment() -> dict[str, str]:
    """Dummy AWS and the environment template.yaml gives the functions (local resource names). A purge finishes
    in its pass here: the settle window after a deletion has tests of its own (test_purge_settle.py)."""
    return FAKE_AWS | stack().functions()["BrainFeedFunction"].environment | {"PURGE_SETTLE_SECONDS": "0"}


@pytest.fixture(autouse=True)
def lambda_environment(monkeypatch: pytest.MonkeyPatch) -> Iterator[None]:
    """Every test runs with the environment template.yaml gives the functions (local resource names)."""
    monkeypatch.delenv("AWS_ENDPOINT_URL", raising=False)
    monkeypatch.delenv("AWS_PROFILE", raising=False)
    env = function_environment()
    for name, value in env.items():
        monkeypatch.setenv(name, value)
    platform_providers.reset()
    yield
    platform_providers.reset()


@pytest.fixture
def as_function(monkeypatch: pytest.MonkeyPatch):
    """Give the process the environment template.yaml gives one function (e.g. API_PLANE=portal)."""

    def apply(logical_id: str) -> None:
        for name, value in stack().functions()[logical_id].environment.items():
            monkeypatch.setenv(name, value)
        platform_providers.reset()

    return apply


class Aws:
    """Clients of the services template.yaml uses, each made on first use (most tests use one or two, and a client
    costs a few milliseconds); from ``session``, or boto3's default session."""

    def __init__(self, session: Any = None) -> None:
        self._session = session

    def _client(self, service: str) -> Any:
        import boto3

        return (self._session or boto3).client(service)

    @functools.cached_property
    def dynamodb(self) -> Any:
        return self._client("dynamodb")

    @functools.cached_property
    def s3(self) -> Any:
        return self._client("s3")

    @functools.cached_property
    def secrets(self) -> Any:
        return self._client("secretsmanager")

    @functools.cached_property
    def sqs(self) -> Any:
        return self._client("sqs")


_KEPT_SESSION: list[Any] = []  # the default boto3 session this process made inside a mock, kept between tests


def _default_session_made_after_moto() -> None:
    """boto3's default session, made here once moto is imported (and again if something replaced it).

    moto answers through a handler it adds to botocore's built-in handlers when it is imported, and a session copies
    those when it is made: a default session some earlier code made before moto's import (an attack test's client
    of a runner's moto server, say) sends its calls to AWS itself. Kept between tests, one such session failed every
    later test of its process at set-up (name resolution of dynamodb.us-east-1.amazonaws.com), by test order alone."""
    import boto3

    if not _KEPT_SESSION or boto3.DEFAULT_SESSION is not _KEPT_SESSION[0]:
        boto3.setup_default_session()
        _KEPT_SESSION[:] = [boto3.DEFAULT_SESSION]


@pytest.fixture
def aws() -> Iterator[Aws]:
    """moto, with every table and bucket of template.yaml created in it (DynamoDB as the runner has it: atomic requests,
    item-level transaction rollback, reads answered with json.dumps). Created once per test process, then restored
    from a copy for each test (tests/support/moto_state.py)."""
    from moto import mock_aws

    from local.aws.emulator import create_resources, make_dynamodb_reads_fast, make_moto_dynamodb_as_in_the_runner

    make_moto_dynamodb_as_in_the_runner()
    make_dynamodb_reads_fast()  # as the runner's moto answers reads: the same documents, without the model walk
    # boto3's default session kept from one test to the next (moto would start each test on a new one): a session
    # builds each service's client class and endpoint rules once (cProfile of tests/integration/portal put 44 of its
    # 296 profiled seconds in making clients; unprofiled, tests/integration/brain's CPU changed within noise).
    with mock_aws(config={"core": {"reset_boto3_session": False}}):
        _default_session_made_after_moto()
        clients = Aws()
        with_template_resources(
            lambda: create_resources(stack(), clients.dynamodb, clients.s3, secrets=clients.secrets, sqs=clients.sqs)
        )
        platform_providers.reset()
        yield clients
