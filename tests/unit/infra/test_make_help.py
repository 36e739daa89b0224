"""``make help`` names every target a person runs (issue 28: a newcomer found targets it did not list)."""

from __future__ import annotations

import re
import subprocess

from stack.template import ROOT

# Steps other targets run, not commands of their own.
INTERNAL = {"help", "package-build", "package-check-run", "deploy-check-run"}


def test_every_target_is_in_make_help() -> None:
    makefile = (ROOT / "Makefile").read_text()
    targets = set(re.findall(r"^([a-z][a-z-]*):", makefile, flags=re.MULTILINE)) - INTERNAL
    shown = subprocess.run(["make", "--no-print-directory", "help"], cwd=ROOT, capture_output=True, text=True,  # noqa: S607 - make on PATH, as a person runs it
                           check=True, timeout=30).stdout  # fmt: skip
    missing = sorted(target for target in targets if not re.search(rf"(?<![\w-]){re.escape(target)}(?![\w-])", shown))
    assert missing == []
