"""DynamoDB stream event sources from the template, emulated: poll each table's stream, invoke its function.

Lambda's event source mapping for a DynamoDB stream reads the shard in order, drops the records its
``FilterCriteria`` do not match, invokes the function with a batch (``BatchSize``, gathered for up to
``MaximumBatchingWindowInSeconds``) and moves on only when the batch succeeded. With
``ReportBatchItemFailures`` a batch that answers ``batchItemFailures`` is resumed from the first failed record's
sequence number (the records after it are read again); a batch whose invocation fails is retried whole, or, with
``BisectBatchOnFunctionError``, split in two halves retried in order. The template's ``MaximumRetryAttempts: -1``
retries for ever: a record that always fails holds its shard, as in AWS (logged at every try).

Locally each poller starts at its stream's end once the kept state has been replayed (the restore is no news, see
``local.aws.emulator.forget_stream_records``): changes made before the runner stopped whose records were not yet
dispatched are not sent again when it starts (AWS keeps a stream's records 24 hours and the mapping resumes where
it was; the runner keeps no stream). moto has one shard per table, and never splits it.
"""

from __future__ import annotations

import base64
import json
import logging
import threading
import time
from dataclasses import dataclass, field
from datetime import datetime
from typing import Any

from local.containers.pool import ContainerPool
from stack.template import Stack

logger = logging.getLogger("local.streams")
IDLE_SECONDS = 0.25  # between two reads of a stream with nothing new (Lambda reads a shard four times a second)
RETRY_SECONDS = 1.0  # before a failed batch is retried (AWS backs off too; locally a fix is seen soon)
GET_RECORDS_MAX = 1000  # DynamoDB Streams' largest GetRecords


# ------------------------------------------------------------------------------------------------ filters


class UnsupportedFilter(ValueError):
    """A ``FilterCriteria`` pattern this emulation does not evaluate: refused at start rather than guessed."""


_RULES = ({"exists"}, {"prefix"}, {"anything-but"})
_UNSUPPORTED = "filter rule {!r} is not emulated (exact values, prefix, exists, anything-but)"


def _matches_value(rule: Any, value: Any, present: bool) -> bool:
    """One element of a pattern's list against the record's value (Lambda's filter rule syntax, a subset)."""
    if isinstance(rule, dict):
        if set(rule) == {"exists"}:
            return present is bool(rule["exists"])
        if not present:
            return False
        if set(rule) == {"prefix"}:
            return isinstance(value, str) and value.startswith(rule["prefix"])
        if set(rule) == {"anything-but"}:
            excluded = rule["anything-but"] if isinstance(rule["anything-but"], list) else [rule["anything-but"]]
            return value not in excluded
        raise UnsupportedFilter(_UNSUPPORTED.format(rule))
    return present and value == rule


def _check_pattern(pattern: dict[str, Any]) -> None:
    """Refuse, once at start, a pattern with a rule the emulation would not evaluate."""
    for rules in pattern.values():
        if isinstance(rules, dict):
            _check_pattern(rules)
            continue
        if not isinstance(rules, list):
            raise UnsupportedFilter(f"a filter's values are a list, not {rules!r}")
        for rule in rules:
            if isinstance(rule, dict) and set(rule) not in _RULES:
                raise UnsupportedFilter(_UNSUPPORTED.format(rule))


def matches(pattern: dict[str, Any], record: dict[str, Any]) -> bool:
    """Whether ``record`` (the record as the function receives it) matches one filter pattern: every key of the
    pattern (nested keys are nested objects of the record) matches one of its list's rules. A value that is a list
    matches when one of its elements does."""
    for key, rules in pattern.items():
        present = key in record
        value = record.get(key)
        if isinstance(rules, dict):
            if not isinstance(value, dict) or not matches(rules, value):
                return False
            continue
        values = value if isinstance(value, list) else [value]
        if not any(_matches_value(rule, v, present) for rule in rules for v in values):
            return False
    return True


def filters_of(criteria: dict[str, Any] | None) -> list[dict[str, Any]]:
    """The patterns of a ``FilterCriteria`` (each a JSON string in the template); a record passes if one matches."""
    patterns = [json.loads(f["Pattern"]) for f in (criteria or {}).get("Filters", [])]
    for pattern in patterns:
        _check_pattern(pattern)
    return patterns


# ------------------------------------------------------------------------------------------------ records


def _json_value(value: Any) -> Any:
    """botocore's parsed attribute values back to the JSON Lambda sends (binary attributes in base64)."""
    if isinstance(value, bytes | bytearray):
        return base64.b64encode(value).decode()
    if isinstance(value, dict):
        return {k: _json_value(v) for k, v in value.items()}
    if isinstance(value, list):
        return [_json_value(v) for v in value]
    return value


def lambda_record(record: dict[str, Any], stream_arn: str, region: str) -> dict[str, Any]:
    """A GetRecords record as Lambda hands it to the function (``ApproximateCreationDateTime`` in epoch seconds)."""
    change = dict(record["dynamodb"])
    created = change.get("ApproximateCreationDateTime")
    if isinstance(created, datetime):
        change["ApproximateCreationDateTime"] = int(created.timestamp())
    return {
        "eventID": record["eventID"],
        "eventName": record["eventName"],
        "eventVersion": "1.1",
        "eventSource": "aws:dynamodb",
        "awsRegion": region,
        "dynamodb": _json_value(change),
        "eventSourceARN": stream_arn,
    }


# ------------------------------------------------------------------------------------------------ the poller


@dataclass
class StreamSource:
    """One ``Type: DynamoDB`` event of a function: which table's stream, and how the mapping reads it."""

    function: str
    table: str  # the physical table name
    batch_size: int = 100
    window: float = 0.0
    filters: list[dict[str, Any]] = field(default_factory=list)
    report_failures: bool = False
    bisect: bool = False


def sources_of(stack: Stack) -> list[StreamSource]:
    sources = []
    for name, res in stack.of_type("AWS::Serverless::Function").items():
        for event in res["Properties"].get("Events", {}).values():
            if event["Type"] != "DynamoDB":
                continue
            props = event["Properties"]
            stream = props["Stream"]
            table = stream["Fn::GetAtt"][0] if isinstance(stream, dict) else str(stream).split(".", 1)[0]
            sources.append(StreamSource(
                function=name,
                table=stack.physical_name(table),
                batch_size=int(props.get("BatchSize", 100)),
                window=float(props.get("MaximumBatchingWindowInSeconds", 0)),
                filters=filters_of(props.get("FilterCriteria")),
                report_failures="ReportBatchItemFailures" in props.get("FunctionResponseTypes", []),
                bisect=bool(props.get("BisectBatchOnFunctionError", False)),
            ))  # fmt: skip
    return sources


class _Failed(Exception):
    """A batch did not succeed: resume at ``sequence`` (the first record not done)."""

    def __init__(self, sequence: str):
        super().__init__(sequence)
        self.sequence = sequence


class StreamPoller:
    """One thread per event source, reading its table's stream through ``streams`` (a ``dynamodbstreams`` client on
    the runner's moto) from the end it had when ``start`` was called."""

    def __init__(self, stack: Stack, pool: ContainerPool, streams: Any, *, retry_seconds: float = RETRY_SECONDS):
        self._sources = sources_of(stack)
        self._pool = pool
        self._streams = streams
        self._region = stack.region
        self._retry_seconds = retry_seconds
        self._stop = threading.Event()
        # One per source, held while a batch is delivered: closing waits for a delivery under way, not for a read.
        self._delivering: list[threading.Lock] = []
        self._threads: list[threading.Thread] = []

    def start(self) -> StreamPoller:
        for source in self._sources:
            found = self._streams.list_streams(TableName=source.table).get("Streams", [])
            if not found:
                logger.error("%s: table %s has no stream (StreamSpecification): not polled", source.function,
                             source.table)  # fmt: skip
                continue
            arn = found[0]["StreamArn"]
            shard = self._streams.describe_stream(StreamArn=arn)["StreamDescription"]["Shards"][0]["ShardId"]
            # Taken now, before any request is served: every change from here on is read.
            iterator = self._streams.get_shard_iterator(StreamArn=arn, ShardId=shard, ShardIteratorType="LATEST")
            self._delivering.append(delivering := threading.Lock())
            thread = threading.Thread(
                target=self._poll, args=(source, arn, shard, iterator["ShardIterator"], delivering),
                name=f"stream-{source.function}-{source.table}", daemon=True,
            )  # fmt: skip
            self._threads.append(thread)
            thread.start()
        return self

    def _poll(self, source: StreamSource, arn: str, shard: str, iterator: str, delivering: threading.Lock) -> None:
        done: str | None = None  # the last record handled (its batch succeeded, or the filters dropped it)
        resume: tuple[str, str | None] | None = None  # a new iterator to take before the next read
        while not self._stop.is_set():
            try:
                if resume is not None:
                    iterator, resume = self._iterator(arn, shard, *resume), None
                records, iterator = self._read(source, iterator)
                if not records:
                    self._stop.wait(IDLE_SECONDS)
                    continue
                with delivering:
                    if self._stop.is_set():  # read while closing: not dispatched (see the module's docstring)
                        return
                    self._dispatch(source, arn, records)
                done = records[-1]["dynamodb"]["SequenceNumber"]
            except _Failed as failed:
                logger.warning("%s: batch from %s failed at %s: retried", source.function, source.table,
                               failed.sequence)  # fmt: skip
                resume = ("AT_SEQUENCE_NUMBER", failed.sequence)
                if self._stop.wait(self._retry_seconds):
                    return
            except Exception:
                if self._stop.is_set():
                    return
                logger.exception("polling the stream of %s failed", source.table)
                # An iterator once read is forgotten (the runner's moto): read again after the last record handled
                # (before any was, from the stream's end: what came meanwhile is not sent, as after a restart).
                resume = ("AFTER_SEQUENCE_NUMBER", done) if done is not None else ("LATEST", None)
                self._stop.wait(self._retry_seconds)

    def _iterator(self, arn: str, shard: str, kind: str, sequence: str | None) -> str:
        where = {"SequenceNumber": sequence} if sequence is not None else {}
        answer = self._streams.get_shard_iterator(StreamArn=arn, ShardId=shard, ShardIteratorType=kind, **where)
        iterator: str = answer["ShardIterator"]
        return iterator

    def _read(self, source: StreamSource, iterator: str) -> tuple[list[dict[str, Any]], str]:
        """Up to a batch of records (gathered for up to the batching window once the first has come), and the
        iterator after them."""
        answer = self._streams.get_records(ShardIterator=iterator, Limit=min(source.batch_size, GET_RECORDS_MAX))
        records, iterator = answer["Records"], answer["NextShardIterator"]
        closes = time.monotonic() + source.window
        while records and len(records) < source.batch_size and time.monotonic() < closes:
            if self._stop.wait(IDLE_SECONDS):
                break
            answer = self._streams.get_records(ShardIterator=iterator, Limit=source.batch_size - len(records))
            records, iterator = records + answer["Records"], answer["NextShardIterator"]
        return records, iterator

    def _dispatch(self, source: StreamSource, arn: str, records: list[dict[str, Any]]) -> None:
        """Invoke the function on the records the filters keep (none kept: nothing to do, as Lambda drops them);
        raise ``_Failed`` at the first record not done."""
        shaped = [lambda_record(r, arn, self._region) for r in records]
        kept = [r for r in shaped if not source.filters or any(matches(p, r) for p in source.filters)]
        if kept:
            self._invoke(source, kept)

    def _invoke(self, source: StreamSource, batch: list[dict[str, Any]]) -> None:
        try:
            result = self._pool.invoke(source.function, {"Records": batch})
        except Exception as exc:  # the function failed: the batch is retried (bisected when the template says so)
            logger.error("%s failed on a batch of %d stream records: %s", source.function, len(batch), exc)
            if source.bisect and len(batch) > 1:
                half = len(batch) // 2
                self._invoke(source, batch[:half])  # raises at its own first failure, before the second half runs
                self._invoke(source, batch[half:])
                return
            raise _Failed(batch[0]["dynamodb"]["SequenceNumber"]) from exc
        failures = (result or {}).get("batchItemFailures", []) if source.report_failures else []
        if failures:
            failed = {str(f.get("itemIdentifier")) for f in failures}
            sequences = [r["dynamodb"]["SequenceNumber"] for r in batch]
            if not failed <= set(sequences):  # Lambda treats an identifier it does not know as the whole batch failed
                raise _Failed(sequences[0])
            raise _Failed(next(s for s in sequences if s in failed))

    def close(self) -> None:
        """Stop polling: a batch under way finishes first; one read from now on is not dispatched."""
        self._stop.set()
        for delivering in self._delivering:
            with delivering:
                pass
        for thread in self._threads:
            thread.join(timeout=3)
