"""``python -m ops smoke`` (``make smoke [STACK=name]``): one command that verifies a running stack end to end.

A temporary user, workspace, key and published agent; every endpoint of both planes checked over HTTP(S); and
everything removed again, even when a check fails. What it checks and leaves behind: docs/smoke.md.
"""

from __future__ import annotations

from .run import smoke
from .target import Target, deployed, local_runner, running_local

__all__ = ["Target", "deployed", "local_runner", "running_local", "smoke"]
