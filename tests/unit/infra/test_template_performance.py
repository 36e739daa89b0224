"""template.yaml's performance knobs as SAM deploys them: CPU, SnapStart, memory size per function class.

Runs the real aws-sam-translator (tests/support/sam_transform.py). Conditions are evaluated here from the
parameters, as CloudFormation would, so each SnapStart choice is checked for every value of the parameter.
"""

from __future__ import annotations

from typing import Any

import pytest

from stack.template import TEMPLATE, load
from tests.unit.infra.test_streaming_integrations import integrations, transformed

STREAMING = {"BrainR2Function", "BrainChatFunction", "PortalAgentPreviewFunction"}
WORKERS = {
    "CreditHoldSweeperFunction",
    "WorkspacePurgeFunction",
    "KnowledgeIndexFunction",
    "WebhookDeliveryFunction",
    "EventsFunction",
    "LedgerHistoryFunction",
}
FALLBACKS = {"BrainFallbackFunction", "PortalFallbackFunction"}
READ_PLANE_BUFFERED = {
    "BrainWhoAmIFunction", "BrainAgentFunction", "BrainFeedFunction", "BrainItemsFunction", "BrainWrapFunction",
    "BrainSiteFunction", "BrainSuggestionsFunction", "BrainMediaUrlsFunction", "BrainFeedbackFunction",
}  # fmt: skip


def functions() -> dict[str, dict[str, Any]]:
    resources = transformed()["Resources"]
    return {name: r["Properties"] for name, r in resources.items() if r["Type"] == "AWS::Lambda::Function"}


def evaluate(value: Any, parameters: dict[str, str], conditions: dict[str, Any]) -> Any:
    """Fn::If / Fn::Equals / Fn::Not / Ref, as CloudFormation resolves them for these parameter values."""
    if isinstance(value, dict) and len(value) == 1:
        ((fn, arg),) = value.items()
        if fn == "Ref" and arg in parameters:
            return parameters[arg]
        if fn == "Fn::Equals":
            return evaluate(arg[0], parameters, conditions) == evaluate(arg[1], parameters, conditions)
        if fn == "Fn::Not":
            return not evaluate(arg[0], parameters, conditions)
        if fn == "Fn::If":
            chosen = evaluate(conditions[arg[0]], parameters, conditions)
            return evaluate(arg[1] if chosen else arg[2], parameters, conditions)
    return value


def snapstart_by_function(choice: str) -> dict[str, str]:
    template = transformed()
    parameters = {name: p.get("Default") for name, p in template["Parameters"].items()} | {"SnapStart": choice}
    return {
        name: evaluate(props["SnapStart"]["ApplyOn"], parameters, template["Conditions"])
        for name, props in functions().items()
    }


def test_every_function_and_the_layer_run_on_the_architecture_parameter_arm64_by_default() -> None:
    template = transformed()
    assert template["Parameters"]["Architecture"]["Default"] == "arm64"
    assert set(template["Parameters"]["Architecture"]["AllowedValues"]) == {"arm64", "x86_64"}
    for name, props in functions().items():
        assert props["Architectures"] == [{"Ref": "Architecture"}], name
    source = load(TEMPLATE)["Resources"]["CommonLayer"]
    assert source["Properties"]["CompatibleArchitectures"] == [{"Ref": "Architecture"}]
    assert source["Metadata"]["BuildMethod"] == "makefile"  # layers/common/Makefile: wheels for the target CPU


@pytest.mark.parametrize("api", ["BrainApi", "PortalApi"])
def test_every_route_invokes_the_published_alias(api: str) -> None:
    """SnapStart resumes published versions only: an integration on $LATEST would never be snapshotted."""
    for route, integration in integrations(api).items():
        if integration["type"] == "mock":
            continue
        uri = integration["uri"]["Fn::Sub"]
        assert "Aliaslive}" in uri and ".Arn}" not in uri, route


def test_snapstart_defaults_to_the_read_planes_buffered_functions() -> None:
    enabled = {name for name, apply_on in snapstart_by_function("ReadPlane").items() if apply_on == "PublishedVersions"}
    assert enabled == READ_PLANE_BUFFERED


def test_snapstart_all_apis_adds_the_management_plane_but_never_streams_or_workers() -> None:
    applied = snapstart_by_function("AllApis")
    assert {name for name, on in applied.items() if on != "PublishedVersions"} == STREAMING | WORKERS
    assert len(applied) > len(STREAMING | WORKERS | READ_PLANE_BUFFERED)  # the portal's functions are in


def test_snapstart_off_snapshots_nothing() -> None:
    assert set(snapstart_by_function("Off").values()) == {"None"}


def test_memory_size_follows_the_function_class() -> None:
    expected_class = {"BrainChatFunction": "ChatMemorySize", "BrainR2Function": "StreamingMemorySize",
                      "PortalAgentPreviewFunction": "ChatMemorySize"}  # fmt: skip
    expected_class |= dict.fromkeys(WORKERS, "WorkerMemorySize") | {"KnowledgeIndexFunction": "KnowledgeMemorySize"}
    for name, props in functions().items():
        if name in FALLBACKS:
            assert props["MemorySize"] == 256, name  # answers 404/405 only
        else:
            assert props["MemorySize"] == {"Ref": expected_class.get(name, "ApiMemorySize")}, name
    parameters = transformed()["Parameters"]
    sizes = ("ApiMemorySize", "StreamingMemorySize", "ChatMemorySize", "WorkerMemorySize", "KnowledgeMemorySize")
    assert {name: parameters[name]["Default"] for name in sizes} == {
        "ApiMemorySize": 512,
        "StreamingMemorySize": 512,
        "ChatMemorySize": 512,
        "WorkerMemorySize": 256,
        "KnowledgeMemorySize": 1024,  # documents of up to 50 MB read into text
    }
