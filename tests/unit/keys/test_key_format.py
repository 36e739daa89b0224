"""core.keys.key_format: the ``sk_ws_`` key format, its CRC32 checksum, hashing and the display prefix."""

from __future__ import annotations

import hashlib
import re
import zlib

import pytest

from core.keys import key_format as api_keys
from core.keys.key_format import display_prefix, generate, hash_key, is_well_formed
from local.gateway.events import SAMPLE_KEY

BASE62 = "0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz"
KEY_RE = re.compile(r"^sk_ws_[0-9A-Za-z]{49}$")
SECRET = bytes(range(32))


def b62(value: int, width: int) -> str:
    """An independent base62 encoder (big-endian, zero-padded), to check the module's own."""
    out = ""
    for _ in range(width):
        value, digit = divmod(value, 62)
        out = BASE62[digit] + out
    assert value == 0, "value does not fit"
    return out


def with_checksum(body: str) -> str:
    return body + b62(zlib.crc32(body.encode()), 6)


def test_generated_key_has_prefix_length_and_base62_body() -> None:
    key = generate()
    assert KEY_RE.match(key), key
    assert len(key) == api_keys.KEY_LENGTH == 6 + 43 + 6


def test_generated_keys_are_random() -> None:
    assert len({generate() for _ in range(50)}) == 50


def test_generate_with_secret_is_deterministic() -> None:
    assert generate(SECRET) == generate(SECRET)
    assert generate(SECRET) != generate(bytes(32))
    assert generate(bytes(31) + b"*") == SAMPLE_KEY  # the sample events' key


@pytest.mark.parametrize("secret", [bytes(32), b"\xff" * 32, SECRET])
def test_secret_part_is_the_secret_in_base62_and_checksum_is_crc32_of_the_rest(secret: bytes) -> None:
    key = generate(secret)
    body, check = key[:-6], key[-6:]
    assert body == "sk_ws_" + b62(int.from_bytes(secret, "big"), 43)
    assert check == b62(zlib.crc32(body.encode()), 6)


@pytest.mark.parametrize("secret", [bytes(32), b"\xff" * 32, SECRET, None])
def test_generated_keys_are_well_formed(secret: bytes | None) -> None:
    assert is_well_formed(generate(secret))


def test_sample_key_is_well_formed() -> None:
    assert is_well_formed(SAMPLE_KEY)


@pytest.mark.parametrize("prefix", ["sk_xx_", "SK_WS_", "pk_ws_", "sk-ws-"])
def test_wrong_prefix_is_rejected_even_with_a_valid_checksum(prefix: str) -> None:
    body = prefix + generate(SECRET)[6:-6]
    assert not is_well_formed(with_checksum(body))


@pytest.mark.parametrize("candidate", ["", "sk_ws_", "short", generate(SECRET)[:-1], generate(SECRET) + "a"])
def test_wrong_length_is_rejected(candidate: str) -> None:
    assert not is_well_formed(candidate)


def test_longer_key_with_recomputed_checksum_is_rejected() -> None:
    body = generate(SECRET)[:-6] + "a"
    assert not is_well_formed(with_checksum(body))


def test_every_single_changed_char_in_the_body_is_rejected() -> None:
    key = generate(SECRET)
    for i in range(6, len(key) - 6):
        replacement = "a" if key[i] != "a" else "b"
        changed = key[:i] + replacement + key[i + 1 :]
        assert not is_well_formed(changed), f"change at {i} not detected"


@pytest.mark.parametrize("position", [-1, -3, -6])
def test_changed_checksum_is_rejected(position: int) -> None:
    key = generate(SECRET)
    index = len(key) + position
    replacement = "Z" if key[index] != "Z" else "Y"
    assert not is_well_formed(key[:index] + replacement + key[index + 1 :])


@pytest.mark.parametrize("bad", ["-", "_", "+", "/", "=", " ", "é", "\x00"])
def test_non_base62_chars_are_rejected_even_with_a_valid_checksum(bad: str) -> None:
    body = generate(SECRET)[:-6]
    body = body[:10] + bad + body[11:]
    assert not is_well_formed(with_checksum(body))


def test_portal_jwt_shaped_value_is_rejected() -> None:
    assert not is_well_formed("eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiJ1In0.c2lnbmF0dXJl")


def test_hash_key_is_sha256_hex() -> None:
    key = generate(SECRET)
    digest = hash_key(key)
    assert digest == hashlib.sha256(key.encode()).hexdigest()
    assert re.fullmatch(r"[0-9a-f]{64}", digest)
    assert hash_key(generate(bytes(32))) != digest


def test_display_prefix_is_first_twelve_chars() -> None:
    key = generate(SECRET)
    assert display_prefix(key) == key[:12]
    assert len(display_prefix(key)) == 12
    assert display_prefix(key).startswith("sk_ws_")
