"""Signing secrets from Secrets Manager, read on first use per container and again every five minutes.

Hand-written rather than Powertools' ``parameters.get_secret(..., max_age=...)``: importing the parameters
utility costs about 3-4 ms of CPU on the portal's first request (docs/decisions.md, "Library utilities").
"""

from __future__ import annotations

import threading
import time
from collections.abc import Callable

from core.platform import aws
from core.platform.registry import track
from core.platform.settings import get_settings

SECRET_MAX_AGE = 300  # a rotated signing secret is picked up within five minutes


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
                # core.platform.aws's cached client on each read, so the tests' hooks into that client see the call
                response = aws.client("secretsmanager").get_secret_value(SecretId=self._secret_id())
                self._value = (time.monotonic(), response["SecretString"].encode())
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
