"""Words for the keyword side: code identifiers split into the words people search with
(``loadConfig`` and ``load_config`` both give ``load config``), and a question cut to the
words worth matching."""

from __future__ import annotations

import re

_WORD = re.compile(r"[A-Za-z][A-Za-z0-9]*|[0-9]+")
_CAMEL = re.compile(r"[A-Z]+(?=[A-Z][a-z])|[A-Z]?[a-z]+|[A-Z]+|[0-9]+")
_IDENTIFIER = re.compile(r"[A-Za-z_][A-Za-z0-9_]*")

_STOPWORDS_TEXT = """
a an and are as at be by can code do does for from function get how i in is it its me method
of on or that the this to use used uses using what when where which who why with find show
return returns there their them into any all some each
"""
#: Words too common in questions to say anything about code.
STOPWORDS = frozenset(_STOPWORDS_TEXT.split())
_CODE_WORDS_TEXT = """
def self cls return if else elif for while in not and or is none true false import from as
pass class try except finally raise with yield lambda async await const let var function new
this null undefined func fn pub mut impl struct enum public private static void int str
"""
#: Keywords of the chunked languages: in every chunk, so no help in telling chunks apart.
_CODE_WORDS = frozenset(_CODE_WORDS_TEXT.split())


def identifier_words(text: str) -> str:
    """The words inside the identifiers of ``text`` that are not words already
    (``parseArgs`` -> ``parse args``), so the keyword index matches either spelling."""
    extra: list[str] = []
    # In order of first use, not a set's: a set's order changes with each process's hash
    # seed, and with it the embed text and hash of a chunk (its vector re-computed).
    for identifier in dict.fromkeys(_IDENTIFIER.findall(text)):
        parts = [part for piece in identifier.split("_") for part in _CAMEL.findall(piece)]
        if len(parts) > 1:
            extra.extend(parts)
    return " ".join(extra)


def body_words(text: str, limit: int = 80) -> str:
    """The distinct lower-case words of the identifiers in ``text``, split (``parseArgs`` ->
    ``parse args``), in order of first use, at most ``limit``; keywords of the language and
    one-letter names carry no meaning and are left out."""
    seen: dict[str, None] = {}
    for identifier in _IDENTIFIER.findall(text):
        for piece in identifier.split("_"):
            for part in _CAMEL.findall(piece):
                word = part.lower()
                if len(word) > 1 and word not in _CODE_WORDS and not word.isdigit():
                    seen.setdefault(word, None)
        if len(seen) >= limit:
            break
    return " ".join(list(seen)[:limit])


def query_terms(query: str) -> list[str]:
    """The lower-case words of ``query`` worth matching, identifiers split, each once."""
    words: list[str] = []
    for token in _IDENTIFIER.findall(query):
        parts = [part for piece in token.split("_") for part in _CAMEL.findall(piece)]
        words.extend([token, *parts] if len(parts) > 1 else parts)
    seen: dict[str, None] = {}
    for word in words:
        lowered = word.lower()
        if _WORD.fullmatch(lowered) and lowered not in STOPWORDS:
            seen.setdefault(lowered, None)
    return list(seen)
