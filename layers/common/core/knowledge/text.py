"""Words for ranking: one tokenizer for the index the worker builds and the questions the chat asks it.

Runs of letters and digits in any script, lower-cased; short and common words dropped, a plural ``s`` taken off
("prices" finds "price"). Numbers stay words, so "3.20" is found by "3.20" and "8:00" by "8".
"""

from __future__ import annotations

import re

_WORD = re.compile(r"[^\W_]+")
_STOP_TEXT = (
    "about again all also and any are been but can could did does for from get give had has have hello here hey "
    "how into its just know let like many more much need not our out please some tell than thank thanks that "
    "the their them then there these they this those was want were what whats when where which who why will "
    "with would yes you your yours"
)
STOP_WORDS = frozenset(_STOP_TEXT.split())


def terms(text: str) -> list[str]:
    """The text's content words in order, repeats kept (a term's frequency counts in ranking)."""
    found = []
    for word in _WORD.findall(text.lower()):
        if word in STOP_WORDS or (len(word) < 3 and not word.isdigit()):
            continue
        plural = len(word) > 3 and word.endswith("s") and not word.endswith("ss")
        found.append(word[:-1] if plural else word)
    return found
