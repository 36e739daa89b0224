"""The in-process AWS emulation: moto's server, with the template's tables and bucket created in it."""

from __future__ import annotations

from secrets import token_urlsafe
from typing import Any

from .template import Stack

# The subset of AWS::DynamoDB::Table properties that CreateTable understands.
_CREATE_TABLE_KEYS = ("AttributeDefinitions", "KeySchema", "GlobalSecondaryIndexes", "LocalSecondaryIndexes")


def make_dynamodb_atomic() -> None:
    """Run moto's DynamoDB requests one at a time.

    DynamoDB applies each request (a conditional update, a transaction) atomically;
    moto takes no lock, so concurrent requests could interleave and, say, overspend a
    balance that DynamoDB would protect. One lock restores DynamoDB's guarantee.
    """
    import threading

    from moto.dynamodb.responses import DynamoHandler

    if getattr(DynamoHandler.call_action, "atomic", False):
        return
    lock = threading.Lock()
    original = DynamoHandler.call_action

    def call_action(self: DynamoHandler) -> Any:
        with lock:
            return original(self)

    call_action.atomic = True  # type: ignore[attr-defined]
    DynamoHandler.call_action = call_action  # type: ignore[method-assign]


def start_moto(host: str = "127.0.0.1", port: int = 0) -> tuple[Any, str]:
    """Start moto's threaded server (with atomic DynamoDB requests); returns it and its endpoint URL."""
    from moto.server import ThreadedMotoServer

    make_dynamodb_atomic()
    server = ThreadedMotoServer(ip_address=host, port=port, verbose=False)
    server.start()
    bound_host, bound_port = server.get_host_and_port()
    return server, f"http://{bound_host}:{bound_port}"


def create_resources(
    stack: Stack,
    dynamodb: Any,
    s3: Any,
    *,
    secrets: Any = None,
    sqs: Any = None,
    secret_values: dict[str, str] | None = None,
) -> None:
    """Create every table, bucket, secret and queue the template declares, named as the stack names them.

    A generated secret's value comes from ``secret_values`` when given (the local runner keeps
    the portal JWT secret in ``.local/``), else from ``secrets.token_urlsafe``.
    """
    secret_values = secret_values or {}
    for name, res in stack.of_type("AWS::DynamoDB::Table").items():
        props = res["Properties"]
        table = stack.physical_name(name)
        kwargs = {k: props[k] for k in _CREATE_TABLE_KEYS if k in props}
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
    for name in stack.of_type("AWS::SQS::Queue") if sqs else ():
        sqs.create_queue(QueueName=stack.physical_name(name))
    for name in stack.of_type("AWS::SecretsManager::Secret") if secrets else ():
        secrets.create_secret(Name=stack.physical_name(name), SecretString=secret_values.get(name) or token_urlsafe(48))
