"""Does the local runner's ledger slow down as it grows? A chat turn's ledger transactions, turn after turn.

Each turn does what a chat turn does to the ledger: a hold (TransactWriteItems of three items),
then its settlement (four items, one of them a new entry), so the table grows by an entry and a
marker per turn. The turns run through the runner's own moto server (``local.aws.emulator.start_moto``,
over HTTP, with its atomic-request lock) twice in the same process:

- item-level rollback (``local.aws.item_rollback``, the runner's default), ``--turns`` turns;
- moto's own rollback (a deep copy of the ledger table per transaction), ``--baseline-turns`` turns;

and, end to end, ``--chat-turns`` chat turns through a runner (``python -m local``, fresh state,
offline model without its delay between tokens), one after another on a new connection each.

The figure is the median of the last 10 turns over the median of the first 10 (the target: ≤ 1.2),
in wall-clock time per turn (what a client waits, noisy on a busy machine) and in the CPU time moto's
thread spends on the turn's two requests (what grows with the table, if anything does; robust to
other load). A few warm-up turns (connection, lazy imports) come before the first 10.

    .venv/bin/python bench/ledger_growth.py [--turns 1000] [--baseline-turns 250] [--chat-turns 300] [--json PATH]
"""

from __future__ import annotations

import contextlib
import json
import logging
import statistics
import sys
import time
from collections.abc import Iterator
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
sys.path[:0] = [str(ROOT), str(ROOT / "layers" / "common")]  # a script: make the project importable

from bench.benchkit import command, finish, parser, table  # noqa: E402 - after the path is set

TITLE = "Local runner: ledger transactions as the ledger grows"
WINDOW = 10  # turns at each end compared
WARMUP = 3
TARGET = 1.2


@contextlib.contextmanager
def _moto_rollback(table_copy: bool) -> Iterator[None]:
    """Within: TransactWriteItems rolls back with moto's table copy (``table_copy``) or item by item.

    Call it after ``start_moto`` (which installs the item-level rollback).
    """
    from moto.dynamodb.models import DynamoDBBackend

    from local.aws.item_rollback import make_transactions_roll_back_items

    make_transactions_roll_back_items()
    patched = DynamoDBBackend.transact_write_items
    # moto's own method (functools.wraps keeps it as __wrapped__), or the patch
    DynamoDBBackend.transact_write_items = patched.__wrapped__ if table_copy else patched  # type: ignore[attr-defined,method-assign]
    try:
        yield
    finally:
        DynamoDBBackend.transact_write_items = patched  # type: ignore[method-assign]


@contextlib.contextmanager
def _moto_cpu() -> Iterator[list[float]]:
    """Within: the CPU milliseconds moto's request threads spend on each DynamoDB request, in order."""
    from moto.dynamodb.responses import DynamoHandler

    from local.aws.emulator import make_dynamodb_atomic

    make_dynamodb_atomic()  # the lock is taken inside the timed call, so waiting for it is not counted
    original, spent = DynamoHandler.call_action, []

    def timed(self: DynamoHandler) -> Any:
        start = time.thread_time()
        try:
            return original(self)
        finally:
            spent.append((time.thread_time() - start) * 1000)

    DynamoHandler.call_action = timed  # type: ignore[method-assign]
    try:
        yield spent
    finally:
        DynamoHandler.call_action = original  # type: ignore[method-assign]


def _turns(turns: int, stack_name: str, *, table_copy: bool) -> tuple[list[float], list[float]]:
    """Per turn (hold + settle), against a fresh ledger table: wall-clock ms, and moto's CPU ms."""
    import boto3

    from core.credits.records import HoldRecord
    from core.credits.store import LedgerStore
    from local.aws.emulator import create_resources, start_moto
    from stack.template import Stack, load

    stack = Stack(load(), stack_name=stack_name)
    server, endpoint = start_moto()
    try:
        with _moto_rollback(table_copy):  # after start_moto, which installs the item-level rollback
            session = boto3.session.Session(
                region_name="us-east-1",
                aws_access_key_id="testing",
                aws_secret_access_key="testing",  # noqa: S106 - moto takes any
            )
            dynamodb = session.client("dynamodb", endpoint_url=endpoint)
            create_resources(stack, dynamodb, session.client("s3", endpoint_url=endpoint))
            ledger = LedgerStore(dynamodb, stack.physical_name("LedgerTable"))
            ledger.grant("acct_bench", 10 * turns + 10, "topup", "bench-topup", "bench")
            now = datetime.now(UTC)
            wall, cpu = [], []
            for n in range(-WARMUP, turns):
                hold = HoldRecord(
                    account_id="acct_bench", ref_id=f"turn_{n:06d}", ref_type="llm", amount=5, description="bench turn",
                    created_at=now.isoformat(), expires_at=(now + timedelta(minutes=5)).isoformat(),
                )  # fmt: skip
                with _moto_cpu() as spent:
                    start = time.perf_counter()
                    ledger.reserve(hold)
                    ledger.settle(hold, 3)
                    elapsed = (time.perf_counter() - start) * 1000
                if n >= 0:
                    wall.append(elapsed)
                    cpu.append(sum(spent))
            return wall, cpu
    finally:
        server.stop()


def _chat_turns(turns: int) -> tuple[list[float], list[float]]:
    """Per chat turn (to the last line) through a fresh runner, the ledger growing with each: wall-clock ms, and
    the CPU ms the runner and its containers spent (cumulative /proc ticks, so only a window's mean is exact)."""
    from bench.runner_support import prepared_runner, send

    with prepared_runner(model_delay_ms=0) as runner:
        headers = {"Authorization": f"Bearer {runner.key}", "Content-Type": "application/json"}
        wall, cpu = [], []
        for n in range(-WARMUP, turns):
            body = json.dumps({"prompt": "Anything on this week?", "client": f"bench_growth_{n + WARMUP:06d}"})
            request = ("POST", f"/v1/agent/{runner.agent}/chat", headers, body.encode())
            before = runner.cpu_seconds()
            status, seconds, answer = send(runner.brain, request)
            assert status == 200 and json.loads(answer.splitlines()[-1])["type"] == "done", (status, answer[-300:])
            if n >= 0:
                wall.append(seconds * 1000)
                cpu.append((runner.cpu_seconds() - before) * 1000)
        return wall, cpu


def _row(label: str, measured: tuple[list[float], list[float]], cpu: str = "motoCpu") -> dict[str, Any]:
    """Medians of the wall clock; of the CPU, medians (moto's, exact per turn) or means (/proc ticks)."""
    row: dict[str, Any] = {"rollback": label, "turns": len(measured[0])}
    for name, times in zip(("wall", cpu), measured, strict=True):
        average = statistics.fmean if name == "runnerCpu" else statistics.median
        first, last = average(times[:WINDOW]), average(times[-WINDOW:])
        row[name] = {"firstMs": first, "lastMs": last, "ratio": last / first}
    return row


def _markdown(rows: list[dict[str, Any]]) -> str:
    intro = (
        "A chat turn's ledger work (hold, then settlement: two TransactWriteItems, two new items per turn) "
        f"through the runner's moto server, turn after turn; median of the first and of the last {WINDOW} turns "
        f"(after {WARMUP} warm-up turns). Target: last ≤ {TARGET}x first. Wall clock is what a client waits (noisy "
        "when the machine is busy); moto's CPU is what its request threads spend (what would grow with the "
        "table)."
    )
    if any("runnerCpu" in row for row in rows):
        intro += " Chat turns via the runner: whole turns through `python -m local` (offline model, no delay between "
        intro += "tokens); their CPU is the runner's and its containers' (the mean of the window: /proc counts ticks)."
    cells = []
    for row in rows:
        for name, label in (("wall", "wall clock"), ("motoCpu", "moto's CPU"), ("runnerCpu", "CPU, mean")):
            if name in row:
                m = row[name]
                cells.append([row["rollback"], row["turns"], label, m["firstMs"], m["lastMs"], f"{m['ratio']:.2f}x"])
    headers = ["rollback", "turns", "measure", "first 10, ms/turn", "last 10, ms/turn", "last / first"]
    return intro + "\n\n" + table(headers, cells)


def main(argv: list[str] | None = None) -> dict[str, str]:
    cli = parser(__doc__)
    cli.add_argument("--turns", type=int, default=1000, help="turns with the item-level rollback")
    cli.add_argument("--baseline-turns", type=int, default=250, help="turns with moto's table copy (0: skip)")
    cli.add_argument("--chat-turns", type=int, default=300, help="chat turns through a runner (0: skip)")
    args = cli.parse_args(argv)
    logging.getLogger("werkzeug").setLevel(logging.WARNING)  # no access log line per request
    if min(args.turns, args.baseline_turns or WINDOW, args.chat_turns or WINDOW) < WINDOW:
        cli.error(f"at least {WINDOW} turns per run")
    rows = []
    rows.append(_row("item-level (runner default)", _turns(args.turns, "benchitems", table_copy=False)))
    if args.baseline_turns:
        rows.append(_row("moto's table copy (before)", _turns(args.baseline_turns, "benchcopy", table_copy=True)))
    if args.chat_turns:
        rows.append(_row("item-level, chat turns via the runner", _chat_turns(args.chat_turns), cpu="runnerCpu"))
    return finish(args, TITLE, command("ledger_growth.py", argv or []), _markdown(rows))


if __name__ == "__main__":
    main(sys.argv[1:])
