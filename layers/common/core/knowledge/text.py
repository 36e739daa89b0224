"""Words for ranking: one tokenizer for the index the worker builds and the questions the chat asks it.

Runs of letters and digits in any script, lower-cased; short and common words dropped. Word forms meet: a plural
``s`` and an ``-ing``/``-ed`` ending come off ("prices" finds "price", "bookings" finds "book", "opening" finds
"open"), a weekday's short name is its name ("Sat-Sun" finds "Saturday"), and a hyphenated pair is also one word
("Wi-Fi" finds "wifi"). Numbers stay words, so "3.20" is found by "3.20" and "8:00" by "8". English only: other
languages keep their words as they are written.
"""

from __future__ import annotations

import re

_WORD = re.compile(r"[^\W_]+")
_PAIR = re.compile(r"\b([^\W_]+)-([^\W_]+)\b")
_STOP_TEXT = (
    "about again all also and any are been but can could did does for from get give had has have hello here hey "
    "how into its just know let like many more much need not our out please some tell than thank thanks that "
    "the their them then there these they this those was want were what whats when where which who why will "
    "with would yes you your yours"
)
STOP_WORDS = frozenset(_STOP_TEXT.split())
_DAYS = {"mon": "monday", "tue": "tuesday", "tues": "tuesday", "wed": "wednesday", "thu": "thursday",
         "thur": "thursday", "thurs": "thursday", "fri": "friday", "sat": "saturday", "sun": "sunday"}  # fmt: skip


def _stem(word: str) -> str:
    if word.isdigit() or word in _DAYS:
        return _DAYS.get(word, word)
    if len(word) > 3 and word.endswith("s") and not word.endswith("ss"):
        word = word[:-1]
    for ending in ("ing", "ed"):
        if len(word) > len(ending) + 3 and word.endswith(ending):
            return word[: -len(ending)]
    return word


def terms(text: str) -> list[str]:
    """The text's content words in order, repeats kept (a term's frequency counts in ranking)."""
    lowered = text.lower()
    found = []
    for word in _WORD.findall(lowered):
        if word in STOP_WORDS or (len(word) < 3 and not word.isdigit()):
            continue
        found.append(_stem(word))
    found += [first + second for first, second in _PAIR.findall(lowered) if not (first + second).isdigit()]
    return found
