"""SnapStart: what init may prepare once, and what must be new in every restored environment.

With SnapStart (docs/decisions.md, "SnapStart"), Lambda runs a published version's init once,
snapshots the microVM's memory and resumes every new execution environment from that image. Init
is where imports and SDK clients should be paid for; but whatever init leaves in memory is then
shared by every environment restored from the snapshot:

- ``random``'s Mersenne Twister state (botocore's retry jitter, the ledger's backoff): two
  environments would draw the same sequence. Reseeded from ``os.urandom`` after each restore.
- caches stamped with ``time.monotonic()`` (the secrets in ``core.platform.secrets``): the guest's clock
  resumes from the snapshot, so an entry's age would be wrong. Their owners register a hook that
  forgets them (``after_restore``).

Ids, API keys, magic-link tokens, JWT ids and idempotency attempts come from ``secrets``, which
asks the kernel (``getrandom``) on every call and caches nothing in the process; Lambda reseeds the
guest kernel's generator on restore, so they stay unique without a hook (tests/unit/runtime/test_snapstart.py
checks both, across a fork that copies the process as a snapshot would).

The managed Python runtime ships ``snapshot_restore_py`` and runs the hooks registered with it
after a restore. Elsewhere (tests, the local runner, the streaming functions' own runtime loop,
which SnapStart is not enabled for) it is absent and ``run_after_restore`` runs the same hooks.
"""

from __future__ import annotations

import os
import random
from collections.abc import Callable

_hooks: list[Callable[[], None]] = []
_registered_with_runtime = False


def snapshotting() -> bool:
    """True during the init that Lambda snapshots (the variable is ``snap-start`` only then)."""
    return os.environ.get("AWS_LAMBDA_INITIALIZATION_TYPE") == "snap-start"


def after_restore(hook: Callable[[], None]) -> Callable[[], None]:
    """Run ``hook`` in every environment resumed from a snapshot, in registration order (usable as a decorator)."""
    _hooks.append(hook)
    _register_with_runtime()
    return hook


def run_after_restore() -> None:
    for hook in list(_hooks):
        hook()


def prime(*factories: Callable[[], object]) -> None:
    """Call each factory now when init is being snapshotted, so the snapshot holds what it builds.

    On an on-demand cold start nothing is called: there, a client a request may never need is
    better created by the request that needs it (core.platform.aws creates them lazily).
    """
    if snapshotting():
        for factory in factories:
            factory()


def _register_with_runtime() -> None:
    """Hand our dispatcher to the managed runtime's hook registry once, if this is the managed runtime."""
    global _registered_with_runtime  # noqa: PLW0603 - one registration per process
    if _registered_with_runtime:
        return
    try:
        # Shipped with Lambda's Python 3.12+ runtimes only: nowhere to find it (or stubs) elsewhere.
        from snapshot_restore_py import register_after_restore  # type: ignore[import-not-found]
    except ImportError:
        return
    register_after_restore(run_after_restore)
    _registered_with_runtime = True


@after_restore
def _reseed_random() -> None:
    random.seed()  # no argument: a fresh seed from os.urandom
