"""A visitor's rating of a turn: AWS calls and round trips per request (rate, re-rate, withdraw, an unknown turn).

The real handler (``BrainFeedbackFunction``) runs in-process against moto with the demo workspace loaded
(bench/in_process.py). A turn's receipt is put in the documented layout (tests/support/feedback.py), then each
request of the sequence is sent ``--runs`` times (on a new turn each time) from a warm container. A hook on the
boto3 session counts every call; ``core.platform.together.run`` is wrapped so the calls it issues together count as
one round trip (tests/support/round_trips.py's rule). What the design promises (docs/decisions.md, "Feedback on a
turn (issue 40)"): beyond the key check, two round trips (the visitor's count beside the receipt's BatchGetItem,
then one TransactWriteItems), whatever the agent's number of turns or ratings; a withdrawal of nothing and a 404
write nothing.

    PYTHONPATH=layers/common:. .venv/bin/python bench/feedback.py [--runs 5] [--json PATH]
"""

from __future__ import annotations

import collections
import json
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any

sys.path[:0] = [str(Path(__file__).resolve().parent.parent)]  # a script: make ``bench`` importable

from bench.benchkit import command, finish, parser, table  # noqa: E402
from bench.in_process import Operation, captured_output, demo_stack, invoke, prepare, unprepare  # noqa: E402

FUNCTION = "BrainFeedbackFunction"
CLIENT = "bench_feedback_visitor_01"
SEQUENCE = (  # (label, body, expected status); each run rates a new turn through the whole sequence
    ("rate (up)", {"client": CLIENT, "rating": "up"}, 200),
    ("re-rate (down, with a comment)", {"client": CLIENT, "rating": "down", "comment": "Too vague"}, 200),
    ("withdraw", {"client": CLIENT, "rating": None}, 200),
    ("withdraw again (nothing to withdraw)", {"client": CLIENT, "rating": None}, 200),
    ("an unknown turn (404)", {"client": CLIENT, "rating": "up"}, 404),
)


class Counting:
    """Every AWS call (by operation) and the round trips: a ``together.run`` batch that made calls counts once."""

    def __init__(self) -> None:
        self.calls: list[tuple[str, bool]] = []  # (operation, made inside a together batch)
        self._inside = 0

    def on_call(self, model: Any, **_: Any) -> None:
        self.calls.append((model.name, self._inside > 0))

    def wrap(self, run: Callable[..., Any]) -> Callable[..., Any]:
        def counted(*calls: Callable[[], Any]) -> Any:
            start = len(self.calls)
            self._inside += 1
            try:
                return run(*calls)
            finally:
                self._inside -= 1
                self.batches.append(len(self.calls) > start)

        self.batches: list[bool] = []
        return counted

    def round_trips(self) -> int:
        return sum(1 for _, together in self.calls if not together) + sum(self.batches)

    def key_check(self) -> int:
        """The calls before the service's first batch: the key check's (one round trip each)."""
        return next((n for n, (_, together) in enumerate(self.calls) if together), len(self.calls))


def measure(demo: dict[str, Any], runs: int) -> list[list[Any]]:
    import boto3

    from core.platform import together
    from tests.support.feedback import put_receipt
    from tests.support.lambdas import sample_event, stack, with_request

    agent, key = demo["agents"][0]["id"], demo["key"]
    table_name = stack().functions()[FUNCTION].environment["MAIN_TABLE"]
    op = Operation("feedback", FUNCTION, lambda _: {}, env={})
    session = prepare(op)
    counter = Counting()
    session.events.register("before-call", counter.on_call)
    original = together.run
    together.run = counter.wrap(original)
    seen: dict[str, list[tuple[int, int, int, collections.Counter]]] = collections.defaultdict(list)
    try:
        for run in range(runs + 1):  # the first run warms the container: not counted
            turn = put_receipt(boto3.client("dynamodb"), demo["id"], agent, CLIENT, table=table_name).turn_id
            for label, body, expected in SEQUENCE:
                turn_id = "turn_01JD0UNKNOWN0000000000000000" if expected == 404 else turn
                event = with_request(sample_event(FUNCTION), path_parameters={"agentId": agent, "turnId": turn_id},
                                     headers={"Authorization": f"Bearer {key}"}, body=json.dumps(body))  # fmt: skip
                counter.calls.clear()
                counter.batches.clear()
                with captured_output():
                    status, _ = invoke(op, event)
                assert status == expected, (label, status)
                if run:
                    ops = collections.Counter(name for name, _ in counter.calls)
                    trips = counter.round_trips()
                    seen[label].append((len(counter.calls), trips, trips - counter.key_check(), ops))
    finally:
        together.run = original
        unprepare(op)
    rows = []
    for label, _, _ in SEQUENCE:
        made, taken, past_key = ({str(v[i]) for v in seen[label]} for i in range(3))
        spelled = ", ".join(f"{name} {n}" for name, n in sorted(seen[label][-1][3].items()))
        rows.append([label, "/".join(sorted(made)), "/".join(sorted(taken)), "/".join(sorted(past_key)), spelled])
    return rows


def main(argv: list[str] | None = None) -> dict[str, str]:
    found = parser(__doc__)
    found.add_argument("--runs", type=int, default=5, help="turns rated through the whole sequence (after a warm-up)")
    args = found.parse_args(argv)
    with demo_stack() as demo:
        rows = measure(demo, args.runs)
    markdown = "\n\n".join([
        f"Warm requests of one container, {args.runs} turns each (distinct values, if any, joined by /). The key "
        "check comes first, one round trip a call (the key's GetItem, its rate counter's GetItem and UpdateItem; "
        "the first request of a key in a minute adds lastUsedAt). Then the service: the visitor's count (a GetItem "
        "then an UpdateItem) issued beside the receipt's BatchGetItem, one round trip as the house counts them "
        "(tests/support/round_trips.py; the batch waits for the longer side, the count's two calls); then, when "
        "something changes, one TransactWriteItems. Promised: 2 beyond the key check, 1 when nothing is written.",
        table(["request", "AWS calls", "round trips", "beyond the key check", "calls"], rows),
    ])  # fmt: skip
    return finish(args, "A rating's AWS calls and round trips", command("feedback.py", argv or []), markdown)


if __name__ == "__main__":
    main(sys.argv[1:])
