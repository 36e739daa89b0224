"""core.chat.offline: deterministic answers from the agent's published data, streamed, with test hooks."""

from __future__ import annotations

from collections.abc import Generator, Iterator
from math import ceil
from pathlib import Path

import pytest

from core.chat import offline
from core.chat.model import AgentContext, ContextItem, ContextPost, Message, ModelError, ModelRequest, TextDelta, Usage
from core.chat.offline import OfflineModel, compose_answer

ITEMS = (
    ContextItem("Autumn menu.pdf", "document", "menus"),
    ContextItem("Opening hours", "text", "info"),
    ContextItem("Winter menu.pdf", "document", "menus"),
    ContextItem("Barista training video", "video", "team"),
)
POSTS = (
    ContextPost("Jazz night on Friday", "Live music from eight.", "events", "image", "2026-10-03T18:00:00Z"),
    ContextPost(None, "Our pumpkin latte is back for the season, with oat milk", "launch", "reel", "2026-10-01"),
    ContextPost("Harbour clean-up", None, None, "image", "2026-09-20T09:00:00Z"),
)
CONTEXT = AgentContext("Harbour Helper", "Harbour Cafe", ITEMS, POSTS, None, None)
ON_VISIT = AgentContext(
    "Harbour Helper",
    "Harbour Cafe",
    ITEMS,
    POSTS,
    "visit-main",
    "Visit us\nFind us on Harbour Street 12, next to the ferry. Walk-ins welcome.",
)


def request(prompt: str, context: AgentContext = CONTEXT, history: tuple[Message, ...] = ()) -> ModelRequest:
    return ModelRequest("You are Harbour Helper.", (*history, Message("user", prompt)), context, 400)


def reply(prompt: str, context: AgentContext = CONTEXT, history: tuple[Message, ...] = ()) -> str:
    events = list(OfflineModel(delay_seconds=0).stream(request(prompt, context, history)))
    assert isinstance(events[-1], Usage)
    return "".join(event.text for event in events if isinstance(event, TextDelta))


@pytest.fixture
def sleeps(monkeypatch: pytest.MonkeyPatch) -> list[float]:
    slept: list[float] = []
    monkeypatch.setattr(offline, "sleep", slept.append)
    return slept


# --- relevance


def test_a_question_about_an_item_names_it_and_only_the_matching_ones() -> None:
    text = reply("Do you have an autumn menu?")
    assert "Harbour Cafe" in text
    assert text.index("“Autumn menu.pdf” (document)") < text.index("“Winter menu.pdf” (document)")  # best match first
    assert "Opening hours" not in text and "Barista" not in text


def test_equally_relevant_items_keep_the_given_order() -> None:
    text = reply("Show me the menus")
    assert text.index("Autumn menu.pdf") < text.index("Winter menu.pdf")


def test_posts_are_cited_by_title_or_first_caption_words_with_their_category() -> None:
    assert "“Jazz night on Friday” (events)" in reply("Any events with music?")
    assert "“Our pumpkin latte is back for the season…” (launch)" in reply("Is the pumpkin latte back?")
    assert "“Harbour clean-up”" in reply("Tell me about the clean-up")


def test_plurals_match_singulars() -> None:
    assert "Jazz night on Friday" in reply("Which event is coming up?")
    assert "Opening hours" in reply("Is there a happy hour?")


def test_only_the_last_user_message_is_answered() -> None:
    history = (Message("user", "Do you have a menu?"), Message("assistant", "Yes."))
    text = reply("Any jazz?", history=history)
    assert "Jazz night on Friday" in text and "menu.pdf" not in text


def test_the_section_the_visitor_is_on_is_quoted_when_relevant_and_mentioned_otherwise() -> None:
    text = reply("Where do I find you?", ON_VISIT)
    assert "The visit-main section you're on says: “Find us on Harbour Street 12, next to the ferry.”" in text
    # A matching heading alone says little: the sentence after it is quoted.
    assert "“Find us on Harbour Street 12, next to the ferry.”" in reply("How do I visit?", ON_VISIT)
    assert "You're on the visit-main section." in reply("Any jazz?", ON_VISIT)


def test_when_nothing_matches_it_says_so_and_lists_what_is_published() -> None:
    text = reply("Do you sell bicycles?")
    assert "couldn't find that in Harbour Cafe's published material" in text
    assert "“Autumn menu.pdf” (document)" in text and "“Jazz night on Friday” (events)" in text
    assert "among other things" in text  # four items and three posts, three of each cited


def test_with_nothing_published_it_is_honest() -> None:
    empty = AgentContext("Helper", "Nova", (), (), None, None)
    assert "Nova hasn't published anything I can answer from yet" in reply("Do you sell bicycles?", empty)


def test_a_greeting_is_not_treated_as_an_unanswerable_question() -> None:
    text = reply("Hello!")
    assert text.startswith("Hi, I'm Harbour Helper, Harbour Cafe's assistant.")
    assert "couldn't find" not in text and "Autumn menu.pdf" in text


def test_only_the_first_turn_introduces_the_agent() -> None:
    later = reply("Any jazz?", history=(Message("user", "Hi"), Message("assistant", "Hello!")))
    assert "I'm Harbour Helper" not in later and "Harbour Cafe" in later


@pytest.mark.parametrize("prompt", ["Zebra quantum marmalade?", "Do you have the autumn menu?", "Where do I find you?"])
def test_the_prompt_is_never_echoed(prompt: str) -> None:
    text = reply(prompt, ON_VISIT)
    assert prompt not in text and prompt.lower() not in text.lower()


# --- streaming


def test_answers_are_deterministic_and_streamed_a_few_words_at_a_time() -> None:
    model = OfflineModel(delay_seconds=0)
    first, second = list(model.stream(request("Any jazz?"))), list(model.stream(request("Any jazz?")))
    assert first == second
    deltas, usage = first[:-1], first[-1]
    text = compose_answer(CONTEXT, "Any jazz?", first_turn=True)
    assert "".join(d.text for d in deltas if isinstance(d, TextDelta)) == text
    assert len(deltas) > 3 and all(isinstance(d, TextDelta) and 1 <= len(d.text.split()) <= 3 for d in deltas)
    chars = len("You are Harbour Helper.") + len("Any jazz?")
    assert usage == Usage(input_tokens=ceil(chars / 4), output_tokens=ceil(len(text) / 4))


def test_it_sleeps_between_deltas_only(sleeps: list[float]) -> None:
    events = list(OfflineModel(delay_seconds=0.05).stream(request("Any jazz?")))
    assert sleeps == [0.05] * (len(events) - 2)  # not before the first delta, nor before the Usage


def test_a_zero_delay_never_sleeps(sleeps: list[float]) -> None:
    list(OfflineModel(delay_seconds=0).stream(request("Any jazz?")))
    assert sleeps == []


def test_a_negative_delay_is_refused() -> None:
    with pytest.raises(ValueError, match="delay_seconds"):
        OfflineModel(delay_seconds=-1)


def test_stopping_early_is_safe() -> None:
    stream = OfflineModel(delay_seconds=0).stream(request("Any jazz?"))
    assert isinstance(next(stream), TextDelta)
    assert isinstance(stream, Generator)  # typed an Iterator; a generator, so it can be closed early
    stream.close()
    assert next(stream, None) is None


# --- test hooks


def test_error_hook_fails_after_two_deltas() -> None:
    received: list[TextDelta | Usage] = []
    with pytest.raises(ModelError) as raised:
        received.extend(OfflineModel(delay_seconds=0).stream(request("Any jazz? [[offline-error]]")))
    assert raised.value.code == "MODEL_UNAVAILABLE"
    assert len(received) == 2 and all(isinstance(event, TextDelta) for event in received)


def test_error_before_hook_fails_before_any_delta() -> None:
    stream: Iterator[TextDelta | Usage] = OfflineModel(delay_seconds=0).stream(request("[[offline-error-before]] hi"))
    with pytest.raises(ModelError) as raised:
        next(stream)
    assert raised.value.code == "MODEL_UNAVAILABLE"


def test_slow_hook_sleeps_before_the_first_delta(sleeps: list[float]) -> None:
    stream = OfflineModel(delay_seconds=0).stream(request("Any jazz? [[offline-slow]]"))
    first = next(stream)
    assert sleeps == [1.5] and isinstance(first, TextDelta)


def test_markers_do_not_change_the_answer(sleeps: list[float]) -> None:
    assert reply("Any [[offline-slow]] jazz?") == reply("Any jazz?")
    assert "offline" not in reply("Any [[offline-slow]] jazz?")


def test_gate_hook_holds_everything_after_the_first_delta_until_the_gate_exists(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The e2e streaming test's proof rests on this: after the first delta nothing comes until the gate file is
    there. The model's polls are counted (its sleep is the test's): the third one opens the gate."""
    gate = tmp_path / "gate"
    polls: list[float] = []

    def poll(seconds: float) -> None:
        polls.append(seconds)
        if len(polls) == 3:
            gate.touch()

    monkeypatch.setattr(offline, "sleep", poll)
    stream = OfflineModel(delay_seconds=0, gate=str(gate)).stream(request("Any jazz? [[offline-gate]]"))
    assert isinstance(next(stream), TextDelta) and polls == [] and not gate.exists()
    second = next(stream)  # the model waited, polling, until the gate was opened
    assert isinstance(second, TextDelta) and len(polls) == 3 and gate.exists()
    rest = list(stream)
    assert isinstance(rest[-1], Usage) and len(polls) == 3  # once open, never waited again
    assert "offline" not in "".join(event.text for event in [second, *rest] if isinstance(event, TextDelta))


def test_a_gate_never_opened_is_a_model_timeout(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    now = [0.0]
    monkeypatch.setattr(offline, "monotonic", lambda: now[0])
    monkeypatch.setattr(offline, "sleep", lambda seconds: now.__setitem__(0, now[0] + 1))  # each poll: a second
    stream = OfflineModel(delay_seconds=0, gate=str(tmp_path / "never")).stream(request("Any jazz? [[offline-gate]]"))
    next(stream)
    with pytest.raises(ModelError) as raised:
        next(stream)
    assert raised.value.code == "MODEL_TIMEOUT" and now[0] == offline.GATE_SECONDS + 1


def test_the_gate_marker_without_a_gate_or_a_gate_without_the_marker_waits_for_nothing(
    tmp_path: Path, sleeps: list[float]
) -> None:
    assert reply("Any [[offline-gate]] jazz?") == reply("Any jazz?")
    gated = OfflineModel(delay_seconds=0, gate=str(tmp_path / "never"))
    assert isinstance(list(gated.stream(request("Any jazz?")))[-1], Usage) and sleeps == []
