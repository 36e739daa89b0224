"""A chat turn's first line with 8,000 characters of the owner's instructions, beside the same turn without any.

In-process against moto (bench/in_process.py, the demo workspace), the real chat handler, the offline model with no
pause between deltas. The demo agent's behaviour is written before each turn (unmetered), alternating in ABBA order
(a turn without instructions, one with 8,000 characters of them, then the other way round), so that drift (a
warming cache, a busy neighbour) and order fall on both alike. Measured: the time from the request to the first
NDJSON line (the reads, the prompt built with the instructions fenced in it, the hold) and to the end of the turn;
the figure is the ratio of the medians, taken in the same run (issue 39: within 1.05x). Each turn's system prompt
is checked to hold the instructions, or not.

    PYTHONPATH=layers/common:. .venv/bin/python bench/chat_instructions.py [--turns 30] [--json PATH]
"""

from __future__ import annotations

import sys
import time
from pathlib import Path
from typing import Any

sys.path[:0] = [str(Path(__file__).resolve().parent.parent)]  # a script: make ``bench`` importable

from bench.benchkit import command, finish, median, parser, table  # noqa: E402
from bench.in_process import Operation, captured_output, demo_stack, operations, prepare, unprepare  # noqa: E402

INSTRUCTIONS = ("You are the cheerful voice of the roastery: warm, brief, a little playful. " * 200)[:8000]
BOUND = 1.05


def systems_seen() -> list[str]:
    """Wrap the offline model's ``stream``: the system prompt of each request it is given."""
    from core.chat.offline import OfflineModel

    seen: list[str] = []
    original = OfflineModel.stream

    def stream(self: OfflineModel, request: Any) -> Any:
        seen.append(request.system)
        return original(self, request)

    OfflineModel.stream = stream  # type: ignore[method-assign]
    return seen


def one_turn(op: Operation) -> tuple[float, float]:
    """Milliseconds from the request to the first line and to the end of the turn (its body drained and closed)."""
    from core.platform.response_stream import StreamBody, body_chunks
    from tests.support.lambdas import LambdaContext, handler_module

    event = op.event({})
    start = time.perf_counter()
    raw = handler_module(op.function).lambda_handler(event, LambdaContext(function_name=op.function))
    first = 0.0
    try:
        for _ in body_chunks(raw):
            first = first or time.perf_counter()
    finally:
        if isinstance(raw.get("body"), StreamBody):
            raw["body"].close()
    end = time.perf_counter()
    assert raw["statusCode"] == 200 and first, raw["statusCode"]
    return (first - start) * 1000, (end - start) * 1000


def measure(turns: int) -> dict[str, list[tuple[float, float]]]:
    from tests.support.behaviour import set_behaviour

    timings: dict[str, list[tuple[float, float]]] = {"none": [], "8,000 characters": []}
    with demo_stack() as demo:
        op = next(o for o in operations(demo) if o.function == "BrainChatFunction")
        op = Operation(op.label, op.function, op.event, op.streamed, {"CHAT_MODEL": "offline",
                       "OFFLINE_MODEL_DELAY_MS": "0"})  # fmt: skip
        prepare(op)
        seen = systems_seen()
        from core.platform import aws

        workspace, agent = demo["id"], demo["agents"][0]["id"]
        with captured_output():
            one_turn(op)  # the container's first turn: clients, settings
            kinds = [("none", ""), ("8,000 characters", INSTRUCTIONS)]
            for n in range(turns):
                for label, words in kinds if n % 2 == 0 else kinds[::-1]:  # ABBA: neither kind always goes first
                    set_behaviour(aws.dynamodb(), workspace, agent, instructions=words)
                    timings[label].append(one_turn(op))
                    assert (words.strip() in seen[-1]) if words else "<owner-instructions>" not in seen[-1]
        unprepare(op)
    return timings


def main(argv: list[str] | None = None) -> dict[str, str]:
    cli = parser(__doc__)
    cli.add_argument("--turns", type=int, default=30, help="turns of each kind, alternating")
    args = cli.parse_args(argv)
    timings = measure(args.turns)
    base = timings["none"]
    rows, ratios = [], []
    for label, found in timings.items():
        first, end = median(t[0] for t in found), median(t[1] for t in found)
        ratio = first / median(t[0] for t in base)
        ratios.append(ratio)
        rows.append([label, first, end, f"{ratio:.3f}x"])
    verdict = "within" if ratios[-1] <= BOUND else "NOT within"
    markdown = "\n\n".join([
        f"In-process against moto, the offline model with no pause between deltas, median of {args.turns} turns "
        "of each kind, alternating (ms from the request):",
        table(["owner's instructions", "first line", "whole turn", "first line / none"], rows),
        f"The first line with 8,000 characters of instructions is {ratios[-1]:.3f}x the first line without: "
        f"{verdict} {BOUND}x.",
    ])  # fmt: skip
    return finish(args, "Chat turn: the owner's instructions and the first line", command("chat_instructions.py",
                  argv or []), markdown)  # fmt: skip


if __name__ == "__main__":
    main(sys.argv[1:])
