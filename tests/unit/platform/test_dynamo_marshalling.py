"""core.platform.dynamo: to_av/from_av (and to_item/from_item) marshalling, without DynamoDB."""

from __future__ import annotations

import datetime
import decimal
from typing import Any

import pytest

from core.platform.dynamo import from_av, from_item, to_av, to_item


@pytest.mark.parametrize(
    ("value", "av"),
    [
        (None, {"NULL": True}),
        (True, {"BOOL": True}),
        (False, {"BOOL": False}),
        (0, {"N": "0"}),
        (42, {"N": "42"}),
        (-7, {"N": "-7"}),
        (2**63, {"N": "9223372036854775808"}),
        (1.5, {"N": "1.5"}),
        (-0.25, {"N": "-0.25"}),
        ("", {"S": ""}),
        ("héllo", {"S": "héllo"}),
        (b"\x00\x01", {"B": b"\x00\x01"}),
        ([], {"L": []}),
        ({}, {"M": {}}),
        ([1, "a", None], {"L": [{"N": "1"}, {"S": "a"}, {"NULL": True}]}),
        ({"a": {"b": [True]}}, {"M": {"a": {"M": {"b": {"L": [{"BOOL": True}]}}}}}),
    ],
)
def test_to_av(value: Any, av: dict[str, Any]) -> None:
    assert to_av(value) == av


def test_bools_are_not_numbers() -> None:
    assert from_av(to_av(True)) is True
    assert from_av(to_av(False)) is False


@pytest.mark.parametrize(
    "value",
    [
        None,
        True,
        False,
        0,
        1,
        -1,
        -123456789,
        10**20,
        1.5,
        -2.75,
        1e20,
        1e-7,
        "text",
        "",
        b"bytes",
        [],
        {},
        [1, [2, [3, {"x": None}]]],
        {"m": {"n": {"o": [1, -2, 3.5, "s", None, True, {"deep": False}]}}, "empty": {}, "list": []},
    ],
)
def test_round_trip(value: Any) -> None:
    back = from_av(to_av(value))
    assert back == value
    assert type(back) is type(value)


def test_ints_come_back_as_int_and_floats_as_float() -> None:
    assert type(from_av({"N": "-5"})) is int
    assert type(from_av({"N": "5"})) is int
    assert type(from_av({"N": "5.0"})) is float
    assert from_av({"N": "-0.5"}) == -0.5
    assert from_av({"N": "1E+3"}) == 1000.0


def test_tuple_is_stored_as_list() -> None:
    assert from_av(to_av((1, "a"))) == [1, "a"]


def test_sets_read_back_as_lists() -> None:
    assert sorted(from_av({"SS": ["b", "a"]})) == ["a", "b"]
    assert sorted(from_av({"NS": ["2", "-1", "1.5"]})) == [-1, 1.5, 2]
    assert from_av({"BS": [b"x"]}) == [b"x"]


@pytest.mark.parametrize(
    "value",
    [{1, 2}, frozenset(), decimal.Decimal("1.5"), datetime.datetime(2026, 1, 1), object(), complex(1, 2)],
    ids=lambda v: type(v).__name__,
)
def test_unsupported_types_raise_type_error(value: Any) -> None:
    with pytest.raises(TypeError, match="cannot store"):
        to_av(value)


def test_unsupported_type_nested_raises_type_error() -> None:
    with pytest.raises(TypeError):
        to_av({"ok": [1, {"bad": {1, 2}}]})


def test_unknown_attribute_type_raises_type_error() -> None:
    with pytest.raises(TypeError, match="unknown attribute type"):
        from_av({"X": "1"})


def test_item_round_trip() -> None:
    item = {"pk": "agent#1", "sk": "post#2026", "published": True, "width": 1080, "pages": [{"order": 0}]}
    marshalled = to_item(item)
    assert marshalled["pk"] == {"S": "agent#1"}
    assert marshalled["width"] == {"N": "1080"}
    assert from_item(marshalled) == item
