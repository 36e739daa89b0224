"""The fault suite covers every AWS service the functions call (issue 38: it failed DynamoDB and S3 only): the
injector's services are exactly those the layer makes clients for, and each is called, so failed, by some scenario.

The scenarios' calls are probed at collection, as the other modules' parametrisation probes them.
"""

from __future__ import annotations

import importlib
import re
from pathlib import Path

from tests.support.fault_harness import probe
from tests.support.fault_injection import INJECTED_SERVICES, Call, faults_for

LAYER = Path(__file__).resolve().parents[2] / "layers" / "common" / "core"
FUNCTIONS = Path(__file__).resolve().parents[2] / "functions"
# core.platform.aws's factories, by botocore service name: client("x") names it; the others are its shorthands.
FACTORIES = {"dynamodb": "dynamodb", "s3": "s3", "bedrock_runtime": "bedrock-runtime"}


def services_the_layer_calls() -> set[str]:
    """Every service a client is made for in the layer's code (``aws.client("sqs")``, ``aws.dynamodb()``, ...);
    the functions' own code makes none (stores and adapters in the layer are the only callers)."""
    found: set[str] = set()
    for source in LAYER.rglob("*.py"):
        text = source.read_text()
        found |= set(re.findall(r"""\baws\.client\(\s*["']([a-z0-9-]+)["']""", text))
        found |= {service for name, service in FACTORIES.items() if re.search(rf"\baws\.{name}\(\)", text)}
    for source in FUNCTIONS.rglob("*.py"):
        assert not re.search(r"\bboto3\.(client|resource)\(", source.read_text()), f"{source} makes its own client"
    return found


def test_the_harness_fails_every_service_the_layer_calls() -> None:
    """A new service in the layer without faults fails here: add it to INJECTED_SERVICES and faults_for."""
    called = services_the_layer_calls()
    assert {"dynamodb", "s3", "sqs", "ses", "secretsmanager", "bedrock-runtime"} <= called  # the scan finds them
    assert called == set(INJECTED_SERVICES)
    for service in INJECTED_SERVICES:
        assert faults_for(Call(service, "AnyOperation"), 0), f"no faults for {service}"


def services_reached() -> dict[str, set[str]]:
    """Each service the suite's scenarios call, with the scenarios that call it (so fail it at some position)."""
    reached: dict[str, set[str]] = {}
    for source in sorted(Path(__file__).parent.glob("test_*_faults.py")):
        module = importlib.import_module(f"tests.faults.{source.stem}")
        for scenario in getattr(module, "SCENARIOS", []):
            for call in probe(scenario):
                reached.setdefault(call.service, set()).add(scenario.name)
    return reached


# At collection, as the other modules' parametrisation probes (their probes are made by then, in this process): in a
# test, another module's moto may still be running, and a probe's own would meet its tables.
REACHED = services_reached()


def test_every_injected_service_is_failed_by_some_scenario() -> None:
    """Each injected service is called, so failed, at some position of some scenario of the suite: its faults
    exercise something."""
    assert set(REACHED) == set(INJECTED_SERVICES), {service: sorted(names)[:3] for service, names in REACHED.items()}
