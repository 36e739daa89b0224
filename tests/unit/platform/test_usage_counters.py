"""The usage counters' names (core/platform/usage_counters.py): a day's agents are capped, old days go."""

from __future__ import annotations

from core.platform import usage_counters as uc


def test_a_day_counts_at_most_its_cap_of_agents_then_the_key_only() -> None:
    present = [uc.name(uc.COUNTED, 5, f"~prj_{n}") for n in range(uc.MAX_AGENTS_A_DAY)]
    assert uc.names(uc.COUNTED, 5, ("", "~prj_new"), present) == ["u5"]  # full: the key's only
    assert uc.names(uc.COUNTED, 5, ("", "~prj_3"), present) == ["u5", "u5~prj_3"]  # one already counted
    assert uc.names(uc.COUNTED, 6, ("", "~prj_new"), present) == ["u6", "u6~prj_new"]  # another day
    assert uc.names(uc.REFUSED, 5, ("", "~prj_new"), present) == ["x5", "x5~prj_new"]  # refusals apart


def test_days_past_ninety_are_stale_and_other_attributes_are_not_counters() -> None:
    today = 20_000
    present = [f"u{today - 90}", f"x{today - 91}~prj_1", f"u{today - 89}", "b1800000000", "newest", "expiresAt"]
    assert uc.stale(present, today) == [f"u{today - 90}", f"x{today - 91}~prj_1"]
    assert uc.parse("u20000~prj_1") == ("u", 20_000, "prj_1") and uc.parse("newest") is None
