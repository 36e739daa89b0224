"""Request models (issue 11, holes 7 and 10): one name type, visible prompts, null = absent, strict query integers,
and Unicode-normalised slugs."""

from __future__ import annotations

from typing import Any

import pytest
from pydantic import ValidationError

from core.chat.models import ChatRequest
from core.credits.models import CreditHistoryQuery
from core.identity.models import IdTokenRequest, MagicLinkRequest, MagicLinkVerifyRequest
from core.keys.models import MintKeyRequest
from core.platform.models import RequestModel
from core.workspaces.create import slugify
from core.workspaces.models import CreateWorkspaceRequest

CLIENT = "visitor_3f9a2c7e5b1d4e8f"
FULL_WIDTH = "".join(chr(ord(c) + 0xFEE0) if c != " " else " " for c in "Northwind Coffee")


def refused_field(model: Any, data: dict[str, Any]) -> str:
    with pytest.raises(ValidationError) as caught:
        model.model_validate(data)
    return ".".join(str(p) for p in caught.value.errors()[0]["loc"])


# --- names


BAD_NAMES = ["a\x00b", "Acme\x1b[31m", "line\nbreak", "tab\there", "a\x7fb", "a\x85b", "a\x9bb", "a\u2028b",
             "a\u2029b", "\ud800", "x\udfffy", "\u200b", "\u200b\u200d\u2060\ufeff", " \u3164 ", "\u2800",
             # controls at the ends, which trimming used to take away before the check (the fuzzer's "N\f\f")
             "N\f\f", "\tAcme", "Acme\n", "\rAcme\r"]  # fmt: skip


@pytest.mark.parametrize("name", BAD_NAMES, ids=lambda n: n.encode("unicode_escape").decode())
@pytest.mark.parametrize("model", [CreateWorkspaceRequest, MintKeyRequest])
def test_names_with_control_or_only_invisible_characters_are_refused(model: Any, name: str) -> None:
    assert refused_field(model, {"name": name}) == "name"


@pytest.mark.parametrize(
    ("sent", "stored"),
    [("  Acme  ", "Acme"), ("Café", "Café"), ("Cafe\u0301", "Café"), ("東京 コーヒー", "東京 コーヒー"),
     ("Zoë & Co.", "Zoë & Co."), ("a\u200db", "a\u200db")],
)  # fmt: skip
def test_ordinary_names_are_accepted_trimmed_and_nfc(sent: str, stored: str) -> None:
    assert CreateWorkspaceRequest.model_validate({"name": sent}).name == stored
    assert MintKeyRequest.model_validate({"name": sent}).name == stored


def test_name_lengths_still_apply() -> None:
    assert refused_field(CreateWorkspaceRequest, {"name": "x" * 81}) == "name"
    assert refused_field(MintKeyRequest, {"name": "x" * 65}) == "name"
    assert refused_field(MintKeyRequest, {"name": "   "}) == "name"


# --- chat prompt


@pytest.mark.parametrize(
    "prompt",
    [
        "\u200b",
        " \u200b\u200c\u200d ",
        "\u2060\ufeff",
        "\u00ad",
        "\u180e",
        "\t\n\u3000",
        "\u202e\u2066",
        "\u0019",
        "\u0000\u007f",
        "\u0085\u009f",
    ],  # control characters show nothing either (the document's pattern)
)
def test_invisible_prompt_is_refused(prompt: str) -> None:
    assert refused_field(ChatRequest, {"prompt": prompt, "client": CLIENT}) == "prompt"


def test_prompt_with_visible_text_is_kept_trimmed() -> None:
    assert ChatRequest.model_validate({"prompt": " \u200bhi\n", "client": CLIENT}).prompt == "\u200bhi"


# --- null means absent, for every optional field of every request model


def test_null_optional_fields_take_their_defaults() -> None:
    chat = ChatRequest.model_validate(
        {"prompt": "hi", "client": CLIENT, "history": None, "threadKey": None, "section": None, "brandSlug": None}
    )
    assert (chat.history, chat.thread_key, chat.section, chat.brand_slug) == ([], None, None, None)
    assert MintKeyRequest.model_validate({"name": "k", "rateLimit": None}).rate_limit is None
    entry = ChatRequest.model_validate({"prompt": "hi", "client": CLIENT, "history": [{"content": "x", "role": None}]})
    assert entry.history[0].role is None


@pytest.mark.parametrize(
    ("model", "data", "field"),
    [(ChatRequest, {"prompt": None, "client": CLIENT}, "prompt"), (ChatRequest, {"prompt": "hi", "client": None},
      "client"), (MintKeyRequest, {"name": None}, "name"), (CreateWorkspaceRequest, {"name": None}, "name"),
     (MagicLinkRequest, {"email": None}, "email"), (MagicLinkVerifyRequest, {"token": None}, "token"),
     (IdTokenRequest, {"idToken": None}, "idToken"),
     (ChatRequest, {"prompt": "hi", "client": CLIENT, "history": [{"content": None}]}, "history.0.content")],
)  # fmt: skip
def test_null_never_satisfies_a_required_field(model: Any, data: dict[str, Any], field: str) -> None:
    assert refused_field(model, data) == field


def test_null_does_not_excuse_an_unknown_field() -> None:
    assert refused_field(MintKeyRequest, {"name": "k", "rate_limit": None}) == "rate_limit"


def test_every_request_model_shares_the_rule() -> None:
    for model in (ChatRequest, CreateWorkspaceRequest, MintKeyRequest, MagicLinkRequest, MagicLinkVerifyRequest,
                  IdTokenRequest):  # fmt: skip
        assert issubclass(model, RequestModel), model


# --- query integers


@pytest.mark.parametrize(
    "value", ["1_0", "+5", " 5", "5 ", "5.0", "-1", "0x10", "1e2", "\u0665", "\uff15", "", "9" * 400]
)
def test_query_integers_are_plain_ascii_digits(value: str) -> None:
    assert refused_field(CreditHistoryQuery, {"limit": value}) == "limit"
    assert refused_field(CreditHistoryQuery, {"offset": value}) == "offset"


def test_plain_query_integers_parse_and_keep_their_ranges() -> None:
    query = CreditHistoryQuery.model_validate({"limit": "20", "offset": "007"})
    assert (query.limit, query.offset) == (20, 7)
    assert refused_field(CreditHistoryQuery, {"limit": "0"}) == "limit"
    assert refused_field(CreditHistoryQuery, {"limit": "201"}) == "limit"


# --- slugs


@pytest.mark.parametrize(
    ("name", "slug"),
    [("Café Olé", "cafe-ole"), ("Cafe\u0301 Ole\u0301", "cafe-ole"), (FULL_WIDTH, "northwind-coffee"),
     ("ﬁne ﬂour", "fine-flour"), ("Straße", "strasse"), ("Ærø Bakery", "aero-bakery"), ("Łódź", "lodz"),
     ("Northwind Coffee", "northwind-coffee"), ("東京", "workspace"), ("--", "workspace")],
)  # fmt: skip
def test_slugs_are_unicode_normalised(name: str, slug: str) -> None:
    assert slugify(name) == slug


def test_nfc_and_nfd_spellings_share_one_slug() -> None:
    assert slugify("Crème Brûlée") == slugify("Cre\u0300me Bru\u0302le\u0301e") == "creme-brulee"


@pytest.mark.parametrize("value", [120, 120.0, 1e2])
def test_a_json_number_with_no_fraction_is_an_integer(value: float) -> None:
    assert MintKeyRequest.model_validate({"name": "site", "rateLimit": value}).rate_limit == int(value)


@pytest.mark.parametrize("value", [120.5, "120", True, 0, 0.0, 100_001])
def test_a_fraction_a_string_a_boolean_or_out_of_range_is_not(value: object) -> None:
    with pytest.raises(ValidationError):
        MintKeyRequest.model_validate({"name": "site", "rateLimit": value})


def test_the_rate_limit_bounds_are_in_the_json_schema() -> None:
    (integer, _) = MintKeyRequest.model_json_schema()["properties"]["rateLimit"]["anyOf"]
    assert (integer["minimum"], integer["maximum"]) == (1, 100_000)


@pytest.mark.parametrize(
    "email", ["ava\x04@northwind.example", "ava@north\x85wind.example", "ava@northwind.ex\x7fample"]
)
def test_an_email_address_with_a_control_character_is_refused(email: str) -> None:
    with pytest.raises(ValidationError):
        MagicLinkRequest.model_validate({"email": email})


def test_limits_count_the_value_as_sent_and_whitespace_around_it_is_trimmed() -> None:
    assert MagicLinkRequest.model_validate({"email": "  ava@northwind.example  "}).email == "ava@northwind.example"
    padded = " " * 10 + "a" * 240 + "@b.example"  # 250 characters once trimmed, 260 as sent
    with pytest.raises(ValidationError, match="at most 254"):
        MagicLinkRequest.model_validate({"email": padded})
