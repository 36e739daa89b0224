"""docs/architecture.md says "stores are the only code that calls boto3": this checks it on every AWS call the
service's own clients make in the integration and fault suites, instead of trusting a reading of the code.

``core.platform.aws`` makes every client the layer uses; each one made while ``watching`` gets a ``before-call`` hook
that
finds the innermost frame of the layer (``layers/common/core/``) on the stack. A call with no such frame is the
test's own (seeding, looking at a table); one whose innermost layer frame is outside the stores (``store.py`` and
``*_store.py`` of every package, and the platform's DynamoDB helpers they share) and the few adapters of a service
that is not storage (the Bedrock model, the SES mailer, the SQS job queues, the secrets' cache) is a violation,
reported with its stack when the test ends.
"""

from __future__ import annotations

import sys
import traceback
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from types import FrameType
from typing import Any

LAYER = str(Path(__file__).resolve().parents[2] / "layers" / "common" / "core") + "/"
# What may call AWS besides the stores: the stores' shared DynamoDB helpers, and adapters of services that are not
# storage. tests/unit/test_architecture.py holds the same rule over the imports.
ADAPTERS = ("platform/dynamo.py", "platform/transactions.py", "chat/bedrock.py", "identity/mail.py", "platform/jobs.py",
            "platform/secrets.py", "webhooks/queue.py")  # fmt: skip


def may_call_aws(module_path: str) -> bool:
    """``module_path`` relative to ``core/`` (``posts/write_store.py``)."""
    name = module_path.rsplit("/", 1)[-1]
    return name == "store.py" or name.endswith("_store.py") or module_path in ADAPTERS


def innermost_layer_frame() -> str | None:
    frame: FrameType | None = sys._getframe(1)
    while frame is not None:
        if frame.f_code.co_filename.startswith(LAYER):
            return frame.f_code.co_filename[len(LAYER) :]
        frame = frame.f_back
    return None


class CallerCheck:
    def __init__(self) -> None:
        self.violations: list[str] = []

    def before_call(self, model: Any, **_: Any) -> None:
        caller = innermost_layer_frame()
        if caller is not None and not may_call_aws(caller):
            where = "".join(traceback.format_stack(limit=12))
            self.violations.append(f"{model.service_model.service_name}.{model.name} from core/{caller}:\n{where}")

    def attach(self, client: Any) -> Any:
        client.meta.events.register("before-call.*.*", self.before_call, unique_id="architecture-callers")
        return client


@contextmanager
def watching(monkeypatch: Any) -> Iterator[CallerCheck]:
    """Every client ``core.platform.aws`` makes meanwhile is checked (its caches are emptied first, so none escapes)."""
    from core.platform import aws

    check = CallerCheck()
    made, streaming = aws.client, aws.bedrock_runtime
    made.cache_clear()
    streaming.cache_clear()
    monkeypatch.setattr(aws, "client", _checked(made, check))
    monkeypatch.setattr(aws, "bedrock_runtime", _checked(streaming, check))
    yield check


def _checked(factory: Any, check: CallerCheck) -> Any:
    def make(*args: Any) -> Any:
        return check.attach(factory(*args))

    make.cache_clear = factory.cache_clear  # type: ignore[attr-defined]  # platform_providers.reset() still empties the cache
    return make
