"""core.platform.settings: environment aliases, defaults, plans and validation (read once, cached)."""

from __future__ import annotations

import pytest
from pydantic import ValidationError

from core.platform import providers as platform_providers
from core.platform.settings import ALLOWED_R2_PREFIXES, PLAN_LIMITS, PlanLimits, Settings, get_settings
from core.workspaces import providers as workspaces_providers

OPTIONAL = [
    "DEFAULT_KEY_RATE_LIMIT", "CREDIT_USD_CENTS", "MAX_BODY_BYTES", "BRAIN_ALLOW_ORIGIN", "PORTAL_ALLOW_ORIGIN",
    "API_PLANE", "POWERTOOLS_SERVICE_NAME", "PORTAL_JWT_SECRET_ID", "SESSION_DAYS", "MAGIC_LINK_MINUTES",
    "PORTAL_APP_URL", "COOKIE_SECURE", "MAIL_TRANSPORT", "MAIL_FROM", "OUTBOX_DIR", "GOOGLE_CLIENT_IDS",
    "APPLE_CLIENT_IDS", "GOOGLE_JWKS_URL", "APPLE_JWKS_URL", "PURGE_QUEUE_URL",
]  # fmt: skip


def fresh() -> Settings:
    platform_providers.reset()
    return get_settings()


def test_template_environment_is_read() -> None:
    settings = get_settings()
    assert settings.main_table == "local-maintable"
    assert settings.api_keys_table == "local-apikeystable"
    assert settings.ledger_table == "local-ledgertable"
    assert settings.rate_limits_table == "local-ratelimitstable"
    assert settings.content_bucket == "local-contentbucket"
    assert settings.default_key_rate_limit == 600
    assert settings.portal_allow_origin == "http://localhost:5173"
    assert settings.purge_queue_url.endswith("/local-purgequeue")


def test_defaults(monkeypatch: pytest.MonkeyPatch) -> None:
    for name in OPTIONAL:
        monkeypatch.delenv(name, raising=False)
    settings = fresh()
    assert settings.default_key_rate_limit == 600
    assert settings.credit_usd_cents == 1
    assert settings.max_body_bytes == 256 * 1024
    assert settings.brain_allow_origin == "*"
    assert settings.portal_allow_origin == "http://localhost:5173"
    assert settings.api_plane == "brain"
    assert settings.service_name == "workspace-service"
    assert (settings.session_days, settings.magic_link_minutes) == (30, 15)
    assert settings.cookie_secure is True
    assert settings.mail_transport == "ses"
    assert settings.outbox_dir == ".local/outbox"
    assert settings.client_ids("google") == [] and settings.client_ids("apple") == []


def test_aliases_and_coercion(monkeypatch: pytest.MonkeyPatch) -> None:
    env = {
        "DEFAULT_KEY_RATE_LIMIT": "42", "MAX_BODY_BYTES": "1024", "API_PLANE": "portal", "COOKIE_SECURE": "false",
        "MAIL_TRANSPORT": "outbox", "SESSION_DAYS": "7", "GOOGLE_CLIENT_IDS": " a.apps , ,b.apps ",
        "APPLE_CLIENT_IDS": "com.example.web",
    }  # fmt: skip
    for name, value in env.items():
        monkeypatch.setenv(name, value)
    settings = fresh()
    assert (settings.default_key_rate_limit, settings.max_body_bytes, settings.session_days) == (42, 1024, 7)
    assert settings.api_plane == "portal"
    assert settings.cookie_secure is False
    assert settings.mail_transport == "outbox"
    assert settings.client_ids("google") == ["a.apps", "b.apps"]
    assert settings.client_ids("apple") == ["com.example.web"]


def test_settings_are_cached_until_reset(monkeypatch: pytest.MonkeyPatch) -> None:
    first = get_settings()
    monkeypatch.setenv("DEFAULT_KEY_RATE_LIMIT", "9")
    assert get_settings() is first
    assert fresh().default_key_rate_limit == 9


def test_unrelated_environment_is_ignored(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("SOMETHING_ELSE", "x")
    assert "SOMETHING_ELSE" not in fresh().model_dump(by_alias=True)


def test_python_names_also_accepted() -> None:
    settings = Settings(main_table="m", api_keys_table="k", ledger_table="l", rate_limits_table="r", content_bucket="b")
    assert (settings.main_table, settings.default_key_rate_limit) == ("m", 600)


def test_settings_are_frozen() -> None:
    with pytest.raises(ValidationError):
        get_settings().main_table = "other"  # type: ignore[misc]


@pytest.mark.parametrize(
    ("name", "value"),
    [
        ("DEFAULT_KEY_RATE_LIMIT", "abc"),
        ("DEFAULT_KEY_RATE_LIMIT", "0"),
        ("DEFAULT_KEY_RATE_LIMIT", "1.5"),
        ("MAX_BODY_BYTES", "0"),
        ("MAX_BODY_BYTES", "lots"),
        ("CREDIT_USD_CENTS", "-1"),
        ("SESSION_DAYS", "0"),
        ("API_PLANE", "admin"),
        ("MAIL_TRANSPORT", "smtp"),
        ("COOKIE_SECURE", "maybe"),
    ],
)
def test_bad_values_fail_validation_naming_the_variable(monkeypatch: pytest.MonkeyPatch, name: str, value: str) -> None:
    monkeypatch.setenv(name, value)
    with pytest.raises(ValidationError) as caught:
        fresh()
    assert caught.value.errors()[0]["loc"] == (name,)


@pytest.mark.parametrize(
    "name", ["MAIN_TABLE", "API_KEYS_TABLE", "LEDGER_TABLE", "RATE_LIMITS_TABLE", "CONTENT_BUCKET"]
)
def test_required_resource_names(monkeypatch: pytest.MonkeyPatch, name: str) -> None:
    monkeypatch.delenv(name)
    with pytest.raises(ValidationError) as caught:
        fresh()
    assert caught.value.errors()[0]["loc"] == (name,)


MIB = 1024**2


PLANS = {  # (workspaces, keys, agents per workspace, largest object, storage, knowledge characters per agent)
    "free": (1, False, 3, 25 * MIB, 500 * MIB, 500_000),
    "pro": (5, True, 25, 500 * MIB, 25 * 1024 * MIB, 5_000_000),
    "business": (50, True, 200, 5 * 1024 * MIB, 250 * 1024 * MIB, 20_000_000),
}


@pytest.mark.parametrize("plan", PLANS)
def test_plans(plan: str) -> None:
    workspaces, keys, agents, object_bytes, storage_bytes, knowledge_chars = PLANS[plan]
    limits = get_settings().plans[plan]
    assert limits == PlanLimits(workspaces=workspaces, api_keys=keys, agents_per_workspace=agents,
                                object_bytes=object_bytes, storage_bytes=storage_bytes,
                                knowledge_chars=knowledge_chars)  # fmt: skip
    assert limits.api_keys == (limits.workspaces > 1)  # "multi-workspace plan" means a limit above one
    assert limits.object_bytes <= limits.storage_bytes
    assert workspaces_providers.plan_of(plan) == limits


def test_exactly_the_three_plans_and_unknown_plan_is_free() -> None:
    assert set(PLAN_LIMITS) == {"free", "pro", "business"}
    assert workspaces_providers.plan_of("enterprise-legacy") == PLAN_LIMITS["free"]


def test_allowed_r2_prefixes() -> None:
    assert set(ALLOWED_R2_PREFIXES) == {
        "projects/", "workflows/", "config/", "assets/", "meta/", "wrapper/", "brands/", "media/", "public/",
    }  # fmt: skip
    assert not any(p.startswith(("conversations", "billing", "private")) for p in ALLOWED_R2_PREFIXES)
