"""Lazily created, per-container AWS clients.

Nothing is created at import time outside a Lambda init: a client costs tens of
milliseconds, and a handler that never needs S3 should never pay for it. In a Lambda
init, the plane factories create the clients every request of theirs needs
(``during_init``). boto3 honours ``AWS_ENDPOINT_URL`` itself, which is how the local
runner points us at moto.
"""

from __future__ import annotations

import os
from collections.abc import Callable
from functools import cache
from typing import Any


@cache
def client(service: str) -> Any:
    import boto3  # deferred: boto3 is the heaviest import on the cold path
    from botocore.config import Config

    # SigV4 for S3 too: botocore would presign S3 URLs with SigV2, which newer buckets refuse.
    signing: dict[str, Any] = {"signature_version": "s3v4"} if service == "s3" else {}
    config = Config(connect_timeout=2, read_timeout=10, **signing)
    # boto3-stubs type client() once per literal service name; this cache takes any name, and answers Any.
    return boto3.client(service, config=config)  # type: ignore[call-overload]


class LazyClient:
    """A service's client made at its first call, for a store that some of its function's requests never use (an
    items list holds the writer's S3 store but never calls S3): the cold path builds no client, loads no service
    model, for a service the function does not call. Every call goes to ``client(service)``, the cached client."""

    def __init__(self, service: str):
        self._service = service

    def __getattr__(self, name: str) -> Any:
        return getattr(client(self._service), name)


def during_init(*factories: Callable[[], Any]) -> None:
    """Create these clients now if this import is a Lambda init; elsewhere (tests, the local runner) they stay lazy.

    Lambda sets ``AWS_LAMBDA_INITIALIZATION_TYPE`` (on-demand, provisioned-concurrency, snap-start) for the
    init. An on-demand init runs on an unthrottled vCPU whatever the memory size, the first request on its
    memory's share (512 MB: about 0.29 vCPU), and since August 2025 both are billed alike: a client every
    request needs costs less and answers sooner when init creates it (docs/decisions.md, "Cold path").
    """
    if os.environ.get("AWS_LAMBDA_INITIALIZATION_TYPE"):
        for factory in factories:
            factory()


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
    config = Config(connect_timeout=2, read_timeout=60, retries={"mode": "standard", "total_max_attempts": 2})
    return boto3.client("bedrock-runtime", config=config)
