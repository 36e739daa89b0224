"""Print template.yaml as AWS SAM transforms it for deployment (CloudFormation JSON), offline.

Run with the SAM CLI's own interpreter (``.venv-sam/bin/python``): aws-sam-translator pins
a pydantic that the app's venv does not use. No AWS call is made: the managed-policy
map is given, and the session only names a region.
"""

from __future__ import annotations

import json
import sys
from pathlib import Path

import boto3
from samtranslator.parser.parser import Parser
from samtranslator.translator.translator import Translator
from samtranslator.yaml_helper import yaml_parse

POLICIES = {"AWSLambdaBasicExecutionRole": "arn:aws:iam::aws:policy/service-role/AWSLambdaBasicExecutionRole"}


def main(path: str) -> None:
    template = yaml_parse(Path(path).read_text())
    # As `sam validate` does: local code locations become S3 placeholders (nothing is uploaded).
    for resource in template["Resources"].values():
        properties = resource.get("Properties", {})
        for uri in ("CodeUri", "ContentUri"):
            if isinstance(properties.get(uri), str):
                properties[uri] = "s3://placeholder/code.zip"
    session = boto3.session.Session(region_name="us-east-1", aws_access_key_id="x", aws_secret_access_key="x")
    translator = Translator(managed_policy_map=None, sam_parser=Parser(), plugins=[], boto_session=session)
    output = translator.translate(sam_template=template, parameter_values={}, get_managed_policy_map=lambda: POLICIES)
    json.dump(output, sys.stdout, default=str)


if __name__ == "__main__":
    main(sys.argv[1])
