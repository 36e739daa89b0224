"""DynamoDB Streams in process: what Lambda's event source mappings do for ``EventsFunction``, on moto.

``drain_events()`` reads every table stream a ``Type: DynamoDB`` event of a function names (MainTable's and
LedgerTable's, for ``EventsFunction``) from where its last call stopped, keeps the records the event's
``FilterCriteria`` match, and invokes the function with Lambda's DynamoDB event shape (``Records[].eventID,
eventName, eventSourceARN, dynamodb.{Keys, NewImage, OldImage, SequenceNumber, StreamViewType}``), in batches of
the event's ``BatchSize``. A batch's ``batchItemFailures`` stop that stream there, as Lambda's mapping does: the
next call starts again at the first failed record (a retry of the same records, same ``eventID``s).

The position is kept on moto's stream shard itself, so a test's moto (restored from a copy for each test,
``tests/support/moto_state.py``) starts where the copy stood, and no test sees another's position. The records are
read from moto's backend, not through ``dynamodbstreams`` calls: the harness is Lambda's side, whose reads are no
AWS call of the function (the fault injector and the call counters see only the function's own).

``drain_deliveries(sqs)`` is the delivery worker's side: the queue's messages handed to it as SQS's event source
does (``tests/support/deliveries.py``, the worker's own harness, does the taking and the invoking).
"""

from __future__ import annotations

import copy
import datetime
import functools
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import Any

from tests.support.lambdas import LambdaContext, functions, handler_module, stack

EVENTS_FUNCTION = "EventsFunction"


@dataclass(frozen=True)
class Source:
    """One ``Type: DynamoDB`` event of a function: its table (logical id), batch size and filter patterns."""

    table: str
    batch_size: int
    patterns: tuple[Mapping[str, Any], ...]  # FilterCriteria's patterns, OR'd; empty: every record


@dataclass
class Batch:
    """One invocation: the table whose stream it read, the records sent, the sequence numbers reported failed."""

    table: str
    records: list[dict[str, Any]]
    failed: list[str] = field(default_factory=list)


@dataclass
class Drained:
    batches: list[Batch] = field(default_factory=list)

    @property
    def records(self) -> int:
        return sum(len(b.records) for b in self.batches)

    @property
    def failed(self) -> list[str]:
        return [f for b in self.batches for f in b.failed]


@functools.cache
def sources(function: str = EVENTS_FUNCTION) -> tuple[Source, ...]:
    """The function's stream events as template.yaml declares them."""
    import json

    resource = stack().template["Resources"][function]
    found = []
    for event in resource["Properties"].get("Events", {}).values():
        if event["Type"] != "DynamoDB":
            continue
        props = event["Properties"]
        table = props["Stream"]["Fn::GetAtt"][0]
        filters = (props.get("FilterCriteria") or {}).get("Filters") or []
        found.append(Source(table, int(props.get("BatchSize", 100)), tuple(json.loads(f["Pattern"]) for f in filters)))
    return tuple(found)


def matches(pattern: Mapping[str, Any], record: Mapping[str, Any]) -> bool:
    """An event filter pattern (the subset the template uses: exact values, ``prefix``, ``exists``) against a
    record, as Lambda applies it: every key of the pattern must match; a list matches when any of its values does."""
    for key, wanted in pattern.items():
        value = record.get(key) if isinstance(record, Mapping) else None
        if isinstance(wanted, Mapping):
            if not isinstance(value, Mapping) or not matches(wanted, value):
                return False
            continue
        if not any(_value_matches(w, value) for w in wanted):
            return False
    return True


def _value_matches(wanted: Any, value: Any) -> bool:
    if isinstance(wanted, Mapping):
        if "prefix" in wanted:
            return isinstance(value, str) and value.startswith(wanted["prefix"])
        if "exists" in wanted:
            return (value is not None) == bool(wanted["exists"])
        if "anything-but" in wanted:
            excluded = wanted["anything-but"]
            return value is not None and value not in (excluded if isinstance(excluded, list) else [excluded])
        raise AssertionError(f"filter rule not understood by the harness: {wanted}")
    return value == wanted


def _shard(table_logical_id: str) -> Any:
    """moto's stream shard of the table (the test's moto must be started)."""
    from moto.backends import get_backend
    from moto.core.models import DEFAULT_ACCOUNT_ID

    backend = get_backend("dynamodb")[DEFAULT_ACCOUNT_ID]["us-east-1"]
    table = backend.get_table(stack().physical_name(table_logical_id))
    assert table.stream_shard is not None, f"{table_logical_id} has no stream in moto (StreamSpecification)"
    return table


def lambda_record(table: Any, raw: Mapping[str, Any]) -> dict[str, Any]:
    """moto's stream record in the shape Lambda hands a function (creation time in epoch seconds, the stream ARN)."""
    record = copy.deepcopy(dict(raw))
    dynamodb = record["dynamodb"]
    created = dynamodb.get("ApproximateCreationDateTime")
    if isinstance(created, datetime.datetime):
        moment = created if created.tzinfo else created.replace(tzinfo=datetime.UTC)
        dynamodb["ApproximateCreationDateTime"] = float(int(moment.timestamp()))
    record["eventSourceARN"] = table.describe(base_key="Table")["Table"]["LatestStreamArn"]
    return record


def pending(table_logical_id: str) -> list[dict[str, Any]]:
    """The table's stream records not yet handed over, in Lambda's shape (filters not applied)."""
    table = _shard(table_logical_id)
    shard = table.stream_shard
    return [lambda_record(table, item.to_json()) for item in shard.items[_position(shard) :]]


def skip_pending() -> None:
    """Mark every record streamed so far as handed over (a test that arranged through the API and wants only what
    its act streams)."""
    for source in sources():
        shard = _shard(source.table).stream_shard
        _move(shard, len(shard.items))


def drain_events(function: str = EVENTS_FUNCTION, *, invoke: Callable[[dict[str, Any]], Any] | None = None) -> Drained:
    """Hand every stream record since the last call to ``function`` as its event source mappings would.

    ``invoke`` replaces the call of the handler (a benchmark times it, a test wraps it); by default the function's
    handler is invoked as Lambda does (``tests/support/lambdas``)."""
    call = invoke or _invoker(function)
    drained = Drained()
    for source in sources(function):
        table = _shard(source.table)
        shard = table.stream_shard
        while True:
            start = _position(shard, function)
            window = shard.items[start : start + source.batch_size]
            if not window:
                break
            records = [lambda_record(table, item.to_json()) for item in window]
            chosen = [r for r in records if not source.patterns or any(matches(p, r) for p in source.patterns)]
            batch = Batch(source.table, chosen)
            if chosen:
                answer = call({"Records": copy.deepcopy(chosen)}) or {}
                # For streams, the identifier Lambda wants is the record's sequence number (Powertools reports that).
                batch.failed = [str(f["itemIdentifier"]) for f in answer.get("batchItemFailures") or []]
                drained.batches.append(batch)
            if batch.failed:
                # Lambda resumes at the first failed record (its sequence number): it and every later one are sent
                # again next time; what came before it is done.
                _move(shard, min(int(f) for f in batch.failed) - shard.starting_sequence_number, function)
                break
            _move(shard, start + len(window), function)
    return drained


def _position(shard: Any, function: str = EVENTS_FUNCTION) -> int:
    """The index in the shard's records of the next one to hand over. Kept as a sequence number (the runner's moto
    drops records it replayed, moving the shard's first number): an index would then point past records. Each
    function has its own (two mappings read the LedgerTable's stream, each from where it stopped, as on AWS)."""
    following = getattr(shard, _mark(function), shard.starting_sequence_number)
    return max(0, following - shard.starting_sequence_number)


def _move(shard: Any, index: int, function: str = EVENTS_FUNCTION) -> None:
    setattr(shard, _mark(function), shard.starting_sequence_number + index)


def _mark(function: str) -> str:
    return "_harness_next" if function == EVENTS_FUNCTION else f"_harness_next_{function}"


def _invoker(function: str) -> Callable[[dict[str, Any]], Any]:
    entry = getattr(handler_module(function), functions()[function].handler.rsplit(".", 1)[1])
    return lambda event: entry(event, LambdaContext(function_name=function))


def drain_deliveries(sqs: Any) -> list[dict[str, Any]]:
    """The delivery worker on every message of its queue (delayed ones too: the test's clock stands for the wait), in
    SQS's batches of 10, through its harness (``tests/support/deliveries.py``): each batch's answer. Messages the
    worker sends meanwhile (a retry's) wait for the next call."""
    from tests.support.deliveries import run_worker, take_deliveries

    taken = [queued.message for queued in take_deliveries(sqs)]
    return [run_worker(taken[start : start + 10]) for start in range(0, len(taken), 10)]


def invoke_events(records: list[dict[str, Any]], function: str = EVENTS_FUNCTION) -> Any:
    """The function invoked with exactly ``records`` (a batch handed over again: a retry of the same records)."""
    return _invoker(function)({"Records": copy.deepcopy(records)})
