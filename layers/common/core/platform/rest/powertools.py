"""Powertools' REST resolver, imported without every other resolver Powertools ships.

``from aws_lambda_powertools.event_handler import APIGatewayRestResolver`` runs the package's
``__init__``, which imports all of Powertools' resolvers: AppSync's (and with it ``asyncio``),
AppSync Events', Bedrock agents', VPC Lattice's, ...; and ``api_gateway`` imports names from
``utilities.data_classes``, whose ``__init__`` imports some 30 event classes to serve the 7 it
names. Importing ``event_handler.api_gateway`` alone would not help: Python runs a module's
parent packages first.

So the two packages are registered here as *lazy packages* before the resolver is imported: the
package module exists and finds its submodules through ``__path__`` as usual, but its ``__init__``
does not run. A name that ``__init__`` imports from a submodule is imported from that submodule
the first time anyone asks for it; the map comes from the ``__init__``'s own ``from ... import``
lines, so it follows Powertools' releases. Code that uses the package's names gets the same
objects, later. A package something imported before us (a test, the OpenAPI generator) is left
as it is. bench/cold_path.py measures what this saves; docs/decisions.md, "Cold path".
"""

from __future__ import annotations

import ast
import importlib
import importlib.util
import sys
from typing import Any

LAZY_PACKAGES = ("aws_lambda_powertools.event_handler", "aws_lambda_powertools.utilities.data_classes")


def register_lazy_package(name: str) -> None:
    """Put package ``name`` in ``sys.modules`` without running its ``__init__`` (unless it is imported already)."""
    if name in sys.modules:
        return
    spec = importlib.util.find_spec(name)
    if spec is None or spec.origin is None or spec.loader is None or spec.submodule_search_locations is None:
        return  # not a plain package on disk: the ordinary import applies
    exports, public = _exports(name, spec.origin)
    package = importlib.util.module_from_spec(spec)

    def __getattr__(attribute: str) -> Any:  # PEP 562: called for a name the module does not have
        if attribute.startswith("__"):
            raise AttributeError(f"module {name!r} has no attribute {attribute!r}")
        if attribute in exports:
            module, original = exports[attribute]
            value = getattr(importlib.import_module(module), original)
        else:
            submodule = f"{name}.{attribute}"
            try:
                value = importlib.import_module(submodule)
            except ModuleNotFoundError as missing:
                if missing.name != submodule:
                    raise
                raise AttributeError(f"module {name!r} has no attribute {attribute!r}") from None
        setattr(package, attribute, value)
        return value

    package.__getattr__ = __getattr__  # type: ignore[method-assign]
    if public is not None:
        package.__dict__["__all__"] = public  # ModuleType does not declare __all__
    sys.modules[name] = package
    parent, _, child = name.rpartition(".")
    setattr(importlib.import_module(parent), child, package)


def _exports(package: str, init_path: str) -> tuple[dict[str, tuple[str, str]], list[str] | None]:
    """What the package's ``__init__`` imports at its top level (name -> (module, name)), and its ``__all__``."""
    with open(init_path, encoding="utf-8") as source:
        tree = ast.parse(source.read(), init_path)
    exports: dict[str, tuple[str, str]] = {}
    public = None
    for node in tree.body:
        if isinstance(node, ast.ImportFrom):
            module = importlib.util.resolve_name("." * node.level + (node.module or ""), package)
            for alias in node.names:
                exports[alias.asname or alias.name] = (module, alias.name)
        elif isinstance(node, ast.Assign) and any(getattr(t, "id", None) == "__all__" for t in node.targets):
            public = list(ast.literal_eval(node.value))
    return exports, public


for _package in LAZY_PACKAGES:
    register_lazy_package(_package)

from aws_lambda_powertools.event_handler.api_gateway import APIGatewayRestResolver, Response  # noqa: E402
from aws_lambda_powertools.event_handler.exceptions import NotFoundError  # noqa: E402

__all__ = ["APIGatewayRestResolver", "NotFoundError", "Response", "register_lazy_package"]
