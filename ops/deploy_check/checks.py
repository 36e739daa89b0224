"""What template.yaml says the stack has, in the shape the AWS read-back APIs give it, and the comparison.

Pure functions (no AWS calls; readback.py makes those), so tests/unit/infra/test_deploy_check.py can
feed them a template and a read-back that differ. Each comparison returns a list of problems:
empty means the deployed resource matches the template.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any, Literal

from stack.template import Stack

Status = Literal["ok", "FAIL", "not modelled"]


@dataclass(frozen=True)
class Result:
    check: str  # e.g. "table MainTable"
    status: Status
    detail: str = ""


def result(check: str, problems: list[str]) -> Result:
    return Result(check, "FAIL", "; ".join(problems)) if problems else Result(check, "ok")


def differences(what: str, expected: Any, deployed: Any) -> list[str]:
    return [] if expected == deployed else [f"{what}: template {expected!r}, deployed {deployed!r}"]


# --- API routes -------------------------------------------------------------------------------------------------


def expected_routes(stack: Stack, api: str) -> set[tuple[str, str]]:
    """(method, path) of every route the template gives ``api``, plus the OPTIONS that its Cors adds per path."""
    routes = {(route.method, route.path) for route in stack.routes(api)}
    if stack.resources[api]["Properties"].get("Cors"):
        routes |= {("OPTIONS", path) for _, path in routes}
    return routes


def deployed_routes(resources: list[dict[str, Any]]) -> set[tuple[str, str]]:
    """From API Gateway's GetResources: (method, path) of every method of every resource."""
    return {(method, item["path"]) for item in resources for method in item.get("resourceMethods", {})}


def compare_routes(expected: set[tuple[str, str]], deployed: set[tuple[str, str]]) -> list[str]:
    problems = [f"missing {method} {path}" for method, path in sorted(expected - deployed)]
    return problems + [f"not in the template: {method} {path}" for method, path in sorted(deployed - expected)]


# --- DynamoDB tables --------------------------------------------------------------------------------------------


def _keys(schema: list[dict[str, str]]) -> list[tuple[str, str]]:
    return [(key["AttributeName"], key["KeyType"]) for key in schema]


def _shape(table: dict[str, Any], ttl: str | None) -> dict[str, Any]:
    """Key schema, indexes (keys and projection type) and the TTL attribute. ``table``: the template's properties
    or DescribeTable's Table, which spell KeySchema and GlobalSecondaryIndexes alike."""
    return {
        "keys": _keys(table["KeySchema"]),
        "indexes": {
            index["IndexName"]: (_keys(index["KeySchema"]), index["Projection"]["ProjectionType"])
            for index in table.get("GlobalSecondaryIndexes", [])
        },
        "ttl": ttl,
    }


def table_shape(props: dict[str, Any]) -> dict[str, Any]:
    """The shape from the template's properties."""
    ttl = props.get("TimeToLiveSpecification") or {}
    return _shape(props, ttl.get("AttributeName") if ttl.get("Enabled") else None)


def deployed_table_shape(table: dict[str, Any], ttl: dict[str, Any]) -> dict[str, Any]:
    """The same shape from DescribeTable's Table and DescribeTimeToLive's TimeToLiveDescription."""
    return _shape(table, ttl.get("AttributeName") if ttl.get("TimeToLiveStatus") in {"ENABLED", "ENABLING"} else None)


def compare_table(expected: dict[str, Any], deployed: dict[str, Any]) -> list[str]:
    return [
        problem
        for field in ("keys", "indexes", "ttl")
        for problem in differences(field, expected[field], deployed[field])
    ]


# --- S3 bucket --------------------------------------------------------------------------------------------------


def lifecycle_rule(rule: dict[str, Any]) -> dict[str, Any]:
    """One lifecycle rule as comparable facts, from CloudFormation's spelling or S3's (GetBucketLifecycle...)."""
    expiration = rule.get("Expiration", {})
    return {
        "id": rule.get("Id", rule.get("ID")),
        "status": rule["Status"],
        "abort_incomplete_days": rule.get("AbortIncompleteMultipartUpload", {}).get("DaysAfterInitiation"),
        "noncurrent_days": rule.get("NoncurrentVersionExpiration", {}).get("NoncurrentDays"),
        "expired_delete_marker": rule.get("ExpiredObjectDeleteMarker", expiration.get("ExpiredObjectDeleteMarker")),
        "expiration_days": rule.get("ExpirationInDays", expiration.get("Days")),
    }


def compare_bucket(props: dict[str, Any], versioning: str | None, rules: list[dict[str, Any]] | None) -> list[str]:
    """``rules`` None: LocalStack did not store a lifecycle configuration (readback.py reports that separately)."""
    problems = differences("versioning", props.get("VersioningConfiguration", {}).get("Status"), versioning)
    if rules is not None:
        expected = sorted(
            (lifecycle_rule(r) for r in props.get("LifecycleConfiguration", {}).get("Rules", [])), key=str
        )
        problems += differences("lifecycle rules", expected, sorted((lifecycle_rule(r) for r in rules), key=str))
    return problems


# --- SQS queues -------------------------------------------------------------------------------------------------


def compare_queue(props: dict[str, Any], attributes: dict[str, str], arns: dict[str, str]) -> list[str]:
    """``attributes``: GetQueueAttributes; ``arns``: every queue's logical id to its deployed ARN (for the DLQ)."""
    problems = []
    for name in ("VisibilityTimeout", "MessageRetentionPeriod"):  # the template's names are SQS's attribute names
        if name in props:
            problems += differences(name, str(props[name]), attributes.get(name))
    redrive = props.get("RedrivePolicy")
    deployed = json.loads(attributes["RedrivePolicy"]) if "RedrivePolicy" in attributes else None
    if redrive is None:
        return problems + differences("RedrivePolicy", None, deployed)
    if deployed is None:
        return [*problems, "RedrivePolicy: missing"]
    dlq = redrive["deadLetterTargetArn"]["Fn::GetAtt"][0]
    problems += differences("dead-letter queue", arns.get(dlq), deployed.get("deadLetterTargetArn"))
    return problems + differences("maxReceiveCount", int(redrive["maxReceiveCount"]), int(deployed["maxReceiveCount"]))


# --- the console: CloudFront and the console's address -------------------------------------------------------

CLOUDFRONT_NOT_MODELLED = (
    "LocalStack's community CloudFormation has no CloudFront provider: it keeps a placeholder "
    "(CFN_IGNORE_UNSUPPORTED_RESOURCE_TYPES) and CloudFront's API has no such resource, so nothing serves the console"
)


def compare_distribution(props: dict[str, Any], config: dict[str, Any]) -> list[str]:
    """The template's DistributionConfig against GetDistributionConfig's: origins, and each behaviour's path, origin
    and cache policy (what decides that the console and /api/* share one origin)."""

    def behaviours(spelled: dict[str, Any], items: list[dict[str, Any]]) -> list[tuple[str, str, str]]:
        found = [("*", spelled["TargetOriginId"], spelled.get("CachePolicyId", ""))]
        return found + sorted((b["PathPattern"], b["TargetOriginId"], b.get("CachePolicyId", "")) for b in items)

    expected = props["DistributionConfig"]
    deployed_behaviours = config.get("CacheBehaviors", {}).get("Items", [])
    problems = differences(
        "origins", sorted(o["Id"] for o in expected["Origins"]), sorted(o["Id"] for o in config["Origins"]["Items"])
    )
    return problems + differences(
        "behaviours",
        behaviours(expected["DefaultCacheBehavior"], expected.get("CacheBehaviors", [])),
        behaviours(config["DefaultCacheBehavior"], deployed_behaviours),
    )


def cloudfront_results(
    stack: Stack, deployed: dict[str, dict[str, Any]], read: Callable[[str, str], dict[str, Any] | None]
) -> list[Result]:
    """Each AWS::CloudFront::* resource of the template. ``read(type, physical id)``: the resource as CloudFront's API
    answers it, None where it has none. Only what was read back can be "ok"; a placeholder is "not modelled"."""
    results = []
    for name, res in sorted(stack.resources.items()):
        if not res["Type"].startswith("AWS::CloudFront::"):
            continue
        check = f"{res['Type'].removeprefix('AWS::CloudFront::')} {name}"
        if name not in deployed:
            results.append(Result(check, "FAIL", "not in the stack"))
            continue
        found = read(res["Type"], deployed[name]["PhysicalResourceId"])
        if found is None:
            results.append(Result(check, "not modelled", CLOUDFRONT_NOT_MODELLED))
        elif res["Type"] == "AWS::CloudFront::Distribution":
            results.append(result(check, compare_distribution(res["Properties"], found)))
        else:
            results.append(result(check, []))
    return results


def compare_parameter(expected_name: str, found: dict[str, Any] | None) -> list[str]:
    """The console's address parameter (GetParameter's Parameter): the name the mailers are given, an https URL."""
    if found is None:
        return [f"no parameter {expected_name}"]
    problems = differences("name", expected_name, found["Name"])
    value = str(found.get("Value", ""))
    return problems + ([] if value.startswith("https://") else [f"value {value!r} is not an https URL"])
