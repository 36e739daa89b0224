"""Warm time in our own code for whoami, feed and chat, and where it goes (cProfile, the repository's code only).

The real handlers in-process against moto with the demo workspace (bench/in_process.py). Per endpoint: one
request to warm the container, then ``--runs`` timed requests; the time with an AWS call in flight (moto here,
DynamoDB on AWS) is taken out, what is left is our code, the SDK's and the libraries'. Then the same requests
again under cProfile: the five entries of this repository's code (handlers and ``core``) with the most
cumulative time per request, less the time inside AWS calls and waiting for threads (bench/own_time.py).
Chat runs the offline model without pauses (``operations()`` sets it so).

    PYTHONPATH=layers/common:. .venv/bin/python bench/warm_profile.py [--runs 30] [--json PATH]
"""

from __future__ import annotations

import contextlib
import cProfile
import pstats
import sys
import time
from pathlib import Path

sys.path[:0] = [str(Path(__file__).resolve().parent.parent)]  # a script: make ``bench`` importable

from bench.aws_calls import feed_cache  # noqa: E402
from bench.benchkit import ROOT, command, finish, median, parser, table  # noqa: E402
from bench.in_process import Operation, captured_output, demo_stack, invoke, operations, prepare, unprepare  # noqa: E402
from bench.own_time import top_own  # noqa: E402
from bench.timeline import Timeline  # noqa: E402

PROFILED = ("whoami", "feed", "chat")
OURS = (str(ROOT / "layers" / "common" / "core"), str(ROOT / "functions"))
TOP = 5


def timed(op: Operation, runs: int) -> tuple[list[float], list[float]]:
    """Whole and own (AWS calls taken out) milliseconds of ``runs`` warm requests."""
    timeline = Timeline()
    session = prepare(op)
    session.events.register("before-call", lambda **_: timeline.enter("call"))
    session.events.register("after-call", lambda **_: timeline.leave("call"))
    whole, own = [], []
    with captured_output():
        invoke(op, op.event({}))  # the container's first request
        for _ in range(runs):
            timeline.take()
            start = time.perf_counter()
            invoke(op, op.event({}))
            elapsed = (time.perf_counter() - start) * 1000
            whole.append(elapsed)
            own.append(elapsed - timeline.take()["call"])
    return whole, own


def profiled(op: Operation, runs: int) -> list[list[object]]:
    """Our code's top entries by own cumulative time (bench/own_time.py): [function, calls, ms] per request."""
    from core.platform import together

    profile = cProfile.Profile()
    # cProfile sees every thread (sys.monitoring) but files a worker thread's calls under whatever frame the main
    # thread is in: reads issued together run one after another here, so each call sits under its caller.
    concurrently, together.run = together.run, together.in_order
    with captured_output():
        for _ in range(runs):
            event = op.event({})
            profile.enable()
            invoke(op, event)
            profile.disable()
    together.run = concurrently
    unprepare(op)
    top = top_own(pstats.Stats(profile), OURS, TOP)
    return [
        [f"{Path(file).relative_to(ROOT)}:{line} {name}", round(calls / runs, 1), seconds * 1000 / runs]
        for (file, line, name), calls, seconds in top
    ]


def main(argv: list[str] | None = None) -> dict[str, str]:
    cli = parser(__doc__)
    cli.add_argument("--runs", type=int, default=30)
    args = cli.parse_args(argv)
    summary, sections = [], []
    with demo_stack() as demo:
        for op in operations(demo):
            if op.label.split()[0] not in PROFILED:
                continue
            # The feed uncached: its own work, not the per-container cache's (a hit is about whoami's time).
            with feed_cache(0) if op.label.startswith("feed") else contextlib.nullcontext():
                whole, own = timed(op, args.runs)
                top = profiled(op, args.runs)
            label = op.label.replace("posts)", "posts, uncached)")
            summary.append([label, median(whole), median(own), f"{median(own) / median(whole):.0%}"])
            sections.append(f"{label}, top {TOP} of our code by own cumulative time:\n\n"
                            + table(["function", "calls / request", "ms / request"], top))  # fmt: skip
    markdown = "\n\n".join([
        f"Median of {args.runs} warm requests in-process (moto); own: less the wall time with an AWS call in "
        "flight. Profiled times include cProfile's overhead: compare entries with each other, not with the first "
        "table.",
        table(["endpoint", "warm ms", "own ms", "own share"], summary),
        *sections,
    ])  # fmt: skip
    return finish(args, "Warm time in our own code (whoami, feed, chat)", command("warm_profile.py", argv or []),
                  markdown)  # fmt: skip


if __name__ == "__main__":
    main(sys.argv[1:])
