"""The one HTTP factory every handler uses: routing, CORS, auth, error mapping.

``brain_api()`` and ``portal_api()`` return a Powertools ``APIGatewayRestResolver``
with one global middleware, ``_boundary``, that
- refuses bodies over the size limit (413), then a body not declared JSON (415),
- refuses a request carrying more than one ``Authorization`` header (401),
- authenticates the caller for the plane (the read plane's key check runs here),
- maps every ``DomainError`` to ``{error, code}`` and anything unexpected to a bare 500,
- adds CORS (and, on the read plane, ``RateLimit-*``) headers to every response,
reading settings at request time so importing a handler reads no environment.
"""

from __future__ import annotations

import base64
import json
import logging
from collections.abc import Callable, Iterable, Sequence
from functools import partial
from typing import TYPE_CHECKING, Any

from pydantic import BaseModel, ValidationError

from . import aws, deps, json_body, observability, origins
from .auth.bearer import authorization_count
from .errors import (
    DomainError,
    MethodNotAllowed,
    NotFound,
    PayloadTooLarge,
    Unauthorized,
    UnsupportedMediaType,
    ValidationFailed,
)
from .lambda_runtime.response_stream import StreamBody
from .powertools_rest import APIGatewayRestResolver, NotFoundError, Response
from .settings import get_settings

if TYPE_CHECKING:  # the read plane's key check is imported by brain_api, the portal's session check by portal_api
    from .services.identity import PortalCaller
    from .services.key_auth import WorkspaceCaller

logger = logging.getLogger(__name__)

JSON = "application/json; charset=utf-8"
EXPOSED_HEADERS = (
    "RateLimit-Limit, RateLimit-Remaining, RateLimit-Reset, Retry-After, ETag, Content-Range, Accept-Ranges, "
    "Content-Disposition"
)
Authenticate = Callable[[APIGatewayRestResolver], dict[str, str]]


def _serialize(value: Any) -> Any:
    """The resolver's serializer: JSON for plain data; a ``StreamBody`` passes through for the runtime to stream."""
    if isinstance(value, StreamBody):
        return value
    return json.dumps(value, separators=(",", ":"), ensure_ascii=False)


def stream_response(
    status: int, headers: dict[str, str], chunks: Iterable[bytes] | None, content_type: str | None = None
) -> Response:
    """A response whose body is produced chunk by chunk (functions with ``ResponseTransferMode: RESPONSE_STREAM``)."""
    body = StreamBody(chunks) if chunks is not None else None
    return Response(status_code=status, content_type=content_type, body=body, headers=headers)


def json_response(
    value: Any, status: int = 200, headers: dict[str, str] | None = None, cookies: list[str] | None = None
) -> Response:
    """Serialise a wire model, a list of them, or plain JSON data."""
    if isinstance(value, BaseModel):
        value = value.model_dump(mode="json", by_alias=True)
    elif isinstance(value, list):
        value = [v.model_dump(mode="json", by_alias=True) if isinstance(v, BaseModel) else v for v in value]
    body = json.dumps(value, separators=(",", ":"), ensure_ascii=False)
    return Response(status_code=status, content_type=JSON, body=body, headers=headers or {}, cookies=cookies)


def error_response(error: DomainError) -> Response:
    observability.count("Errors", code=error.code)  # every error answer passes here, so it is counted once
    return json_response(error.body(), status=error.status, headers=dict(error.headers))


def _body_size(app: APIGatewayRestResolver) -> int:
    body = app.current_event.body or ""
    if app.current_event.is_base64_encoded:
        return len(base64.b64decode(body))
    return len(body.encode())


def _cors_headers(
    allow_origin: str, request_origin: str | None, key_origins: tuple[str, ...] | None = None
) -> dict[str, str]:
    headers = {"Access-Control-Expose-Headers": EXPOSED_HEADERS}
    if key_origins is not None:  # a read-plane key restricted to some origins: its list decides (core/origins.py)
        key_cors = origins.cors_headers(key_origins, request_origin)
        echoed = key_cors.get("Access-Control-Allow-Origin")
        if echoed and allow_origin != "*" and echoed not in allow_origin.split(","):
            del key_cors["Access-Control-Allow-Origin"]  # the plane's own list still applies
        return headers | key_cors
    if allow_origin == "*":
        headers["Access-Control-Allow-Origin"] = "*"
    elif request_origin and request_origin in allow_origin.split(","):
        headers |= {
            "Access-Control-Allow-Origin": request_origin,
            "Access-Control-Allow-Credentials": "true",
            "Vary": "Origin",
        }
    return headers


def _merge_tokens(*values: str) -> str:
    """Comma-separated header tokens, each once, in order of appearance (case-insensitive)."""
    seen: dict[str, str] = {}
    for token in (t.strip() for value in values for t in value.split(",")):
        if token:
            seen.setdefault(token.lower(), token)
    return ", ".join(seen.values())


def _refuse_unreadable_request(app: APIGatewayRestResolver, unauthorized: str) -> None:
    """415 for a body not declared JSON (a missing type too: a browser's "simple" ``text/plain`` POST skips
    the CORS preflight, which the cookie-authenticated sign-in routes rely on), then 401 for a doubled credential."""
    event = app.current_event
    if event.body and not json_body.is_json_media_type(header(app, "content-type")):
        raise UnsupportedMediaType()
    if authorization_count(event.get("headers"), event.get("multiValueHeaders")) > 1:
        observability.count("Unauthorized", reason="doubled")
        raise Unauthorized(unauthorized)


def _boundary_for(
    authenticate: Authenticate | None, allow_origin: Callable[[], str], unauthorized: str | None
) -> Callable[..., Response]:
    def _boundary(app: APIGatewayRestResolver, next_middleware: Callable[..., Response]) -> Response:
        extra_headers: dict[str, str] = {}
        try:
            if _body_size(app) > get_settings().max_body_bytes:
                raise PayloadTooLarge()
            if unauthorized is not None:  # None: the fallback, whose 404/405 is about the route, not the request
                _refuse_unreadable_request(app, unauthorized)
            if authenticate is not None:
                extra_headers = authenticate(app)
            response = next_middleware(app)
        except DomainError as error:
            response = error_response(error)
        except Exception:  # incl. a ValidationError from a stored record: the service's fault, not the caller's
            logger.exception("unhandled error")
            response = error_response(DomainError())
        for name, value in (
            extra_headers
            | _cors_headers(allow_origin(), app.current_event.headers.get("origin"), app.context.get("key_origins"))
        ).items():
            if name == "Vary" and isinstance(current := response.headers.get("Vary"), str):
                response.headers["Vary"] = _merge_tokens(current, value)  # both reasons hold: keep both
            else:
                response.headers.setdefault(name, value)
        return response

    return _boundary


def validation_failed(error: ValidationError) -> ValidationFailed:
    """A 400 whose message names the first offending field."""
    first = error.errors()[0]
    field = ".".join(str(part) for part in first.get("loc", ())) or "body"
    message = str(first.get("msg", "invalid value")).removeprefix("Value error, ")
    if first.get("type") == "string_pattern_mismatch":  # pydantic's message quotes the regex: say what it means
        message = "is not in the expected format (see the API document)"
    return ValidationFailed(f"{field}: {message}")


class _ObservedResolver(APIGatewayRestResolver):
    """Each ``resolve`` is one observed invocation: correlation id, cold start, the caller's ids, one
    ``request done`` line with status and latency, and the invocation's metrics (core.observability)."""

    def __init__(self, plane: Callable[[], str], **kwargs: Any):
        super().__init__(**kwargs)
        self._plane = plane

    def resolve(self, event: dict[str, Any], context: Any) -> dict[str, Any]:
        return observability.invocation(self._plane(), super().resolve, event, context)


def _make_resolver(
    authenticate: Authenticate | None,
    allow_origin: Callable[[], str],
    *,
    plane: Callable[[], str],
    unauthorized: str = "Unauthorized",
    fallback: bool = False,
    allowed_methods: Callable[[str], Sequence[str]] | None = None,
) -> APIGatewayRestResolver:
    app = _ObservedResolver(plane, serializer=_serialize)
    app.use(middlewares=[_boundary_for(authenticate, allow_origin, None if fallback else unauthorized)])

    @app.not_found
    def _unmatched(_: NotFoundError) -> Response:
        # API Gateway sends a known path with an unrouted method to the fallback's
        # ``ANY`` on that path, and everything else to its ``/{proxy+}``. In a route's
        # own function, a path its pattern cannot match (odd characters) is simply unknown.
        resource = app.current_event.resource
        known_path = fallback and resource and resource != "/{proxy+}"
        if not known_path:
            return error_response(NotFound())
        methods = allowed_methods(resource) if allowed_methods else ()
        return error_response(MethodNotAllowed(headers={"Allow": ", ".join(methods)} if methods else None))

    return app


def _authenticate_workspace_key(app: APIGatewayRestResolver, *, signed_media: bool = False) -> dict[str, str]:
    """The key's caller; with ``signed_media`` (``/v1/r2``), a request with no ``Authorization`` but a
    signature's parameters is the signing key's (an ``Authorization`` header always wins)."""
    from .auth import media_signing
    from .services.key_auth import RefusedOrigin
    from .services.media import object_path

    event, authenticator = app.current_event, deps.key_authenticator()
    origin, query = event.headers.get("origin"), event.query_string_parameters
    try:
        if signed_media and header(app, "Authorization") is None and media_signing.carries_signature(query):
            caller = authenticator.authenticate_signed(query, lambda: object_path(event.path), origin=origin)
        else:
            caller = authenticator.authenticate(event.headers, origin=origin)
    except RefusedOrigin as refused:
        app.append_context(key_origins=refused.allowed)  # the refusal's CORS is the key's: no ACAO
        raise
    app.append_context(caller=caller, key_origins=caller.allowed_origins)
    observability.identify(workspace_id=caller.workspace_id, key_id=caller.api_key_id)
    return caller.rate.headers()


def brain_api(*, signed_media: bool = False) -> APIGatewayRestResolver:
    """Read plane: every route requires a workspace API key (and counts against its rate limit);
    ``signed_media``: a URL signed for the route's path (``POST /v1/media-urls``) stands for the key."""
    from .services.key_auth import VAGUE_MESSAGE

    aws.during_init(aws.dynamodb)  # every request's key check reads DynamoDB
    return _make_resolver(
        partial(_authenticate_workspace_key, signed_media=signed_media),
        lambda: _plane_origin("brain"),
        plane=lambda: "brain",
        unauthorized=VAGUE_MESSAGE,
    )


def _authenticate_portal_jwt(app: APIGatewayRestResolver) -> dict[str, str]:
    from .auth.bearer import bearer_token

    caller = deps.identity().authenticate(bearer_token(app.current_event.headers))
    app.append_context(caller=caller)
    observability.identify(user_id=caller.user_id)
    return {}


def portal_api(*, authenticated: bool = True) -> APIGatewayRestResolver:
    """Management plane: a portal JWT with a live session, unless the route signs in (``authenticated=False``)."""
    # Every portal route reads DynamoDB; a session's check verifies the JWT with the Secrets Manager key.
    aws.during_init(aws.dynamodb, *([partial(aws.client, "secretsmanager")] if authenticated else []))
    return _make_resolver(
        _authenticate_portal_jwt if authenticated else None,
        lambda: _plane_origin("portal"),
        plane=lambda: "portal",
        unauthorized="Send one Authorization header",
    )


def fallback_api(allowed_methods: Callable[[str], Sequence[str]] | None = None) -> APIGatewayRestResolver:
    """No routes and no credential: answers 404/405 for whatever API Gateway did not route; a 405 carries
    ``Allow`` with ``allowed_methods(resource)`` (RFC 9110)."""
    return _make_resolver(
        None,
        lambda: _plane_origin(get_settings().api_plane),
        plane=lambda: get_settings().api_plane,
        fallback=True,
        allowed_methods=allowed_methods,
    )


def _plane_origin(plane: str) -> str:
    settings = get_settings()
    return settings.brain_allow_origin if plane == "brain" else settings.portal_allow_origin


def workspace_caller(app: APIGatewayRestResolver) -> WorkspaceCaller:
    return app.context["caller"]


def portal_caller(app: APIGatewayRestResolver) -> PortalCaller:
    return app.context["caller"]


def parse_body[M: BaseModel](app: APIGatewayRestResolver, model: type[M]) -> M:
    """The JSON body as ``model``; 400 VALIDATION_ERROR naming the field when it is not."""
    try:
        data = json_body.loads(app.current_event.decoded_body or "null")
    except json_body.BodyRefused as exc:
        raise ValidationFailed(str(exc)) from exc
    except UnicodeDecodeError as exc:
        raise ValidationFailed("body: must be valid JSON") from exc
    if not isinstance(data, dict):
        raise ValidationFailed("body: must be a JSON object")
    try:
        return model.model_validate(data)
    except ValidationError as error:
        raise validation_failed(error) from error


def parse_query[M: BaseModel](app: APIGatewayRestResolver, model: type[M]) -> M:
    """The query string as ``model``; 400 VALIDATION_ERROR naming the parameter when it is not."""
    try:
        return model.model_validate(app.current_event.query_string_parameters or {})
    except ValidationError as error:
        raise validation_failed(error) from error


def header(app: APIGatewayRestResolver, name: str) -> str | None:
    return next((v for k, v in (app.current_event.headers or {}).items() if k.lower() == name.lower()), None)


def query_param(app: APIGatewayRestResolver, name: str) -> str | None:
    return (app.current_event.query_string_parameters or {}).get(name)
