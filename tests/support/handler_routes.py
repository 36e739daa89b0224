"""Each handler's own routes against template.yaml's: two sources written by hand, compared (issue 38, weakness 8).

API Gateway sends a request to a function by the template's ``Events`` (``Path``, ``Method``); the function's
resolver (``core.http``'s factories: ``core.platform.rest.router.RestResolver``) then routes it again by what the
handler declares, ``@app.get("/v1/agent/<agentId>/feed")``. A handler whose path differs from its event's (``/item`` for
``/items``, ``<agent_id>`` for ``{agentId}``) answers every real request 404, or reads its parameters under other
names than the ones the boundary reads (``pathParameters["agentId"]``): nothing built from the template alone sees
it. Here the template side is read from the template's own events, the handler side from the resolver the handler
module builds, and each template route must be served by exactly one handler route of the same method whose path
is the template's (names included), and each handler route must serve some template route.

A handler route written as a regex (``/v1/r2.*``: the key spans segments, API Gateway's ``{path+}``) is compared by
what it does: it matches a request path built from the template's, reads the template's other parameters under
their names, and its literal text is the template path's up to the greedy parameter.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

APIS = ("BrainApi", "PortalApi")
_PARAM = re.compile(r"\{([^{}+]+)(\+?)\}")
_DECLARED_PARAM = re.compile(r"<(\w+)>")
_PLAIN = re.compile(r"[\w/{}-]*")  # a path with parameters only: no regex of its own


@dataclass(frozen=True)
class TemplateRoute:
    function: str  # the template's logical id
    api: str
    method: str  # upper case; ANY is the fallback's
    path: str  # as the event writes it: /v1/r2/{path+}


@dataclass(frozen=True)
class Declared:
    method: str
    path: str  # as the handler writes it: /v1/agent/<agentId>/feed
    rule: re.Pattern[str]  # the resolver's compiled pattern, what a request's path is matched against

    @property
    def shown(self) -> str:
        return f"{self.method} {self.path}"


def template_routes(template: Mapping[str, Any]) -> list[TemplateRoute]:
    """Every Api event of every function on the two planes' APIs, as the template writes it."""
    found = []
    for name, resource in template["Resources"].items():
        if resource.get("Type") != "AWS::Serverless::Function":
            continue
        for event in (resource.get("Properties", {}).get("Events") or {}).values():
            props = event.get("Properties", {})
            api = props.get("RestApiId", {}).get("Ref") if isinstance(props.get("RestApiId"), dict) else None
            if event.get("Type") == "Api" and api in APIS:
                found.append(TemplateRoute(name, api, str(props["Method"]).upper(), props["Path"]))
    return found


def declared_routes(module: Any) -> list[Declared]:
    """The routes a handler module's resolver (``app``) holds, as it matches requests."""
    app = getattr(module, "app", None)
    routes = [*app._static_routes, *app._dynamic_routes] if app is not None else []
    return [Declared(route.method.upper(), route.path, route.rule) for route in routes]


def sample_path(path: str) -> str:
    """A request path API Gateway sends for a template path: each ``{name}`` a value, ``{name+}`` several segments."""
    return _PARAM.sub(lambda m: f"{m.group(1)}-1" + ("/deeper/leaf.png" if m.group(2) else ""), path)


def _template_form(declared: str) -> str:
    return _DECLARED_PARAM.sub(r"{\1}", declared)


def _disagreement(declared: Declared, route: TemplateRoute) -> str | None:
    """Why ``declared`` is not ``route``'s path (None: it is). ``declared`` already matches the route's sample."""
    if _PLAIN.fullmatch(_template_form(declared.path)):
        if _template_form(declared.path) != route.path:
            return f"declares {declared.shown}, the template routes {route.method} {route.path}"
        return None
    match = declared.rule.fullmatch(sample_path(route.path))
    assert match is not None  # chosen for matching it
    expected = {m.group(1): f"{m.group(1)}-1" for m in _PARAM.finditer(route.path) if not m.group(2)}
    if match.groupdict() != expected:
        read, given = sorted(match.groupdict()), sorted(expected)
        return f"{declared.shown} reads {read}; the template's {route.path} gives {given}"
    # Its literal text is the template's up to the greedy parameter (a trailing slash aside): /v1/r2 for /v1/r2/{path+}
    literal = _template_form(re.split(r"[.*+?()\[\]|^$\\]", declared.path, maxsplit=1)[0])
    fixed = re.split(r"\{[^{}]+\+\}", route.path, maxsplit=1)[0]
    if literal.rstrip("/") != fixed.rstrip("/"):
        return f"{declared.shown} starts with {literal}, the template's {route.path} with {fixed}"
    return None


def disagreements(routes: list[TemplateRoute], declared: Mapping[str, list[Declared]]) -> list[str]:
    """Every way the handlers' routes (``declared``, by function) and the template's differ; empty when they agree."""
    found: list[str] = []
    served: set[tuple[str, Declared]] = set()
    for route in routes:
        own = declared.get(route.function, [])
        if route.method == "ANY":  # the fallback: answers 404/405 for what nothing else routes, so it declares none
            found += [f"{route.function} (ANY {route.path}) declares {d.shown}" for d in own]
            continue
        sample = sample_path(route.path)
        matching = [d for d in own if d.method == route.method and d.rule.fullmatch(sample)]
        if len(matching) != 1:
            shown = ", ".join(d.shown for d in own) or "no route"
            found.append(f"{route.function}: {len(matching)} handler routes serve {route.method} {route.path} "
                         f"(a request to {sample}); it declares {shown}")  # fmt: skip
            continue
        served.add((route.function, matching[0]))
        why = _disagreement(matching[0], route)
        if why:
            found.append(f"{route.function}: {why}")
    routed = {route.function for route in routes}
    for function, own in declared.items():
        found += [f"{function}: {d.shown} serves no route of the template" for d in own
                  if function in routed and (function, d) not in served]  # fmt: skip
    return found
