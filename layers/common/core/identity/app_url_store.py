"""The console's address, which sign-in and invitation mail links open.

``PORTAL_APP_URL`` when it is set (the local runner sets it to the console it serves; a deployment may set it to a
domain of its own). Empty, the console this stack serves: the template writes ``https://<distribution domain>`` into
the SSM parameter ``PORTAL_APP_URL_PARAMETER`` names, since the functions cannot name the distribution themselves
(it routes to the API that invokes them: a cycle; docs/decisions.md, "The console on AWS"). Read with Powertools'
parameters utility through core.platform.aws's cached client, kept five minutes; imported only here, on the first
mail of a container, so no other request pays for its import (docs/decisions.md, "Library utilities").
"""

from __future__ import annotations

import logging
import threading
from collections.abc import Callable
from typing import Any

from core.platform import aws
from core.platform.errors import DomainError

logger = logging.getLogger(__name__)

APP_URL_MAX_AGE = 300  # a redeployed distribution's address (a new stack) is picked up within five minutes


class AppUrlUnavailable(DomainError):
    """Neither PORTAL_APP_URL nor the console's parameter gives an address: a deployment fault the caller cannot fix,
    so the spec's 500 ``INTERNAL_ERROR`` (nothing is mailed with a link that opens nothing)."""


class AppUrl:
    """``app_url()`` -> the console's address without a trailing slash."""

    def __init__(self, configured: str, parameter: str, client: Callable[[], Any] = lambda: aws.client("ssm")):
        self._configured = configured.strip().rstrip("/")
        self._parameter = parameter.strip()
        self._client = client
        self._provider: Any = None  # Powertools' SSMProvider, made on the first read (its import is the cost)
        self._lock = threading.Lock()

    def __call__(self) -> str:
        if self._configured:
            return self._configured
        if not self._parameter:
            logger.error("PORTAL_APP_URL is empty and PORTAL_APP_URL_PARAMETER names no parameter")
            raise AppUrlUnavailable()
        from aws_lambda_powertools.utilities.parameters.exceptions import GetParameterError

        with self._lock:
            if self._provider is None:
                from aws_lambda_powertools.utilities.parameters import SSMProvider

                self._provider = SSMProvider(boto3_client=self._client())
            provider = self._provider
        try:
            value = provider.get(self._parameter, max_age=APP_URL_MAX_AGE)
        except GetParameterError as exc:
            logger.error("the console's address could not be read", extra={"parameter": self._parameter})
            raise AppUrlUnavailable() from exc
        url = str(value or "").strip().rstrip("/")
        if not url:
            logger.error("the console's address parameter is empty", extra={"parameter": self._parameter})
            raise AppUrlUnavailable()
        return url
