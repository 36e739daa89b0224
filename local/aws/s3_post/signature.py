"""S3's checks of a browser-based upload's SigV4 fields: present, well formed, and signing the policy as sent.

From AWS's "Authenticating Requests in Browser-Based Uploads Using POST (AWS Signature Version 4)"; the codes and
messages are those S3 answers (LocalStack's AWS-validated recordings and captures in issue trackers), where the
documentation names none: a missing field is 400 ``InvalidArgument`` naming it, an unknown access key 403
``InvalidAccessKeyId``, a signature that does not match 403 ``SignatureDoesNotMatch`` with the string to sign.
"""

from __future__ import annotations

import hashlib
import hmac
import re
from collections.abc import Mapping

from local.aws.s3_post.form import Refusal

ALGORITHM = "AWS4-HMAC-SHA256"
# In the order S3 names the first one missing (without the algorithm and credential, it names the algorithm).
SIGNED_FIELDS = ("X-Amz-Algorithm", "X-Amz-Credential", "X-Amz-Date", "X-Amz-Signature")


def missing_field(name: str) -> Refusal:
    message = (
        f"Bucket POST must contain a field named '{name}'.  If it is specified, please check the order of the fields."
    )
    return Refusal(400, "InvalidArgument", message, ArgumentName=name, ArgumentValue="")


def authenticate(values: Mapping[str, str], credentials: Mapping[str, str], region: str) -> None:
    """The policy is signed, with SigV4, by the secret of a known access key: else S3's refusal."""
    if not any(name.lower() in values for name in SIGNED_FIELDS):
        raise Refusal(403, "AccessDenied", "Access Denied")  # anonymous: refused by a bucket that is not public
    for name in SIGNED_FIELDS:
        if name.lower() not in values:
            raise missing_field(name)
    if "policy" not in values:
        raise missing_field("Policy")
    algorithm, credential, date = values["x-amz-algorithm"], values["x-amz-credential"], values["x-amz-date"]
    if algorithm != ALGORITHM:
        raise _argument("X-Amz-Algorithm", algorithm, f'X-Amz-Algorithm only supports "{ALGORITHM}"')
    if not re.fullmatch(r"\d{8}T\d{6}Z", date):
        raise _argument("X-Amz-Date", date, "X-Amz-Date must be formated via ISO8601 Long format")  # (sic)
    access_key, day, signed_region, service, terminal = (credential.split("/") + [""] * 5)[:5]
    if credential.count("/") != 4 or not re.fullmatch(r"\d{8}", day) or (service, terminal) != ("s3", "aws4_request"):
        expected = '"<YOUR-AKID>/YYYYMMDD/REGION/SERVICE/aws4_request"'
        raise _argument("X-Amz-Credential", credential, f"the Credential is mal-formed; expecting {expected}.")
    if not access_key:
        message = "a non-empty Access Key (AKID) must be provided in the credential."
        raise _argument("X-Amz-Credential", credential, message)
    if signed_region != region:
        message = f"the region '{signed_region}' is wrong; expecting '{region}'"
        raise Refusal(
            400, "InvalidArgument", message, ArgumentName="X-Amz-Credential", ArgumentValue=credential, Region=region
        )
    secret = credentials.get(access_key)
    if secret is None:
        message = "The AWS Access Key Id you provided does not exist in our records."
        raise Refusal(403, "InvalidAccessKeyId", message, AWSAccessKeyId=access_key)
    # The string to sign is the policy field as sent (still base64): a policy altered in any way fails here.
    policy, provided = values["policy"], values["x-amz-signature"]
    key = f"AWS4{secret}".encode()
    for part in (day, signed_region, service, terminal):
        key = hmac.new(key, part.encode(), hashlib.sha256).digest()
    expected_signature = hmac.new(key, policy.encode(), hashlib.sha256).hexdigest()
    if not hmac.compare_digest(expected_signature.encode(), provided.encode()):
        message = (
            "The request signature we calculated does not match the signature you provided."
            " Check your key and signing method."
        )
        string_bytes = " ".join(f"{byte:02x}" for byte in policy.encode())
        raise Refusal(
            403, "SignatureDoesNotMatch", message,
            AWSAccessKeyId=access_key, StringToSign=policy, SignatureProvided=provided, StringToSignBytes=string_bytes,
        )  # fmt: skip


def _argument(name: str, value: str, message: str) -> Refusal:
    return Refusal(400, "InvalidArgument", message, ArgumentName=name, ArgumentValue=value)
