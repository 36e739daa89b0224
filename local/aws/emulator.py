"""The in-process AWS emulation: moto's server, with the template's tables and bucket created in it."""

from __future__ import annotations

import base64
import email.quoprimime
import json
import re
import threading
from collections.abc import Callable
from secrets import token_urlsafe
from typing import Any

from local.aws.item_rollback import make_transactions_roll_back_items
from local.stopping import STOP_POLL
from stack.template import Stack

# The subset of AWS::DynamoDB::Table properties that CreateTable understands.
_CREATE_TABLE_KEYS = ("AttributeDefinitions", "KeySchema", "GlobalSecondaryIndexes", "LocalSecondaryIndexes")


# Held by every DynamoDB request; reentrant, so the state journal (local.aws.state.capture) can hold it
# across a write and its journal line, making the journal's order the order writes were applied in.
DYNAMODB_LOCK = threading.RLock()
Middleware = Callable[[Any], Any]  # wraps moto's WSGI application


def make_dynamodb_atomic() -> None:
    """Run moto's DynamoDB requests one at a time, and its streams' reads between them.

    DynamoDB applies each request (a conditional update, a transaction) atomically;
    moto takes no lock, so concurrent requests could interleave and, say, overspend a
    balance that DynamoDB would protect. One lock restores DynamoDB's guarantee. A stream read
    (DynamoDB Streams' GetRecords) takes it too: a transaction appends its stream records as it
    applies each operation and drops them if a later one fails (``item_rollback``), so a read
    between the two would hand a change that never committed to the stream's consumer.
    """
    from moto.dynamodb.responses import DynamoHandler
    from moto.dynamodbstreams.responses import DynamoDBStreamsHandler

    for handler in (DynamoHandler, DynamoDBStreamsHandler):
        if getattr(handler.call_action, "atomic", False):
            continue
        original = handler.call_action

        def call_action(self: Any, original: Any = original) -> Any:
            with DYNAMODB_LOCK:
                return original(self)

        call_action.atomic = True  # type: ignore[attr-defined]
        handler.call_action = call_action  # type: ignore[method-assign]


def make_streams_as_dynamodb() -> None:
    """Stream records as DynamoDB writes them: one record per change of an item, none for a write that changes none.

    moto's UpdateItem on an absent item first puts the bare key (a record: INSERT of the key alone), then updates
    it (a second INSERT, of the whole item); DynamoDB writes one INSERT, the whole item. A consumer reading the
    first would see an item without its attributes. And a PutItem or UpdateItem that leaves the item as it was
    writes no record in DynamoDB ("no data changed"); moto writes a MODIFY with equal images.
    """
    from moto.dynamodb import models
    from moto.dynamodb.models.table import StreamShard

    backend_type = models.DynamoDBBackend
    if getattr(backend_type.update_item, "one_record", False):
        return
    update_item, add = backend_type.update_item, StreamShard.add

    def one_record_update(self: Any, table_name: str, *args: Any, **kwargs: Any) -> Any:
        shard = self.get_table(table_name).stream_shard
        before = len(shard.items) if shard is not None else 0
        item = update_item(self, table_name, *args, **kwargs)
        if shard is not None and len(shard.items) == before + 2:  # the bare key's INSERT, then the item's
            del shard.items[before]
            kept = shard.items[before].record["dynamodb"]
            kept["SequenceNumber"] = str(shard.starting_sequence_number + before)  # a record's number is its place
        return item

    def add_if_changed(self: StreamShard, old: Any, new: Any) -> None:
        if old is not None and new is not None and old.attrs == new.attrs:
            return
        add(self, old, new)

    one_record_update.one_record = True  # type: ignore[attr-defined]
    backend_type.update_item = one_record_update  # type: ignore[method-assign]  # a patch of moto's own method
    StreamShard.add = add_if_changed  # type: ignore[method-assign]


def make_stream_reads_forget_their_iterator() -> None:
    """A GetRecords forgets the iterator it read (the runner's poller never reads one twice; AWS lets one expire
    after 15 minutes): moto keeps every iterator it ever made, and a poller makes one per read, several a second
    for as long as the runner runs."""
    from moto.dynamodbstreams.models import DynamoDBStreamsBackend

    if getattr(DynamoDBStreamsBackend.get_records, "forgets", False):
        return
    original = DynamoDBStreamsBackend.get_records

    def get_records(self: DynamoDBStreamsBackend, iterator_arn: str, limit: int) -> dict[str, Any]:
        result = original(self, iterator_arn, limit)
        self.shard_iterators.pop(iterator_arn, None)
        return result

    get_records.forgets = True  # type: ignore[attr-defined]
    DynamoDBStreamsBackend.get_records = get_records  # type: ignore[method-assign]


def forget_stream_records(account: str, region: str) -> None:
    """The tables' streams start empty, after the kept state was replayed into them: a restore is no news (the
    records it wrote would only hold memory; the streams' consumers start at the end, as ``local.triggers.streams``
    says)."""
    from moto.dynamodb.models import dynamodb_backends

    with DYNAMODB_LOCK:
        for table in dynamodb_backends[account][region].tables.values():
            if (shard := table.stream_shard) is not None:
                shard.starting_sequence_number += len(shard.items)
                shard.items = []


_QUERYING = threading.local()  # the table and partition a Query on this thread is reading


def make_queries_read_their_partition() -> None:
    """A Query reads its partition, not the table.

    moto's ``Table.query`` starts from ``all_items()``: every item of the table, sorted by key, to keep one
    partition's. That is O(n log n) in the table for each query, and the demo's tables hold thousands of items
    (a runner's portal read spent a fifth of its time there). During a Query, ``all_items`` here gives a table
    query its partition's items and an index query the table's items unsorted; moto sorts what it keeps either way
    (by the range key, or the index's keys then the table's: a total order), so every answer is the same.
    """
    from moto.dynamodb.models.table import Table

    if getattr(Table.query, "partitioned", False):
        return
    query, all_items = Table.query, Table.all_items

    def scoped_items(self: Table) -> list[Any]:
        scope = getattr(_QUERYING, "scope", None)
        if scope is None or scope[0] is not self:
            return all_items(self)
        hash_key, index_name = scope[1:]
        if index_name is not None:
            return [item for kept in self.items.values() for item in (kept.values() if self.range_key_attr else [kept])]
        if hash_key not in self.items:  # a defaultdict: looking would add the partition
            return []
        kept = self.items[hash_key]
        return list(kept.values()) if self.range_key_attr else [kept]

    def partitioned_query(self: Table, hash_key: Any, *args: Any, **kwargs: Any) -> Any:
        index_name = args[6] if len(args) > 6 else kwargs.get("index_name")
        _QUERYING.scope = (self, hash_key, index_name)
        try:
            return query(self, hash_key, *args, **kwargs)
        finally:
            _QUERYING.scope = None

    partitioned_query.partitioned = True  # type: ignore[attr-defined]
    partitioned_query.original = query  # type: ignore[attr-defined]  # moto's own, which the tests compare with
    Table.query = partitioned_query  # type: ignore[method-assign]  # a patch of moto's own method
    Table.all_items = scoped_items  # type: ignore[method-assign]


# Reads whose answers are items: moto serialises them by walking the botocore model value by value
# (~85% of a 168-post Query, ~300 ms); they are plain JSON already.
FAST_READS = frozenset({"Query", "Scan", "GetItem", "BatchGetItem"})


def _base64(value: Any) -> str:
    if isinstance(value, bytes | bytearray):  # a B or BS attribute: DynamoDB's JSON carries it in base64
        return base64.b64encode(value).decode()
    raise TypeError(f"not JSON: {type(value).__name__}")


def make_dynamodb_reads_fast() -> None:
    """Answer DynamoDB's item reads with ``json.dumps``: the same document, without the model walk."""
    from moto.dynamodb.responses import DynamoHandler, DynamoResult

    if getattr(DynamoHandler.serialized, "fast", False):
        return
    original = DynamoHandler.serialized

    def serialized(self: DynamoHandler, result: Any) -> Any:
        if type(result) is not DynamoResult or self._get_action() not in FAST_READS:
            return original(self, result)
        body = json.dumps(result.result, default=_base64, separators=(",", ":"))
        return 200, {"Content-Type": "application/x-amz-json-1.0"} | self.response_headers, body

    serialized.fast = True  # type: ignore[attr-defined]
    DynamoHandler.serialized = serialized  # type: ignore[method-assign,assignment]  # a patch of moto's own method


# What an HTTP header value can carry as it is: visible ASCII, spaces and tabs.
_SENDABLE = re.compile(r"[\t\x20-\x7e]*")


def header_value(value: str) -> str:
    """A stored value as S3 answers it in a header: as it is, or RFC 2047-encoded (``=?UTF-8?q?…?=``) when it holds
    what HTTP cannot carry (CR LF, controls, non-ASCII), as S3 is reported to answer such user metadata."""
    return value if _SENDABLE.fullmatch(value) else email.quoprimime.header_encode(value.encode(), charset="UTF-8")


def make_s3_header_values_sendable() -> None:
    """Store an object's headers (its type, its metadata) in the form S3 answers them in.

    A POST Object's form carries a ``Content-Type`` field that a header could not (``text/plain;\\r\\n…``,
    U+3000): moto stores it as sent, then fails every HEAD, GET and listing that heads the object building its
    answer (werkzeug refuses the header), where S3 answers it encoded. Patched where the value is stored, so a
    state journalled before (replayed through the same call) is read back answerable too.
    """
    from moto.s3.models import FakeKey

    if getattr(FakeKey.set_metadata, "sendable", False):
        return
    original = FakeKey.set_metadata

    def set_metadata(self: FakeKey, metadata: Any, replace: bool = False) -> None:
        for name, value in list(metadata.items()):
            if isinstance(value, str):
                metadata[name] = header_value(value)
        original(self, metadata, replace)

    set_metadata.sendable = True  # type: ignore[attr-defined]
    FakeKey.set_metadata = set_metadata  # type: ignore[method-assign]  # a patch of moto's own method


class MotoServer:
    """moto's threaded WSGI server (as ``moto.server.ThreadedMotoServer``), its application optionally wrapped."""

    def __init__(self, host: str, port: int, middleware: Middleware | None = None):
        from moto.moto_server.werkzeug_app import DomainDispatcherApplication, MotoRequestHandler, create_backend_app
        from werkzeug.serving import make_server

        app = DomainDispatcherApplication(create_backend_app)
        self.app = middleware(app) if middleware else app
        self._server = make_server(host, port, self.app, threaded=True, request_handler=MotoRequestHandler)
        self._thread = threading.Thread(target=self._server.serve_forever, kwargs=STOP_POLL, name="moto", daemon=True)

    @property
    def endpoint(self) -> str:
        host, port = self._server.server_address[:2]
        assert isinstance(host, str)  # an AF_INET address (typed str | bytes for AF_UNIX)
        return f"http://{host}:{port}"

    def start(self) -> MotoServer:
        self._thread.start()
        return self

    def stop(self) -> None:
        self._server.shutdown()
        self._server.server_close()
        self._thread.join()


def make_moto_dynamodb_as_in_the_runner() -> None:
    """Atomic DynamoDB requests, transactions and queries whose cost does not grow with their tables, and stream
    records as DynamoDB writes them.

    The runner's moto and the tests' in-process ``mock_aws`` both run with these, so a test sees the
    semantics ``make serve`` has (and a seed of many workspaces, one transaction each, stays linear).
    """
    make_dynamodb_atomic()
    make_transactions_roll_back_items()
    make_queries_read_their_partition()
    make_streams_as_dynamodb()


def start_moto(host: str = "127.0.0.1", port: int = 0, middleware: Middleware | None = None) -> tuple[Any, str]:
    """Start moto's threaded server (atomic DynamoDB, item-level transaction rollback); returns it and its URL."""
    make_moto_dynamodb_as_in_the_runner()
    make_dynamodb_reads_fast()
    make_s3_header_values_sendable()
    make_stream_reads_forget_their_iterator()
    server = MotoServer(host, port, middleware).start()
    return server, server.endpoint


def create_resources(
    stack: Stack,
    dynamodb: Any,
    s3: Any,
    *,
    secrets: Any = None,
    sqs: Any = None,
    events: Any = None,
    secret_values: dict[str, str] | None = None,
) -> None:
    """Create every table, bucket, secret and queue the template declares, named as the stack names them; with
    ``events``, the buckets' EventBridge notifications and the rules that route them onto queues.

    A generated secret's value comes from ``secret_values`` when given (the local runner keeps
    the portal JWT secret in ``.local/``), else from ``secrets.token_urlsafe``.
    """
    secret_values = secret_values or {}
    for name, res in stack.of_type("AWS::DynamoDB::Table").items():
        props = res["Properties"]
        table = stack.physical_name(name)
        kwargs = {k: props[k] for k in _CREATE_TABLE_KEYS if k in props}
        if stream := props.get("StreamSpecification"):  # CloudFormation's has no StreamEnabled: naming one enables it
            kwargs["StreamSpecification"] = {"StreamEnabled": True, "StreamViewType": stream["StreamViewType"]}
        dynamodb.create_table(TableName=table, BillingMode=props.get("BillingMode", "PAY_PER_REQUEST"), **kwargs)
        ttl = props.get("TimeToLiveSpecification")
        if ttl:
            dynamodb.update_time_to_live(TableName=table, TimeToLiveSpecification=ttl)
    for name, res in stack.of_type("AWS::S3::Bucket").items():
        bucket, props = stack.physical_name(name), res.get("Properties", {})
        s3.create_bucket(Bucket=bucket)
        # Versioned as the template says, so the purge meets old versions and delete markers here too.
        if props.get("VersioningConfiguration"):
            s3.put_bucket_versioning(Bucket=bucket, VersioningConfiguration=props["VersioningConfiguration"])
    arns = {}
    for name in stack.of_type("AWS::SQS::Queue") if sqs else ():
        url = sqs.create_queue(QueueName=stack.physical_name(name))["QueueUrl"]
        arns[name] = sqs.get_queue_attributes(QueueUrl=url, AttributeNames=["QueueArn"])["Attributes"]["QueueArn"]
    for name, res in stack.of_type("AWS::SQS::Queue").items() if sqs else ():
        # A dead-letter queue as the template names it: moto moves a message past maxReceiveCount, as SQS does.
        if redrive := res.get("Properties", {}).get("RedrivePolicy"):
            target = redrive["deadLetterTargetArn"]["Fn::GetAtt"][0]
            policy = {"deadLetterTargetArn": arns[target], "maxReceiveCount": redrive["maxReceiveCount"]}
            url = sqs.get_queue_url(QueueName=stack.physical_name(name))["QueueUrl"]
            sqs.set_queue_attributes(QueueUrl=url, Attributes={"RedrivePolicy": json.dumps(policy)})
    if events is not None and sqs is not None:
        route_object_events(stack, s3, sqs, events)
    for name in stack.of_type("AWS::SecretsManager::Secret") if secrets else ():
        secrets.create_secret(Name=stack.physical_name(name), SecretString=secret_values.get(name) or token_urlsafe(48))


def route_object_events(stack: Stack, s3: Any, sqs: Any, events: Any) -> None:
    """S3 "Object Created" events as the template routes them: the bucket sends them to EventBridge, and each rule
    with a queue target puts the events its pattern matches on that queue (moto matches the pattern, wildcards
    included, when a request of its S3 creates an object). The runner calls it once its kept state is restored, so
    restoring objects is no news."""
    queue_arns = {
        name: sqs.get_queue_attributes(QueueUrl=sqs.get_queue_url(QueueName=stack.physical_name(name))["QueueUrl"],
                                       AttributeNames=["QueueArn"])["Attributes"]["QueueArn"]
        for name in stack.of_type("AWS::SQS::Queue")
    }  # fmt: skip
    for name, res in stack.of_type("AWS::S3::Bucket").items():
        notify = res.get("Properties", {}).get("NotificationConfiguration", {})
        if notify.get("EventBridgeConfiguration", {}).get("EventBridgeEnabled"):
            s3.put_bucket_notification_configuration(
                Bucket=stack.physical_name(name), NotificationConfiguration={"EventBridgeConfiguration": {}}
            )
    for name, res in stack.of_type("AWS::Events::Rule").items():
        props = res["Properties"]
        targets = [t for t in props.get("Targets", []) if t["Arn"].get("Fn::GetAtt", [""])[0] in queue_arns]
        if not targets:
            continue
        rule = stack.physical_name(name)
        events.put_rule(Name=rule, EventPattern=json.dumps(stack.resolve(props["EventPattern"])), State="ENABLED")
        events.put_targets(Rule=rule, Targets=[
            {"Id": t["Id"], "Arn": queue_arns[t["Arn"]["Fn::GetAtt"][0]]} for t in targets
        ])  # fmt: skip
