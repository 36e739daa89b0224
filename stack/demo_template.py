"""A published demo, kept to start other runners from: the test suites start many runners, and publishing the demo
through the API (hundreds of posts and uploads) takes a minute of CPU each time.

``seeded(state_dir)`` fills an empty state directory with a copy of the kept state of a runner that published the
demo from scratch, exactly as ``make serve`` does on its first start, then was started once more so that its journal
is compacted into a snapshot (``RunnerProcess._publish_template``); the runner then starts as on any restart, loading
the snapshot's items in batches (2.8 s on 2 cores, where replaying the publish's journal took 6.7 s). The template
is made once per version of what makes the demo (the bundles, the runner, the layer, the client, the template) and
reused until one of them changes; a file lock lets parallel test workers share it. Runners started with ``--fresh``
or ``--no-demo`` never use it, so the publishing path itself stays tested (``tests/local/test_demo_data.py``).
"""

from __future__ import annotations

import fcntl
import hashlib
import os
import shutil
from collections.abc import Callable
from pathlib import Path

from stack.template import ROOT

TEMPLATES = ROOT / ".local" / "demo-templates"
# What the demo's state depends on: a change to any of these makes a new template.
SOURCES = ("examples", "local", "stack", "layers/common/core", "clients/python/src", "template.yaml")
KEPT = ("state", "PortalJwtSecret.secret", "MediaUrlSecret.secret")  # what a started runner keeps of its state


def version() -> str:
    digest = hashlib.sha256()
    for source in SOURCES:
        root = ROOT / source
        files = [root] if root.is_file() else sorted(p for p in root.rglob("*") if p.is_file())
        for path in files:
            if "__pycache__" in path.parts or path.suffix in (".pyc", ".mp4", ".jpg", ".png", ".wav"):
                continue  # generated media follows from the recipes in local/demo, which are hashed
            digest.update(str(path.relative_to(ROOT)).encode() + b"\0" + path.read_bytes())
    return digest.hexdigest()[:16]


def _copy(source: Path, target: Path) -> None:
    """Hard links for the content-addressed blobs (never changed once written), copies for the rest."""
    if source.is_dir():
        shutil.copytree(source, target, copy_function=_link_or_copy, dirs_exist_ok=True)
    else:
        shutil.copy2(source, target)


def _link_or_copy(source: str, target: str) -> None:
    if "/blobs/" in source:
        try:
            os.link(source, target)
            return
        except OSError:
            pass
    shutil.copy2(source, target)


def seeded(state_dir: Path, publish: Callable[[Path], None]) -> bool:
    """Fill the empty ``state_dir`` from the template (made first with ``publish(template_dir)`` if missing).
    False, and nothing copied, when ``state_dir`` already holds a state."""
    if (state_dir / "state" / "snapshot.json").exists() or any((state_dir / "state").glob("journal-*")):
        return False
    template = TEMPLATES / version()
    TEMPLATES.mkdir(parents=True, exist_ok=True)
    with (TEMPLATES / ".lock").open("w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)  # one worker publishes; the others wait and copy
        if not (template / "ready").exists():
            shutil.rmtree(template, ignore_errors=True)
            publish(template)
            (template / "ready").write_text(version() + "\n")
    state_dir.mkdir(parents=True, exist_ok=True)
    for name in KEPT:
        if (template / name).exists():
            _copy(template / name, state_dir / name)
    return True
