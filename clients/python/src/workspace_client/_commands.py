"""What the command modules share to register a subcommand that runs signed in (``cli.py`` hands each module its
``signed_in``: the session opened from ``--session-file``, as a context manager of the portal client)."""

from __future__ import annotations

import argparse
from collections.abc import Callable
from contextlib import AbstractContextManager
from typing import Any

from .portal import Portal

SignedIn = Callable[[argparse.Namespace], AbstractContextManager[Portal]]
Run = Callable[[Portal, argparse.Namespace], int]


def signed_in_command(parent: Any, name: str, run: Run, *, signed_in: SignedIn, parents: list[Any], help: str,
                      description: str | None = None) -> argparse.ArgumentParser:  # fmt: skip
    """``name`` under ``parent``: its help (the description defaults to it), running ``run`` with a signed-in
    portal client."""
    sub: argparse.ArgumentParser = parent.add_parser(name, parents=parents, help=help, description=description or help)
    sub.set_defaults(run=lambda args: run_signed_in(signed_in, run, args))
    return sub


def run_signed_in(signed_in: SignedIn, run: Run, args: argparse.Namespace) -> int:
    with signed_in(args) as portal:
        return run(portal, args)
