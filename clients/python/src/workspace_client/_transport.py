"""httpx underneath: the one retry loop, in a sync and an async flavour that differ only in ``await``.

Everything else — what a request looks like (``Operation``), when to retry (``RetryPolicy``, asked
through one call's ``Retries``), what an error answer becomes (``errors.error_from_response``) — is
shared and transport-independent.
Responses come back *streamed* (``stream=True``): JSON operations read them whole, chat and r2
consume them chunk by chunk.
"""

from __future__ import annotations

import asyncio
import time
from collections.abc import Callable
from typing import Any

import httpx

from . import __version__
from ._operation import Operation
from .errors import ApiError, error_from_response
from .retry import Retries, RetryPolicy

DEFAULT_TIMEOUT = httpx.Timeout(30.0, connect=10.0)
USER_AGENT = f"workspace-service-client/{__version__}"


def request_headers(operation: Operation, bearer: str | None, extra: dict[str, str] | None) -> dict[str, str]:
    headers = operation.request_headers | (extra or {})
    if bearer and operation.auth != "none":
        headers["Authorization"] = f"Bearer {bearer}"
    return headers


def returned(operation: Operation, response: httpx.Response) -> bool:
    return response.status_code in operation.ok


def _client_options(base_url: str, timeout: Any, transport: Any, headers: dict[str, str] | None) -> dict[str, Any]:
    options: dict[str, Any] = {
        "base_url": base_url.rstrip("/"),
        "timeout": DEFAULT_TIMEOUT if timeout is None else timeout,
        "headers": {"User-Agent": USER_AGENT} | (headers or {}),
        "follow_redirects": False,  # a 307 from /v1/r2 leads to S3: followed by hand, without the key
    }
    if transport is not None:
        options["transport"] = transport
    return options


class SyncTransport:
    def __init__(
        self,
        base_url: str,
        *,
        timeout: float | httpx.Timeout | None = None,
        retry: RetryPolicy | None = None,
        transport: httpx.BaseTransport | None = None,
        headers: dict[str, str] | None = None,
        sleep: Callable[[float], None] = time.sleep,
    ):
        self._http: httpx.Client = httpx.Client(**_client_options(base_url, timeout, transport, headers))
        self.retry = retry or RetryPolicy()
        self._sleep = sleep

    def __enter__(self) -> Any:
        return self

    def __exit__(self, *_: object) -> None:
        self.close()

    def close(self) -> None:
        self._http.close()

    def _bearer(self, operation: Operation) -> str | None:
        raise NotImplementedError

    def _call(self, operation: Operation) -> Any:
        response = self._send(operation)
        try:
            return operation.parse(response.read())
        finally:
            response.close()

    def _send(self, operation: Operation, *, url: str | None = None, headers: dict[str, str] | None = None):
        """The first answer in ``operation.ok`` (still streaming), after the retries the policy allows."""
        request = self._http.build_request(
            operation.method,
            url or operation.url_path,
            params=None if url else operation.params,
            json=operation.json_body,
            headers=request_headers(operation, None if url else self._bearer(operation), headers),
        )
        retries = Retries(self.retry, operation, request)
        while True:
            try:
                response = self._http.send(request, stream=True)
            except httpx.TransportError as error:
                self._sleep(retries.after_error(error))
                continue
            if returned(operation, response):
                return response
            delay = retries.after_answer(response)
            content = response.read()
            response.close()
            if delay is None:
                raise _error(response, content)
            self._sleep(delay)


class AsyncTransport:
    def __init__(
        self,
        base_url: str,
        *,
        timeout: float | httpx.Timeout | None = None,
        retry: RetryPolicy | None = None,
        transport: httpx.AsyncBaseTransport | None = None,
        headers: dict[str, str] | None = None,
        sleep: Callable[[float], Any] = asyncio.sleep,
    ):
        self._http: httpx.AsyncClient = httpx.AsyncClient(**_client_options(base_url, timeout, transport, headers))
        self.retry = retry or RetryPolicy()
        self._sleep = sleep

    async def __aenter__(self) -> Any:
        return self

    async def __aexit__(self, *_: object) -> None:
        await self.aclose()

    async def aclose(self) -> None:
        await self._http.aclose()

    async def _bearer(self, operation: Operation) -> str | None:
        raise NotImplementedError

    async def _call(self, operation: Operation) -> Any:
        response = await self._send(operation)
        try:
            return operation.parse(await response.aread())
        finally:
            await response.aclose()

    async def _send(self, operation: Operation, *, url: str | None = None, headers: dict[str, str] | None = None):
        """The first answer in ``operation.ok`` (still streaming), after the retries the policy allows."""
        request = self._http.build_request(
            operation.method,
            url or operation.url_path,
            params=None if url else operation.params,
            json=operation.json_body,
            headers=request_headers(operation, None if url else await self._bearer(operation), headers),
        )
        retries = Retries(self.retry, operation, request)
        while True:
            try:
                response = await self._http.send(request, stream=True)
            except httpx.TransportError as error:
                await self._sleep(retries.after_error(error))
                continue
            if returned(operation, response):
                return response
            delay = retries.after_answer(response)
            content = await response.aread()
            await response.aclose()
            if delay is None:
                raise _error(response, content)
            await self._sleep(delay)


def _error(response: httpx.Response, content: bytes) -> ApiError:
    return error_from_response(response.status_code, response.headers, content)
