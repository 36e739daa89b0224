"""The resolver every plane factory builds: observed, behind the boundary, with the 404/405 answers."""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from typing import Any

from core.platform import observability
from core.platform.errors import MethodNotAllowed, NotFound
from core.platform.rest.boundary import Authenticate, boundary_for
from core.platform.rest.responses import error_response, serialize
from core.platform.rest.router import NotFoundError, Response, RestResolver


class ObservedResolver(RestResolver):
    """Each ``resolve`` is one observed invocation: correlation id, cold start, the caller's ids, one
    ``request done`` line with status and latency, and the invocation's metrics (core.platform.observability)."""

    def __init__(self, plane: Callable[[], str], serializer: Callable[[Any], Any] | None = None):
        super().__init__(serializer)
        self._plane = plane

    def resolve(self, event: Mapping[str, Any], context: Any) -> dict[str, Any]:
        response: dict[str, Any] = observability.invocation(self._plane(), super().resolve, event, context)
        return response


def make_resolver(
    authenticate: Authenticate | None,
    allow_origin: Callable[[], str],
    *,
    plane: Callable[[], str],
    unauthorized: str = "Unauthorized",
    fallback: bool = False,
    allowed_methods: Callable[[str], Sequence[str]] | None = None,
) -> RestResolver:
    app = ObservedResolver(plane, serializer=serialize)
    app.use(middlewares=[boundary_for(authenticate, allow_origin, None if fallback else unauthorized)])

    @app.not_found
    def _unmatched(_: NotFoundError) -> Response[str]:
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
