"""What a route promises its callers, declared next to its handler, read only by the OpenAPI generator.

``@contract(summary, ...)`` stores the declaration on the route function and does nothing
else: no JSON schema is built, no Powertools OpenAPI machinery is imported, and a model of
``core.platform.envelopes`` is named by a string (``"envelopes.KeyList"``) so a handler that
does not build it does not import it. A handler's cold start pays nothing for its docs.
``python -m stack.openapi`` imports every handler the template routes and builds
``docs/openapi/{portal,brain}.json`` from these declarations and the very models the
handlers parse and return. Errors that every route of a plane can answer (401, 413, 415,
429, 500: see ``core.http``'s boundary) are the generator's to add; a route lists its own.

Keys (all optional but ``summary``; ``stack.openapi.Contract`` checks them):
``response`` a wire model, ``list[Model]``, an ``"envelopes.Name"`` string, or None (no JSON
body); ``status`` of success (200); ``body`` and ``query`` the models ``parse_body`` /
``parse_query`` validate; ``errors`` this route's own ``DomainError`` classes; ``auth``:
``"plane"`` (the plane's credential), ``"none"``, ``"session"`` (cookie) or
``"session-or-bearer"``; ``media_type`` of the success body; ``statuses`` further success
statuses with their meaning; ``request_headers`` / ``response_headers`` header names;
``path_values`` a path parameter's closed set of values (or of prefixes, for a
greedy ``{path+}``); ``path`` the template path this
declaration is for, when one function serves several (stack one decorator per path).
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from collections.abc import Callable


def contract(summary: str, **declaration: Any) -> Callable[[Callable[..., Any]], Callable[..., Any]]:
    def attach(func: Callable[..., Any]) -> Callable[..., Any]:
        func.__contracts__ = (*getattr(func, "__contracts__", ()), {"summary": summary, **declaration})  # type: ignore[attr-defined]
        return func

    return attach
