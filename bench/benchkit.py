"""What every bench script shares: the result shape ``bench/report.py`` assembles, Markdown tables, ``--json``.

A bench exposes ``main(argv) -> {"title", "command", "markdown"}``: it prints its Markdown section and,
with ``--json PATH``, writes the same dict there (the report runs each bench in its own interpreter and
reads that file), so a bench runs the same by hand and under ``make bench``.
"""

from __future__ import annotations

import argparse
import json
import statistics
from collections.abc import Iterable, Sequence
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent


def parser(doc: str | None) -> argparse.ArgumentParser:
    """An argument parser with the options every bench takes (``--json``)."""
    found = argparse.ArgumentParser(description=(doc or "").split("\n\n")[0])
    found.add_argument("--json", type=Path, help="also write the result (title, command, markdown) to this file")
    return found


def command(script: str, argv: Sequence[str]) -> str:
    """The shell command that reproduces a run (from the repository root), ``--json`` left out."""
    kept, skip = [], False
    for arg in argv:
        if skip or arg == "--json" or arg.startswith("--json="):
            skip = arg == "--json"
            continue
        kept.append(arg)
    return " ".join(["PYTHONPATH=layers/common:. .venv/bin/python", f"bench/{script}", *kept])


def table(headers: Sequence[str], rows: Iterable[Sequence[Any]]) -> str:
    """A Markdown table; floats are printed with one decimal, numbers right-aligned."""
    cells = [[_cell(v) for v in row] for row in rows]
    numeric = [all(_is_number(row[i]) for row in cells) and bool(cells) for i in range(len(headers))]
    lines = ["| " + " | ".join(headers) + " |", "|" + "|".join("---:" if n else "---" for n in numeric) + "|"]
    lines += ["| " + " | ".join(row) + " |" for row in cells]
    return "\n".join(lines)


def _cell(value: Any) -> str:
    if isinstance(value, float):
        return f"{value:.1f}" if abs(value) < 1000 else f"{value:.0f}"
    return str(value).replace("|", "\\|")


def _is_number(text: str) -> bool:
    try:
        float(text.rstrip("\u00d7%x"))  # ratios (1.2x, with a multiplication sign) too
    except ValueError:
        return False
    return True


def median(values: Iterable[float]) -> float:
    return statistics.median(list(values))


def percentile(values: Iterable[float], fraction: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(len(ordered) * fraction))]


def finish(args: argparse.Namespace, title: str, cmd: str, markdown: str) -> dict[str, str]:
    """Print the section, write ``--json`` if asked, and return the result dict."""
    result = {"title": title, "command": cmd, "markdown": markdown.strip()}
    print(f"## {title}\n\n{result['markdown']}\n\nReproduce: `{cmd}`")
    if args.json:
        args.json.write_text(json.dumps(result, indent=1))
    return result
