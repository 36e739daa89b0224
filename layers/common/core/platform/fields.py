"""Field types shared by every request model: human-readable names, chat prompts, strict query integers.

One definition each, so a name is checked the same way wherever one is accepted
(workspaces, brands, keys) and every integer in a URL parses the same way.
"""

from __future__ import annotations

import re
import unicodedata
from typing import Annotated

from pydantic import AfterValidator, BeforeValidator, Field

# Never part of a name: C0/DEL/C1 controls (NUL, ESC, CR/LF…), unpaired surrogates (not storable as UTF-8)
# and the line/paragraph separators (a name is one line in every UI and log).
_REFUSED_IN_NAMES = frozenset({"Cc", "Cs", "Zl", "Zp"})
# Blank-looking letters and symbols that are not whitespace by Unicode's categories (Hangul fillers, the
# braille blank, the combining grapheme joiner): text made only of these reads as empty.
_BLANK_LOOKING = frozenset("\u034f\u115f\u1160\u2800\u3164\uffa0")
_DIGITS = re.compile(r"[0-9]{1,9}", re.ASCII)
QUERY_INT_MAX = 999_999_999  # nine digits: what ``_DIGITS`` reads

# The same rules as JSON Schema patterns, for the OpenAPI documents (the validators above stay the
# authority; these only tell clients and fuzzers what is refused). A JSON Schema pattern is unanchored.
_CONTROLS = "\\u0000-\\u001f\\u007f-\\u009f\\u2028\\u2029"
VISIBLE = "[^\\s\\u0000-\\u001f\\u0085\\u200b-\\u200d\\u2060\\ufeff]"  # survives trimming, not zero-width
NAME_PATTERN = f"^[^{_CONTROLS}]*{VISIBLE}[^{_CONTROLS}]*$"


def is_invisible(char: str) -> bool:
    """Whitespace, a control or format character (categories Cc and Cf: U+0000-U+001F, U+007F-U+009F,
    U+200B-U+200D, U+2060, U+FEFF, bidi marks…) or a filler: nothing a reader would see."""
    return char.isspace() or unicodedata.category(char) in ("Cc", "Cf") or char in _BLANK_LOOKING


def has_visible_text(value: str) -> bool:
    return not all(is_invisible(char) for char in value)


def _clean_name(value: str) -> str:
    """After trimming; control characters were refused in the name as sent (``_no_controls_as_sent``)."""
    if not has_visible_text(value):
        raise ValueError("must contain a visible character")
    # NFC: the same name typed on two keyboards (é precomposed or e + U+0301) is stored as one string.
    return unicodedata.normalize("NFC", value)


def _at_most(limit: int) -> BeforeValidator:
    """The length limit on the value as sent, before trimming: the documents' ``maxLength`` means what it says."""

    def check(value: object) -> object:
        if isinstance(value, str) and len(value) > limit:
            raise ValueError(f"must be at most {limit} characters")
        return value

    return BeforeValidator(check)


# The rules below are tuples of pydantic metadata, unpacked into ``Annotated``:
# ``name: Annotated[str, *name_rules(80)]``.
# A call cannot be a type (a type checker refuses ``name: Name(80)``); this spelling is the same type at run time.
Rules = tuple[object, ...]


def text_rules(min_length: int, max_length: int, *, pattern: str | None = None, documented: str = VISIBLE) -> Rules:
    """A trimmed string of ``min_length``..``max_length`` characters (as sent) with something visible in it.

    ``pattern`` is checked after trimming; ``documented`` is the pattern the OpenAPI document shows.
    """
    length = Field(
        min_length=min_length, max_length=max_length, pattern=pattern, json_schema_extra={"pattern": documented}
    )
    return (length, _at_most(max_length))


def _no_controls_as_sent(value: object) -> object:
    """Control characters anywhere in the name as sent: checked after trimming, a tab or a form feed at either end
    was taken away first, while the document's pattern refuses them wherever they are."""
    if isinstance(value, str):
        for char in value:
            if unicodedata.category(char) in _REFUSED_IN_NAMES:
                raise ValueError(f"must not contain control characters (found U+{ord(char):04X})")
    return value


def name_rules(max_length: int) -> Rules:
    """A human-readable name: trimmed, 1..max_length characters, no control characters, not blank-looking."""
    rules = (*text_rules(1, max_length, documented=NAME_PATTERN), BeforeValidator(_no_controls_as_sent))
    return (*rules, AfterValidator(_clean_name))


def _visible_prompt(value: str) -> str:
    if not has_visible_text(value):
        raise ValueError("must contain visible text (whitespace and zero-width characters alone are empty)")
    return value


# The chat prompt: whitespace at either end is trimmed, and a prompt with nothing visible is refused
# before any credit is held (so it is never billed).
Prompt = Annotated[str, *text_rules(1, 4000), AfterValidator(_visible_prompt)]


def _ascii_digits(value: object) -> object:
    """Query values are strings: only plain digits (no sign, space, ``_``, decimal point or other scripts' digits)."""
    if isinstance(value, str):
        if not _DIGITS.fullmatch(value):
            raise ValueError("must be a whole number written with the digits 0-9")
        return int(value)
    if isinstance(value, bool) or not isinstance(value, int):
        raise ValueError("must be a whole number written with the digits 0-9")
    return value


# An integer from a URL query string: ``20``, never ``+20``, `` 20``, ``2_0``, ``20.0`` or full-width digits.
QueryInt = Annotated[int, BeforeValidator(_ascii_digits)]


def _integral(value: object) -> object:
    """JSON has one number type: ``120.0`` is the integer 120 (as JSON Schema says), ``120.5`` is not."""
    if isinstance(value, float) and value.is_integer():
        return int(value)
    return value


def whole_number_rules(minimum: int, maximum: int) -> Rules:  # ``Annotated[int, *whole_number_rules(1, 100)]``
    """An integer in a JSON body: a number with no fractional part; never a string, a boolean or 1.5.

    The bounds come before the validator so that pydantic writes them into the JSON schema.
    """
    return (Field(ge=minimum, le=maximum), BeforeValidator(_integral))


_EMAIL_CHAR = "[^@\\s\x00-\x1f\x7f-\x9f]"  # no control character (literal ones: the pattern engines differ)
EMAIL_PATTERN = f"^{_EMAIL_CHAR}{{1,64}}@{_EMAIL_CHAR}+\\.{_EMAIL_CHAR}{{2,}}$"  # checked after trimming
EMAIL_DOCUMENTED = f"^\\s*{EMAIL_PATTERN[1:-1]}\\s*$"  # as sent: whitespace around it is trimmed


def _origin(value: str) -> str:
    from core.platform.origins import normalize_origin

    return normalize_origin(value)


def _distinct(values: list[str]) -> list[str]:
    return list(dict.fromkeys(values))  # the same origin written twice (HTTPS://A, https://a:443) is kept once


# A key's allowed origins: 1..10 serialized origins (scheme://host[:port]), normalised to lower case with
# the default port dropped. The pattern is the document's hint; ``normalize_origin`` is the authority.
ORIGIN_DOCUMENTED = "^[Hh][Tt][Tt][Pp][Ss]?://[^/?#@\\s]+$"
AllowedOrigins = Annotated[
    list[Annotated[str, Field(min_length=8, max_length=280, json_schema_extra={"pattern": ORIGIN_DOCUMENTED}),
                   AfterValidator(_origin)]],
    Field(min_length=1, max_length=10),
    AfterValidator(_distinct),
]  # fmt: skip
