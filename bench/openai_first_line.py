"""A chat turn on an OpenAI-compatible model (a local server speaking the protocol) beside one on the offline model.

In-process against moto (bench/in_process.py, the demo workspace): the real chat handler, its deployment's list
(``CHAT_MODELS``) one model, either ``offline`` or an ``openai`` model on tests/support/openai_server.py (on
loopback, no key: what the adapter adds is its HTTP exchange and SSE parsing, not a network). Both answer at once
(the offline model with no pause, the server with no delay), so the difference is the adapter's own cost. Reported:
the time to the turn's first line, to its first text and to its end, medians of warm turns, and each as a ratio of
the OpenAI-compatible turn to the offline one, measured in the same run. Then the adapter alone: ``stream()`` to its
first delta and to its end, against the server, beside the offline model's.

    PYTHONPATH=layers/common:. .venv/bin/python bench/openai_first_line.py [--turns 20] [--json PATH]
"""

from __future__ import annotations

import json
import sys
import time
from pathlib import Path
from typing import Any

sys.path[:0] = [str(Path(__file__).resolve().parent.parent)]  # a script: make ``bench`` importable

from bench.benchkit import command, finish, median, parser, table  # noqa: E402
from bench.in_process import Operation, captured_output, demo_stack, operations, prepare, unprepare  # noqa: E402

OFFLINE = {"id": "offline", "name": "Offline", "provider": "offline", "creditsPerTurn": 1, "default": True}


def turn(op: Operation) -> tuple[float, float, float]:
    """One turn through the handler, drained: ms to its first line, its first text and its end."""
    from core.platform.response_stream import StreamBody, body_chunks
    from tests.support.lambdas import LambdaContext, handler_module

    start = time.perf_counter()
    raw = handler_module(op.function).lambda_handler(op.event({}), LambdaContext(function_name=op.function))
    first_line = first_text = 0.0
    try:
        for chunk in body_chunks(raw):
            now = time.perf_counter()
            first_line = first_line or now
            if b'"type":"delta"' in chunk:
                first_text = first_text or now
    finally:
        if isinstance(raw.get("body"), StreamBody):
            raw["body"].close()
    end = time.perf_counter()
    assert raw["statusCode"] == 200 and first_text, raw["statusCode"]
    return (first_line - start) * 1000, (first_text - start) * 1000, (end - start) * 1000


def turns_on(model: dict[str, Any], demo: dict[str, Any], turns: int) -> list[tuple[float, float, float]]:
    chat = next(o for o in operations(demo) if o.function == "BrainChatFunction")
    env = {"CHAT_MODEL": "offline", "OFFLINE_MODEL_DELAY_MS": "0", "CHAT_MODELS": json.dumps([model])}
    op = Operation(chat.label, chat.function, chat.event, chat.streamed, env)
    prepare(op)
    try:
        with captured_output():
            turn(op)  # the container's first turn: clients, settings, the model built
            return [turn(op) for _ in range(turns)]
    finally:
        unprepare(op)


def adapter_alone(base_url: str, turns: int) -> dict[str, tuple[float, float]]:
    """``stream()`` to the first delta and to the end (ms), median of ``turns``, for each model."""
    from core.chat.model import AgentContext, ChatModel, Message, ModelRequest, TextDelta
    from core.chat.offline import OfflineModel
    from core.chat.openai_compat import OpenAICompatModel

    context = AgentContext("Harbour Helper", "Harbour Cafe", (), (), None, None)
    request = ModelRequest(system="You are Harbour Helper.", messages=(Message("user", "Oat milk?"),),
                           context=context, max_tokens=300)  # fmt: skip
    models: dict[str, ChatModel] = {"offline": OfflineModel(delay_seconds=0),
              "openai-compatible": OpenAICompatModel(model_id="local", base_url=base_url, model_name="m")}  # fmt: skip
    found = {}
    for name, model in models.items():
        firsts, ends = [], []
        for _ in range(turns + 1):
            start = time.perf_counter()
            first = 0.0
            for event in model.stream(request):
                if isinstance(event, TextDelta):
                    first = first or time.perf_counter()
            firsts.append((first - start) * 1000)
            ends.append((time.perf_counter() - start) * 1000)
        found[name] = (median(firsts[1:]), median(ends[1:]))
    return found


def main(argv: list[str] | None = None) -> dict[str, str]:
    from tests.support.openai_server import serve

    cli = parser(__doc__)
    cli.add_argument("--turns", type=int, default=20)
    args = cli.parse_args(argv)
    with serve() as server, demo_stack() as demo:
        remote = {"id": "local-gpt", "name": "Local GPT", "provider": "openai", "creditsPerTurn": 1, "default": True,
                  "baseUrl": server.base_url, "modelName": "gpt-local-mini"}  # fmt: skip
        # Interleaved halves, so a slow spell of the machine falls on both models alike.
        offline, compat = [], []
        for _ in range(2):
            offline += turns_on(OFFLINE, demo, args.turns // 2)
            compat += turns_on(remote, demo, args.turns // 2)
        alone = adapter_alone(server.base_url, args.turns)
    names = ("first line", "first text", "end")
    rows = []
    for i, name in enumerate(names):
        a, b = median(t[i] for t in offline), median(t[i] for t in compat)
        rows.append([name, a, b, f"{b / a:.2f}x"])
    alone_rows = [[name, first, end] for name, (first, end) in alone.items()]
    markdown = "\n\n".join([
        f"In-process against moto, the demo's chat turn, median of {len(offline)} warm turns each (ms from the "
        "request); the OpenAI-compatible model is served on loopback by tests/support/openai_server.py:",
        table(["moment", "offline", "openai-compatible", "ratio"], rows),
        "The model alone (``stream()``), median of the same number of calls:",
        table(["model", "ms to first delta", "ms to end"], alone_rows),
    ])  # fmt: skip
    return finish(args, "OpenAI-compatible model: a turn's first line and text beside the offline model's",
                  command("openai_first_line.py", argv or []), markdown)  # fmt: skip


if __name__ == "__main__":
    main(sys.argv[1:])
