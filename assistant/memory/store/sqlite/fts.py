"""FTS5 query text (no I/O): any user string made safe (:func:`clean_query`), the tokens FTS5's
``unicode61 remove_diacritics 2`` tokenizer indexes (letters and digits, lower case, diacritics
removed: :func:`fts_tokens`), and a MATCH expression with every term quoted, so user text is
never FTS5 syntax (:func:`match_expression`). Used by message search and retrieval."""

from __future__ import annotations

import re
import unicodedata
from typing import Iterable

MAX_QUERY_CHARS = 2000  # longer queries are cut (MiniLM sees ~510 tokens anyway)
MAX_TERMS = 32  # distinct query terms used for BM25 / MATCH
MAX_TERM_CHARS = 64

_TOKEN = re.compile(r"[^\W_]+")


def clean_query(text: object) -> str:
    """Any input -> a safe query string: control characters and lone surrogates removed,
    whitespace collapsed, at most ``MAX_QUERY_CHARS`` characters."""
    if not isinstance(text, str):
        text = "" if text is None else str(text)
    text = text[: MAX_QUERY_CHARS * 4]
    text = text.encode("utf-8", "replace").decode("utf-8", "replace")  # lone surrogates -> '?'
    out = []
    for ch in text:
        cat = unicodedata.category(ch)
        if cat == "Cc" or cat == "Cs":
            out.append(" ")
        elif cat in ("Cn", "Co") or ch in "\u202a\u202b\u202c\u202d\u202e\u2066\u2067\u2068\u2069":
            continue  # unassigned, private use, bidi overrides
        else:
            out.append(ch)
    return " ".join("".join(out).split())[:MAX_QUERY_CHARS]


def fold(text: str) -> str:
    """Lower case without diacritics (as FTS5 ``unicode61 remove_diacritics 2`` folds)."""
    decomposed = unicodedata.normalize("NFD", text)
    stripped = "".join(ch for ch in decomposed if unicodedata.category(ch) != "Mn")
    return unicodedata.normalize("NFC", stripped).lower()


def fts_tokens(text: str) -> list[str]:
    """The tokens FTS5's unicode61 tokenizer indexes for ``text`` (letters/digits runs)."""
    return _TOKEN.findall(fold(text))


def query_terms(text: str) -> list[str]:
    """Distinct query tokens in order, at most ``MAX_TERMS``, each at most ``MAX_TERM_CHARS``."""
    seen: dict[str, None] = {}
    for tok in fts_tokens(text):
        if len(tok) <= MAX_TERM_CHARS:
            seen.setdefault(tok, None)
        if len(seen) >= MAX_TERMS:
            break
    return list(seen)


def match_expression(text: str) -> str | None:
    """A sanitized FTS5 MATCH expression for any user string: its terms, each double-quoted
    (FTS5 operators, column filters, ``NEAR``, ``*``, ``^`` and parentheses lose their meaning),
    joined with OR. None when the text has no term at all."""
    terms = query_terms(clean_query(text))
    if not terms:
        return None
    return any_of(terms)


def any_of(terms: Iterable[str]) -> str:
    """``"a" OR "b"``: each term double-quoted (a ``"`` inside doubled), so FTS5 reads every one
    as a plain token sequence, never as an operator."""
    return " OR ".join('"' + t.replace('"', '""') + '"' for t in terms)
