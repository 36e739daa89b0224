"""``python -m local``: run the whole service on localhost (what ``make serve`` does)."""

from __future__ import annotations

import argparse
import faulthandler
import json
import logging
import os
import signal
import sys
from pathlib import Path

from local.runner import start
from local.stopping import StopSignals
from stack.process import write_ready_files
from stack.template import ROOT


def _shown(demo: dict, *, keys: bool) -> dict:
    """The demo document as printed: raw keys only to a terminal, where a developer reads them.

    Redirected (tests, CI, ``make serve > log``) the output is a log, and no log may hold a raw key:
    they stay in ``demo.json`` (and are shown there by prefix).
    """
    if keys:
        return demo
    hidden = [ws | {"key": ws["key"][:12] + "… (in demo.json)"} for ws in demo["workspaces"]]
    return demo | {"workspaces": hidden}


def _curl_examples(demo: dict, *, keys: bool, demo_file: Path) -> str:
    if not demo["workspaces"]:
        return ""
    ws = demo["workspaces"][0]
    brain, key = demo["brainUrl"], ws["key"] if keys else "$KEY"
    agent = ws["agents"][0]["id"]
    auth = f'-H "Authorization: Bearer {key}"'
    paths = [
        "/v1/agent/_whoami",
        f"/v1/agent/{agent}",
        f"/v1/agent/{agent}/feed?channel=instagram",
        f"/v1/agent/{agent}/items",
        f"/v1/agent/{agent}/wrap",
        f"/v1/agent/{agent}/site",
        f"/v1/agent/{agent}/suggestions",
    ]
    lines = [] if keys else [f"  KEY=$(jq -r '.workspaces[0].key' {demo_file})"]
    lines += [f"  curl -s {auth} '{brain}{p}'" for p in paths]
    lines.append(f"  curl -s {auth} -H 'Range: bytes=0-99' -D - -o /dev/null '{brain}/v1/r2/assets/logo.png'")
    chat = '{"prompt": "What is new?", "client": "visitor_0123456789abcdef"}'
    json_type = "-H 'Content-Type: application/json'"
    lines.append(f"  curl -sN {auth} {json_type} -X POST '{brain}/v1/agent/{agent}/chat' -d '{chat}'")
    return "\n".join(lines)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--host", default="127.0.0.1")
    parser.add_argument("--portal-port", type=int, default=int(os.environ.get("PORTAL_PORT", "3000")))
    parser.add_argument("--brain-port", type=int, default=int(os.environ.get("BRAIN_PORT", "3001")))
    parser.add_argument(
        "--page-port", type=int, default=int(os.environ.get("PAGE_PORT", "3002")),
        help="the demo brand page (0: a free port; -1: none)",
    )  # fmt: skip
    parser.add_argument(
        "--console-port", type=int, default=int(os.environ.get("CONSOLE_PORT", "3003")),
        help="the owner's console, with /api/* on the portal (0: a free port; -1: none)",
    )  # fmt: skip
    parser.add_argument("--state-dir", type=Path, default=ROOT / ".local")
    parser.add_argument("--no-demo", action="store_true", help="seed no demo data into an empty state")
    parser.add_argument("--fresh", action="store_true", help="forget the kept state (tables, objects, queues) first")
    parser.add_argument("--media-cache", type=Path, help="where generated demo media is cached (default: state dir)")
    parser.add_argument(
        "--function-env", action="append", default=[], metavar="NAME=VALUE",
        help="a setting for every function, over the template's (e.g. MAGIC_LINK_PER_IP=1000); repeatable",
    )  # fmt: skip
    parser.add_argument(
        "--built", type=Path, metavar="BUILD_DIR",
        help="run the functions and layer sam build made there (make package-build), by the bare interpreter",
    )  # fmt: skip
    args = parser.parse_args()
    logging.basicConfig(level=logging.INFO, format="%(asctime)s %(name)s %(message)s")
    logging.getLogger("werkzeug").setLevel(logging.WARNING)  # moto's server logs every S3/DynamoDB call

    runner = start(
        args.state_dir,
        host=args.host,
        portal_port=args.portal_port,
        brain_port=args.brain_port,
        demo=not args.no_demo,
        media_cache=args.media_cache,
        function_env=dict(pair.split("=", 1) for pair in args.function_env),
        fresh=args.fresh,
        page_port=None if args.page_port < 0 else args.page_port,
        built=args.built.resolve() if args.built else None,
        console_port=None if args.console_port < 0 else args.console_port,
    )
    # From here on Ctrl-C and SIGTERM both stop gracefully: no new requests, those in flight answered, the
    # journal closed. Not before start(): a first run takes minutes, and Ctrl-C must still abort that at once.
    faulthandler.register(signal.SIGUSR1)  # kill -USR1 <pid>: every thread's stack, to stderr
    stop = StopSignals()  # handlers that take no lock: local/stopping.py says why that matters
    # Ready only now: a caller that stops the runner as soon as it is ready (RunnerProcess) must find the handlers in
    # place, or its SIGTERM meets the default action and the runner dies with -15 (seen: a demo template's runner).
    write_ready_files(args.state_dir, runner.about(), runner.demo())
    keys = sys.stdout.isatty()
    demo = _shown(runner.demo(), keys=keys)
    print(json.dumps(demo, indent=2))
    print(f"\nportal: {runner.portal_url}\nbrain:  {runner.brain_url}")
    if runner.console_url:
        built = "sign in there; mail links open it" if runner.console_built else "NOT BUILT: run `make console`"
        print(f"console: {runner.console_url}  (the owner's console: {built})")
    if runner.page_url:
        print(f"page:   {runner.page_url}  (the brand widget, chatting with the first demo agent)")
    print(f"written: {args.state_dir / 'demo.json'}")
    print("\nTry:\n" + _curl_examples(runner.demo(), keys=keys, demo_file=args.state_dir / "demo.json"), flush=True)

    signum = stop.wait()
    print(f"stopping ({signum.name}): finishing the requests in flight", flush=True)
    runner.close()
    stop.ignore_from_now()  # stopped: a signal now would only make the exit status a death by signal
    print("stopped", flush=True)  # the last line: a person (or a script) knows the stop finished, not hung


if __name__ == "__main__":
    main()
