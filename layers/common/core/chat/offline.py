"""A ``ChatModel`` for local runs and tests: no network, no randomness.

It answers the visitor's last message from ``request.context`` alone: it quotes the best of the passages the
retriever found in the owner's documents, or the owner's answer when that is the best (so grounding can be seen and
tested), and names the items, posts and section text sharing the most words with the question, in a short reply in
the agent's voice, streamed a few words at a time.

It honours what it can of the agent's behaviour (``ModelRequest``): a content question nothing in the material
matches is answered with the owner's fallback text word for word (and nothing else); with knowledgeOnly false it
says first that such a question goes beyond the material (it has no general knowledge to add); the reply is cut to
``max_tokens`` (counted as the usage counts them, four characters a token), so ``outputTokens`` never exceeds it.
It never reads ``system``: nothing the owner's instructions say can make it reveal them or name other agents.

Test hooks: markers in the visitor's last message that let tests exercise failure
and keep-alive paths end to end through the real local runner:

- ``[[offline-error]]``: raises ``ModelError("MODEL_UNAVAILABLE")`` after two deltas.
- ``[[offline-error-before]]``: raises ``ModelError("MODEL_UNAVAILABLE")`` before any delta.
- ``[[offline-slow]]``: sleeps 1.5 s before the first delta.
- ``[[offline-gate]]``: after the first delta, waits until the file ``gate`` (``OFFLINE_MODEL_GATE``) exists, at
  most ``GATE_SECONDS``; with no gate set, the marker does nothing. A test opens the gate once it has read that
  delta: buffered, the delta could not have reached it, so streaming is shown by order, not by a timing ratio.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterator, Sequence
from pathlib import Path
from time import monotonic, sleep

from core.chat.model import (
    AgentContext,
    ContextItem,
    ContextPost,
    ModelError,
    ModelRequest,
    TextDelta,
    Usage,
    estimate_tokens,
    request_chars,
)

ERROR_MIDWAY = "[[offline-error]]"
ERROR_BEFORE = "[[offline-error-before]]"
SLOW = "[[offline-slow]]"
SLOW_SECONDS = 1.5
GATE = "[[offline-gate]]"
GATE_SECONDS = 120.0  # a gate never opened: the model gives up (the turn's own deadline comes first)
GATE_POLL_SECONDS = 0.01
WORDS_PER_DELTA = 3
MAX_CITED = 3
QUOTE_CHARS = 240  # a passage this short is quoted whole
QUOTED_LINES = 3

_MARKER = re.compile(r"\[\[offline-[a-z-]+\]\]")
_WORD = re.compile(r"[^\W_]+")  # runs of letters and digits, in any script
_SENTENCE = re.compile(r"(?<=[.!?])\s+|\n")
_STOP_TEXT = (
    "about again all also and any are been but can could did does for from get give had has have hello here hey "
    "how into its just know let like many more much need not our out please some tell than thank thanks that "
    "the their them then there these they this those was want were what whats when where which who why will "
    "with would yes you your yours"
)
_STOP_WORDS = frozenset(_STOP_TEXT.split())


class OfflineModel:
    def __init__(self, delay_seconds: float = 0.03, gate: str = "") -> None:
        if delay_seconds < 0:
            raise ValueError("delay_seconds must not be negative")
        self._delay = delay_seconds
        self._gate = Path(gate) if gate else None

    def stream(self, request: ModelRequest) -> Iterator[TextDelta | Usage]:
        last = request.messages[-1] if request.messages else None
        prompt = last.text if last and last.role == "user" else ""
        if ERROR_BEFORE in prompt:
            raise ModelError("MODEL_UNAVAILABLE")
        answer = compose_answer(
            request.context, _MARKER.sub(" ", prompt), first_turn=len(request.messages) <= 1,
            fallback=request.fallback, knowledge_only=request.knowledge_only,
        )  # fmt: skip
        answer = fit_tokens(answer, request.max_tokens)
        if SLOW in prompt:
            sleep(SLOW_SECONDS)
        words = re.findall(r"\S+\s*", answer)
        chunks = ["".join(words[i : i + WORDS_PER_DELTA]) for i in range(0, len(words), WORDS_PER_DELTA)]
        for index, chunk in enumerate(chunks):
            if index and self._delay:
                sleep(self._delay)  # so that streaming is observable over HTTP
            yield TextDelta(chunk)
            if index == 0 and GATE in prompt and self._gate is not None:
                self._wait_for_gate(self._gate)
            if index == 1 and ERROR_MIDWAY in prompt:
                raise ModelError("MODEL_UNAVAILABLE")
        yield Usage(input_tokens=estimate_tokens(request_chars(request)), output_tokens=estimate_tokens(len(answer)))

    @staticmethod
    def _wait_for_gate(gate: Path) -> None:
        gives_up = monotonic() + GATE_SECONDS
        while not gate.exists():
            if monotonic() > gives_up:
                raise ModelError("MODEL_TIMEOUT")
            sleep(GATE_POLL_SECONDS)


def compose_answer(
    context: AgentContext, prompt: str, *, first_turn: bool, fallback: str = "", knowledge_only: bool = True,
) -> str:  # fmt: skip
    """A short reply in the agent's voice that cites the published material most relevant to ``prompt``."""
    brand = context.brand_name
    terms = _terms(prompt)
    items = _ranked(terms, context.items, _item_text)[:MAX_CITED]
    posts = _ranked(terms, context.posts, _post_text)[:MAX_CITED]
    quote = _quote(terms, context.section_text or "")
    parts = [f"Hi, I'm {context.agent_name}, {brand}'s assistant."] if first_turn else []
    if not (items or posts or quote or context.passages):
        # Only content words can match: a bare greeting is not a question we failed to answer.
        if terms:
            beyond = [] if knowledge_only else [f"That goes beyond {brand}'s published material, and I have no "
                                                "general knowledge of my own to add."]  # fmt: skip
            if fallback.strip():
                return " ".join([*beyond, fallback.strip()])  # the owner's words, exactly as they wrote them
            parts += beyond or [f"I couldn't find that in {brand}'s published material, so I'd rather not guess."]
        return " ".join([*parts, *_overview(context)])
    parts.append(f"Here's what I found in {brand}'s published material.")
    if context.passages:
        best = context.passages[0]
        where = f" ({best.where})" if best.where.strip() else ""
        name = " ".join(best.source.name.split())
        if best.source.answer_id:  # the owner's own answer to a question close to this one: quoted as written
            parts.append(f"To “{name}”, {brand}'s answer is: “{_answer_quote(best.text)}”")
        else:
            parts.append(f"From “{name}”{where}: “{_passage_quote(terms, best.text)}”")
    if quote:
        parts.append(f"The {context.section} section you're on says: “{quote}”")
    elif context.section:
        parts.append(f"You're on the {context.section} section.")
    if items:
        parts.append(f"Have a look at {_listing([_item_label(i) for i in items])}.")
    if posts:
        also = "also " if items else ""
        parts.append(f"{brand} {also}posted about it: {_listing([_post_label(p) for p in posts])}.")
    parts.append("Would you like more detail on any of these?")
    return " ".join(parts)


def fit_tokens(answer: str, max_tokens: int) -> str:
    """``answer``, cut (at a word, with an ellipsis) to what ``max_tokens`` tokens hold as the usage counts them."""
    limit = max(1, max_tokens) * 4  # estimate_tokens: four characters a token, rounded up
    if len(answer) <= limit:
        return answer
    cut = answer[: limit - 1]
    space = cut.rfind(" ")
    return (cut[:space] if space > 0 else cut).rstrip() + "…"


def _overview(context: AgentContext) -> list[str]:
    """What the brand has published at all, when nothing matched the question."""
    brand = context.brand_name
    parts = [f"You're on the {context.section} section."] if context.section else []
    cited = [_item_label(i) for i in context.items[:MAX_CITED]] + [_post_label(p) for p in context.posts[:MAX_CITED]]
    if not cited:
        return [*parts, f"{brand} hasn't published anything I can answer from yet. Can I help with something else?"]
    more = ", among other things" if len(context.items) + len(context.posts) > len(cited) else ""
    return [*parts, f"{brand} has published {_listing(cited)}{more}.", "Is there something there I can help you with?"]


def _terms(text: str) -> set[str]:
    """Lower-cased content words, with a plural ``s`` dropped so "events" finds "event"."""
    words = (word for word in _WORD.findall(text.lower()) if len(word) > 2 and word not in _STOP_WORDS)
    return {word[:-1] if len(word) > 3 and word.endswith("s") and not word.endswith("ss") else word for word in words}


def _ranked[T](terms: set[str], candidates: Sequence[T], text: Callable[[T], str]) -> list[T]:
    """Candidates sharing at least one term with ``terms``, most shared first; ties keep the given order."""
    scores = [len(terms & _terms(text(candidate))) for candidate in candidates]
    order = sorted(range(len(candidates)), key=lambda index: -scores[index])  # sorted() is stable
    return [candidates[index] for index in order if scores[index]]


def _quote(terms: set[str], text: str) -> str | None:
    """The section's sentence most relevant to ``terms``, if any shares a word with them."""
    sentences = [sentence.strip() for sentence in _SENTENCE.split(text) if sentence.strip()]
    hits = _ranked(terms, sentences, str)
    if not hits:
        return None
    # A matching heading says little by itself: quote the first full sentence from there on.
    found = sentences.index(hits[0])
    words = next((s for s in sentences[found:] if len(s.split()) >= 4), hits[0]).split()
    return " ".join(words[:40]) + ("…" if len(words) > 40 else "")


def _passage_quote(terms: set[str], text: str) -> str:
    """A short passage whole; from a long one, the (at most three) sentences or lines sharing the most words with
    the question, in their order: a price sheet's "small" rows, not only the first of them."""
    whole = " ".join(text.split())
    if len(whole) <= QUOTE_CHARS:
        return whole
    sentences = [sentence.strip() for sentence in _SENTENCE.split(text) if sentence.strip()]
    best = set(_ranked(terms, sentences, str)[:QUOTED_LINES]) or {sentences[0]}
    words = "; ".join(" ".join(s.split()) for s in sentences if s in best).split()
    return " ".join(words[:60]) + ("…" if len(words) > 60 else "")


def _answer_quote(text: str) -> str:
    """An owner's answer from its start (the whole of it answers the question), at most 60 words."""
    words = text.split()
    return " ".join(words[:60]) + ("…" if len(words) > 60 else "")


def _item_text(item: ContextItem) -> str:
    return f"{item.name} {item.folder} {item.kind}"


def _post_text(post: ContextPost) -> str:
    return f"{post.title or ''} {post.caption or ''} {post.category or ''}"


def _item_label(item: ContextItem) -> str:
    return f"“{' '.join(item.name.split())}” ({item.kind})"


def _post_label(post: ContextPost) -> str:
    words = (post.title or "").split() or (post.caption or "").split()
    text = " ".join(words[:8]).rstrip(",;:") + "…" if len(words) > 8 else " ".join(words)
    label = f"“{text}”" if text else f"a {post.kind} post from {post.created_at[:10]}"
    return f"{label} ({post.category})" if post.category else label


def _listing(labels: list[str]) -> str:
    return labels[0] if len(labels) == 1 else ", ".join(labels[:-1]) + " and " + labels[-1]
