"""Text guards for consolidation: when two statements may be the same fact, and what a slot's
value is. Pure, no I/O.

A merge is only allowed between statements that carry the same *key tokens* and do not
substitute one content word for another:

- numbers (digits, and number words mapped to digits): "born 1990" vs "born 1991" differ;
- proper nouns (capitalised words that are not sentence-initial starters, all-caps or
  alphanumeric tokens): "sister Mei" vs "sister Lin" differ;
- polarity words (negations and words that flip a preference: not, never, allergic, hate,
  quit, ...): "likes oat milk" vs "is allergic to oat milk" differ;
- content words (stop words removed, crude stemming): if *each* side has a content word the
  other lacks, one was substituted for another ("brother" vs "sister") and the rule tiers
  refuse the pair; words added on one side only ("really", "every morning") are allowed.

CJK text has no capitals and no spaces: every Han character is its own token, so the same
substitution rule applies per character (喜欢 vs 过敏) and numbers still count.
"""

from __future__ import annotations

import re
import unicodedata
from dataclasses import dataclass
from functools import lru_cache

from rapidfuzz import fuzz

_NUMBER_WORDS = {
    "zero": "0", "one": "1", "two": "2", "three": "3", "four": "4", "five": "5", "six": "6",
    "seven": "7", "eight": "8", "nine": "9", "ten": "10", "eleven": "11", "twelve": "12",
    "thirteen": "13", "fourteen": "14", "fifteen": "15", "sixteen": "16", "seventeen": "17",
    "eighteen": "18", "nineteen": "19", "twenty": "20", "thirty": "30", "forty": "40", "fifty": "50",
    "sixty": "60", "seventy": "70", "eighty": "80", "ninety": "90", "hundred": "100",
    "thousand": "1000", "twice": "2", "once": "1", "first": "1st", "second": "2nd", "third": "3rd",
}  # fmt: skip

STOP_WORDS = frozenset(
    """a an the and or but so of to in on at for with from by as into about over under than then
    i me my mine myself we us our ours you your yours he him his she her hers it its they them
    their theirs this that these those there here who whom whose which what when where why how
    is am are was were be been being do does did have has had having will would shall should
    can could may might must also just really very quite pretty too much many some any all
    each every more most such own same other another user user's person assistant named called
    s t ll re ve d m o y get gets got""".split()
)  # fmt: skip

POLARITY_WORDS = frozenset(
    """not no never nor neither none nobody nothing without cannot can't cant don't dont doesn't
    doesnt didn't didnt isn't isnt wasn't wasnt aren't arent weren't werent won't wont wouldn't
    shouldn't couldn't haven't hasn't hadn't n't hate hates hated hating dislike dislikes disliked
    allergic allergy allergies intolerant intolerance avoid avoids avoided avoiding stopped stop
    stops quit quits former formerly ex anymore longer used previously""".split()
) | frozenset("不没別别未无非勿莫")  # fmt: skip

# Capitalised words that start sentences without being names (kept out of the proper nouns).
_STARTERS = frozenset(
    """i i'm i've i'd i'll my me we our us you your he his him she her it its they their them
    the a an this that these those there here user user's person assistant every each always never
    sometimes often usually yesterday today tomorrow last next in on at since from until after
    before during when while if because but and or so also please remember note likes like loves
    love prefers prefer lives live works work has have had is was are were will would can could
    does do did doesn't don't not no yes hi hello hey ok okay""".split()
)  # fmt: skip

MONTHS = frozenset(
    """january february march april may june july august september october november december
    jan feb mar apr jun jul aug sep sept oct nov dec monday tuesday wednesday thursday friday
    saturday sunday""".split()
)  # fmt: skip

_CJK = r"\u3400-\u4dbf\u4e00-\u9fff\uf900-\ufaff"
_TOKEN = re.compile(rf"[{_CJK}]|\d+(?:[.,:/-]\d+)*|[^\W\d_]+(?:['’][^\W\d_]+)*|[^\W_]+", re.UNICODE)
_SENTENCE_END = re.compile(r"[.!?。！？]\s*$")
_NUMBER = re.compile(r"\d")
_DATEISH = re.compile(r"^(?:1[89]|20)\d\d(?:[-/.]\d{1,2}(?:[-/.]\d{1,2})?)?$|^\d{1,2}[/.-]\d{1,2}[/.-]\d{2,4}$")


def loose_normalize(text: str) -> str:
    """Tier-2 normalization: NFKC, casefold, punctuation and symbols removed, whitespace collapsed
    ("I like oat-milk, really!" == "i like oat milk really")."""
    s = unicodedata.normalize("NFKC", text).casefold()
    s = "".join(" " if unicodedata.category(ch)[0] in "PSZC" else ch for ch in s)
    return " ".join(s.split())


def ratio(a: str, b: str) -> float:
    """Fuzzy similarity in [0, 1]: the better of rapidfuzz ``ratio`` and ``token_sort_ratio`` over
    loosely normalized texts (word order alone does not make two statements different)."""
    x, y = loose_normalize(a), loose_normalize(b)
    return max(fuzz.ratio(x, y), fuzz.token_sort_ratio(x, y)) / 100.0


def _stem(word: str) -> str:
    w = word.replace("’", "'")
    if w.endswith("'s"):
        w = w[:-2]
    for suffix in ("ing", "ied", "ies", "ed", "es", "s"):
        if w.endswith(suffix) and len(w) - len(suffix) >= 3:
            w = w[: -len(suffix)] + ("y" if suffix in ("ies", "ied") else "")
            if suffix in ("ing", "ed") and len(w) >= 4 and w[-1] == w[-2] and w[-1] not in "aeiouylsz":
                w = w[:-1]  # swimming -> swim, stopped -> stop (as "swims", "stops")
            break
    if w.endswith("e") and len(w) > 3:
        w = w[:-1]
    return w


@dataclass(frozen=True)
class KeyTokens:
    """What a statement commits to (see the module docstring)."""

    numbers: frozenset[str]
    proper: frozenset[str]  # casefolded, not sentence-initial (or all-caps / alphanumeric)
    polarity: frozenset[str]
    content: frozenset[str]  # stemmed content words / CJK characters
    initial: frozenset[str] = frozenset()  # capitalised sentence-initial words: maybe names

    @property
    def values(self) -> frozenset[str]:
        """A slot's value: proper nouns and numbers that are not dates ("Shanghai", "34"); a
        sentence-initial capitalised word counts only when nothing else does ("Beijing is home")."""
        props = {p for p in self.proper if p not in MONTHS}
        nums = {n for n in self.numbers if not _DATEISH.match(n)}
        out = props | nums
        return frozenset(out or {p for p in self.initial if p not in MONTHS})


@lru_cache(maxsize=65536)
def key_tokens(text: str) -> KeyTokens:
    text = unicodedata.normalize("NFKC", text)
    numbers: set[str] = set()
    proper: set[str] = set()
    polarity: set[str] = set()
    content: set[str] = set()
    initial: set[str] = set()
    for m in _TOKEN.finditer(text):
        tok = m.group(0)
        low = tok.casefold().replace("’", "'")
        if _NUMBER.search(tok):
            if tok.isdigit() or not any(ch.isalpha() for ch in tok):
                numbers.add(tok.lstrip("0") or "0")
            else:  # "488GTB", "B2": an identifier
                proper.add(low)
            content.add(low)
            continue
        if low in _NUMBER_WORDS:
            numbers.add(_NUMBER_WORDS[low])
            continue
        if low in POLARITY_WORDS or low.endswith("n't"):
            polarity.add(low)
            continue
        if tok[0].isupper():
            at_start = m.start() == 0 or bool(_SENTENCE_END.search(text[: m.start()]))
            if tok.isupper() and len(tok) > 1:  # "GTB", "NASA"
                proper.add(low)
            elif not at_start:
                if low not in ("i", "i'm", "i've", "i'd", "i'll"):
                    proper.add(low)
            elif low not in _STARTERS and low not in STOP_WORDS and not _looks_like_verb(low):
                initial.add(low)
        if low in STOP_WORDS:
            continue
        content.add(low if len(low) == 1 and re.match(rf"[{_CJK}]", low) else _stem(low))
    return KeyTokens(frozenset(numbers), frozenset(proper), frozenset(polarity), frozenset(content), frozenset(initial))


def _looks_like_verb(low: str) -> bool:
    # a sentence-initial third-person verb ("Prefers oat milk", "Drinks tea") is no name
    return low.endswith("s") and low[:-1] in _COMMON_VERBS or low in _COMMON_VERBS


_COMMON_VERBS = frozenset(
    """prefer like love enjoy hate dislike drink eat own live work study play watch read use go
    visit want need wear speak drive ride run walk cook bake keep collect grow travel take make
    moved move started start stopped quit switched switch bought buy sold sell went"""
    .split()
)  # fmt: skip


@dataclass(frozen=True)
class Verdict:
    ok: bool
    why: str


def hard_guard(a: str, b: str) -> Verdict:
    """Numbers, proper nouns and polarity must agree (the LLM tier may not override this)."""
    ka, kb = key_tokens(a), key_tokens(b)
    if ka.numbers != kb.numbers:
        return Verdict(False, f"different numbers/dates {sorted(ka.numbers ^ kb.numbers)}")
    all_a, all_b = ka.proper | ka.initial, kb.proper | kb.initial
    strong = {t for t in all_a ^ all_b if t in ka.proper | kb.proper}
    weak_a, weak_b = (all_a - all_b) - strong, (all_b - all_a) - strong
    if strong or (weak_a and weak_b):  # a one-sided sentence-initial word may be a common noun
        return Verdict(False, f"different proper nouns {sorted(all_a ^ all_b)}")
    if ka.polarity != kb.polarity:
        return Verdict(False, f"different polarity {sorted(ka.polarity ^ kb.polarity)}")
    return Verdict(True, "same numbers, proper nouns and polarity")


def same_fact_guard(a: str, b: str) -> Verdict:
    """:func:`hard_guard` plus no content-word substitution (the rule tiers)."""
    v = hard_guard(a, b)
    if not v.ok:
        return v
    ka, kb = key_tokens(a), key_tokens(b)
    only_a, only_b = ka.content - kb.content, kb.content - ka.content
    if only_a and only_b:
        return Verdict(False, f"different words {sorted(only_a)} vs {sorted(only_b)}")
    return Verdict(True, "no content word substituted")


def grounded_in(text: str, sources: list[str]) -> Verdict:
    """Never invent: every proper noun and number of ``text`` occurs in the sources."""
    k = key_tokens(text)
    have_nums: set[str] = set()
    have_props: set[str] = set()
    blob = " ".join(sources).casefold()
    for s in sources:
        ks = key_tokens(s)
        have_nums |= ks.numbers
        have_props |= ks.proper
    missing_nums = sorted(n for n in k.numbers if n not in have_nums)
    missing_props = sorted(p for p in k.proper | k.initial if p not in have_props and p not in blob)
    if missing_nums or missing_props:
        return Verdict(False, f"not in the sources: {missing_nums + missing_props}")
    return Verdict(True, "every proper noun and number occurs in the sources")
