"""Every AWS call a function makes in the tests, judged against that function's own policy as SAM deploys it.

moto cannot do this (issue 20: it checks DynamoDB against ``*``, transactions as one action, no per-item
checks), so the tests judge each call themselves: ``tests/support/iam_eval.py`` says which (action, ARN) pairs
AWS authorizes for a call, ``iam_policies.py`` gives each function's statements resolved to the emulated ARNs.

Where a call is seen: botocore's history recorder (``botocore.history``, the hook the AWS CLI's history uses)
hears every ``API_CALL`` of every client with its API parameters, before serialization and before any stub or
injected fault; presigned requests make no call, so ``generate_presigned_url`` / ``generate_presigned_post``
are judged when signed (S3 authorizes them as the signer, when they are used). Which function made it: the
``calling`` context variable, set around each handler invocation (``tests/support/lambdas.py``), and by the
runner's workers for their whole life (``tests/support/iam_site``). A call outside any function (a test seeding
a table) is not judged.

A denied call is recorded, not raised: a handler may hide the error (r2 answers S3's 403 as 404), so the test
fails when it ends (``tests/conftest.py``), whatever the handler answered.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Mapping
from contextvars import ContextVar
from dataclasses import asdict, dataclass, field
from typing import Any

from botocore.history import BaseHistoryHandler

from tests.support.iam_eval import (
    ConditionNotEvaluated,
    ConditionNotUnderstood,
    Context,
    Statement,
    UnknownOperation,
    granting,
    matches,
    requests_of,
)

calling: ContextVar[str | None] = ContextVar("calling", default=None)  # the logical id of the function running

Grant = tuple[str, str, str]  # (function, action pattern, resource pattern) as the policy states it


@dataclass
class PolicyCheck:
    policies: dict[str, list[Statement]]
    region: str
    account: str
    test: str = ""  # the test running, named in ``used``
    # Each table's partition key attribute (by physical name): a call's dynamodb:LeadingKeys, for the grants that
    # hold only for some partitions (iam_policies.partition_keys).
    partition_keys: dict[str, str] = field(default_factory=dict)
    violations: list[str] = field(default_factory=list)
    used: dict[Grant, str] = field(default_factory=dict)  # each grant some call needed -> the first test that did
    # Told of each grant's first use and of each denial as they happen: a runner's worker writes them out at once.
    on_use: Callable[[Grant, str], None] | None = None
    on_denied: Callable[[str], None] | None = None

    def judge(self, function: str, service: str, operation: str, params: Mapping[str, Any]) -> None:
        statements = self.policies.get(function)
        if statements is None:
            self._deny(f"{function}: no such function in template.yaml ({service}.{operation})")
            return
        try:
            requests = requests_of(
                service, operation, params, self.region, self.account, partition_keys=self.partition_keys
            )
        except UnknownOperation as unknown:
            self._deny(f"{function}: {unknown}")
            return
        for action, resource, context in requests:
            try:
                allowing = granting(statements, action, resource, context)
            except (ConditionNotEvaluated, ConditionNotUnderstood) as unjudged:  # never taken to hold
                self._deny(
                    f"{function}: {action} on {resource} ({service}.{operation}): condition not judged: {unjudged}"
                )
                continue
            if not allowing:
                self._deny(f"{function} may not {action} on {resource}{_keys(context)} ({service}.{operation})")
            for statement in allowing:
                self._use(function, statement, action, resource)

    def _deny(self, violation: str) -> None:
        self.violations.append(violation)
        if self.on_denied is not None:
            self.on_denied(violation)

    def _use(self, function: str, statement: Statement, action: str, resource: str) -> None:
        # The grant is the statement's own pattern that matched, so the report names what the template says.
        for act in statement.actions:
            for res in statement.resources:
                if not (matches(act, action, ignore_case=True) and matches(res, resource)):
                    continue
                grant = (function, act, res)
                if grant not in self.used:
                    self.used[grant] = self.test
                    if self.on_use is not None:
                        self.on_use(grant, self.test)

    def taken_violations(self) -> list[str]:
        found, self.violations = self.violations, []
        return found


def _keys(context: Context) -> str:
    """The request's condition keys read, named in a denial: which partition or prefix was refused."""
    return "".join(f" [{k}: {', '.join(v)}]" for k, v in sorted(context.items()) if isinstance(v, tuple))


_active: list[PolicyCheck] = []  # the installed check (one per process)
_whole_process: list[str] = []  # a runner's worker: the one function every call of the process is made by


def install(check: PolicyCheck, *, process_function: str | None = None) -> None:
    """Judge every call made under ``calling`` (or, in a worker, every call) from now on; the last check wins."""
    import botocore.history
    import botocore.signers

    _active[:] = [check]
    _whole_process[:] = [process_function] if process_function else []
    if getattr(botocore.history, "_iam_check_installed", False):
        return
    botocore.history._iam_check_installed = True  # type: ignore[attr-defined]
    recorder = botocore.history.get_global_history_recorder()
    recorder.add_handler(_Heard())
    recorder.enable()
    # Read by botocore each time it builds a client class, so every client made from now on signs through these.
    botocore.signers.generate_presigned_url = _judged_url(botocore.signers.generate_presigned_url)
    botocore.signers.generate_presigned_post = _judged_post(botocore.signers.generate_presigned_post)


def _judge(service: str, operation: str, params: Mapping[str, Any]) -> None:
    function = calling.get() or next(iter(_whole_process), None)
    if function is not None and _active:
        _active[0].judge(function, service, operation, params)


class _Heard(BaseHistoryHandler):
    """A botocore history handler: ``emit`` hears every call's service, operation and API parameters."""

    def emit(self, event_type: str, payload: Any, source: str) -> None:
        if event_type == "API_CALL":
            _judge(payload["service"], payload["operation"], payload["params"])


def _judged_url(sign: Callable[..., str]) -> Callable[..., str]:
    def generate_presigned_url(self: Any, ClientMethod: str, Params: Any = None, *args: Any, **kwargs: Any) -> str:
        operation = self.meta.method_to_api_mapping.get(ClientMethod, ClientMethod)
        _judge(self.meta.service_model.service_name, operation, Params or {})
        return sign(self, ClientMethod, Params, *args, **kwargs)

    return generate_presigned_url


def _judged_post(sign: Callable[..., dict[str, Any]]) -> Callable[..., dict[str, Any]]:
    def generate_presigned_post(self: Any, Bucket: str, Key: str, *args: Any, **kwargs: Any) -> dict[str, Any]:
        _judge("s3", "PutObject", {"Bucket": Bucket, "Key": Key})  # a browser's POST is authorized as PutObject
        return sign(self, Bucket, Key, *args, **kwargs)

    return generate_presigned_post


def dump_policies(policies: Mapping[str, list[Statement]]) -> str:
    return json.dumps({name: [asdict(s) for s in statements] for name, statements in policies.items()})


def load_policies(text: str) -> dict[str, list[Statement]]:
    raw = json.loads(text)
    return {name: [Statement(**{**s, "actions": tuple(s["actions"]), "resources": tuple(s["resources"])})
                   for s in statements] for name, statements in raw.items()}  # fmt: skip
