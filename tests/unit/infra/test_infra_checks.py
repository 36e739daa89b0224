"""template.yaml keeps the infrastructure controls checkov checks, and every check it skips says why.

Versioning with a lifecycle for old versions, point-in-time recovery, X-Ray tracing and JSON access logs
that carry no query string, header or secret; every skip is listed, with its reason, in docs/security.md.
"""

from __future__ import annotations

import json
import re
from functools import cache
from typing import Any

from stack.template import ROOT, load
from tests.unit.infra.test_streaming_integrations import transformed

APIS = ("BrainApi", "PortalApi")
# What one access log line must tell, and the $context variables that could carry a secret or the query string.
ACCESS_LOG_FIELDS = {"requestId", "extendedRequestId", "sourceIp", "httpMethod", "resourcePath", "status",
                     "responseLatency", "integrationLatency", "responseLength", "userAgent"}  # fmt: skip
NEVER_LOGGED = ("$context.path", "$context.requestOverride", "$context.authorizer", "$context.identity.apiKey",
                "$context.identity.accessKey", "querystring", "header", "$input", "$method.request")  # fmt: skip


@cache
def resources() -> dict[str, Any]:
    return load()["Resources"]


def skips(resource: dict[str, Any]) -> dict[str, str]:
    return {s["id"]: s.get("comment", "") for s in resource.get("Metadata", {}).get("checkov", {}).get("skip", [])}


def test_the_content_bucket_is_versioned_and_old_versions_expire() -> None:
    props = resources()["ContentBucket"]["Properties"]
    assert props["VersioningConfiguration"] == {"Status": "Enabled"}
    rules = [r for r in props["LifecycleConfiguration"]["Rules"] if r["Status"] == "Enabled"]
    assert any(r.get("NoncurrentVersionExpiration", {}).get("NoncurrentDays", 0) > 0 for r in rules)
    assert any(r.get("AbortIncompleteMultipartUpload", {}).get("DaysAfterInitiation", 0) > 0 for r in rules)


def test_the_purge_may_list_and_delete_every_version() -> None:
    statements = resources()["WorkspacePurgeFunction"]["Properties"]["Policies"][0]["Statement"]
    actions = {a for s in statements for a in ([s["Action"]] if isinstance(s["Action"], str) else s["Action"])}
    assert {"s3:ListBucketVersions", "s3:DeleteObjectVersion"} <= actions


def test_every_table_has_point_in_time_recovery_or_says_why_not() -> None:
    for name, res in resources().items():
        if res["Type"] != "AWS::DynamoDB::Table":
            continue
        pitr = res["Properties"].get("PointInTimeRecoverySpecification", {}).get("PointInTimeRecoveryEnabled")
        assert pitr is True or skips(res).get("CKV_AWS_28"), name
    assert resources()["LedgerTable"]["Properties"]["PointInTimeRecoverySpecification"]["PointInTimeRecoveryEnabled"]


def test_functions_and_apis_are_traced() -> None:
    assert load()["Globals"]["Function"]["Tracing"] == "Active"
    for api in APIS:
        assert resources()[api]["Properties"]["TracingEnabled"] is True, api


def test_access_logs_are_json_with_the_fields_and_without_secrets() -> None:
    group = resources()["ApiAccessLogGroup"]["Properties"]
    assert group["RetentionInDays"] == {"Ref": "LogRetentionDays"}
    for api in APIS:
        setting = resources()[api]["Properties"]["AccessLogSetting"]
        assert setting["DestinationArn"] == {"Fn::GetAtt": ["ApiAccessLogGroup", "Arn"]}, api
        line = json.loads(re.sub(r"\$context\.[A-Za-z.]+", "x", setting["Format"]))
        assert set(line) >= ACCESS_LOG_FIELDS, api
        assert not [v for v in NEVER_LOGGED if v.lower() in setting["Format"].lower()], api
        # Access logging needs the account's CloudWatch role first.
        assert resources()[api]["DependsOn"] == "ApiGatewayAccount", api
    assert resources()["ApiGatewayAccount"]["Type"] == "AWS::ApiGateway::Account"


def test_sam_deploys_traced_stages_with_access_logs_after_the_account_role() -> None:
    deployed = transformed()["Resources"]
    for api in APIS:
        stage = deployed[f"{api}Stage"]["Properties"]
        assert stage["TracingEnabled"] is True and stage["AccessLogSetting"]["Format"], api
        assert deployed[api]["DependsOn"] == "ApiGatewayAccount", api  # the stage follows its RestApi
    roles = [r for r in deployed.values() if r["Type"] == "AWS::IAM::Role" and "ManagedPolicyArns" in r["Properties"]]
    functions = [r for r in deployed.values() if r["Type"] == "AWS::Lambda::Function"]
    assert all(f["Properties"]["TracingConfig"] == {"Mode": "Active"} for f in functions)
    xray = [r for r in roles if any("AWSXrayWriteOnlyAccess" in str(a) for a in r["Properties"]["ManagedPolicyArns"])]
    assert len(xray) == len(functions)


def test_every_checkov_skip_has_a_reason_and_is_documented() -> None:
    documented = (ROOT / "docs" / "security.md").read_text()
    section = documented.split("## Infrastructure checks (checkov)", 1)[1]
    listed = 0
    for name, res in resources().items():
        for check, reason in skips(res).items():
            assert len(reason) > 20, (name, check)
            assert check in section, (name, check)
            listed += 1
    assert listed
