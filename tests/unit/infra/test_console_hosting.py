"""template.yaml serves the console from a private bucket behind CloudFront, /api/* on the same origin to the portal
API (docs/decisions.md, "The console on AWS" and "The console's session"), with the headers local/console.py sends."""

from __future__ import annotations

import json
import shutil
import subprocess
from typing import Any

import pytest

from local.console import content_security_policy, security_headers
from stack.template import load

CACHING_OPTIMIZED = "658327ea-f89d-4fab-a63d-7e88639e58f6"
CACHING_DISABLED = "4135ea2d-6df8-44a3-9df3-4b5a84be39ad"
ALL_VIEWER_EXCEPT_HOST = "b689b0a8-53d0-40ab-baf2-68738e2966ac"
UPLOAD_ORIGINS = "https://${ContentBucket.DomainName} https://${ContentBucket.RegionalDomainName}"


@pytest.fixture(scope="module")
def template() -> dict[str, Any]:
    return load()


def props(template: dict[str, Any], name: str) -> dict[str, Any]:
    found: dict[str, Any] = template["Resources"][name]["Properties"]
    return found


def refs(value: Any) -> set[str]:
    """Every resource a value names (Ref, GetAtt, ${...} in Sub)."""
    import re

    text = json.dumps(value)
    named = set(re.findall(r'"Ref": "(\w+)"', text)) | set(re.findall(r'"Fn::GetAtt": \["(\w+)"', text))
    return named | set(re.findall(r"\$\{(\w+)[.}]", text))


def test_the_bucket_is_private_and_only_the_distribution_reads_it(template: dict[str, Any]) -> None:
    bucket = props(template, "ConsoleBucket")
    assert set(bucket["PublicAccessBlockConfiguration"].values()) == {True}
    assert bucket["OwnershipControls"]["Rules"] == [{"ObjectOwnership": "BucketOwnerEnforced"}]
    assert bucket["BucketEncryption"]["ServerSideEncryptionConfiguration"][0]["ServerSideEncryptionByDefault"]
    allow, deny = props(template, "ConsoleBucketPolicy")["PolicyDocument"]["Statement"]
    assert (allow["Effect"], allow["Principal"], allow["Action"]) == (
        "Allow", {"Service": "cloudfront.amazonaws.com"}, "s3:GetObject")  # fmt: skip
    assert allow["Resource"] == {"Fn::Sub": "${ConsoleBucket.Arn}/*"}
    source = allow["Condition"]["StringEquals"]["AWS:SourceArn"]["Fn::Sub"]
    assert source.endswith(":distribution/${ConsoleDistribution}")
    assert (deny["Effect"], deny["Condition"]) == ("Deny", {"Bool": {"aws:SecureTransport": "false"}})
    oac = props(template, "ConsoleOriginAccessControl")["OriginAccessControlConfig"]
    assert (oac["OriginAccessControlOriginType"], oac["SigningBehavior"], oac["SigningProtocol"]) == (
        "s3", "always", "sigv4")  # fmt: skip


def test_the_default_behaviour_is_the_bucket_and_api_goes_to_the_portal_stage(template: dict[str, Any]) -> None:
    config = props(template, "ConsoleDistribution")["DistributionConfig"]
    origins = {o["Id"]: o for o in config["Origins"]}
    assert origins["console"]["OriginAccessControlId"] == {"Fn::GetAtt": ["ConsoleOriginAccessControl", "Id"]}
    assert origins["console"]["DomainName"] == {"Fn::GetAtt": ["ConsoleBucket", "RegionalDomainName"]}
    api = origins["portal-api"]
    assert api["DomainName"] == {"Fn::Sub": "${PortalApi}.execute-api.${AWS::Region}.${AWS::URLSuffix}"}
    assert api["OriginPath"] == {"Fn::Sub": "/${StageName}"}
    assert api["CustomOriginConfig"] == {"OriginProtocolPolicy": "https-only", "OriginSSLProtocols": ["TLSv1.2"]}

    default = config["DefaultCacheBehavior"]
    assert (default["TargetOriginId"], default["CachePolicyId"], default["AllowedMethods"]) == (
        "console", CACHING_OPTIMIZED, ["GET", "HEAD"])  # fmt: skip
    assert default["FunctionAssociations"] == [{"EventType": "viewer-request", "FunctionARN": {
        "Fn::GetAtt": ["ConsoleRewriteFunction", "FunctionMetadata.FunctionARN"]}}]  # fmt: skip
    (behaviour,) = config["CacheBehaviors"]
    assert behaviour["PathPattern"] == "/api/*" and behaviour["TargetOriginId"] == "portal-api"
    assert set(behaviour["AllowedMethods"]) == {"GET", "HEAD", "OPTIONS", "PUT", "PATCH", "POST", "DELETE"}
    assert (behaviour["CachePolicyId"], behaviour["OriginRequestPolicyId"]) == (
        CACHING_DISABLED,
        ALL_VIEWER_EXCEPT_HOST,
    )
    assert behaviour["ViewerProtocolPolicy"] == "https-only"
    for each in (default, behaviour):
        assert each["ResponseHeadersPolicyId"] == {"Ref": "ConsoleHeadersPolicy"}


def test_the_headers_are_those_the_local_console_sends(template: dict[str, Any]) -> None:
    config = props(template, "ConsoleHeadersPolicy")["ResponseHeadersPolicyConfig"]
    security = config["SecurityHeadersConfig"]
    assert security["ContentSecurityPolicy"]["ContentSecurityPolicy"] == {
        "Fn::Sub": content_security_policy(UPLOAD_ORIGINS)
    }
    local = security_headers("x")
    assert security["FrameOptions"]["FrameOption"] == local["X-Frame-Options"]
    assert security["ReferrerPolicy"]["ReferrerPolicy"] == local["Referrer-Policy"]
    assert (
        "ContentTypeOptions" in security and security["StrictTransportSecurity"]["AccessControlMaxAgeSec"] >= 31536000
    )
    custom = {h["Header"]: h["Value"] for h in config["CustomHeadersConfig"]["Items"]}
    assert custom == {"Permissions-Policy": local["Permissions-Policy"]}
    assert all(v.get("Override") is True for v in security.values())


@pytest.mark.skipif(shutil.which("node") is None, reason="node runs the CloudFront function's JavaScript")
@pytest.mark.parametrize(
    ("uri", "served"),
    [("/", "/index.html"), ("/w/ws_1/keys", "/index.html"), ("/invitations", "/index.html"),
     ("/w/ws_1/agents/ag_1/knowledge/", "/index.html"), ("/assets/index-a1b2.js", "/assets/index-a1b2.js"),
     ("/favicon.svg", "/favicon.svg")],
)  # fmt: skip
def test_the_rewrite_function_serves_index_html_for_the_apps_routes(
    template: dict[str, Any], uri: str, served: str
) -> None:
    code = props(template, "ConsoleRewriteFunction")["FunctionCode"]
    probe = f"{code}\nconsole.log(JSON.stringify(handler({{request: {{uri: {json.dumps(uri)}}}}})));"
    out = subprocess.run(["node", "-e", probe], capture_output=True, text=True, check=True, timeout=30)  # noqa: S607
    assert json.loads(out.stdout)["uri"] == served


def test_nothing_the_functions_or_the_content_bucket_name_depends_on_the_distribution(
    template: dict[str, Any],
) -> None:
    """The cycle the design avoids: distribution -> portal API -> functions -> (env, policies) -> distribution."""
    resources = template["Resources"]
    for name, res in resources.items():
        if res["Type"] == "AWS::Serverless::Function" or name in {"ContentBucket", "ContentBucketPolicy"}:
            assert not refs(res.get("Properties")) & {"ConsoleDistribution", "ConsoleUrlParameter"}, name
    assert not refs(template["Globals"]) & {"ConsoleDistribution", "ConsoleUrlParameter"}
    parameter = props(template, "ConsoleUrlParameter")
    assert parameter["Name"] == {"Fn::Sub": "/${AWS::StackName}/console-url"}
    assert parameter["Value"] == {"Fn::Sub": "https://${ConsoleDistribution.DomainName}"}
    assert template["Parameters"]["PortalAppUrl"]["Default"] == ""


def test_the_only_ssm_grant_is_the_mailers_read_of_the_console_parameter(template: dict[str, Any]) -> None:
    granted = {
        name: statement
        for name, res in template["Resources"].items()
        if res["Type"] == "AWS::Serverless::Function"
        for policy in res["Properties"].get("Policies", [])
        if isinstance(policy, dict) and "Statement" in policy
        for statement in policy["Statement"]
        if "ssm" in json.dumps(statement["Action"])
    }
    assert set(granted) == {"PortalMagicLinkFunction", "PortalInvitationCreateFunction"}
    for statement in granted.values():
        assert statement["Action"] == "ssm:GetParameter"
        assert statement["Resource"]["Fn::Sub"].endswith(":parameter/${AWS::StackName}/console-url")


def test_the_content_bucket_takes_the_consoles_upload_from_any_origin_for_post_only(template: dict[str, Any]) -> None:
    """The console's origin (the distribution's domain) cannot be named without a cycle; the presigned POST's policy
    is the authorization (docs/decisions.md, "The console's uploads")."""
    (rule,) = props(template, "ContentBucket")["CorsConfiguration"]["CorsRules"]
    assert (rule["AllowedOrigins"], rule["AllowedMethods"]) == (["*"], ["POST"])
    assert "AllowedCredentials" not in rule  # S3 never sends credentials with '*': no cookie or key rides along


def test_the_outputs_name_what_console_upload_needs(template: dict[str, Any]) -> None:
    outputs = template["Outputs"]
    assert outputs["ConsoleBucketName"]["Value"] == {"Ref": "ConsoleBucket"}
    assert outputs["ConsoleDistributionId"]["Value"] == {"Ref": "ConsoleDistribution"}
    assert outputs["ConsoleUrl"]["Value"] == {"Fn::Sub": "https://${ConsoleDistribution.DomainName}"}
