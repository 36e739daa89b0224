"""``python -m stack.openapi [--check]``: write (or check) docs/openapi/{portal,brain}.json."""

from __future__ import annotations

import argparse
import sys

from stack.openapi import drifted, path_of, render
from stack.openapi.contracts import PLANES


def main() -> int:
    parser = argparse.ArgumentParser(prog="python -m stack.openapi")
    parser.add_argument("--check", action="store_true", help="exit 1 if a checked-in document is out of date")
    args = parser.parse_args()
    if args.check:
        stale = drifted()
        for plane in stale:
            print(f"{path_of(plane)} is out of date: run `python -m stack.openapi`", file=sys.stderr)
        return 1 if stale else 0
    for plane in PLANES:
        path_of(plane).parent.mkdir(parents=True, exist_ok=True)
        path_of(plane).write_text(render(plane))
        print(f"wrote {path_of(plane)}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
