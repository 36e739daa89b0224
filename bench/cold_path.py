"""Cold path of every function beside the floor and a FastAPI + Mangum monolith, as ratios measured side by side.

A function's cold path is what a fresh execution environment pays before the first request's own work:
the handler's import (a streaming function's runtime loop too), the services its first request builds
(the providers its handler calls and its plane's credential check: whatever they import
lazily is counted, so moving an import into an accessor is no gain here), ``import boto3``, the clients
the function's IAM policies give it a use for (created by ``core.platform.aws``, as its requests create them) and
its settings. Pydantic schemas built at a model's first use (``defer_build``) are not counted.

The path a deployed function takes: with the variables of its Lambda extensions (template.yaml), a function whose
policies let it read a secret reads one through the AWS Parameters and Secrets Lambda Extension (one GET to
localhost, ``core.platform.secrets``) and builds no Secrets Manager client. A thread of the bench stands in for the
extension's answer; the extension's own start (a process of its own, outside the function's interpreter) is not
measured here.

The floor is ``import boto3`` + one DynamoDB client: no function that reads DynamoDB can start lighter.
The monolith is an empty FastAPI app behind Mangum (one route returning JSON) with boto3 and one
DynamoDB client.

Each sample is a fresh interpreter that times itself from its first import (the interpreter's own
start-up is the same for all three and left out) in CPU time (``time.process_time``): the cold path
is CPU-bound (imports from a warm page cache, no network), and on a shared machine wall time would
mostly measure the neighbours. Every function sample is taken next to a floor sample, and every
monolith sample too, in alternating order, so both sides of a ratio see the same noise (a busy
core's caches, frequency); a ratio is of the two medians. X-Ray is off (``bench/cold_observability.py``
measures Tracer).

    PYTHONPATH=layers/common:. .venv/bin/python bench/cold_path.py [--runs 5] [--only BrainChatFunction]
"""

from __future__ import annotations

import json
import os
import re
import sys
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
sys.path[:0] = [str(ROOT)]  # a script: ``local`` and ``bench`` importable when run by path

from bench import benchkit  # noqa: E402
from bench.cold_path_probes import (  # noqa: E402
    FLOOR_PROBE,
    FUNCTION_PROBE,
    MONOLITH_PROBE,
    SECRET_PROBE_LINES,
    STAGED_PROBE,
    Probe,
    base_env,
    run,
    sample,
    side_by_side,
    stand_in_extension,
)
from stack.template import Stack, load  # noqa: E402

TIMES = "\u00d7"  # the multiplication sign of the ratios
# Issue 43's targets, as ratios: pydantic's import and first schema alone are about 0.35x the floor.
TARGET_MEDIAN, TARGET_WORST_VS_MONOLITH = 1.45, 0.8

# An IAM action prefix or a SAM policy template's name -> the client a function makes for it.
SERVICE_OF_PREFIX = {
    "dynamodb": "dynamodb",
    "s3": "s3",
    "secretsmanager": "secretsmanager",
    "bedrock": "bedrock-runtime",
    "sqs": "sqs",
    "ses": "ses",
}
SAM_POLICY_TEMPLATES = {
    "DynamoDB": "dynamodb",
    "S3": "s3",
    "SQS": "sqs",
    "SES": "ses",
    "AWSSecretsManager": "secretsmanager",
}


def accessors_of(handler_source: str) -> tuple[str, ...]:
    """The providers a handler's first request calls (``"core.posts.providers:writer"``): its own, and its plane's
    credential check (the key check for a brain_api, the session check for an authenticated portal_api). Only the
    cached builders: a provider that calls AWS (a secret, a queue) is left to the request."""
    aliases = dict(re.findall(r"^from (core\.\w+) import providers as (\w+)$", handler_source, re.M))
    names = [f"{package}.providers:{name}" for package, alias in aliases.items()
             for name in re.findall(rf"\b{alias}\.(\w+)\(", handler_source)]  # fmt: skip
    if "brain_api(" in handler_source:
        names.append("core.keys.providers:checker")
    if re.search(r"portal_api\((authenticated=True)?\)", handler_source):
        names.append("core.identity.providers:sessions")
    builders = {
        f"core.{f.parent.name}.providers:{b}"
        for f in (ROOT / "layers/common/core").glob("*/providers.py")
        for b in re.findall(r"@per_container\ndef (\w+)\(", f.read_text())
    }
    return tuple(dict.fromkeys(name for name in names if name in builders))


def clients_of(stack: Stack, function: dict[str, Any]) -> tuple[str, ...]:
    """The AWS clients a function's policies give it a use for (managed policies it references included)."""
    policies = function["Properties"].get("Policies") or []
    managed = stack.of_type("AWS::IAM::ManagedPolicy")
    expanded = [
        managed[p["Ref"]]["Properties"] if isinstance(p, dict) and p.get("Ref") in managed else p for p in policies
    ]
    text = json.dumps(expanded)
    found = {SERVICE_OF_PREFIX[m] for m in re.findall(r'"(\w+):\w+"', text) if m in SERVICE_OF_PREFIX}
    found |= {svc for m in re.findall(r'"(\w+?)\w*Policy"', text) for key, svc in SAM_POLICY_TEMPLATES.items()
              if m.startswith(key)}  # fmt: skip
    order = list(SERVICE_OF_PREFIX.values())
    return tuple(sorted(found, key=order.index))


STAGED: dict[str, Probe] = {}  # each function's staged probe, by logical id


def deployed(
    services: tuple[str, ...], extension_environment: dict[str, str], port: int | None
) -> tuple[tuple[str, ...], bool, dict[str, str]]:
    """The clients a deployed function builds, whether it reads a secret through the secrets extension, and the
    extension's variables (its port: the bench's stand-in). Without the extension (or no stand-in), Secrets Manager's
    client as before."""
    if port is None or "PARAMETERS_SECRETS_EXTENSION_HTTP_PORT" not in extension_environment:
        return services, False, {}
    env = extension_environment | {"PARAMETERS_SECRETS_EXTENSION_HTTP_PORT": str(port)}
    return tuple(s for s in services if s != "secretsmanager"), "secretsmanager" in services, env


def function_probes(stack: Stack, only: set[str], port: int | None = None) -> list[tuple[Probe, tuple[str, ...]]]:
    layer = stack.layer_dirs()[0]
    found = []
    for name, spec in sorted(stack.functions().items()):
        if only and name not in only:
            continue
        services, reads_secret, extension_env = deployed(
            clients_of(stack, stack.resources[name]), spec.extension_environment, port
        )
        module = spec.handler.rsplit(".", 1)[0]
        accessors = accessors_of((spec.code_uri / f"{module}.py").read_text())
        values = {
            "code": str(spec.code_uri),
            "layer": str(layer),
            "runtime": "import core.platform.lambda_runtime.loop\n" if spec.streaming else "",
            "module": module,
            "accessors": accessors,
            "services": services,
            "secret": SECRET_PROBE_LINES if reads_secret else "",
        }
        env = base_env() | spec.environment | extension_env | {"AWS_DEFAULT_REGION": "us-east-1"}
        shown = (*services, "secret via extension") if reads_secret else services
        found.append((Probe(name, FUNCTION_PROBE.format(**values), env), shown))
        STAGED[name] = Probe(name, STAGED_PROBE.format(**values), env)
    return found


def stages(probe: Probe, runs: int) -> list[tuple[str, float]]:
    """Median CPU ms of each stage of ``probe`` (a staged probe) over ``runs`` fresh interpreters."""
    samples = [json.loads(run(probe).splitlines()[-1]) for _ in range(runs)]
    return [(name, benchkit.median(run[i][1] for run in samples)) for i, (name, _) in enumerate(samples[0])]


def main(argv: list[str] | None = None) -> dict[str, str]:
    argv = sys.argv[1:] if argv is None else argv
    parser = benchkit.parser(__doc__)
    parser.add_argument("--runs", type=int, default=5, help="samples of each function (and of the floor beside it)")
    parser.add_argument("--only", nargs="*", default=[], help="logical ids of the functions to measure (all)")
    args = parser.parse_args(argv)

    stack = Stack(load())
    floor = Probe("floor", FLOOR_PROBE, base_env())
    monolith = Probe("FastAPI + Mangum", MONOLITH_PROBE, base_env())
    functions = function_probes(stack, set(args.only), stand_in_extension())
    for probe in (floor, monolith, *(p for p, _ in functions)):
        sample(probe)  # writes the bytecode cache, as a deployed package ships compiled dependencies

    mono, mono_floor = side_by_side(monolith, floor, args.runs)
    mono_ratio = benchkit.median(mono) / benchkit.median(mono_floor)
    rows, all_floors = [], list(mono_floor)
    for probe, services in functions:
        mine, floors = side_by_side(probe, floor, args.runs)
        all_floors += floors
        ratio = benchkit.median(mine) / benchkit.median(floors)
        rows.append((probe.name, ", ".join(services) or "none", benchkit.median(mine), ratio, ratio / mono_ratio))
    rows.sort(key=lambda row: row[3], reverse=True)
    markdown = report(rows, benchkit.median(all_floors), benchkit.median(mono), mono_ratio, args.runs)
    worst = rows[0][0]
    staged = stages(STAGED[worst], args.runs)
    floor_ms = staged[0][1]
    markdown += f"\n\nWhere the time goes in the slowest, {worst} (CPU ms, medians of {args.runs}; a module two "
    markdown += "stages import counts in the first):\n\n" + benchkit.table(
        ["stage", "CPU ms", f"{TIMES} floor"], [(name, ms, f"{ms / floor_ms:.2f}{TIMES}") for name, ms in staged]
    )
    bound = sum(ms for _, ms in staged[:3]) / floor_ms
    markdown += (
        f"\n\nThe least any function can take while it builds a pydantic model and Powertools' Logger (the first "
        f"three stages): {bound:.2f}{TIMES} the floor, which leaves {TARGET_MEDIAN - bound:.2f}{TIMES} "
        f"({(TARGET_MEDIAN - bound) * floor_ms:.0f} ms) of the median target for a function's handler, resolver, "
        "services, models and settings."
    )
    return benchkit.finish(args, "Cold path", benchkit.command("cold_path.py", argv), markdown)


def report(rows: list[tuple], floor_ms: float, mono_ms: float, mono_ratio: float, runs: int) -> str:
    ratios = sorted(row[3] for row in rows)
    median, worst = benchkit.median(ratios), ratios[-1]
    verdict = [
        ("median function / floor", median, TARGET_MEDIAN),
        ("worst function / FastAPI + Mangum", worst / mono_ratio, TARGET_WORST_VS_MONOLITH),
    ]
    lines = [
        f"CPU time in fresh interpreters, {runs} samples each, every one beside a floor sample (Python "
        f"{sys.version.split()[0]}, {os.cpu_count()} cores). Floor (`import boto3` + one DynamoDB client): "
        f"median {floor_ms:.0f} ms. FastAPI + Mangum (one JSON route, boto3, one DynamoDB client): "
        f"{mono_ms:.0f} ms, {mono_ratio:.2f}{TIMES} the floor.",
        "",
        benchkit.table(
            ["figure", "measured", "target", "holds"],
            [
                (name, f"{value:.2f}{TIMES}", f"\u2264 {target}{TIMES}", "yes" if value <= target else "no")
                for name, value, target in verdict
            ],
        ),
        "",
        f"Worst function / floor: {worst:.2f}{TIMES} (no target of its own: every function against FastAPI + Mangum).",
        "",
        benchkit.table(
            ["function", "clients", "cold path CPU ms", f"{TIMES} floor", f"{TIMES} FastAPI + Mangum"],
            [(name, clients, ms, f"{ratio:.2f}{TIMES}", f"{vs:.2f}{TIMES}") for name, clients, ms, ratio, vs in rows],
        ),
    ]
    return "\n".join(lines)


if __name__ == "__main__":
    main()
