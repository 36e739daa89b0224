"""Lazily created, per-container AWS clients.

Nothing is created at import time: a client costs tens of milliseconds, and a
handler that never needs S3 should never pay for it. boto3 honours
``AWS_ENDPOINT_URL`` itself, which is how the local runner points us at moto.
"""

from __future__ import annotations

from functools import cache
from typing import Any


@cache
def client(service: str) -> Any:
    import boto3  # deferred: boto3 is the heaviest import on the cold path
    from botocore.config import Config

    # SigV4 for S3 too: botocore would presign S3 URLs with SigV2, which newer buckets refuse.
    signing = {"signature_version": "s3v4"} if service == "s3" else {}
    return boto3.client(service, config=Config(connect_timeout=2, read_timeout=10, **signing))


def dynamodb() -> Any:
    return client("dynamodb")


def s3() -> Any:
    return client("s3")


@cache
def bedrock_runtime() -> Any:
    """Bedrock's streaming client: the gap between two events of a reply may be long, so a longer read timeout."""
    import boto3
    from botocore.config import Config

    # One retry at most: a visitor is waiting, and the turn has its own deadline.
    retries = {"mode": "standard", "total_max_attempts": 2}
    return boto3.client("bedrock-runtime", config=Config(connect_timeout=2, read_timeout=60, retries=retries))
