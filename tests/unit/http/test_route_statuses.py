"""A route that honours ``Idempotency-Key`` declares its success status once per place that needs it, and they agree:
its ``@contract(status=...)`` (the OpenAPI documents), the status its ``json_response`` answers, and the status it
gives what stores its answer for a retry (``author(app, status=...)``, ``mint_once(..., status=...)``,
``create_once(..., status=...)``). A writer never chooses one (core/audit/writes.py)."""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

FUNCTIONS = Path(__file__).resolve().parents[3] / "functions"
DEFAULT = 200  # json_response's, author's and the contract's
KEEPERS = ("author", "create_once")  # what keeps a route's answer for a retry (a mint's: its author)


# Answers WorkspaceService.create_once's (status, body) until that returns its wire model.
def keyword(call: ast.Call, name: str) -> ast.expr | None:
    return next((k.value for k in call.keywords if k.arg == name), None)


def called(call: ast.Call) -> str:
    return call.func.attr if isinstance(call.func, ast.Attribute) else getattr(call.func, "id", "")


def idempotent_routes() -> list[tuple[str, ast.FunctionDef]]:
    routes = []
    for path in sorted(FUNCTIONS.rglob("handler.py")):
        for node in ast.walk(ast.parse(path.read_text())):
            if isinstance(node, ast.FunctionDef) and any(
                isinstance(d, ast.Call) and called(d) == "contract" and "Idempotency-Key" in ast.unparse(d)
                for d in node.decorator_list
            ):
                routes.append((str(path.relative_to(FUNCTIONS)), node))
    return routes


ROUTES = idempotent_routes()


def test_every_write_is_found() -> None:
    assert len(ROUTES) >= 24  # the writer's 22 writes, key minting and workspace creation


@pytest.mark.parametrize(("path", "route"), ROUTES, ids=[path for path, _ in ROUTES])
def test_the_contract_the_answer_and_the_record_agree_on_the_status(path: str, route: ast.FunctionDef) -> None:
    contracts = [d for d in route.decorator_list if isinstance(d, ast.Call) and called(d) == "contract"]
    declared = {ast.literal_eval(s) if (s := keyword(c, "status")) else DEFAULT for c in contracts}
    assert len(declared) == 1, path
    answers = [c for c in ast.walk(route) if isinstance(c, ast.Call) and called(c) == "json_response"]
    keepers = [c for c in ast.walk(route) if isinstance(c, ast.Call) and called(c) in KEEPERS]
    assert answers and keepers, path
    for call in answers + keepers:
        status = keyword(call, "status")
        assert {ast.literal_eval(status) if status else DEFAULT} == declared, (path, ast.unparse(call))
