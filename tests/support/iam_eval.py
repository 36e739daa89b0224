"""IAM's decision on one request under a set of identity statements, and the requests AWS authorizes for a call.

``allowed``: IAM's evaluation of identity policies within one account. An explicit Deny wins, then any Allow;
anything else is the implicit deny. Action / NotAction and Resource / NotResource match with the ``*`` and ``?``
wildcards (``*`` spans ``:`` and ``/``, as in IAM), action names case-insensitively, ARNs case-sensitively.

Conditions are evaluated for the keys and operators the template uses, and any other is an error
(``ConditionNotUnderstood``), never taken to hold: ``StringEquals`` and ``StringLike``, plain or qualified by
``ForAllValues:`` / ``ForAnyValue:``, on ``dynamodb:LeadingKeys`` (the partition key values the request touches:
the key of an item call, the partition of a Query's key condition, every item of a batch or transaction item) and
``s3:prefix`` (a listing's ``Prefix``). A request without the key (a Scan, a listing without ``Prefix``) does not
satisfy the condition, ``ForAllValues`` included: AWS takes ``ForAllValues`` over no value as true, so a Scan under
a ``LeadingKeys`` grant would read every partition; refused here so that no grant can lean on it. A key the
request holds but this module cannot read (a Query on an index, a key condition it cannot parse, a table whose
partition key it was not told) raises ``ConditionNotEvaluated`` when a conditioned statement needs it.

Not judged here: policy variables (``${aws:username}``), permission boundaries, session policies, SCPs or resource
policies (the bucket policy, a key policy).

``requests_of``: what AWS authorizes for one call, given its API parameters as boto3 takes them
(``client.get_item(**params)``; botocore's ``provide-client-params`` and ``before-parameter-build`` events carry
them): one (action, resource ARN, condition keys) per table, object or transaction item, as the service checks it.
An operation not known here raises ``UnknownOperation``, so no call passes unjudged.
"""

from __future__ import annotations

import email
import email.utils
import json
import re
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass
from functools import cache
from types import MappingProxyType
from typing import Any, NamedTuple
from urllib.parse import unquote, urlsplit

SECRET_SUFFIX = "??????"  # the six random characters Secrets Manager (and moto) append to a secret's name in its ARN


class UnknownOperation(LookupError):
    """A call whose authorization this module does not know: add it to ``requests_of`` rather than let it pass."""


class ConditionNotUnderstood(ValueError):
    """A Condition operator or key this module does not evaluate: teach it here rather than let the grant pass."""


class ConditionNotEvaluated(LookupError):
    """A conditioned statement applies, and the request's value of its key could not be read here."""


@dataclass(frozen=True)
class Unreadable:
    """A condition key the request holds but whose value this module could not read (and why)."""

    reason: str


Values = tuple[str, ...] | Unreadable  # a condition key's values in one request (several: a batch's items)
Context = Mapping[str, Values]  # condition key (lower case, as IAM compares them) -> values; a key absent: not sent
NO_CONTEXT: Context = MappingProxyType({})


class Request(NamedTuple):
    """One authorization AWS makes for a call: the action, the resource's ARN, and the request's condition keys."""

    action: str
    resource: str
    context: Context = NO_CONTEXT


def _strings(value: str | Iterable[str]) -> tuple[str, ...]:
    return (value,) if isinstance(value, str) else tuple(value)


@dataclass(frozen=True)
class Statement:
    effect: str  # "Allow" or "Deny"
    actions: tuple[str, ...]  # the Action's patterns, or NotAction's when ``not_action``
    resources: tuple[str, ...]  # the Resource's patterns, or NotResource's when ``not_resource``
    not_action: bool = False
    not_resource: bool = False
    condition: str = ""  # the Condition block as JSON ("" when there is none), evaluated by ``holds``
    policy: str = ""  # where the statement comes from: an inline policy's name, a managed policy's

    @classmethod
    def parse(cls, raw: Mapping[str, Any], policy: str = "") -> Statement:
        """One statement of a resolved policy document (no intrinsic function left in it)."""
        condition = json.dumps(raw["Condition"], sort_keys=True) if raw.get("Condition") else ""
        _condition_tests(condition)  # one this module cannot evaluate is refused with the policy, not at first use
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

    def holds(self, context: Context) -> bool:
        """Whether the Condition block holds for a request with these condition keys (every test of it must)."""
        return all(test.holds(context) for test in _condition_tests(self.condition))


_QUALIFIERS = ("", "ForAllValues", "ForAnyValue")
_KEYS = ("dynamodb:leadingkeys", "s3:prefix")  # IAM compares condition keys case-insensitively


@dataclass(frozen=True)
class _Test:
    """One operator on one key of a Condition block: ``ForAllValues:StringLike: {dynamodb:LeadingKeys: [...]}``."""

    qualifier: str
    operator: str
    key: str  # lower case
    patterns: tuple[str, ...]

    def holds(self, context: Context) -> bool:
        values = context.get(self.key)
        if isinstance(values, Unreadable):
            raise ConditionNotEvaluated(f"{self.key}: {values.reason}")
        if not values:  # not sent (a Scan, a listing without Prefix): see the module's docstring
            return False
        test = _OPERATORS[self.operator]
        hits = [any(test(pattern, value) for pattern in self.patterns) for value in values]
        if self.qualifier == "ForAllValues":
            return all(hits)
        if self.qualifier == "ForAnyValue":
            return any(hits)
        if len(values) != 1:
            raise ConditionNotEvaluated(f"{self.operator} on {self.key}, which holds {len(values)} values here: "
                                        "a set operator (ForAllValues, ForAnyValue) says what it means")  # fmt: skip
        return hits[0]


@cache
def _condition_tests(condition: str) -> tuple[_Test, ...]:
    if not condition:
        return ()
    tests = []
    for operator, keys in json.loads(condition).items():
        qualifier, _, base = operator.rpartition(":")
        if qualifier not in _QUALIFIERS or base not in _OPERATORS or not isinstance(keys, dict):
            raise ConditionNotUnderstood(f"condition operator {operator}: not evaluated here ({condition})")
        for key, patterns in keys.items():
            listed = _strings(patterns) if isinstance(patterns, str | list) else (patterns,)
            if key.lower() not in _KEYS or not all(isinstance(p, str) for p in listed):
                raise ConditionNotUnderstood(f"condition key {key} ({operator}): not evaluated here ({condition})")
            tests.append(_Test(qualifier, base, key.lower(), listed))
    return tuple(tests)


@cache
def _compiled(pattern: str, ignore_case: bool) -> re.Pattern[str]:
    regex = "".join(".*" if c == "*" else "." if c == "?" else re.escape(c) for c in pattern)
    return re.compile(regex, (re.IGNORECASE if ignore_case else 0) | re.DOTALL)


def matches(pattern: str, value: str, *, ignore_case: bool = False) -> bool:
    """IAM's wildcard match: ``*`` any run of characters (``/`` and ``:`` included), ``?`` any one."""
    return _compiled(pattern, ignore_case).fullmatch(value) is not None


_OPERATORS: dict[str, Callable[[str, str], bool]] = {
    "StringEquals": lambda pattern, value: pattern == value,
    "StringLike": matches,  # * and ?, case-sensitive, as IAM's StringLike
}


def granting(
    statements: Iterable[Statement], action: str, resource: str, context: Context = NO_CONTEXT
) -> list[Statement]:
    """The Allow statements that grant ``action`` on ``resource`` for a request with ``context``'s condition keys
    (empty when an explicit Deny applies). A statement applies when its action, resource and condition match."""
    applying = [s for s in statements if s.applies(action, resource) and s.holds(context)]
    return [] if any(s.effect == "Deny" for s in applying) else [s for s in applying if s.effect == "Allow"]


def allowed(statements: Iterable[Statement], action: str, resource: str, context: Context = NO_CONTEXT) -> bool:
    return bool(granting(statements, action, resource, context))


def requests_of(
    service: str,
    operation: str,
    params: Mapping[str, Any],
    region: str,
    account: str,
    *,
    partition_keys: Mapping[str, str] | None = None,
) -> list[Request]:
    """What AWS authorizes for ``service``'s ``operation`` (botocore's names: ``dynamodb``, ``GetItem``).

    ``partition_keys``: each table's partition key attribute (by table name), to read ``dynamodb:LeadingKeys``.
    """
    found: Found | None
    if service == "dynamodb":
        found = _dynamodb(operation, params, region, account, partition_keys or {})
    else:
        judge = _SERVICES.get(service)
        found = judge(operation, params, region, account) if judge else None
    if found is None:
        raise UnknownOperation(f"{service}.{operation}: which IAM action and resource AWS checks is not known here")
    return [Request(*request) for request in found]


Found = list[tuple[str, str] | Request]  # a judge's requests: (action, resource) where no condition key is sent
Judge = Callable[[str, Mapping[str, Any], str, str], Found | None]
_TRANSACTION_ITEM = {"Put": "PutItem", "Update": "UpdateItem", "Delete": "DeleteItem",
                     "ConditionCheck": "ConditionCheckItem", "Get": "GetItem"}  # fmt: skip


def _dynamodb(
    operation: str, params: Mapping[str, Any], region: str, account: str, partition_keys: Mapping[str, str]
) -> Found | None:
    def table(name: str, index: str | None = None) -> str:
        arn = name if name.startswith("arn:") else f"arn:aws:dynamodb:{region}:{account}:table/{name}"
        return f"{arn}/index/{index}" if index else arn

    def request(action: str, name: str, leading: Values | None, index: str | None = None) -> Request:
        context: Context = NO_CONTEXT if leading is None else MappingProxyType({"dynamodb:leadingkeys": leading})
        return Request(f"dynamodb:{action}", table(name, index), context)

    def keys(name: str, items: Iterable[Mapping[str, Any] | None]) -> Values:
        return _leading_keys(partition_keys.get(name.rsplit("/", 1)[-1]), name, items)

    if operation == "Query":  # on an index, the index's own ARN
        name, index = params["TableName"], params.get("IndexName")
        return [request(operation, name, _queried_partition(params, partition_keys.get(name.rsplit("/", 1)[-1])),
                        index)]  # fmt: skip
    if operation == "Scan":  # no partition key: LeadingKeys is not sent, and a condition on it does not hold
        return [request(operation, params["TableName"], None, params.get("IndexName"))]
    if operation in ("GetItem", "UpdateItem", "DeleteItem"):
        return [request(operation, params["TableName"], keys(params["TableName"], [params.get("Key")]))]
    if operation == "PutItem":
        return [request(operation, params["TableName"], keys(params["TableName"], [params.get("Item")]))]
    if operation == "DescribeTable":
        return [request(operation, params["TableName"], None)]
    if operation == "BatchGetItem":  # one check per table, of the batch action itself, over every item's key
        return [request(operation, name, keys(name, (body or {}).get("Keys") or [None]))
                for name, body in params["RequestItems"].items()]  # fmt: skip
    if operation == "BatchWriteItem":
        return [request(operation, name, keys(name, [_written(w) for w in writes] or [None]))
                for name, writes in params["RequestItems"].items()]  # fmt: skip
    if operation in ("TransactWriteItems", "TransactGetItems"):  # each item's own action, on its own table
        return [
            request(_TRANSACTION_ITEM[kind], body["TableName"],
                    keys(body["TableName"], [body.get("Item" if kind == "Put" else "Key")]))
            for i in params["TransactItems"] for kind, body in i.items()
        ]  # fmt: skip
    return None


def _written(write: Mapping[str, Any]) -> Mapping[str, Any] | None:
    """A BatchWriteItem request's item (a put) or key (a delete)."""
    if "PutRequest" in write:
        return write["PutRequest"].get("Item")
    return write.get("DeleteRequest", {}).get("Key")


def _attribute_value(value: Any) -> str | None:
    """An attribute value as IAM compares it: the string of an S or N, low-level (``{"S": "x"}``) or plain."""
    if isinstance(value, Mapping):
        ((kind, inner),) = value.items() if len(value) == 1 else ((None, None),)
        return str(inner) if kind in ("S", "N") else None
    return str(value) if isinstance(value, str | int) and not isinstance(value, bool) else None


def _leading_keys(attribute: str | None, table: str, items: Iterable[Mapping[str, Any] | None]) -> Values:
    if attribute is None:
        return Unreadable(f"the partition key of table {table} is not known here")
    found = []
    for item in items:
        value = _attribute_value(item.get(attribute)) if item else None
        if value is None:
            return Unreadable(f"an item or key of {table} without a string or number {attribute}")
        found.append(value)
    return tuple(found)


_CLAUSE = re.compile(r"\(*\s*([#:]?[\w.-]+)\s*=\s*([#:]?[\w.-]+)\s*\)*")


def _queried_partition(params: Mapping[str, Any], attribute: str | None) -> Values:
    """The partition a Query reads: the value its key condition gives the table's partition key."""
    if params.get("IndexName"):
        return Unreadable("a Query on an index: LeadingKeys of an index's partition is not evaluated here")
    if attribute is None:
        return Unreadable(f"the partition key of table {params['TableName']} is not known here")
    names, values = params.get("ExpressionAttributeNames") or {}, params.get("ExpressionAttributeValues") or {}
    expression = params.get("KeyConditionExpression")
    if expression is None:  # the legacy KeyConditions
        legacy = (params.get("KeyConditions") or {}).get(attribute) or {}
        listed = legacy.get("AttributeValueList") or [None]
        value = _attribute_value(listed[0]) if legacy.get("ComparisonOperator") == "EQ" else None
        return (value,) if value is not None else Unreadable(f"no EQ on {attribute} in the KeyConditions")
    for clause in re.split(r"\s+AND\s+", expression, flags=re.IGNORECASE):
        equal = _CLAUSE.fullmatch(clause.strip())
        if equal is None:
            continue
        for name, placeholder in (equal.groups(), equal.groups()[::-1]):
            if names.get(name, name) == attribute and placeholder.startswith(":") and placeholder in values:
                value = _attribute_value(values[placeholder])
                if value is not None:
                    return (value,)
    return Unreadable(f"no {attribute} = :value read in the key condition {expression!r}")


def _copy_source(source: str | Mapping[str, Any]) -> tuple[str, str, str | None]:
    if isinstance(source, Mapping):
        return source["Bucket"], source["Key"], source.get("VersionId")
    path, _, version = source.lstrip("/").partition("?versionId=")
    bucket, _, key = unquote(path).partition("/")
    return bucket, key, version or None


def _s3(operation: str, params: Mapping[str, Any], region: str, account: str) -> Found | None:
    bucket = f"arn:aws:s3:::{params.get('Bucket', '')}"

    def reading(b: str, key: str, version: str | None) -> tuple[str, str]:
        return ("s3:GetObjectVersion" if version else "s3:GetObject", f"arn:aws:s3:::{b}/{key}")

    def deleting(key: str, version: str | None) -> tuple[str, str]:
        return ("s3:DeleteObjectVersion" if version else "s3:DeleteObject", f"{bucket}/{key}")

    if operation in ("GetObject", "HeadObject"):
        return [reading(params["Bucket"], params["Key"], params.get("VersionId"))]
    if operation in ("PutObject", "CopyObject"):
        found: Found = [("s3:PutObject", f"{bucket}/{params['Key']}")]
        if "ACL" in params or any(name.startswith("Grant") for name in params):
            found.append(("s3:PutObjectAcl", f"{bucket}/{params['Key']}"))
        if "Tagging" in params:
            found.append(("s3:PutObjectTagging", f"{bucket}/{params['Key']}"))
        return found + ([reading(*_copy_source(params["CopySource"]))] if operation == "CopyObject" else [])
    if operation == "DeleteObject":
        return [deleting(params["Key"], params.get("VersionId"))]
    if operation == "DeleteObjects":  # no action of its own: each object is checked as a DeleteObject[Version]
        return [deleting(o["Key"], o.get("VersionId")) for o in params["Delete"]["Objects"]]
    # A listing's Prefix is its s3:prefix; without one (or a HeadBucket) the key is not sent.
    listed: Context = MappingProxyType({"s3:prefix": (params["Prefix"],)} if "Prefix" in params else {})
    if operation in ("ListObjects", "ListObjectsV2"):
        return [Request("s3:ListBucket", bucket, listed)]
    if operation == "HeadBucket":
        return [("s3:ListBucket", bucket)]
    if operation == "ListObjectVersions":
        return [Request("s3:ListBucketVersions", bucket, listed)]
    return None


_SQS = {"SendMessage": "SendMessage", "SendMessageBatch": "SendMessage", "ReceiveMessage": "ReceiveMessage",
        "DeleteMessage": "DeleteMessage", "DeleteMessageBatch": "DeleteMessage",
        "ChangeMessageVisibility": "ChangeMessageVisibility",
        "ChangeMessageVisibilityBatch": "ChangeMessageVisibility",
        "GetQueueAttributes": "GetQueueAttributes"}  # fmt: skip


def _sqs(operation: str, params: Mapping[str, Any], region: str, account: str) -> Found | None:
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


def _secretsmanager(operation: str, params: Mapping[str, Any], region: str, account: str) -> Found | None:
    if operation not in ("GetSecretValue", "DescribeSecret"):
        return None
    secret = params["SecretId"]  # by name: its ARN ends in the six characters a policy matches as ``-??????``
    named = f"arn:aws:secretsmanager:{region}:{account}:secret:{secret}-{SECRET_SUFFIX}"
    return [(f"secretsmanager:{operation}", secret if secret.startswith("arn:") else named)]


def _ses(operation: str, params: Mapping[str, Any], region: str, account: str) -> Found | None:
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


def _ssm(operation: str, params: Mapping[str, Any], region: str, account: str) -> Found | None:
    if operation not in ("GetParameter", "GetParameters"):
        return None
    names = [params["Name"]] if operation == "GetParameter" else list(params["Names"])
    # A parameter's ARN: its name after ``parameter/`` without the leading slash (``/stack/x`` -> ``parameter/stack/x``)
    return [(f"ssm:{operation}", name if name.startswith("arn:") else f"arn:aws:ssm:{region}:{account}:parameter/"
             f"{name.lstrip('/')}") for name in names]  # fmt: skip


def _cloudwatch(operation: str, params: Mapping[str, Any], region: str, account: str) -> Found | None:
    return [("cloudwatch:PutMetricData", "*")] if operation == "PutMetricData" else None


_BEDROCK = {"InvokeModel": "InvokeModel", "Converse": "InvokeModel",
            "InvokeModelWithResponseStream": "InvokeModelWithResponseStream",
            "ConverseStream": "InvokeModelWithResponseStream"}  # fmt: skip
_PROFILE = re.compile(r"(us|us-gov|eu|apac|jp|au|ca|global)\.(.+)")  # a cross-region inference profile's id


def _bedrock(operation: str, params: Mapping[str, Any], region: str, account: str) -> Found | None:
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


_SERVICES: dict[str, Judge] = {"s3": _s3, "sqs": _sqs, "secretsmanager": _secretsmanager,
                               "ses": _ses, "cloudwatch": _cloudwatch, "bedrock-runtime": _bedrock,
                               "ssm": _ssm}  # fmt: skip
