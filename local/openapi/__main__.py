"""``python -m local.openapi [--check]`` runs ``python -m stack.openapi [--check]``."""

from __future__ import annotations

import sys

from stack.openapi.__main__ import main

if __name__ == "__main__":
    sys.exit(main())
