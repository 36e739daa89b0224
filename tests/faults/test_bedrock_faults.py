"""(c) again, the model on Bedrock: the billed chat turn of ``test_chat_faults.py`` with ``CHAT_MODEL=bedrock``, its
``ConverseStream`` answered offline (``tests/support/bedrock_stream.py``: moto has none) and failed like every other
call: refused before the stream (a throttle, a 5xx, a timeout, a lost reply), and broken inside it, before any text
and after some (``fault_injection.BEDROCK_STREAM_ERROR`` / ``BEDROCK_STREAM_CUT``).

Afterwards the same checks as the offline model's: a framed error or an NDJSON stream ending in ``done`` or
``error``; no hold left open once the sweeper ran; the ledger consistent and the turn charged exactly once if text
reached the visitor, else not at all; the usage saying what the ledger charged.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from core.platform import aws
from core.platform import providers as platform_providers
from tests.faults.test_chat_faults import ChatScenario, Turn
from tests.support.bedrock_stream import ScriptedBody, answer, answer_from, event_stream
from tests.support.fault_harness import World, run_case, run_clean
from tests.support.fault_injection import BEDROCK_STREAM_CUT, Fault
from tests.support.lambdas import StreamedResult


@dataclass(frozen=True)
class BedrockChatScenario(ChatScenario):
    def prepare(self, world: World) -> None:
        super().prepare(world)
        world.monkeypatch.setenv("CHAT_MODEL", "bedrock")
        platform_providers.reset()
        # The client the chat's model will use (core's, with the injector on it) answers offline.
        reply = answer("We have a ", "waxed rain jacket.", usage=(120, 9))
        answer_from(aws.bedrock_runtime(), lambda request: event_stream(request, ScriptedBody(reply)))

    def verify(self, world: World, state: Turn, result: StreamedResult, fault: Fault | None) -> None:
        if fault is not None and fault.stream is not None:  # the stream broke where it was meant to
            lines = result.lines()
            texts = [line for line in lines if line["type"] == "delta"]
            assert (bool(texts), lines[-1]["type"]) == (fault is BEDROCK_STREAM_CUT, "error"), lines
        super().verify(world, state, result, fault)


SCENARIOS = [BedrockChatScenario("chat-bedrock")]


def test_the_turn_calls_bedrock() -> None:
    """The scenario's turn reaches Bedrock (not the offline model): else its faults would test nothing."""
    from tests.support.fault_harness import probe

    scenario: Any = SCENARIOS[0]
    assert "bedrock-runtime.ConverseStream" in [call.label for call in probe(scenario)]


def test_clean_run(world: World, scenario: Any) -> None:
    run_clean(world, scenario)


def test_fault(world: World, case: Any) -> None:
    run_case(world, case)
