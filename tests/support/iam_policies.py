"""Each function's IAM statements as SAM deploys template.yaml, resolved to the resources the tests emulate.

aws-sam-translator expands every function's ``Policies`` (SAM policy templates such as DynamoDBReadPolicy,
inline documents, references to the template's managed policies) and ``Tracing`` into the function's generated
role. It lives in the SAM CLI's venv only, so tests/support/sam_transform.py runs it there (``.venv-sam/bin/python``)
and hands back CloudFormation JSON. The roles' documents still hold Ref / Fn::GetAtt / Fn::Sub / Fn::Join: they are
resolved against ``resources`` (logical id -> physical name or ARN, as the emulator names them: ``emulated_resources``),
the template's parameters and moto's account. The translation takes about 2 s: it is cached in .local/iam/, keyed
on the hashes of the template and of the translating script, and in-process.

AWS-managed policies are not in the template: the ones it attaches are written out below as AWS publishes them, and
any other raises, so a new one is read before it is trusted. Statements keep their Condition, which
tests/support/iam_eval.py evaluates; ``partition_keys`` gives it each table's partition key, to read a call's
``dynamodb:LeadingKeys``.
"""

from __future__ import annotations

import hashlib
import json
import os
import re
import subprocess
from functools import cache
from pathlib import Path
from typing import Any

from stack.template import ACCOUNT_ID, ROOT, TEMPLATE, Stack, load
from tests.support.iam_eval import SECRET_SUFFIX, Statement

SAM_PYTHON = ROOT / ".venv-sam" / "bin" / "python"
TRANSFORM = ROOT / "tests" / "support" / "sam_transform.py"
CACHE = ROOT / ".local" / "iam"
REGION = "us-east-1"

_LOGS = ["logs:CreateLogGroup", "logs:CreateLogStream", "logs:PutLogEvents"]
AWS_MANAGED: dict[str, list[dict[str, Any]]] = {
    "AWSLambdaBasicExecutionRole": [{"Effect": "Allow", "Action": _LOGS, "Resource": "*"}],
    "AWSXrayWriteOnlyAccess": [{"Effect": "Allow", "Resource": "*", "Action": [
        "xray:PutTraceSegments", "xray:PutTelemetryRecords", "xray:GetSamplingRules", "xray:GetSamplingTargets",
        "xray:GetSamplingStatisticSummaries"]}],
    "AWSLambdaSQSQueueExecutionRole": [{"Effect": "Allow", "Resource": "*", "Action": [
        "sqs:ReceiveMessage", "sqs:DeleteMessage", "sqs:GetQueueAttributes", *_LOGS]}],
    # SAM attaches it to a function with a Type: DynamoDB event (EventsFunction): its streams' reads, every table's
    "AWSLambdaDynamoDBExecutionRole": [{"Effect": "Allow", "Resource": "*", "Action": [
        "dynamodb:DescribeStream", "dynamodb:GetRecords", "dynamodb:GetShardIterator", "dynamodb:ListStreams",
        *_LOGS]}],
}  # fmt: skip

# A resource's ARN from its physical name, by type; what its Ref answers when that is neither name nor ARN.
_ARNS = {
    "AWS::DynamoDB::Table": "arn:aws:dynamodb:{region}:{account}:table/{name}",
    "AWS::S3::Bucket": "arn:aws:s3:::{name}",
    "AWS::SQS::Queue": "arn:aws:sqs:{region}:{account}:{name}",
    "AWS::SecretsManager::Secret": "arn:aws:secretsmanager:{region}:{account}:secret:{name}-" + SECRET_SUFFIX,
    "AWS::SNS::Topic": "arn:aws:sns:{region}:{account}:{name}",
    "AWS::Lambda::Function": "arn:aws:lambda:{region}:{account}:function:{name}",
    "AWS::Logs::LogGroup": "arn:aws:logs:{region}:{account}:log-group:{name}",
}
_REF_IS_ARN = {"AWS::SecretsManager::Secret", "AWS::SNS::Topic"}
_QUEUE_URL = "https://sqs.{region}.amazonaws.com/{account}/{name}"


def emulated_resources(template_path: Path = TEMPLATE, stack_name: str = "local") -> dict[str, str]:
    """Physical names as local.aws.emulator.create_resources gives them (tables, buckets, queues, secrets)."""
    stack = Stack(load(template_path), stack_name)
    kinds = {"AWS::DynamoDB::Table", "AWS::S3::Bucket", "AWS::SQS::Queue", "AWS::SecretsManager::Secret"}
    return {name: stack.physical_name(name) for name, res in stack.resources.items() if res["Type"] in kinds}


def partition_keys(template_path: Path = TEMPLATE, resources: dict[str, str] | None = None) -> dict[str, str]:
    """Each table's partition key attribute (its KeySchema's HASH), by the physical name ``resources`` gives it."""
    names = emulated_resources(template_path) if resources is None else resources
    found = {}
    for logical, res in load(template_path)["Resources"].items():
        if res["Type"] == "AWS::DynamoDB::Table" and logical in names:
            schema = res["Properties"]["KeySchema"]
            (hash_key,) = (k["AttributeName"] for k in schema if k["KeyType"] == "HASH")
            found[names[logical].rsplit("/", 1)[-1]] = hash_key  # a name, or the table's ARN: its name
    return found


def transformed(template_path: Path = TEMPLATE) -> dict[str, Any]:
    """The template as SAM deploys it, from .local/iam/ when this template and translator script were seen before."""
    digest = hashlib.sha256(Path(template_path).read_bytes() + TRANSFORM.read_bytes()).hexdigest()[:24]
    return _transformed(str(Path(template_path).resolve()), digest)


@cache
def _transformed(path: str, digest: str) -> dict[str, Any]:
    cached = CACHE / f"{digest}.json"
    if cached.exists():
        found: dict[str, Any] = json.loads(cached.read_text())
        return found
    if not SAM_PYTHON.exists():
        raise RuntimeError(f"{SAM_PYTHON} is missing: `make validate` creates the SAM CLI's venv")
    environment = os.environ | {"AWS_DEFAULT_REGION": REGION}
    run = subprocess.run([SAM_PYTHON, TRANSFORM, path], capture_output=True, text=True, env=environment,
                         check=True, timeout=300)  # fmt: skip
    CACHE.mkdir(parents=True, exist_ok=True)
    partial = cached.with_suffix(f".{os.getpid()}.tmp")  # written whole, then renamed: parallel sessions may race
    partial.write_text(run.stdout)
    partial.replace(cached)
    output: dict[str, Any] = json.loads(run.stdout)
    return output


class _Resolver:
    """Ref / Fn::GetAtt / Fn::Sub / Fn::Join against physical names, parameters and pseudo-parameters."""

    def __init__(self, template: dict[str, Any], resources: dict[str, str], region: str, account: str):
        self.types = {name: res["Type"] for name, res in template["Resources"].items()}
        parameters = {name: str(p.get("Default", "")) for name, p in template.get("Parameters", {}).items()}
        self.parameters = parameters | {k: v for k, v in resources.items() if k in parameters}
        self.lists = {name for name, p in template.get("Parameters", {}).items() if p["Type"] == "CommaDelimitedList"}
        self.conditions: dict[str, Any] = template.get("Conditions", {})
        self.resources, self.region, self.account = resources, region, account
        # The stack's name as the emulator's (``emulated_resources``): a secret the template names by it (a chat
        # model's key, ``<stack>/models/*``) is created under the same name by the tests.
        self.pseudo = {"AWS::Region": region, "AWS::AccountId": account, "AWS::Partition": "aws",
                       "AWS::URLSuffix": "amazonaws.com", "AWS::StackName": "local"}  # fmt: skip

    def __call__(self, value: Any) -> Any:
        if isinstance(value, list):
            return [self(v) for v in value]
        if not isinstance(value, dict):
            return value
        if len(value) != 1 or not (next(iter(value)) == "Ref" or next(iter(value)).startswith("Fn::")):
            return {k: self(v) for k, v in value.items()}
        ((function, argument),) = value.items()
        if function == "Ref":
            return self.ref(argument)
        if function == "Fn::GetAtt":
            return self.attribute(*(argument.split(".", 1) if isinstance(argument, str) else argument))
        if function == "Fn::Join":
            return str(self(argument[0])).join(str(part) for part in self(argument[1]))
        if function == "Fn::Sub":
            text, variables = (argument, {}) if isinstance(argument, str) else (argument[0], self(argument[1]))
            return re.sub(r"\$\{([^}]+)\}", lambda m: self._variable(m.group(1), variables), text)
        if function == "Fn::Split":
            return str(self(argument[1])).split(str(self(argument[0])))
        if function == "Fn::If":  # a grant that depends on a parameter (ChatBedrockModelIds)
            return self(argument[1] if self.holds(argument[0]) else argument[2])
        raise ValueError(f"{function} in a policy: not resolved here ({value})")

    def holds(self, condition: Any) -> bool:
        """A condition of the template (by name) or a condition function, with the parameters given."""
        if isinstance(condition, str):
            return self.holds(self.conditions[condition])
        ((function, argument),) = condition.items()
        if function == "Condition":
            return self.holds(argument)
        if function == "Fn::Not":
            return not self.holds(argument[0])
        if function == "Fn::And":
            return all(self.holds(part) for part in argument)
        if function == "Fn::Or":
            return any(self.holds(part) for part in argument)
        if function == "Fn::Equals":
            return str(self(argument[0])) == str(self(argument[1]))
        raise ValueError(f"{function} in a condition: not resolved here ({condition})")

    def _variable(self, name: str, variables: dict[str, Any]) -> str:
        if name.startswith("!"):  # ${!Literal} is the text ${Literal}
            return "${" + name[1:] + "}"
        if name in variables:
            return str(variables[name])
        if "." in name and not name.startswith("AWS::"):
            return str(self.attribute(*name.split(".", 1)))
        return str(self.ref(name))

    def name(self, logical_id: str) -> str:
        if logical_id not in self.resources:
            raise KeyError(f"no physical name for {logical_id} ({self.types.get(logical_id)}) in resources")
        given = self.resources[logical_id]
        if not given.startswith("arn:"):
            return given
        name = re.split(r"[:/]", given)[-1]
        secret = self.types[logical_id] == "AWS::SecretsManager::Secret"
        return re.sub(r"-[A-Za-z0-9]{6}$", "", name) if secret else name  # the name without Secrets Manager's suffix

    def ref(self, logical_id: str) -> str:
        if logical_id in self.pseudo:
            return self.pseudo[logical_id]
        if logical_id in self.parameters:
            value = self.parameters[logical_id]
            return value.split(",") if logical_id in self.lists else value  # type: ignore[return-value]
        kind = self.types.get(logical_id)
        if kind == "AWS::SQS::Queue":
            return _QUEUE_URL.format(region=self.region, account=self.account, name=self.name(logical_id))
        return self.attribute(logical_id, "Arn") if kind in _REF_IS_ARN else self.name(logical_id)

    def attribute(self, logical_id: str, attribute: str) -> str:
        kind = self.types.get(logical_id, "")
        if attribute == "Arn" and kind in _ARNS:
            return _ARNS[kind].format(region=self.region, account=self.account, name=self.name(logical_id))
        if attribute in ("QueueName", "TopicName", "Name"):
            return self.name(logical_id)
        if attribute == "QueueUrl":
            return self.ref(logical_id)
        raise ValueError(f"Fn::GetAtt {logical_id}.{attribute} ({kind}): not resolved here")


def _document(resolve: _Resolver, document: dict[str, Any], policy: str) -> list[Statement]:
    statements = resolve(document)["Statement"]
    return [Statement.parse(s, policy) for s in ([statements] if isinstance(statements, dict) else statements)]


def _role_statements(template: dict[str, Any], role_id: str, resolve: _Resolver) -> list[Statement]:
    resources = template["Resources"]
    role = resources[role_id]["Properties"]
    if "PermissionsBoundary" in role:
        raise NotImplementedError(f"{role_id} has a permissions boundary: not evaluated here")
    found = [s for p in role.get("Policies", []) for s in _document(resolve, p["PolicyDocument"], p["PolicyName"])]
    for arn in role.get("ManagedPolicyArns", []):
        own = arn.get("Ref") if isinstance(arn, dict) else None
        if isinstance(own, str) and own in resources:  # one of the template's AWS::IAM::ManagedPolicy
            found += _document(resolve, resources[own]["Properties"]["PolicyDocument"], own)
            continue
        name = str(resolve(arn)).rsplit("/", 1)[-1]
        if name not in AWS_MANAGED:
            raise ValueError(f"{role_id} attaches {name}: write its statements into AWS_MANAGED first")
        found += [Statement.parse(s, name) for s in AWS_MANAGED[name]]
    for name, res in resources.items():  # policies that attach themselves to the role (their Roles list)
        props = res.get("Properties", {})
        if res["Type"] in ("AWS::IAM::Policy", "AWS::IAM::ManagedPolicy") and {"Ref": role_id} in props.get(
            "Roles", []
        ):
            found += _document(resolve, props["PolicyDocument"], name)
    return found


def function_policies(
    template_path: Path, resources: dict[str, str], *, region: str = REGION, account: str = ACCOUNT_ID
) -> dict[str, list[Statement]]:
    """Every function's statements (by logical id): its role's inline policies, then its managed policies.

    ``resources`` maps logical ids to physical names (or ARNs), and may override parameters' defaults.
    """
    template = transformed(template_path)
    resolve = _Resolver(template, resources, region, account)
    policies = {}
    for name, res in template["Resources"].items():
        if res["Type"] != "AWS::Lambda::Function":
            continue
        role = res["Properties"]["Role"]
        if not (isinstance(role, dict) and "Fn::GetAtt" in role):
            raise ValueError(f"{name}'s role {role} is not one of the template's")
        policies[name] = _role_statements(template, role["Fn::GetAtt"][0], resolve)
    return policies
