"""The in-process AWS emulation: moto's server, with the template's tables and bucket created in it."""

from __future__ import annotations

from typing import Any

from .template import Stack

# The subset of AWS::DynamoDB::Table properties that CreateTable understands.
_CREATE_TABLE_KEYS = ("AttributeDefinitions", "KeySchema", "GlobalSecondaryIndexes", "LocalSecondaryIndexes")


def start_moto(host: str = "127.0.0.1", port: int = 0) -> tuple[Any, str]:
    """Start moto's threaded server; returns it and its endpoint URL."""
    from moto.server import ThreadedMotoServer

    server = ThreadedMotoServer(ip_address=host, port=port, verbose=False)
    server.start()
    bound_host, bound_port = server.get_host_and_port()
    return server, f"http://{bound_host}:{bound_port}"


def create_resources(stack: Stack, dynamodb: Any, s3: Any) -> None:
    """Create every DynamoDB table and S3 bucket the template declares, named as the stack names them."""
    for name, res in stack.of_type("AWS::DynamoDB::Table").items():
        props = res["Properties"]
        table = stack.physical_name(name)
        kwargs = {k: props[k] for k in _CREATE_TABLE_KEYS if k in props}
        dynamodb.create_table(TableName=table, BillingMode=props.get("BillingMode", "PAY_PER_REQUEST"), **kwargs)
        ttl = props.get("TimeToLiveSpecification")
        if ttl:
            dynamodb.update_time_to_live(TableName=table, TimeToLiveSpecification=ttl)
    for name in stack.of_type("AWS::S3::Bucket"):
        s3.create_bucket(Bucket=stack.physical_name(name))
