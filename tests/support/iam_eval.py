"""IAM's decision on one request under a set of identity statements, and the requests AWS authorizes for a call.

``allowed``: IAM's evaluation of identity policies within one account, without conditions. An explicit Deny
wins, then any Allow; anything else is the implicit deny. Action / NotAction and Resource / NotResource match
with the ``*`` and ``?`` wildcards (``*`` spans ``:`` and ``/``, as in IAM), action names case-insensitively,
ARNs case-sensitively.

Not judged here: Condition blocks. A statement with a Condition is taken to apply whatever its keys say
(``Statement.condition`` keeps it): an Allow conditioned on ``s3:prefix`` allows every prefix, a conditioned Deny
always denies. Nor policy variables (``${aws:username}``), permission boundaries, session policies, SCPs or
resource policies (the bucket policy, a key policy).

``requests_of``: what AWS authorizes for one call, given its API parameters as boto3 takes them
(``client.get_item(**params)``; botocore's ``provide-client-params`` and ``before-parameter-build`` events carry
them): one (action, resource ARN) per table, object or transaction item, as the service checks it. An operation
not known here raises ``UnknownOperation``, so no call passes unjudged.
"""

from __future__ import annotations

import email
import email.utils
import json
import re
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass
from functools import cache
from typing import Any
from urllib.parse import unquote, urlsplit

Request = tuple[str, str]  # (action, resource ARN)
SECRET_SUFFIX = "??????"  # the six random characters Secrets Manager (and moto) append to a secret's name in its ARN


class UnknownOperation(LookupError):
    """A call whose authorization this module does not know: add it to ``requests_of`` rather than let it pass."""


def _strings(value: str | Iterable[str]) -> tuple[str, ...]:
    return (value,) if isinstance(value, str) else tuple(value)


@dataclass(frozen=True)
class Statement:
    effect: str  # "Allow" or "Deny"
    actions: tuple[str, ...]  # the Action's patterns, or NotAction's when ``not_action``
    resources: tuple[str, ...]  # the Resource's patterns, or NotResource's when ``not_resource``
    not_action: bool = False
    not_resource: bool = False
    condition: str = ""  # the Condition block as JSON, not evaluated ("" when there is none)
    policy: str = ""  # where the statement comes from: an inline policy's name, a managed policy's

    @classmethod
    def parse(cls, raw: Mapping[str, Any], policy: str = "") -> Statement:
        """One statement of a resolved policy document (no intrinsic function left in it)."""
        condition = json.dumps(raw["Condition"], sort_keys=True) if raw.get("Condition") else ""
        return cls(
            effect=raw["Effect"],
            actions=_strings(raw["Action"] if "Action" in raw else raw["NotAction"]),
            resources=_strings(raw["Resource"] if "Resource" in raw else raw["NotResource"]),
            not_action="Action" not in raw,
            not_resource="Resource" not in raw,
            condition=condition,
            policy=policy,
        )

    def applies(self, action: str, resource: str) -> bool:
        acts = any(matches(pattern, action, ignore_case=True) for pattern in self.actions) != self.not_action
        return acts and any(matches(pattern, resource) for pattern in self.resources) != self.not_resource


@cache
def _compiled(pattern: str, ignore_case: bool) -> re.Pattern[str]:
    regex = "".join(".*" if c == "*" else "." if c == "?" else re.escape(c) for c in pattern)
    return re.compile(regex, (re.IGNORECASE if ignore_case else 0) | re.DOTALL)


def matches(pattern: str, value: str, *, ignore_case: bool = False) -> bool:
    """IAM's wildcard match: ``*`` any run of characters (``/`` and ``:`` included), ``?`` any one."""
    return _compiled(pattern, ignore_case).fullmatch(value) is not None


def granting(statements: Iterable[Statement], action: str, resource: str) -> list[Statement]:
    """The Allow statements that grant ``action`` on ``resource`` (empty when an explicit Deny applies)."""
    applying = [s for s in statements if s.applies(action, resource)]
    return [] if any(s.effect == "Deny" for s in applying) else [s for s in applying if s.effect == "Allow"]


def allowed(statements: Iterable[Statement], action: str, resource: str) -> bool:
    return bool(granting(statements, action, resource))


def requests_of(service: str, operation: str, params: Mapping[str, Any], region: str, account: str) -> list[Request]:
    """What AWS authorizes for ``service``'s ``operation`` (botocore's names: ``dynamodb``, ``GetItem``)."""
    judge = _SERVICES.get(service)
    found = judge(operation, params, region, account) if judge else None
    if found is None:
        raise UnknownOperation(f"{service}.{operation}: which IAM action and resource AWS checks is not known here")
    return found


Judge = Callable[[str, Mapping[str, Any], str, str], list[Request] | None]
_TRANSACTION_ITEM = {"Put": "PutItem", "Update": "UpdateItem", "Delete": "DeleteItem",
                     "ConditionCheck": "ConditionCheckItem", "Get": "GetItem"}  # fmt: skip


def _dynamodb(operation: str, params: Mapping[str, Any], region: str, account: str) -> list[Request] | None:
    def table(name: str, index: str | None = None) -> str:
        arn = name if name.startswith("arn:") else f"arn:aws:dynamodb:{region}:{account}:table/{name}"
        return f"{arn}/index/{index}" if index else arn

    if operation in ("Query", "Scan"):  # on an index, the index's own ARN
        return [(f"dynamodb:{operation}", table(params["TableName"], params.get("IndexName")))]
    if operation in ("GetItem", "PutItem", "UpdateItem", "DeleteItem", "DescribeTable"):
        return [(f"dynamodb:{operation}", table(params["TableName"]))]
    if operation in ("BatchGetItem", "BatchWriteItem"):  # one check per table, of the batch action itself
        return [(f"dynamodb:{operation}", table(name)) for name in params["RequestItems"]]
    if operation in ("TransactWriteItems", "TransactGetItems"):  # each item's own action, on its own table
        items = params["TransactItems"]
        return [
            (f"dynamodb:{_TRANSACTION_ITEM[kind]}", table(body["TableName"])) for i in items for kind, body in i.items()
        ]
    return None


def _copy_source(source: str | Mapping[str, Any]) -> tuple[str, str, str | None]:
    if isinstance(source, Mapping):
        return source["Bucket"], source["Key"], source.get("VersionId")
    path, _, version = source.lstrip("/").partition("?versionId=")
    bucket, _, key = unquote(path).partition("/")
    return bucket, key, version or None


def _s3(operation: str, params: Mapping[str, Any], region: str, account: str) -> list[Request] | None:
    bucket = f"arn:aws:s3:::{params.get('Bucket', '')}"

    def reading(b: str, key: str, version: str | None) -> Request:
        return ("s3:GetObjectVersion" if version else "s3:GetObject", f"arn:aws:s3:::{b}/{key}")

    def deleting(key: str, version: str | None) -> Request:
        return ("s3:DeleteObjectVersion" if version else "s3:DeleteObject", f"{bucket}/{key}")

    if operation in ("GetObject", "HeadObject"):
        return [reading(params["Bucket"], params["Key"], params.get("VersionId"))]
    if operation in ("PutObject", "CopyObject"):
        found = [("s3:PutObject", f"{bucket}/{params['Key']}")]
        if "ACL" in params or any(name.startswith("Grant") for name in params):
            found.append(("s3:PutObjectAcl", f"{bucket}/{params['Key']}"))
        if "Tagging" in params:
            found.append(("s3:PutObjectTagging", f"{bucket}/{params['Key']}"))
        return found + ([reading(*_copy_source(params["CopySource"]))] if operation == "CopyObject" else [])
    if operation == "DeleteObject":
        return [deleting(params["Key"], params.get("VersionId"))]
    if operation == "DeleteObjects":  # no action of its own: each object is checked as a DeleteObject[Version]
        return [deleting(o["Key"], o.get("VersionId")) for o in params["Delete"]["Objects"]]
    if operation in ("ListObjects", "ListObjectsV2", "HeadBucket"):
        return [("s3:ListBucket", bucket)]
    if operation == "ListObjectVersions":
        return [("s3:ListBucketVersions", bucket)]
    return None


_SQS = {"SendMessage": "SendMessage", "SendMessageBatch": "SendMessage", "ReceiveMessage": "ReceiveMessage",
        "DeleteMessage": "DeleteMessage", "DeleteMessageBatch": "DeleteMessage",
        "ChangeMessageVisibility": "ChangeMessageVisibility",
        "ChangeMessageVisibilityBatch": "ChangeMessageVisibility",
        "GetQueueAttributes": "GetQueueAttributes"}  # fmt: skip


def _sqs(operation: str, params: Mapping[str, Any], region: str, account: str) -> list[Request] | None:
    if operation == "GetQueueUrl":
        owner = params.get("QueueOwnerAWSAccountId", account)
        return [("sqs:GetQueueUrl", f"arn:aws:sqs:{region}:{owner}:{params['QueueName']}")]
    if operation not in _SQS:
        return None
    url = urlsplit(params["QueueUrl"])  # https://sqs.<region>.amazonaws.com/<account>/<name>, or moto's endpoint
    owner, name = url.path.strip("/").split("/")[-2:]
    named = re.fullmatch(r"sqs\.([a-z0-9-]+)\.amazonaws\.com|([a-z0-9-]+)\.queue\.amazonaws\.com", url.hostname or "")
    queue_region = next((g for g in named.groups() if g), region) if named else region
    return [(f"sqs:{_SQS[operation]}", f"arn:aws:sqs:{queue_region}:{owner}:{name}")]


def _secretsmanager(operation: str, params: Mapping[str, Any], region: str, account: str) -> list[Request] | None:
    if operation not in ("GetSecretValue", "DescribeSecret"):
        return None
    secret = params["SecretId"]  # by name: its ARN ends in the six characters a policy matches as ``-??????``
    named = f"arn:aws:secretsmanager:{region}:{account}:secret:{secret}-{SECRET_SUFFIX}"
    return [(f"secretsmanager:{operation}", secret if secret.startswith("arn:") else named)]


def _ses(operation: str, params: Mapping[str, Any], region: str, account: str) -> list[Request] | None:
    if operation not in ("SendEmail", "SendRawEmail"):
        return None
    if params.get("SourceArn"):
        return [(f"ses:{operation}", params["SourceArn"])]
    source = params.get("Source")
    if not source:  # SendRawEmail without Source: the message's own From
        data = params["RawMessage"]["Data"]
        source = email.message_from_bytes(data if isinstance(data, bytes) else data.encode())["From"]
    # The sending identity, taken as the address itself (SES checks the domain's identity when only that is verified)
    return [(f"ses:{operation}", f"arn:aws:ses:{region}:{account}:identity/{email.utils.parseaddr(source)[1]}")]


def _cloudwatch(operation: str, params: Mapping[str, Any], region: str, account: str) -> list[Request] | None:
    return [("cloudwatch:PutMetricData", "*")] if operation == "PutMetricData" else None


_BEDROCK = {"InvokeModel": "InvokeModel", "Converse": "InvokeModel",
            "InvokeModelWithResponseStream": "InvokeModelWithResponseStream",
            "ConverseStream": "InvokeModelWithResponseStream"}  # fmt: skip
_PROFILE = re.compile(r"(us|us-gov|eu|apac|jp|au|ca|global)\.(.+)")  # a cross-region inference profile's id


def _bedrock(operation: str, params: Mapping[str, Any], region: str, account: str) -> list[Request] | None:
    if operation not in _BEDROCK:
        return None
    action, model = f"bedrock:{_BEDROCK[operation]}", params["modelId"]
    if model.startswith("arn:"):
        return [(action, model)]
    profile = _PROFILE.fullmatch(model)
    if profile:  # the profile, and the model in this region (AWS checks it in every region the profile routes to)
        return [(action, f"arn:aws:bedrock:{region}:{account}:inference-profile/{model}"),
                (action, f"arn:aws:bedrock:{region}::foundation-model/{profile.group(2)}")]  # fmt: skip
    return [(action, f"arn:aws:bedrock:{region}::foundation-model/{model}")]


_SERVICES: dict[str, Judge] = {"dynamodb": _dynamodb, "s3": _s3, "sqs": _sqs, "secretsmanager": _secretsmanager,
                               "ses": _ses, "cloudwatch": _cloudwatch, "bedrock-runtime": _bedrock}  # fmt: skip
