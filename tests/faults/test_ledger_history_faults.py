"""(h) The history numberer (``LedgerHistoryFunction``), failed at every AWS call of a batch it is handed.

Two starting points: an account numbered by nobody yet (the first batch sweeps its book from the start, two
transactions) and one already backfilled (the stream's entries numbered as they come, no read of the book).
Afterwards the batch is handed over again as Lambda's mapping does while it reports ``batchItemFailures`` (or
raised); once it answers none: every entry carries exactly one number, densely, each with its row; the ``HISTORY``
item's counts are the entries'; and every page is the old reader's. A fault that left an entry numbered twice, a
number skipped, or a batch reported done with an entry unnumbered fails here.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from core.credits.models import CreditHistoryQuery
from core.credits.reader import CreditReader
from core.credits.store import LedgerStore
from core.platform.dynamo import to_item
from core.platform.settings import get_settings
from tests.support.fault_harness import World, run_case, run_clean
from tests.support.fault_injection import Call, Fault
from tests.support.lambdas import handler_module
from tests.support.ledger_history import assert_numbered_once, every_entry, old_page, seed_numbered, write_old_ledger
from tests.support.portal import WorkerContext

ACCOUNT = "usr_01JDHISTORYFAULTS000000000"
REDELIVERIES = 6


def stream_records(entries: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """The entries' INSERT records as Lambda hands them over (sequence numbers in order)."""
    return [{
        "eventID": f"e{n}", "eventName": "INSERT", "eventSource": "aws:dynamodb",
        "dynamodb": {"Keys": to_item({"pk": e["pk"], "sk": e["sk"]}), "NewImage": to_item(e),
                     "SequenceNumber": str(1000 + n), "StreamViewType": "NEW_AND_OLD_IMAGES"},
    } for n, e in enumerate(entries)]  # fmt: skip


def run_worker(records: list[dict[str, Any]]) -> Any:
    context = WorkerContext(function_name="LedgerHistoryFunction")
    return handler_module("LedgerHistoryFunction").lambda_handler({"Records": records}, context)


@dataclass(frozen=True)
class Handed:
    records: list[dict[str, Any]]


@dataclass(frozen=True)
class NumbererScenario:
    name: str
    backfilled: bool

    def arrange(self, world: World) -> Handed:
        old = write_old_ledger(world.aws.dynamodb, ACCOUNT, 40)
        if self.backfilled:
            seed_numbered(world.aws.dynamodb, ACCOUNT, old)
            new = write_old_ledger(world.aws.dynamodb, ACCOUNT, 5, first=40)
            return Handed(stream_records(new))
        return Handed(stream_records(old[-3:]))  # the newest three's records; the sweep numbers all 40

    def act(self, world: World, state: Handed) -> Any:
        try:
            return run_worker(state.records)
        except Exception as exc:  # a raised batch is handed over again whole, as Lambda does
            return exc

    def verify(self, world: World, state: Handed, result: Any, fault: Fault | None) -> None:
        answer = result
        for _ in range(REDELIVERIES):
            if isinstance(answer, dict) and answer.get("batchItemFailures") == []:
                break
            if fault is None:
                raise AssertionError(f"an unfaulted batch did not finish: {answer!r}")
            first = min(int(f["itemIdentifier"]) for f in answer["batchItemFailures"]) if isinstance(
                answer, dict) else 0  # fmt: skip
            answer = run_worker([r for r in state.records if int(r["dynamodb"]["SequenceNumber"]) >= first])
        else:
            raise AssertionError(f"still failing after {REDELIVERIES} redeliveries: {answer!r}")
        dynamodb = world.aws.dynamodb
        assert_numbered_once(dynamodb, ACCOUNT)
        entries = every_entry(dynamodb, ACCOUNT)
        reader = CreditReader(LedgerStore(dynamodb, get_settings().ledger_table), usd_cents_per_credit=1,
                              hold_seconds=900)  # fmt: skip
        for ref_type, offset, limit in ((None, 0, 10), (None, 17, 30), ("llm", 5, 8)):
            query = CreditHistoryQuery.model_validate({"limit": limit, "offset": offset, "refType": ref_type})
            page = [e.id for e in reader.history(ACCOUNT, query).entries]
            assert page == old_page(entries, ref_type, offset, limit), (ref_type, offset, limit)

    def hole(self, calls: list[Call], position: int, fault: Fault) -> str | None:
        return None


SCENARIOS = [NumbererScenario("history-sweep", backfilled=False), NumbererScenario("history-hinted", backfilled=True)]


def test_clean_run(world: World, scenario: Any) -> None:
    run_clean(world, scenario)


def test_fault(world: World, case: Any) -> None:
    run_case(world, case)
