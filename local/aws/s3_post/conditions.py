"""S3's POST policy: the document read as S3 reads it, then its conditions checked against the form.

From AWS's "POST Policy" (SigV4). Where S3's answers differ from the documentation they follow the answers S3
gave (LocalStack's AWS-validated recordings, captures in issue trackers): a failed condition is 403
``AccessDenied`` "Invalid according to Policy: ...", not the documented 400 ``InvalidPolicyDocument``, which S3
gives only for a policy it cannot read; sizes out of range are 400 ``EntityTooLarge`` / ``EntityTooSmall`` with
``ProposedSize`` and the bound, the bounds inclusive.
"""

from __future__ import annotations

import base64
import binascii
import json
import re
from collections.abc import Mapping
from dataclasses import dataclass
from datetime import datetime
from typing import Any

from local.aws.s3_post.form import Refusal

# The fields no condition has to name; so are those starting "x-ignore-".
UNCONDITIONED = frozenset({"file", "policy", "x-amz-signature"})
OPERATIONS = frozenset({"eq", "starts-with", "content-length-range"})
EXPIRATION = re.compile(r"\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d{1,6})?Z")  # UTC only: S3 refuses an offset
DENIED = "Invalid according to Policy: "


@dataclass(frozen=True)
class Condition:
    operation: str  # eq, starts-with or content-length-range (lower-cased)
    subject: Any  # "$field" as written; a range's lower bound
    operand: Any  # the value or prefix; a range's upper bound
    shown: str  # as S3 prints it when it fails: a simple condition as its "eq" array, the policy's spelling kept


def read_policy(policy: str) -> tuple[datetime, list[Condition]]:
    """The policy document's expiration and conditions; a document S3 cannot read is 400 InvalidPolicyDocument."""
    try:
        decoded = base64.b64decode(policy, validate=True)
    except binascii.Error as error:
        raise _invalid("invalid Base64 encoding.") from error
    try:
        document = json.loads(decoded)
    except ValueError as error:
        raise _invalid("Invalid JSON.") from error
    if not isinstance(document, dict):
        raise _invalid("Invalid JSON.")
    for name in document:  # member names are case-sensitive: "EXPIRATION" is not one
        if name not in ("expiration", "conditions"):
            raise _invalid(f"Unexpected: '{name.lower()}'")
    if "expiration" not in document:
        raise _invalid("Policy missing expiration.")
    expiration = document["expiration"]
    if not isinstance(expiration, str) or not EXPIRATION.fullmatch(expiration):
        raise _invalid(f"Invalid 'expiration' value: '{expiration}'")
    if "conditions" not in document:
        raise _invalid("Policy missing conditions.")
    if not isinstance(document["conditions"], list):
        raise _invalid("Invalid 'conditions' value: must be a List.")
    return datetime.fromisoformat(expiration), [_condition(item) for item in document["conditions"]]


def _condition(item: object) -> Condition:
    if isinstance(item, dict):
        if len(item) != 1:
            raise _invalid("Invalid Simple-Condition: Simple-Conditions must have exactly one property specified.")
        ((name, value),) = item.items()
        if not isinstance(value, str):
            raise _invalid("Invalid Simple-Condition: value must be a string.")
        return Condition("eq", f"${name}", value, _shown(["eq", f"${name}", value]))
    if not isinstance(item, list):
        raise _invalid("Invalid condition test: must be a List or Object.")
    if not item or not isinstance(item[0], str):
        raise _invalid("Invalid Condition: missing operation identifier.")
    operation = item[0].lower()
    if operation not in OPERATIONS:
        raise _invalid(f"Invalid Condition: unknown operation '{item[0]}'.")
    if len(item) != 3:
        raise _invalid(f"Invalid {item[0]}: wrong number of arguments.")
    if operation == "content-length-range" and any(isinstance(bound, float) for bound in item[1:]):
        raise _invalid("Invalid JSON.")  # S3's answer to a bound like 512.0
    if operation != "content-length-range" and not all(isinstance(operand, str) for operand in item[1:]):
        raise _invalid("Invalid JSON.")
    return Condition(operation, item[1], item[2], _shown(item))


def check_conditions(conditions: list[Condition], values: Mapping[str, str], names: Mapping[str, str], *,
                     bucket: str, size: int) -> None:  # fmt: skip
    """Every condition holds and every field is named by one; then the file's size is within every range."""
    named: set[str] = set()
    for condition in conditions:
        if condition.operation == "content-length-range":
            continue
        field = condition.subject[1:].lower() if condition.subject.startswith("$") else None
        if field is not None:
            named.add(field)
        # The bucket is the one posted to; any other field must be in the form (even for starts-with "").
        actual = bucket if field == "bucket" else values.get(field or "")
        if actual is None or not (
            actual == condition.operand if condition.operation == "eq" else actual.startswith(condition.operand)
        ):
            raise Refusal(403, "AccessDenied", f"{DENIED}Policy Condition failed: {condition.shown}")
    extra = [
        sent
        for field, sent in names.items()
        if field not in named | UNCONDITIONED and not field.startswith("x-ignore-")
    ]
    if extra:
        raise Refusal(403, "AccessDenied", f"{DENIED}Extra input fields: {extra[0]}")
    for condition in conditions:
        if condition.operation == "content-length-range":
            low, high = _bound(condition.subject), _bound(condition.operand)
            if low is None or high is None:
                raise Refusal(403, "AccessDenied", f"{DENIED}Policy Condition failed: {condition.shown}")
            if size > high:
                message = "Your proposed upload exceeds the maximum allowed size"
                raise Refusal(400, "EntityTooLarge", message, ProposedSize=size, MaxSizeAllowed=high)
            if size < low:
                message = "Your proposed upload is smaller than the minimum allowed size"
                raise Refusal(400, "EntityTooSmall", message, ProposedSize=size, MinSizeAllowed=low)


def _bound(value: object) -> int | None:
    """A range bound: an integer, or a string of digits (S3 takes both); anything else fails the condition."""
    if isinstance(value, int) and not isinstance(value, bool):
        return value
    if isinstance(value, str) and re.fullmatch(r"-?\d+", value):
        return int(value)
    return None


def _shown(condition: list[Any]) -> str:
    return json.dumps(condition, ensure_ascii=False)


def _invalid(why: str) -> Refusal:
    return Refusal(400, "InvalidPolicyDocument", f"Invalid Policy: {why}")
