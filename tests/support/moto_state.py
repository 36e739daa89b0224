"""The template's resources in moto, made once per test process and restored for each test from a copy.

Creating them through the API (``local.aws.emulator.create_resources``: 4 tables, a bucket, 4 queues, a secret)
is 23 calls, about 50 ms; ~2,600 tests take the ``aws`` fixture. Each test's moto still starts empty
(``mock_aws`` resets every backend); the backends the creation filled are then given a deep copy of the state
they had right after it, about 2 ms. A test therefore starts from exactly what ``create_resources`` makes, and
no test sees another's writes: the copy is taken before any test ran and copied again for each.

``taken`` and ``put_back`` are the copy and its restoring; the fault suite keeps its scenarios' arranged states
with them too (``tests/support/fault_harness.py``).
"""

from __future__ import annotations

import contextlib
import copy
import threading
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from typing import Any

# The moto backends create_resources fills (moto also makes IAM's on its own, left to start empty as before).
SERVICES = ("dynamodb", "s3", "sqs", "secretsmanager")
_LOCKS = (type(threading.Lock()), type(threading.RLock()))


@dataclass(frozen=True)
class Backends:
    """A deep copy of moto's backends of ``SERVICES``, by (service, account, region). Each backend itself (which its
    objects may point back to) is replaced in the copy by a stand-in, so that a copy put back points to the backend it
    is put back into."""

    states: dict[tuple[str, str, str], tuple[object, dict[str, Any]]]


_created: list[Backends] = []  # the state right after the template's creation, once made in this process


@contextlib.contextmanager
def _fresh_locks() -> Iterator[None]:
    """moto's objects hold locks and conditions (SQS's queues), which ``copy.deepcopy`` cannot copy: a copy gets new,
    unheld ones (a condition built anew on the copy of its lock: its ``acquire`` is a method of that lock)."""
    # copy's own table of copiers, only while copying: copyreg (the public hook) would make locks picklable for the
    # whole process, and __deepcopy__ cannot be set on the locks' built-in types.
    dispatch: dict[type, Callable[[Any, dict[int, Any]], Any]] = copy._deepcopy_dispatch  # type: ignore[attr-defined]
    for kind in _LOCKS:
        dispatch[kind] = lambda lock, memo: type(lock)()
    dispatch[threading.Condition] = lambda condition, memo: threading.Condition(copy.deepcopy(condition._lock, memo))
    try:
        yield
    finally:
        for copied in (*_LOCKS, threading.Condition):
            dispatch.pop(copied, None)


def _backends() -> dict[tuple[str, str, str], Any]:
    """Every region's backend of ``SERVICES`` that moto holds now, by (service, account, region)."""
    from moto.core.base_backend import BackendDict

    found = {}
    for backends in BackendDict._instances:  # type: ignore[misc]  # moto's own list of the backends in use
        if backends.service_name in SERVICES:
            for account, regions in backends.items():
                for region, backend in regions.items():
                    found[(backends.service_name, account, region)] = backend
    return found


def taken() -> Backends:
    """A copy of what moto's backends of ``SERVICES`` hold now."""
    states = {}
    with _fresh_locks():
        for key, backend in _backends().items():
            stand_in = object()
            states[key] = stand_in, copy.deepcopy(backend.__dict__, {id(backend): stand_in})
    return Backends(states)


def put_back(kept: Backends) -> None:
    """Every backend ``kept`` holds given a copy of its state then (the kept copy stays as it is, to be put back
    again); inside a started ``mock_aws``."""
    from moto.backends import get_backend

    with _fresh_locks():
        for (service, account, region), (stand_in, state) in kept.states.items():
            backend = get_backend(service)[account][region]  # type: ignore[call-overload]  # moto's own
            backend.__dict__ = copy.deepcopy(state, {id(stand_in): backend})


def with_template_resources(create: Callable[[], None]) -> None:
    """Inside a started ``mock_aws``: ``create()`` the first time in this process, its result put back after."""
    if not _created:
        create()
        _created.append(taken())
    else:
        put_back(_created[0])
