"""The cold path loads what a function serves, and nothing else (docs/decisions.md, "Cold path").

Each check imports in a fresh interpreter, as a Lambda cold start does, and asserts which modules got
loaded: no timings here (bench/cold_path.py measures them as ratios).
"""

from __future__ import annotations

import functools
import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from tests.support.lambdas import stack

ROOT = Path(__file__).resolve().parents[2]
LAYER = ROOT / "layers" / "common"
# Powertools' resolvers and event classes: our own REST resolver (core.platform.rest.router) stands for them.
POWERTOOLS_RESOLVERS = ("aws_lambda_powertools.event_handler", "aws_lambda_powertools.utilities.data_classes")


@functools.cache  # several tests ask the same probe of one function (its first request): one interpreter each
def _modules_after(
    code: str, *, function: str | None = None, init: str | None = None, deployed: bool = False
) -> frozenset[str]:
    """The modules a fresh interpreter holds after running ``code`` (with a function's code and environment;
    ``deployed``: with its Lambda extensions' variables too, as in AWS, where the secrets extension answers)."""
    path = [str(LAYER)]
    env = {k: v for k, v in os.environ.items() if not k.startswith("AWS_")} | {"AWS_DEFAULT_REGION": "us-east-1"}
    if function:
        spec = stack().functions()[function]
        path.insert(0, str(spec.code_uri))
        env |= spec.environment | (spec.extension_environment if deployed else {})
    if init:
        env["AWS_LAMBDA_INITIALIZATION_TYPE"] = init
    probe = f"import json, sys\nsys.path[:0] = {path!r}\n{code}\nprint(json.dumps(sorted(sys.modules)))"
    out = subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True, env=env, check=False)
    if out.returncode:
        pytest.fail(f"the probe failed:\n{out.stderr}")
    return frozenset(json.loads(out.stdout.splitlines()[-1]))


def test_the_http_factory_imports_no_powertools_resolver() -> None:
    loaded = _modules_after("import core.http")
    assert "core.platform.rest.router" in loaded
    assert sorted(m for m in loaded if m.startswith(POWERTOOLS_RESOLVERS) or m == "asyncio") == []


@pytest.mark.parametrize(
    "function", ["PortalWorkspaceGetFunction", "PortalKeysMintFunction", "BrainFeedFunction", "BrainChatFunction",
                 "BrainR2Function", "PortalFallbackFunction"],
)  # fmt: skip
def test_an_api_functions_first_request_loads_no_powertools_resolver_or_event_class(function: str) -> None:
    # The handler, its plane's credential check and the services its first request builds (_first_request).
    loaded = _modules_after(_first_request(function), function=function)
    assert "core.platform.rest.router" in loaded
    assert sorted(m for m in loaded if m.startswith(POWERTOOLS_RESOLVERS)) == []


def test_importing_the_providers_builds_and_imports_no_service() -> None:
    providers = sorted(p.parent.name for p in (LAYER / "core").glob("*/providers.py"))
    loaded = _modules_after("".join(f"import core.{p}.providers\n" for p in providers))
    assert len(providers) == 20  # webhooks and events (issue 42)
    assert sorted(m for m in loaded if m.startswith("core.") and m.split(".")[1] != "platform"
                  and m.split(".")[-1] != "providers" and m.count(".") > 1) == []  # fmt: skip


def test_storage_records_do_not_load_the_management_models() -> None:
    loaded = _modules_after("import core.platform.records, core.credits.records")
    assert "core.platform.envelopes" not in loaded


# The management plane's modules (sign-in, workspaces, keys, credits) and the writer's: the read plane loads none.
MANAGEMENT = (
    "core.platform.envelopes", "core.credits.reader", "core.workspaces.workspace", "core.workspaces.store",
    "core.workspaces.create", "core.workspaces.access", "core.identity", "core.keys.admin", "core.platform.idempotency",
    "core.audit", "core.purge",
)  # fmt: skip
# A writer's modules: in each resource package, what only the writer needs (docs/architecture.md).
WRITER_PARTS = ("writer", "write_store", "writer_models", "uploads", "upload_store", "pages")


def writer_modules(loaded: frozenset[str]) -> set[str]:
    # core.platform is what every resource shares, no resource's writer (its ``pages`` reads any listing's page).
    return {
        m for m in loaded
        if m.startswith("core.") and not m.startswith("core.platform.") and m.rsplit(".", 1)[-1] in WRITER_PARTS
    }  # fmt: skip


def resources_of(modules: set[str]) -> set[str]:
    return {m.split(".")[1] for m in modules}


READ_PLANE = sorted(
    name for name, spec in stack().functions().items()
    if spec.environment.get("API_PLANE") != "portal" and name.startswith("Brain")
)  # fmt: skip


def _first_request(function: str) -> str:
    """A probe that imports the handler and builds every provider its first request builds (bench/cold_path.py)."""
    from bench import cold_path  # a script, importable as a module of ``bench`` as the other benches are

    spec = stack().functions()[function]
    source = (spec.code_uri / "handler.py").read_text()
    calls = "".join(f"getattr(importlib.import_module({p!r}), {n!r})()\n" for p, _, n in
                    (a.partition(":") for a in cold_path.accessors_of(source)))  # fmt: skip
    return "import importlib, handler\n" + calls


@pytest.mark.parametrize("function", READ_PLANE)
def test_a_read_plane_function_never_loads_the_management_or_the_writers_modules(function: str) -> None:
    loaded = _modules_after(_first_request(function), function=function)
    assert "core.keys.check" in loaded or function == "BrainFallbackFunction"  # the probe reached the check
    assert not sorted(m for m in loaded if m.startswith(MANAGEMENT) or m in writer_modules(loaded))


def test_the_read_planes_functions_are_all_probed() -> None:
    assert len(READ_PLANE) == 12 and "BrainChatFunction" in READ_PLANE and "BrainR2Function" in READ_PLANE


@pytest.mark.parametrize("function", ["PortalWorkspaceGetFunction", "PortalPostCreateFunction"])
def test_a_portal_function_never_loads_the_read_planes_key_check(function: str) -> None:
    loaded = _modules_after(_first_request(function), function=function)
    assert "core.identity.sessions" in loaded
    assert loaded.isdisjoint({"core.keys.check", "core.objects.service", "core.objects.store"})


@pytest.mark.parametrize(
    "function", ["PortalWorkspaceGetFunction", "PortalPostCreateFunction", "PortalKeysMintFunction"]
)
def test_a_portal_function_that_does_not_sign_in_loads_the_session_check_not_sign_in(function: str) -> None:
    loaded = _modules_after(_first_request(function), function=function)
    assert "core.identity.sessions" in loaded
    sign_in = {"core.identity.sign_in", "core.identity.mail", "core.identity.mail_limits", "core.identity.oidc"}
    assert sorted(loaded & sign_in) == []


def test_a_portal_function_outside_the_writer_never_loads_the_writer() -> None:
    loaded = _modules_after(_first_request("PortalWorkspaceGetFunction"), function="PortalWorkspaceGetFunction")
    assert sorted(writer_modules(loaded)) == []


PORTAL = sorted(
    name for name, spec in stack().functions().items()
    if name.startswith("Portal") and name != "PortalFallbackFunction"
)  # fmt: skip
# The resources whose writer a portal function's own writer builds on: the objects a post or an item names; the
# agent's behaviour, which an owner's preview (chat) overrides with the agent PATCH's own model and checks.
WRITER_USES = {"posts": {"objects"}, "items": {"objects"}, "chat": {"agents"}}


def _resource_of(function: str) -> str | None:
    """The resource package whose providers the function's handler imports for its own work (None: not a writer)."""
    import re

    source = (stack().functions()[function].code_uri / "handler.py").read_text()
    packages = set(re.findall(r"^from core\.(\w+) import providers", source, re.M))
    return packages.pop() if len(packages) == 1 else None


@pytest.mark.parametrize("function", PORTAL)
def test_a_portal_function_loads_no_other_resources_writer(function: str) -> None:
    loaded = _modules_after(_first_request(function), function=function)
    own = _resource_of(function)
    allowed = {own, *WRITER_USES.get(own or "", ())}
    assert sorted(resources_of(writer_modules(loaded)) - allowed) == []


def test_the_portals_functions_are_all_probed() -> None:
    assert len(PORTAL) > 40 and "PortalPostPublishFunction" in PORTAL


@pytest.mark.parametrize(
    ("function", "init", "clients", "deployed"),
    [
        ("BrainWhoAmIFunction", "on-demand", ["dynamodb"], True),
        # Deployed, the session check's secret comes from the secrets extension: no Secrets Manager client.
        ("PortalWorkspaceGetFunction", "on-demand", ["dynamodb"], True),
        ("PortalWorkspaceGetFunction", "on-demand", ["dynamodb", "secretsmanager"], False),  # no extension: boto3
        ("PortalMagicLinkFunction", "provisioned-concurrency", ["dynamodb"], True),  # signs in: no session to check
        ("BrainFallbackFunction", "on-demand", [], True),  # answers 404/405 without AWS
        ("BrainWhoAmIFunction", None, [], False),  # tests and the local runner: clients stay lazy
    ],
)
def test_a_lambda_init_creates_the_clients_every_request_needs(
    function: str, init: str | None, clients: list, deployed: bool
) -> None:
    # After the import, asking for exactly the expected clients must hit the cache every time and miss never.
    code = f"""
import handler
from core.platform import aws
created = aws.client.cache_info().currsize
booted = "boto3" in sys.modules
for service in {clients!r}:
    aws.client(service)
info = aws.client.cache_info()
assert (created, booted, info.hits, info.misses) == ({len(clients)}, {bool(clients)}, {len(clients)}, {len(clients)}), (
    created, booted, info)
"""
    _modules_after(code, function=function, init=init, deployed=deployed)


@pytest.mark.parametrize(
    ("function", "clients"),
    [
        # The chat may read an OpenAI-compatible model's key (ChatModelSecretsPolicy): the bench builds that client
        # too, the cold path of a deployment whose default model is such a server (the pessimistic one).
        ("BrainChatFunction", ("dynamodb", "s3", "secretsmanager", "bedrock-runtime")),
        ("BrainR2Function", ("dynamodb", "s3", "secretsmanager")),
        ("PortalWorkspaceDeleteFunction", ("dynamodb", "secretsmanager", "sqs")),
        ("PortalFallbackFunction", ()),
    ],
)
def test_the_bench_gives_each_function_the_clients_its_policies_allow(function: str, clients: tuple) -> None:
    from bench import cold_path  # a script, importable as a module of ``bench`` as the other benches are

    assert cold_path.clients_of(stack(), stack().resources[function]) == clients


def test_the_bench_builds_the_services_a_first_request_builds() -> None:
    from bench import cold_path  # a script, importable as a module of ``bench`` as the other benches are

    functions = ROOT / "functions"
    assert cold_path.accessors_of((functions / "brain/feed/handler.py").read_text()) == (
        "core.agents.providers:reader",
        "core.keys.providers:checker",
    )
    assert cold_path.accessors_of((functions / "portal/keys_mint/handler.py").read_text()) == (
        "core.keys.providers:admin",
        "core.identity.providers:sessions",
    )
    assert cold_path.accessors_of((functions / "portal/auth_magic_link/handler.py").read_text()) == (
        "core.identity.providers:sign_in",
    )


@pytest.mark.parametrize("function", ["PortalItemsListFunction", "PortalPostsListFunction", "PortalPostDeleteFunction"])
def test_a_function_whose_policies_allow_no_s3_builds_no_s3_client(function: str) -> None:
    # The writer's object store is shared with the writes that check objects; a list or a deletion never calls S3, and
    # its role may not: its first request makes the DynamoDB client only (core.platform.aws.LazyClient).
    from bench import cold_path  # a script, importable as a module of ``bench`` as the other benches are

    assert "s3" not in cold_path.clients_of(stack(), stack().resources[function])
    code = _first_request(function) + "from core.platform import aws\nassert aws.client.cache_info().currsize == 1\n"
    _modules_after(code, function=function)


def test_the_bench_holds_the_functions_to_issue_43s_targets_as_ratios() -> None:
    from bench import cold_path  # a script, importable as a module of ``bench`` as the other benches are

    # Every function at most 0.8x FastAPI + Mangum, the median at most 1.45x the floor (pydantic alone is ~0.35x).
    assert (cold_path.TARGET_MEDIAN, cold_path.TARGET_WORST_VS_MONOLITH) == (1.45, 0.8)
    rows = [("A", "dynamodb", 300.0, 1.44, 0.72), ("B", "dynamodb", 300.0, 1.58, 0.79)]
    table = cold_path.report(rows, 190.0, 380.0, 2.0, 1)
    x = cold_path.TIMES
    assert f"| median function / floor | 1.51{x} | \u2264 1.45{x} | no |" in table
    assert f"| worst function / FastAPI + Mangum | 0.79{x} | \u2264 0.8{x} | yes |" in table


def test_the_bench_takes_a_deployed_functions_path_to_its_secret() -> None:
    from bench import cold_path  # a script, importable as a module of ``bench`` as the other benches are

    extension = stack().functions()["PortalWorkspaceGetFunction"].extension_environment
    services, reads_secret, env = cold_path.deployed(("dynamodb", "secretsmanager"), extension, 4321)
    # Deployed: the secret over localhost from the extension (the bench's stand-in on its port), no client.
    assert (services, reads_secret, env["PARAMETERS_SECRETS_EXTENSION_HTTP_PORT"]) == (("dynamodb",), True, "4321")
    assert cold_path.deployed(("dynamodb", "sqs"), extension, 4321)[:2] == (("dynamodb", "sqs"), False)
    assert cold_path.deployed(("dynamodb", "secretsmanager"), {}, 4321) == (("dynamodb", "secretsmanager"), False, {})


@pytest.mark.parametrize("function", ["WorkspacePurgeFunction", "KnowledgeIndexFunction"])
def test_an_sqs_worker_answers_its_batch_without_powertools_batch_utility(function: str) -> None:
    # Powertools' BatchProcessor brings asyncio, its parser's pydantic models and event classes: about a quarter of
    # the floor on the worker's cold start (issue 43); core.platform.sqs_batch answers batchItemFailures instead.
    loaded = _modules_after(_first_request(function), function=function)
    assert "core.platform.sqs_batch" in loaded
    heavy = {"asyncio", "aws_lambda_powertools.utilities.batch", "aws_lambda_powertools.utilities.parser"}
    assert sorted(loaded & heavy) == []


@pytest.mark.parametrize(
    "function",
    ["PortalPostDeleteFunction", "PortalPostsListFunction", "PortalItemCreateFunction", "PortalItemsListFunction"],
)
def test_a_writers_access_check_loads_no_workspace_service_or_its_wire_models(function: str) -> None:
    # The writers check membership through core.workspaces.membership: the workspace's, its members' and the
    # account's wire models (core.workspaces.workspace's) stay out of their cold start (issue 43).
    loaded = _modules_after(_first_request(function), function=function)
    assert "core.workspaces.membership" in loaded
    service = {"core.workspaces.workspace", "core.workspaces.models", "core.identity.models"}
    assert sorted(loaded & service) == []
