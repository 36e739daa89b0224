"""Signing secrets from Secrets Manager, read on first use per container and again every five minutes.

Hand-written rather than Powertools' ``parameters.get_secret(..., max_age=...)``: importing the parameters
utility costs about 3-4 ms of CPU on the portal's first request (docs/decisions.md, "Library utilities").

Deployed, a function that reads a secret carries the AWS Parameters and Secrets Lambda Extension (template.yaml
sets ``PARAMETERS_SECRETS_EXTENSION_HTTP_PORT``): the value is one GET to the extension on localhost, so the
function builds no Secrets Manager client and loads no service model on its cold path (docs/decisions.md, "Secrets
through the Lambda extension"). Without that variable (tests, the local runner) it is boto3's GetSecretValue.
"""

from __future__ import annotations

import json
import os
import threading
import time
from collections.abc import Callable
from urllib.parse import quote

from core.platform import aws
from core.platform.registry import track
from core.platform.settings import get_settings

SECRET_MAX_AGE = 300  # a rotated signing secret is picked up within five minutes
EXTENSION_PORT = "PARAMETERS_SECRETS_EXTENSION_HTTP_PORT"
EXTENSION_TIMEOUT = 5.0  # seconds: the extension itself waits on Secrets Manager when its cache is cold


class SecretUnavailable(RuntimeError):
    """The extension answered no secret (its status and reason): the request fails as a backend failure (5xx)."""


def through_extension() -> bool:
    """Whether this function reads its secrets through the extension (the template sets its port)."""
    return bool(os.environ.get(EXTENSION_PORT))


def read_secret(secret_id: str) -> str:
    """The secret's string: from the extension when the function carries it, else from Secrets Manager."""
    port = os.environ.get(EXTENSION_PORT)
    if port:
        return _from_extension(secret_id, int(port))
    # core.platform.aws's cached client on each read, so the tests' hooks into that client see the call
    return str(aws.client("secretsmanager").get_secret_value(SecretId=secret_id)["SecretString"])


def _from_extension(secret_id: str, port: int) -> str:
    """``GET /secretsmanager/get?secretId=`` on localhost with the session token, as the extension requires; its
    answer is GetSecretValue's JSON. http.client is already loaded by botocore's urllib3: nothing new to import."""
    from http.client import HTTPConnection

    connection = HTTPConnection("localhost", port, timeout=EXTENSION_TIMEOUT)
    try:
        connection.request(
            "GET",
            f"/secretsmanager/get?secretId={quote(secret_id, safe='')}",
            headers={"X-Aws-Parameters-Secrets-Token": os.environ.get("AWS_SESSION_TOKEN", "")},
        )
        response = connection.getresponse()
        body = response.read()
    finally:
        connection.close()
    if response.status != 200:
        # The body may echo the request; the secret's id and the status are enough to act on.
        raise SecretUnavailable(f"the secrets extension answered {response.status} {response.reason} for {secret_id}")
    return str(json.loads(body)["SecretString"])


class CachedSecret:
    """One secret's value; ``cache_clear`` (``platform_providers.reset``, a SnapStart restore) makes the next call
    read it."""

    def __init__(self, secret_id: Callable[[], str], max_age: float = SECRET_MAX_AGE):
        self._secret_id = secret_id  # read at first use: importing reads no environment
        self._max_age = max_age
        self._lock = threading.Lock()
        self._value: tuple[float, bytes] | None = None  # (monotonic time read, secret)

    def __call__(self) -> bytes:
        with self._lock:
            if self._value is None or time.monotonic() - self._value[0] > self._max_age:
                self._value = (time.monotonic(), read_secret(self._secret_id()).encode())
            return self._value[1]

    def cache_clear(self) -> None:
        with self._lock:
            self._value = None

    @property
    def cached(self) -> bool:
        return self._value is not None


# The signed-media-URL secret is a secret of its own, so read-plane functions never hold the portal JWT key.
media_url_secret = track(CachedSecret(lambda: get_settings().media_url_secret_id))
portal_secret = track(CachedSecret(lambda: get_settings().portal_jwt_secret_id))
SECRETS = (media_url_secret, portal_secret)
