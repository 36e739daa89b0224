"""A question's key: the same for questions that differ only in case, punctuation, stop words and word forms, so
the day's question items count them together (``main_table.question``)."""

from __future__ import annotations

import hashlib
import re

from core.knowledge.text import terms

KEY_HEX = 32
_WORD = re.compile(r"[^\W_]+")


def normalised(text: str) -> str:
    """The question's content words (``core.knowledge.text.terms``: the ranking's own tokenizer) joined by spaces;
    a question of only stop words ("how are you?") keeps its casefolded words, so it is not lumped with every
    other such question."""
    words = terms(text)
    return " ".join(words) if words else " ".join(_WORD.findall(text.casefold()))


def question_key(text: str) -> str:
    """First 32 hex digits of the SHA-256 of the normalised question."""
    return hashlib.sha256(normalised(text).encode()).hexdigest()[:KEY_HEX]
