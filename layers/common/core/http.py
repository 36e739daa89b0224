"""The one HTTP factory every handler uses: routing, CORS, auth, error mapping.

``brain_api()`` and ``portal_api()`` return our REST resolver (``core.platform.rest.router``) behind one global
middleware (``core.platform.rest.boundary``: body size and media type, one credential, the plane's caller check,
``DomainError`` to ``{error, code}``, CORS and ``RateLimit-*`` headers), reading settings at request time
so importing a handler reads no environment.

Handlers import from here only; the pieces live in ``core.platform.rest`` (responses, requests, boundary, resolver).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from functools import partial
from typing import TYPE_CHECKING, cast

from core.platform import aws, observability
from core.platform.rest.boundary import EXPOSED_HEADERS
from core.platform.rest.requests import header, json_document, parse_body, parse_query, query_param, validation_failed
from core.platform.rest.resolver import make_resolver
from core.platform.rest.responses import JSON, error_response, json_response, stream_response
from core.platform.rest.router import Response, RestResolver
from core.platform.settings import get_settings

# Each plane's credential check, and the writer's access check, are imported by the function that uses them, so a
# function loads its own plane's packages only (tests/unit/test_cold_path.py).
if TYPE_CHECKING:
    from core.audit.writes import Author
    from core.identity.sessions import PortalCaller
    from core.keys.check import WorkspaceCaller

__all__ = [
    "EXPOSED_HEADERS", "JSON", "Response", "RestResolver", "as_member", "as_owner", "as_writer", "author",
    "brain_api", "error_response",
    "fallback_api", "header", "json_document", "json_response", "parse_body", "parse_query", "portal_api",
    "portal_caller", "query_param", "stream_response", "validation_failed", "workspace_caller",
]  # fmt: skip


def _authenticate_workspace_key(app: RestResolver, *, signed_media: bool = False) -> dict[str, str]:
    """The key's caller; with ``signed_media`` (``/v1/r2``), a request with no ``Authorization`` but a
    signature's parameters is the signing key's (an ``Authorization`` header always wins)."""
    from core.keys import providers as keys_providers
    from core.keys.check import RefusedOrigin
    from core.objects import signing as media_signing
    from core.objects.service import object_path

    event, authenticator = app.current_event, keys_providers.checker()
    origin, query = event.headers.get("origin"), event.query_string_parameters
    try:
        if signed_media and header(app, "Authorization") is None and media_signing.carries_signature(query):
            caller = authenticator.authenticate_signed(query, lambda: object_path(event.path), origin=origin)
        else:
            agent_id = (event.path_parameters or {}).get("agentId")  # an agent route's usage counts for its agent
            caller = authenticator.authenticate(event.headers, origin=origin, agent_id=agent_id)
    except RefusedOrigin as refused:
        app.context.update(key_origins=refused.allowed)  # the refusal's CORS is the key's: no ACAO
        raise
    app.context.update(caller=caller, key_origins=caller.allowed_origins)
    observability.identify(workspace_id=caller.workspace_id, key_id=caller.api_key_id)
    return caller.rate.headers()


def brain_api(*, signed_media: bool = False) -> RestResolver:
    """Read plane: every route requires a workspace API key (and counts against its rate limit);
    ``signed_media``: a URL signed for the route's path (``POST /v1/media-urls``) stands for the key."""
    from core.keys.check import VAGUE_MESSAGE

    aws.during_init(aws.dynamodb)  # every request's key check reads DynamoDB
    return make_resolver(
        partial(_authenticate_workspace_key, signed_media=signed_media),
        lambda: _plane_origin("brain"),
        plane=lambda: "brain",
        unauthorized=VAGUE_MESSAGE,
    )


def _authenticate_portal_jwt(app: RestResolver) -> dict[str, str]:
    from core.identity import providers as identity_providers
    from core.platform.rest.bearer import bearer_token

    caller = identity_providers.sessions().authenticate(bearer_token(app.current_event.headers))
    app.context.update(caller=caller)
    observability.identify(user_id=caller.user_id)
    return {}


def portal_api(*, authenticated: bool = True) -> RestResolver:
    """Management plane: a portal JWT with a live session, unless the route signs in (``authenticated=False``)."""
    # Every portal route reads DynamoDB; a session's check verifies the JWT with the Secrets Manager key, which a
    # deployed function reads through the secrets extension (no client: core.platform.secrets).
    from core.platform.secrets import through_extension

    secrets_client = authenticated and not through_extension()
    aws.during_init(aws.dynamodb, *([partial(aws.client, "secretsmanager")] if secrets_client else []))
    return make_resolver(
        _authenticate_portal_jwt if authenticated else None,
        lambda: _plane_origin("portal"),
        plane=lambda: "portal",
        unauthorized="Send one Authorization header",
    )


def fallback_api(allowed_methods: Callable[[str], Sequence[str]] | None = None) -> RestResolver:
    """No routes and no credential: answers 404/405 for whatever API Gateway did not route; a 405 carries
    ``Allow`` with ``allowed_methods(resource)`` (RFC 9110)."""
    return make_resolver(
        None,
        lambda: _plane_origin(get_settings().api_plane),
        plane=lambda: get_settings().api_plane,
        fallback=True,
        allowed_methods=allowed_methods,
    )


def _plane_origin(plane: str) -> str:
    settings = get_settings()
    return settings.brain_allow_origin if plane == "brain" else settings.portal_allow_origin


# The boundary put the caller there before any route ran: a route of that plane always finds its caller's type.
def workspace_caller(app: RestResolver) -> WorkspaceCaller:
    return cast("WorkspaceCaller", app.context["caller"])


def portal_caller(app: RestResolver) -> PortalCaller:
    return cast("PortalCaller", app.context["caller"])


def as_writer(app: RestResolver, workspace_id: str) -> Callable[[], object]:
    """The caller's check as a writer of the workspace (404, 403), for ``parse_body(..., first=)``."""
    from core.workspaces import providers as workspaces_providers

    user_id = portal_caller(app).user_id
    return lambda: workspaces_providers.access().writer(user_id, workspace_id)


def as_owner(app: RestResolver, workspace_id: str) -> Callable[[], object]:
    """The caller's check as the workspace's owner (404, 403), for ``parse_body(..., first=)``."""
    from core.workspaces import providers as workspaces_providers

    user_id = portal_caller(app).user_id
    return lambda: workspaces_providers.access().owner(user_id, workspace_id)


def as_member(app: RestResolver, workspace_id: str) -> Callable[[], object]:
    """The caller's check as a member of the workspace (404), for ``parse_query(..., first=)``."""
    from core.workspaces import providers as workspaces_providers

    user_id = portal_caller(app).user_id
    return lambda: workspaces_providers.access().member(user_id, workspace_id)


def author(app: RestResolver, *, status: int = 200) -> Author:
    """The writer of a portal request: the caller, API Gateway's request id (its audit entry names it), the
    request's ``Idempotency-Key``, if any, and ``status``, the one the route answers a success with (its
    ``@contract``'s, and its ``json_response``'s): what the write's idempotency record keeps for a retry."""
    from core.audit.writes import Author

    request_id = str((app.current_event.get("requestContext") or {}).get("requestId") or "")
    return Author(portal_caller(app).user_id, request_id, header(app, "Idempotency-Key"), status)
