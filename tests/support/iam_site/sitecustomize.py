"""Installed in a test runner's function workers (``PYTHONPATH``, set by ``tests/support/iam_plugin.py``):
each call the function makes is judged against its own policy, and what was denied or used is appended to
``$IAM_CHECK_DIR/<function>.<pid>.jsonl`` as it happens (a worker may be killed, never asked to report)."""

from __future__ import annotations

import os
import sys


def _install(directory: str) -> None:
    import json
    from pathlib import Path

    sys.path.append(str(Path(__file__).resolve().parents[3]))  # the repository: tests.support.iam_check
    from tests.support.iam_check import PolicyCheck, install, load_policies

    function = os.environ["AWS_LAMBDA_FUNCTION_NAME"]
    report = Path(directory) / f"{function}.{os.getpid()}.jsonl"

    def write(entry: dict[str, object]) -> None:
        with report.open("a") as out:
            out.write(json.dumps(entry) + "\n")

    policies = load_policies((Path(directory) / "policies.json").read_text())
    region = os.environ.get("AWS_REGION") or os.environ.get("AWS_DEFAULT_REGION", "us-east-1")
    partition_keys = json.loads((Path(directory) / "partition_keys.json").read_text())
    check = PolicyCheck(
        policies, region, os.environ["IAM_CHECK_ACCOUNT"], partition_keys=partition_keys,
        on_use=lambda grant, _: write({"grant": grant}), on_denied=lambda denied: write({"denied": denied}),
    )  # fmt: skip
    install(check, process_function=function)


if os.environ.get("IAM_CHECK_DIR"):
    _install(os.environ["IAM_CHECK_DIR"])
