"""``make bench``: run every bench with a quick profile and write docs/performance.md.

Each bench runs in its own interpreter (moto, environment variables and imports do not leak from one to
the next) as ``bench/<name>.py <quick args> --json <file>``, bounded by a timeout; its result
(``{"title", "command", "markdown"}``, see bench/benchkit.py) becomes one section of the page. A bench that
is missing, fails or times out gets a section that says "not measured" and why. The page opens with the
machine (CPU model, cores, memory, load), the Python version, the date and the commit.

    .venv/bin/python bench/report.py [--only NAME ...] [--output PATH]
"""

from __future__ import annotations

import argparse
import datetime
import json
import os
import platform
import signal
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
BENCH_DIR = ROOT / "bench"


@dataclass(frozen=True)
class Bench:
    script: str
    quick: tuple[str, ...]  # the quick profile: the whole report stays under ~10 minutes on 2 cores
    timeout: int  # seconds


# In the order of issue 13's list, then the older benches. cold_import.py is left out: cold_path.py measures the
# same imports and more. Quick profiles sum to about 10 minutes on 2 cores (the page says what each run took).
BENCHES = (
    Bench("cold_path.py", ("--runs", "2"), 420),
    Bench("memory_classes.py", ("--runs", "3"), 180),
    Bench("aws_calls.py", (), 120),
    Bench("round_trips.py", ("--runs", "5"), 120),
    Bench("chat_turn.py", ("--turns", "5"), 150),
    Bench("chat_instructions.py", ("--turns", "20"), 150),
    Bench("openai_first_line.py", ("--turns", "10"), 150),
    Bench("stream_memory.py", ("--mb", "128", "--runs", "3"), 180),
    Bench("warm_profile.py", ("--runs", "20"), 150),
    Bench("runner_load.py", ("--seconds", "1.5"), 180),
    Bench("ledger_growth.py", ("--baseline-turns", "100", "--chat-turns", "50"), 240),
    Bench("hot_key.py", (), 180),
    Bench("ledger_shards.py", ("--turns", "200"), 180),
    Bench("round_trip.py", ("--requests", "10"), 120),
    Bench("cost_inputs.py", ("--runs", "5"), 180),
    Bench("cold_observability.py", ("--runs", "5"), 120),
    Bench("purge.py", ("--sizes", "1000", "2000"), 600),
    Bench("publish_bundle.py", ("--reads", "20"), 420),
    Bench("knowledge.py", ("--runs", "3", "--turns", "30", "--memory-mb", "20", "100"), 300),
    Bench("knowledge_recall.py", (), 60),
    Bench("knowledge_isolation.py", ("--runs", "3", "--paragraph-mb", "2"), 120),
    Bench("package_cold_start.py", ("--runs", "3"), 180),
    Bench("stored_conversations.py", ("--turns-per-thread", "20", "--runs", "3"), 600),
    Bench("turn_log.py", ("--turns", "3"), 300),
    Bench("feedback.py", ("--runs", "3"), 120),
    Bench("insights_reads.py", ("--runs", "3"), 600),
    Bench("console.py", ("--loads", "5"), 300),
    Bench("webhooks.py", ("--records", "100", "--webhooks", "2"), 300),
    Bench("usage_window.py", ("--days", "30"), 900),
    Bench("post_write_cost.py", ("--runs", "1"), 420),
    Bench("cost_vs_size.py", ("--sizes", "300", "3000"), 1800),
    Bench("credit_history.py", ("--sizes", "1000", "10000"), 600),
)


def machine() -> dict[str, str]:
    """What the figures were measured on."""
    cpuinfo, meminfo = _read("/proc/cpuinfo").splitlines(), _read("/proc/meminfo").splitlines()
    cpu = next((line.split(":", 1)[1].strip() for line in cpuinfo if line.startswith("model name")), "unknown")
    mem_kb = next((int(line.split()[1]) for line in meminfo if line.startswith("MemTotal")), 0)
    commit = _git("rev-parse", "--short", "HEAD")
    dirty = _git("status", "--porcelain", "--untracked-files=no", default="")
    return {
        "CPU": cpu,
        "cores": str(os.cpu_count()),
        "memory": f"{mem_kb / 1024 / 1024:.1f} GiB" if mem_kb else "unknown",
        "load average at start": " ".join(f"{x:.2f}" for x in os.getloadavg()),
        "Python": f"{platform.python_version()} ({platform.python_implementation()}, {platform.machine()})",
        "date": datetime.datetime.now(datetime.UTC).strftime("%Y-%m-%d %H:%M UTC"),
        "commit": commit + (" (with uncommitted changes)" if dirty else ""),
    }


def _read(path: str) -> str:
    try:
        return Path(path).read_text()
    except OSError:
        return ""


def _git(*args: str, default: str = "unknown") -> str:
    done = subprocess.run(["git", *args], cwd=ROOT, capture_output=True, text=True, check=False)
    return done.stdout.strip() or default


def run(bench: Bench, bench_dir: Path = BENCH_DIR) -> dict[str, str]:
    """One bench in a fresh interpreter: its result, or a "not measured" section saying why."""
    name = bench.script.removesuffix(".py")
    script = bench_dir / bench.script
    if not script.exists():
        return not_measured(name, f"bench/{bench.script} is not in this tree.")
    with tempfile.TemporaryDirectory(prefix="bench-report-") as scratch:
        output = Path(scratch) / "result.json"
        argv = [sys.executable, str(script), *bench.quick, "--json", str(output)]
        env = os.environ | {"PYTHONPATH": os.pathsep.join([str(ROOT / "layers" / "common"), str(ROOT)])}
        started = time.perf_counter()
        # Its own process group: a bench that started the local runner (which starts containers) is
        # stopped whole on a timeout, nothing left behind to skew the next bench.
        child = subprocess.Popen(argv, cwd=ROOT, env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                                 text=True, start_new_session=True)  # fmt: skip
        try:
            stdout, stderr = child.communicate(timeout=bench.timeout)
        except subprocess.TimeoutExpired:
            os.killpg(child.pid, signal.SIGTERM)
            try:
                child.communicate(timeout=30)
            except subprocess.TimeoutExpired:
                os.killpg(child.pid, signal.SIGKILL)
                child.communicate()
            return not_measured(name, f"it did not finish within {bench.timeout} s.")
        seconds = time.perf_counter() - started
        if child.returncode != 0:
            tail = "\n".join((stderr or stdout).strip().splitlines()[-12:])
            return not_measured(name, f"it exited with status {child.returncode}:\n\n```\n{tail}\n```")
        if not output.exists():
            return not_measured(name, "it wrote no --json result (not adapted to bench/benchkit.py's interface).")
        result = json.loads(output.read_text())
    print(f"bench/{bench.script}: {seconds:.0f} s", file=sys.stderr)
    return result | {"seconds": f"{seconds:.0f}"}


def not_measured(name: str, why: str) -> dict[str, str]:
    return {"title": name, "command": f".venv/bin/python bench/{name}.py", "markdown": f"Not measured: {why}"}


def render(host: dict[str, str], sections: list[dict[str, str]]) -> str:
    lines = [
        "# Performance",
        "",
        "Written by `make bench` (bench/report.py); do not edit by hand. Every figure is measured in the run",
        "that wrote this page, each bench with a quick profile; ratios compare with a baseline measured in the",
        "same run. Local figures (moto, loopback HTTP) compare changes; they do not predict AWS latency.",
        "",
        "| machine | |",
        "|---|---|",
        *(f"| {key} | {value} |" for key, value in host.items()),
    ]
    for section in sections:
        took = f" (this run: {section['seconds']} s)" if "seconds" in section else ""
        lines += ["", f"## {section['title']}", "", section["markdown"].strip(), ""]
        lines += [f"Reproduce: `{section['command']}`{took}"]
    return "\n".join(lines) + "\n"


def main(argv: list[str] | None = None) -> dict[str, str]:
    cli = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    cli.add_argument("--only", nargs="*", help="run only these benches (names without .py); the page is printed")
    cli.add_argument("--output", type=Path, help="where to write the page (default: docs/performance.md)")
    args = cli.parse_args(argv)
    host = machine()
    chosen = [b for b in BENCHES if not args.only or b.script.removesuffix(".py") in args.only]
    page = render(host, [run(bench) for bench in chosen])
    # A partial run never overwrites the whole page: printed unless a file is named.
    output = args.output or (None if args.only else ROOT / "docs" / "performance.md")
    if output:
        output.write_text(page)
        print(f"wrote {output}", file=sys.stderr)
    else:
        print(page)
    return {"title": "Performance", "command": ".venv/bin/python bench/report.py", "markdown": page}


if __name__ == "__main__":
    main(sys.argv[1:])
