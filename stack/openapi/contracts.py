"""The operations of a plane: template routes (the source of truth) joined to the contracts their handlers declare."""

from __future__ import annotations

import importlib.util
import re
import sys
from dataclasses import dataclass, field
from functools import cache
from types import ModuleType
from typing import TYPE_CHECKING, Any

from stack.template import Route, Stack, load

if TYPE_CHECKING:  # core is imported when a document is built, once the layer is on the path
    from core.platform.errors import DomainError

PLANES = {"portal": "PortalApi", "brain": "BrainApi"}
_PARAM = re.compile(r"\{([^}+]+)\+?\}")


@dataclass(frozen=True)
class Contract:
    """``core.platform.contract.contract``'s keys, checked (an unknown key is a TypeError here, not a silent typo)."""

    summary: str
    response: Any = None
    status: int | None = 200
    body: Any = None
    query: Any = None
    errors: tuple[type[DomainError], ...] = ()
    auth: str = "plane"
    media_type: str = "application/json"
    statuses: dict[int, str] = field(default_factory=dict)
    request_headers: tuple[str, ...] = ()
    response_headers: tuple[str, ...] | dict[int, tuple[str, ...]] = ()
    path_values: dict[str, tuple[str, ...]] = field(default_factory=dict)
    description: str | None = None
    path: str | None = None

    def headers_for(self, status: int) -> tuple[str, ...]:
        if isinstance(self.response_headers, dict):
            return self.response_headers.get(status, ())
        return self.response_headers if status == self.status else ()


@dataclass(frozen=True)
class Operation:
    plane: str
    path: str  # OpenAPI form: API Gateway's greedy ``{path+}`` is ``{path}``
    method: str
    function: str  # the template's logical id
    operation_id: str
    contract: Contract
    module_doc: str

    @property
    def path_params(self) -> list[str]:
        return _PARAM.findall(self.path)


@cache
def stack() -> Stack:
    return Stack(load())


def _ensure_layer_on_path() -> None:
    for layer in stack().layer_dirs():
        if str(layer) not in sys.path:
            sys.path.insert(0, str(layer))


@cache
def handler_module(logical_id: str) -> ModuleType:
    """A function's handler, imported under a name of its own (every handler file is ``handler.py``)."""
    _ensure_layer_on_path()
    spec = stack().functions()[logical_id]
    module, _ = spec.handler.rsplit(".", 1)
    path = spec.code_uri / f"{module.replace('.', '/')}.py"
    loader = importlib.util.spec_from_file_location(f"openapi_handler_{logical_id}", path)
    assert loader is not None and loader.loader is not None
    loaded = importlib.util.module_from_spec(loader)
    loader.loader.exec_module(loaded)
    return loaded


def _routes_of(module: ModuleType) -> list[Any]:
    app = getattr(module, "app", None)
    return [*app._static_routes, *app._dynamic_routes] if app is not None else []


def _declaration(route: Route, func: Any) -> dict[str, Any]:
    declared = getattr(func, "__contracts__", ())
    matching = [d for d in declared if d.get("path") in (None, route.path)]
    if len(matching) != 1:
        where = f"{route.method} {route.path} ({route.function})"
        raise LookupError(f"{where}: {len(matching)} @contract declarations match; declare exactly one")
    return matching[0]


def operations(plane: str) -> list[Operation]:
    """Every (path, method) the template routes to a handler with routes; the fallback (no routes) is not one."""
    found: list[Operation] = []
    ids: set[str] = set()
    for route in stack().routes(PLANES[plane]):
        module = handler_module(route.function)
        handler_routes = [r for r in _routes_of(module) if r.method == route.method]
        if route.method == "ANY" or not _routes_of(module):
            continue
        if len(handler_routes) != 1:
            raise LookupError(f"{route.function} has {len(handler_routes)} {route.method} routes; expected one")
        func = handler_routes[0].func
        contract = Contract(**_declaration(route, func))
        op_id = _unique(func.__name__, route, ids)
        path = route.path.replace("+}", "}")
        found.append(Operation(plane, path, route.method, route.function, op_id, contract, module.__doc__ or ""))
    return found


def _unique(name: str, route: Route, taken: set[str]) -> str:
    candidates = [name, f"{name}_{route.method.lower()}"]
    if route.path.count("{") == 0:
        candidates.insert(1, f"{name}_without_key")
        candidates.insert(2, f"{name}_without_key_{route.method.lower()}")
    chosen = next((c for c in candidates if c not in taken), f"{name}_{len(taken)}")
    taken.add(chosen)
    return chosen


def template_operations(plane: str) -> set[tuple[str, str]]:
    """(OpenAPI path, method) of every route the template sends to a handler other than the fallback."""
    return {
        (r.path.replace("+}", "}"), r.method)
        for r in stack().routes(PLANES[plane])
        if r.method != "ANY" and _routes_of(handler_module(r.function))
    }
