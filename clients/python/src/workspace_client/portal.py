"""The management plane (portal): sign-in, workspaces, members, brands, keys, credits, account.

    portal = Portal("http://127.0.0.1:3000")
    portal.request_magic_link(email="ava@northwind.example")
    portal.sign_in_with_magic_link(link_from_the_mail)      # the link, or just its token
    for workspace in portal.list_workspaces(): ...

After a sign-in the client holds the ``session`` cookie (its cookie jar) and a portal JWT, which it
renews by itself shortly before it expires (see ``_session``). Every JSON operation of the OpenAPI
document is a method (``_generated/operations_portal.py``); this module adds the session around them, and
``preview`` (NDJSON, streamed): an agent tried as a turn, with the passages its retrieval considered.
"""

from __future__ import annotations

import asyncio
import threading
from collections.abc import AsyncIterator, Callable, Iterator
from typing import Any
from urllib.parse import urlsplit

import httpx

from ._generated.models_portal import (
    Account,
    Agent,
    ApiKey,
    BehaviourPatch,
    Brand,
    Empty,
    HistoryEntry,
    Member,
    PreviewRequest,
    TokenResponse,
)
from ._generated.operations_portal import AsyncPortalOperations, PortalOperations
from ._operation import Operation, present
from ._session import SESSION_COOKIE, TokenHolder, magic_link_token, renews_itself
from ._transport import AsyncTransport, SyncTransport
from .chat import ChatEvent, async_events, events
from .errors import AuthError, IncompleteStreamError, TokenExpiredError

REFRESH_MARGIN_SECONDS = 120.0


def preview_operation(
    workspace_id: str,
    agent_id: str,
    prompt: str,
    *,
    history: list[str | HistoryEntry] | None = None,
    section: str | None = None,
    behaviour: BehaviourPatch | None = None,
) -> Operation:
    """``POST …/agents/{agentId}/preview``. ``history``: plain strings are the entries' content; ``behaviour``: an
    override of the saved one, for this turn only (its fields set to None, e.g. with ``CLEAR``, are their defaults)."""
    entries = None if history is None else [HistoryEntry(content=e) if isinstance(e, str) else e for e in history]
    body = PreviewRequest(**present(prompt=prompt, history=entries, section=section, behaviour=behaviour))
    path = {"workspaceId": workspace_id, "agentId": agent_id}
    return Operation("POST", "/api/workspaces/{workspaceId}/agents/{agentId}/preview", path=path, body=body)


NEXT_CURSOR = "Next-Cursor"  # a bare-array listing's next page (members, brands); absent on the last


def bare_page(path: str, model: Any, workspace_id: str, cursor: str | None, limit: int | None = None) -> Operation:
    """One page of a listing whose body is a bare array (service-api.md fixes members' and brands' as arrays): its
    next page's cursor comes in the ``Next-Cursor`` header, which the generated methods do not return."""
    return Operation("GET", path, response=list[model], ok=(200,), auth="bearer", path={"workspaceId": workspace_id},
                     query={"limit": limit, "cursor": cursor})  # fmt: skip


MEMBERS, BRANDS = "/api/workspaces/{workspaceId}/members", "/api/workspaces/{workspaceId}/brands"


class _PortalSession:
    """What the sync and async portal share: the token holder, the cookie, what a result teaches."""

    _http: Any
    _new_lock: Callable[[], Any]  # a thread lock or an asyncio one: renewals are serialised either way

    def __init__(
        self,
        base_url: str,
        *,
        token: str | None = None,
        session: str | None = None,
        refresh_margin: float = REFRESH_MARGIN_SECONDS,
        **options: Any,
    ):
        super().__init__(base_url, **options)  # type: ignore[call-arg]  # a mixin: the transport is next in the MRO
        self._tokens = TokenHolder(token, refresh_margin)
        if session:
            self._http.cookies.set(SESSION_COOKIE, session, domain=urlsplit(base_url).hostname or "", path="/")
        self._lock = self._new_lock()

    @property
    def token(self) -> str | None:
        """The current portal JWT (None before a sign-in)."""
        return self._tokens.token

    @property
    def session_cookie(self) -> str | None:
        """The ``session`` cookie of the sign-in, to keep a session across runs (``Portal(session=…)``)."""
        return self._http.cookies.get(SESSION_COOKIE)

    def _learn(self, operation: Operation, result: Any) -> None:
        if isinstance(result, TokenResponse):
            self._tokens.set(result.token)
        elif isinstance(result, Empty) and operation.template == "/api/auth/logout":
            self._tokens.set(None)
            self._http.cookies.delete(SESSION_COOKIE)


class Portal(_PortalSession, SyncTransport, PortalOperations):
    """Sync portal client. ``token``: a portal JWT to start with; ``session``: a ``session`` cookie value."""

    _new_lock = threading.Lock

    def sign_in_with_magic_link(self, link_or_token: str) -> Account:
        """Verify the mailed link (the URL or its token), then mint the portal JWT from the new session."""
        account = self.verify_magic_link(token=magic_link_token(link_or_token)).user
        self.mint_portal_token()
        return account

    def sign_in_with_id_token(self, provider: str, id_token: str) -> Account:
        """Google or Apple sign-in with the provider's ID token, then mint the portal JWT."""
        account = self.sign_in_with_provider(provider, id_token=id_token).user  # type: ignore[arg-type]
        self.mint_portal_token()
        return account

    def _bearer(self, operation: Operation) -> str | None:
        if not renews_itself(operation):
            with self._lock:
                if self._tokens.needs_renewal():
                    self._renew()
        return self._tokens.token

    def _renew(self) -> None:
        if self._tokens.refreshable():
            try:
                self.refresh_portal_token()
                return
            except AuthError:
                pass  # the token lapsed on its way, or the session ended: the cookie decides
        if self.session_cookie:
            self.mint_portal_token()

    def _call(self, operation: Operation) -> Any:
        try:
            result = super()._call(operation)
        except TokenExpiredError:
            if renews_itself(operation) or not self.session_cookie:
                raise  # expired by the service's clock, so refresh would be refused too: the cookie or nothing
            with self._lock:
                self._tokens.expire()
            result = super()._call(operation)
        self._learn(operation, result)
        return result

    def _send_renewed(self, operation: Operation) -> httpx.Response:
        """The response of a request the caller reads itself (a stream, a bare page): an expired token is renewed
        from the session cookie and the request sent once more, as ``_call`` does for the parsed ones."""
        try:
            return self._send(operation)
        except TokenExpiredError:
            if not self.session_cookie:
                raise
            with self._lock:
                self._tokens.expire()
            return self._send(operation)

    def every_agent(self, workspace_id: str) -> list[Agent]:
        """Every agent of the workspace, oldest first, following ``nextCursor`` (200 a page)."""
        agents: list[Agent] = []
        cursor: str | None = None
        while True:
            page = self.list_agents(workspace_id, cursor=cursor)
            agents += page.agents
            if (cursor := page.next_cursor) is None:
                return agents

    def every_key(self, workspace_id: str, *, page: int | None = None) -> list[ApiKey]:
        """Every key of the workspace, newest first, following ``nextCursor`` (``page`` a page, default 200)."""
        keys: list[ApiKey] = []
        cursor: str | None = None
        while True:
            listed = self.list_keys(workspace_id, limit=page, cursor=cursor)
            keys += listed.keys
            if (cursor := listed.next_cursor) is None:
                return keys

    def every_member(self, workspace_id: str, *, page: int | None = None) -> list[Member]:
        """Every member of the workspace, page after page of ``page`` (default 200; ``list_members`` answers the
        first page only)."""
        return self._every(MEMBERS, Member, workspace_id, page)

    def every_brand(self, workspace_id: str, *, page: int | None = None) -> list[Brand]:
        """Every brand of the workspace, the default first, page after page (``list_brands``: the first page)."""
        return self._every(BRANDS, Brand, workspace_id, page)

    def _every(self, path: str, model: Any, workspace_id: str, page: int | None) -> list[Any]:
        found: list[Any] = []
        cursor: str | None = None
        while True:
            operation = bare_page(path, model, workspace_id, cursor, page)
            response = self._send_renewed(operation)
            try:
                found += operation.parse(response.read())
                cursor = response.headers.get(NEXT_CURSOR)
            finally:
                response.close()
            if not cursor:
                return found

    def preview(self, workspace_id: str, agent_id: str, prompt: str, **fields: Any) -> Iterator[ChatEvent]:
        """Try the agent: its reply event by event as it streams (a billed turn, never stored), the ``retrieval``
        event's passages on ``event.passages`` from it on. ``fields``: history, section, behaviour (an override)."""
        operation = preview_operation(workspace_id, agent_id, prompt, **fields)
        response = self._send_renewed(operation)  # refused before anything was billed: renewed and sent once more
        try:
            yield from events(response.iter_lines(), retrieval=True)
        except httpx.TransportError as error:
            raise IncompleteStreamError(f"the preview's stream was cut: {error!r}") from error
        finally:
            response.close()


class AsyncPortal(_PortalSession, AsyncTransport, AsyncPortalOperations):
    """Async portal client (``async with AsyncPortal(url) as portal``); the same methods, awaited."""

    _new_lock = asyncio.Lock

    async def sign_in_with_magic_link(self, link_or_token: str) -> Account:
        account = (await self.verify_magic_link(token=magic_link_token(link_or_token))).user
        await self.mint_portal_token()
        return account

    async def sign_in_with_id_token(self, provider: str, id_token: str) -> Account:
        account = (await self.sign_in_with_provider(provider, id_token=id_token)).user  # type: ignore[arg-type]
        await self.mint_portal_token()
        return account

    async def _bearer(self, operation: Operation) -> str | None:
        if not renews_itself(operation):
            async with self._lock:
                if self._tokens.needs_renewal():
                    await self._renew()
        return self._tokens.token

    async def _renew(self) -> None:
        if self._tokens.refreshable():
            try:
                await self.refresh_portal_token()
                return
            except AuthError:
                pass
        if self.session_cookie:
            await self.mint_portal_token()

    async def _call(self, operation: Operation) -> Any:
        try:
            result = await super()._call(operation)
        except TokenExpiredError:
            if renews_itself(operation) or not self.session_cookie:
                raise
            async with self._lock:
                self._tokens.expire()
            result = await super()._call(operation)
        self._learn(operation, result)
        return result

    async def _send_renewed(self, operation: Operation) -> httpx.Response:
        """As the synchronous client's: an expired token renewed from the session cookie, the request sent again."""
        try:
            return await self._send(operation)
        except TokenExpiredError:
            if not self.session_cookie:
                raise
            async with self._lock:
                self._tokens.expire()
            return await self._send(operation)

    async def every_agent(self, workspace_id: str) -> list[Agent]:
        """Every agent of the workspace, oldest first, following ``nextCursor`` (200 a page)."""
        agents: list[Agent] = []
        cursor: str | None = None
        while True:
            page = await self.list_agents(workspace_id, cursor=cursor)
            agents += page.agents
            if (cursor := page.next_cursor) is None:
                return agents

    async def every_key(self, workspace_id: str, *, page: int | None = None) -> list[ApiKey]:
        """Every key of the workspace, newest first, following ``nextCursor`` (``page`` a page, default 200)."""
        keys: list[ApiKey] = []
        cursor: str | None = None
        while True:
            listed = await self.list_keys(workspace_id, limit=page, cursor=cursor)
            keys += listed.keys
            if (cursor := listed.next_cursor) is None:
                return keys

    async def every_member(self, workspace_id: str, *, page: int | None = None) -> list[Member]:
        """Every member of the workspace, page after page of ``page`` (default 200; ``list_members`` answers the
        first page only)."""
        return await self._every(MEMBERS, Member, workspace_id, page)

    async def every_brand(self, workspace_id: str, *, page: int | None = None) -> list[Brand]:
        """Every brand of the workspace, the default first, page after page (``list_brands``: the first page)."""
        return await self._every(BRANDS, Brand, workspace_id, page)

    async def _every(self, path: str, model: Any, workspace_id: str, page: int | None) -> list[Any]:
        found: list[Any] = []
        cursor: str | None = None
        while True:
            operation = bare_page(path, model, workspace_id, cursor, page)
            response = await self._send_renewed(operation)
            try:
                found += operation.parse(await response.aread())
                cursor = response.headers.get(NEXT_CURSOR)
            finally:
                await response.aclose()
            if not cursor:
                return found

    async def preview(self, workspace_id: str, agent_id: str, prompt: str, **fields: Any) -> AsyncIterator[ChatEvent]:
        operation = preview_operation(workspace_id, agent_id, prompt, **fields)
        response = await self._send_renewed(operation)  # refused before anything was billed: renewed, sent again
        try:
            async for event in async_events(response.aiter_lines(), retrieval=True):
                yield event
        except httpx.TransportError as error:
            raise IncompleteStreamError(f"the preview's stream was cut: {error!r}") from error
        finally:
            await response.aclose()
