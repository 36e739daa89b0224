"""Reading template.yaml: the one source of truth for tables, bucket, environment and routes.

Understands the CloudFormation short tags (``!Ref``, ``!Sub``, ``!GetAtt`` …) and
resolves them against local physical names, so nothing here repeats the template.
"""

from __future__ import annotations

import copy
import functools
import re
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import yaml

ROOT = Path(__file__).resolve().parent.parent
TEMPLATE = ROOT / "template.yaml"
ACCOUNT_ID = "123456789012"  # moto's default account
# Parameters whose template default names something only a deployment has: PortalAppUrl's empty default means "the
# console this stack's CloudFront serves", read from SSM; a local stack's mail links open the local console instead
# (the runner sets the console it serves over this default).
LOCAL_PARAMETERS = {"PortalAppUrl": "http://localhost:5173"}


# libyaml's parser when PyYAML has it (its wheels do): the template is 230 kB, 0.5 s to parse in pure Python, 0.06 s so.
class _CfnLoader(getattr(yaml, "CSafeLoader", yaml.SafeLoader)):  # type: ignore[misc]
    pass


def _tag(loader: yaml.Loader, suffix: str, node: yaml.Node) -> dict[str, Any]:
    if isinstance(node, yaml.ScalarNode):
        value: Any = loader.construct_scalar(node)
    elif isinstance(node, yaml.SequenceNode):
        value = loader.construct_sequence(node, deep=True)
    else:
        assert isinstance(node, yaml.MappingNode)  # PyYAML has no other kind of node
        value = loader.construct_mapping(node, deep=True)
    if suffix == "Ref":
        return {"Ref": value}
    if suffix == "GetAtt" and isinstance(value, str):
        value = value.split(".", 1)
    return {f"Fn::{suffix}": value}


_CfnLoader.add_multi_constructor("!", _tag)


def load(path: Path = TEMPLATE) -> dict[str, Any]:
    """The template as a document of its own (a caller may change it). Parsed once per version of the file: the
    suites read it thousands of times (every look at a runner's stored state names its table from it)."""
    stat = path.stat()
    return copy.deepcopy(_parsed(path.resolve(), stat.st_mtime_ns, stat.st_size))


@functools.lru_cache(maxsize=8)
def _parsed(path: Path, mtime_ns: int, size: int) -> dict[str, Any]:
    """The file parsed; ``mtime_ns`` and ``size`` are only the cache's key (an edited file is parsed again)."""
    return yaml.load(path.read_text(), Loader=_CfnLoader)  # noqa: S506 - SafeLoader subclass


EXTENSION_VARIABLES = ("PARAMETERS_SECRETS_EXTENSION_",)  # read by the secrets extension's layer, deployed only


@dataclass(frozen=True)
class Route:
    api: str
    path: str
    method: str
    function: str


@dataclass
class FunctionSpec:
    logical_id: str
    code_uri: Path
    handler: str
    timeout: int
    memory: int
    environment: dict[str, str] = field(default_factory=dict)
    # The variables a deployed function's Lambda extensions read (the secrets extension's port): no extension runs
    # locally, so ``environment`` leaves them out and the code takes its local path (core.platform.secrets).
    extension_environment: dict[str, str] = field(default_factory=dict)
    streaming: bool = (
        False  # an Api event streams its response (runs core.platform.lambda_runtime.loop, not local.containers.worker)
    )


class Stack:
    """The template plus the local names of its resources."""

    def __init__(self, template: dict[str, Any], stack_name: str = "local", region: str = "us-east-1"):
        self.template = template
        self.stack_name = stack_name
        self.region = region
        self.resources: dict[str, dict[str, Any]] = template["Resources"]
        self.parameters = {k: str(v.get("Default", "")) for k, v in template.get("Parameters", {}).items()}
        self.parameters |= {k: v for k, v in LOCAL_PARAMETERS.items() if k in self.parameters}

    def of_type(self, kind: str) -> dict[str, dict[str, Any]]:
        return {name: res for name, res in self.resources.items() if res["Type"] == kind}

    def physical_name(self, logical_id: str) -> str:
        return f"{self.stack_name}-{logical_id}".lower()

    def resolve(self, value: Any) -> Any:
        """Resolve intrinsic functions to local values (enough for environment variables)."""
        if isinstance(value, dict) and len(value) == 1:
            ((fn, arg),) = value.items()
            if fn == "Ref":
                return self._ref(arg)
            if fn == "Fn::GetAtt":
                return self._attribute(arg[0])
            if fn == "Fn::Sub":
                text, variables = (arg, {}) if isinstance(arg, str) else (arg[0], self.resolve(arg[1]))
                return re.sub(r"\$\{([^}!]+)\}", lambda m: str(self._sub_variable(m.group(1), variables)), text)
        if isinstance(value, dict):
            return {k: self.resolve(v) for k, v in value.items()}
        if isinstance(value, list):
            return [self.resolve(v) for v in value]
        return value

    def _attribute(self, name: str) -> str:
        return f"arn:aws:local:{self.region}::{self.physical_name(name)}"

    def _sub_variable(self, name: str, variables: dict[str, Any]) -> str:
        if name in variables:
            return variables[name]
        if "." in name and not name.startswith("AWS::"):  # ${Resource.Attribute} is a GetAtt
            return self._attribute(name.split(".", 1)[0])
        return self._ref(name)

    def _ref(self, name: str) -> str:
        pseudo = {
            "AWS::StackName": self.stack_name,
            "AWS::Region": self.region,
            "AWS::URLSuffix": "localhost",
            "AWS::Partition": "aws",
            "AWS::AccountId": ACCOUNT_ID,
        }
        if name in pseudo:
            return pseudo[name]
        if name in self.parameters:
            return self.parameters[name]
        if self.resources.get(name, {}).get("Type") == "AWS::SQS::Queue":  # a queue's Ref is its URL
            return f"https://sqs.{self.region}.amazonaws.com/{ACCOUNT_ID}/{self.physical_name(name)}"
        return self.physical_name(name)

    def _globals(self) -> dict[str, Any]:
        return self.template.get("Globals", {}).get("Function", {})

    def functions(self) -> dict[str, FunctionSpec]:
        defaults = self._globals()
        specs = {}
        for name, res in self.of_type("AWS::Serverless::Function").items():
            props = defaults | res["Properties"]
            env = self.resolve(defaults.get("Environment", {}).get("Variables", {}))
            env |= self.resolve(res["Properties"].get("Environment", {}).get("Variables", {}))
            specs[name] = FunctionSpec(
                logical_id=name,
                code_uri=ROOT / props["CodeUri"],
                handler=props["Handler"],
                timeout=int(props.get("Timeout", 3)),
                memory=int(self.resolve(props.get("MemorySize", 128))),
                environment={k: str(v) for k, v in env.items() if not k.startswith(EXTENSION_VARIABLES)},
                extension_environment={k: str(v) for k, v in env.items() if k.startswith(EXTENSION_VARIABLES)},
                streaming=any(
                    event["Type"] == "Api"
                    and event.get("Properties", {}).get("ResponseTransferMode") == "RESPONSE_STREAM"
                    for event in res["Properties"].get("Events", {}).values()
                ),
            )
        return specs

    def routes(self, api: str) -> list[Route]:
        routes = []
        for name, res in self.of_type("AWS::Serverless::Function").items():
            for event in res["Properties"].get("Events", {}).values():
                props = event.get("Properties", {})
                if event["Type"] == "Api" and props.get("RestApiId") == {"Ref": api}:
                    routes.append(Route(api, props["Path"], props["Method"].upper(), name))
        return routes

    def api_properties(self, api: str) -> dict[str, Any]:
        return self.resolve(self.resources[api]["Properties"])

    def layer_dirs(self) -> list[Path]:
        return [
            ROOT / res["Properties"]["ContentUri"] for res in self.of_type("AWS::Serverless::LayerVersion").values()
        ]
