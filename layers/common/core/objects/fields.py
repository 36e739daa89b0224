"""The field rules of a body that names an object: a key (a post's media, an item's file) and an upload's type."""

from __future__ import annotations

from typing import Annotated

from pydantic import AfterValidator, Field, StringConstraints

from core.objects.media_types import upload_type_problem
from core.objects.paths import path_problem


def _object_key(value: str) -> str:
    problem = path_problem(value)
    if problem:
        raise ValueError(problem)
    return value


# A key relative to a folder (an agent's, for a post's media; the workspace's, for an item): the r2 path rules.
# Taken exactly as sent: a newline at either end is refused with the rest, not trimmed (RequestModel trims strings).
ObjectKey = Annotated[
    str, StringConstraints(strip_whitespace=False), Field(min_length=1, max_length=900), AfterValidator(_object_key)
]


def _optional_key(value: str) -> str:
    return value and _object_key(value)


# ``poster`` and ``playable``: a key, or "" for none (as the feed shows them).
OptionalKey = Annotated[str, Field(max_length=900), AfterValidator(_optional_key)]


def _upload_type(value: str) -> str:
    if problem := upload_type_problem(value):
        raise ValueError(problem)
    return value


# What an upload may declare (core.objects.media_types: an allowlist, in a strict form), exactly as sent: never trimmed
UploadType = Annotated[
    str, StringConstraints(strip_whitespace=False), Field(max_length=100), AfterValidator(_upload_type)
]
