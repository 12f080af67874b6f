"""English glosses of the five other capture languages (es, de, fr, pt, zh), word by word from a
bilingual lexicon: classic query translation for cross-language retrieval. MiniLM is an English
model (:mod:`.langid`): a Spanish question lands nearest to whatever Spanish memory exists, so
retrieval also embeds the English gloss ("¿Dónde vivo?" -> "where I live?").

    gloss("¿Dónde vivo ahora?")         # "where I live now?"
    gloss("我住在根特。")                  # "I live in 根特."  (unknown words pass through)
    gloss("User lives in Ghent.")       # None: English needs no gloss
    english("Wo wohne ich?")            # the gloss, or the text itself when it is English

**Lexicon** (``lexicon/<lang>.tsv``, package data): one line is ``form|form<TAB>English``; a
form may be several words ("de dónde", "zu fuß"); English ``~`` drops the word (articles,
particles). First line wins when a form repeats. Every form is also indexed without its accents
("donde" finds "dónde") unless that spelling is a form of its own.

**Which texts**: a text :func:`~.langid.detect` does not call English, and (but for Chinese)
whose words are at least half lexicon words (names, capitalised after the first word, left out): a few function words shared with English ("as",
"a") do not make "User works as a pharmacist." Portuguese.

**Reading** (:func:`gloss`): the text is cut into words (casefolded; a French elision is its own
word: "j'" "habite"; a hyphen separates words), and at each position the longest lexicon form
(as many words as its longest form) is replaced by its English. A word no form matches tries, in
order: the same without accents; without a plural, inflection or derivation ending (:data:`ENDINGS`:
"canciones" -> "canción", "beruflich" -> "Beruf"); for German, a compound of two lexicon words with an optional linking
"s"/"n"/"en"/"e" ("Lieblingsfilm" -> "favourite film"). Anything else (names, places, numbers)
passes through as written. Chinese has no spaces: each run of ideographs is cut by greedy
longest match over the lexicon (:data:`ZH_MAX` characters); an unknown ideograph passes through.
In Chinese a pronoun right before a relation ("我妹妹") is possessive ("my younger sister").
The same English word twice in a row is said once ("eu moro" -> "I live", not "I I live").
Sentence punctuation is kept. Pure; the lexicons are read once.
"""

from __future__ import annotations

import re
import unicodedata
from functools import lru_cache
from importlib import resources

from assistant.memory.language.langid import detect

LANGS = ("es", "de", "fr", "pt", "zh")
ZH_MAX = 6
#: Endings tried off an unknown word, longest first, when what is left (>= 3 letters) is a form.
ENDINGS = {"es": ("es", "s"), "pt": ("es", "s"), "fr": ("es", "s", "x", "e"), "de": ("lich", "en", "er", "es", "n", "s", "e")}
_LINKS = ("", "s", "n", "en", "e")
_TOKEN = re.compile(r"[\u4e00-\u9fff]+|[^\W\d_\u4e00-\u9fff]+'?|\d+(?:[.:,]\d+)*|[?!.,;:？！。，；：]")
_CJK = re.compile(r"[\u4e00-\u9fff]")
#: Chinese says "我妈妈" ("I mother") for "my mother": a pronoun right before one of these is possessive.
_OWNER = {"I": "my", "you": "your", "he": "his", "she": "her", "we": "our", "they": "their"}
_OWNED = frozenset(w.replace("_", " ") for w in """father mother parents brother sister siblings son daughter children
    grandfather grandmother grandson granddaughter uncle aunt cousin nephew niece husband wife partner boyfriend girlfriend
    friend best_friend neighbour colleague boss family home hometown baby twins teacher doctor dog cat pet older_brother
    younger_brother older_sister younger_sister father-in-law mother-in-law parents-in-law in-laws brother-in-law sister-in-law
    son-in-law daughter-in-law grandparents grandchildren stepfather stepmother stepson stepdaughter godfather godmother
    roommate flatmate classmate ex-husband ex-wife""".split())
_PUNCT = {"？": "?", "！": "!", "。": ".", "，": ",", "；": ";", "：": ":"}


def plain(word: str) -> str:
    """``word`` without accents ("dónde" -> "donde"; "ß" and CJK unchanged)."""
    return "".join(c for c in unicodedata.normalize("NFD", word) if not unicodedata.combining(c))


def words(text: str) -> list[str]:
    """The words, numbers and sentence punctuation of ``text``, as written (apostrophes unified)."""
    return _TOKEN.findall(unicodedata.normalize("NFC", text).replace("’", "'").replace("`", "'"))


class Lexicon:
    """One language's forms: ``forms`` maps a tuple of casefolded words to its English ("" =
    dropped); ``bare`` the same without accents."""

    def __init__(self, lines: list[str]) -> None:
        self.forms: dict[tuple[str, ...], str] = {}
        self.bare: dict[tuple[str, ...], str] = {}
        self.longest = 1
        for line in lines:
            if not line.strip() or line.startswith("#") or "\t" not in line:
                continue
            src, en = line.rstrip("\n").split("\t", 1)
            en = "" if en.strip() == "~" else en.strip()
            for form in src.split("|"):
                key = tuple(w.casefold() for w in words(form))
                if key:
                    self.forms.setdefault(key, en)
                    self.longest = max(self.longest, len(key))
        for key, en in self.forms.items():
            self.bare.setdefault(tuple(plain(w) for w in key), en)

    def get(self, key: tuple[str, ...]) -> str | None:
        found = self.forms.get(key)
        return found if found is not None else self.bare.get(tuple(plain(w) for w in key))

    def word(self, w: str, lang: str) -> str | None:
        """One unknown word: its accents, endings, German compounds (module docstring)."""
        found = self.get((w,))
        if found is not None:
            return found
        for end in ENDINGS.get(lang, ()):
            if w.endswith(end) and len(w) - len(end) >= 3:
                found = self.get((w[: -len(end)],))
                if found is not None:
                    return found
        if lang == "de" and len(w) >= 6:
            return self._compound(w)
        return None

    def _compound(self, w: str) -> str | None:
        for cut in range(len(w) - 3, 2, -1):  # the longest head first
            tail = self.word(w[cut:], "") if len(w) - cut >= 3 else None
            if not tail:
                continue
            for link in _LINKS:
                head = w[:cut]
                if link and not head.endswith(link):
                    continue
                head_en = self.get((head[: len(head) - len(link)],)) if len(head) - len(link) >= 3 else None
                if head_en:
                    return f"{head_en} {tail}"
        # a head no lexicon knows before a known noun of 5+ letters: the compound is a kind of its last part
        # ("Steppenschildkröte" -> "steppen turtle"), as German compounds are
        for cut in range(3, len(w) - 4):
            tail = self.get((w[cut:],))
            if tail:
                return f"{w[:cut]} {tail}"
        return None


#: Portuguese verb forms that are the first person singular by their ending: the preterite/future
#: -ei ("mudei", "farei") and the -er/-ir preterite -i after a consonant ("conheci", "vivi"); a word
#: with an accent ("táxi", "vôlei") or glossed as a pronoun/adverb ("ti", "ali") is none.
_PT_FIRST_PERSON = re.compile(r"^[a-zç]+(?:ei|[^aeiouq]i)$")


def _first_person(lang: str, line: str) -> str:
    """A lexicon line whose form is a first-person verb by its ending glossed with its subject:
    "conheci<TAB>met" -> "conheci<TAB>I met" (so the English reading says who did it)."""
    src, _, en = line.partition("\t")
    if lang != "pt" or not _PT_FIRST_PERSON.match(src) or en.strip() in ("", "~", "you", "there") or en.startswith("I "):
        return line
    return f"{src}\tI {en.strip()}"


@lru_cache(maxsize=None)
def lexicon(lang: str) -> Lexicon:
    """The lexicon of ``lang`` (one of :data:`LANGS`), read once from the package data."""
    text = resources.files(__package__).joinpath("lexicon", f"{lang}.tsv").read_text(encoding="utf-8")
    return Lexicon([_first_person(lang, line) for line in text.splitlines()])


def _zh(run: str, lex: Lexicon) -> list[str]:
    """A run of ideographs by greedy longest match (module docstring)."""
    out, i, unknown = [], 0, ""
    while i < len(run):
        for n in range(min(ZH_MAX, len(run) - i), 0, -1):
            en = lex.get((run[i : i + n],))
            if en is not None:
                out += [unknown, en]
                unknown, i = "", i + n
                break
        else:  # a name: its ideographs stay together
            unknown += run[i]
            i += 1
    out.append(unknown)
    said = [p for p in out if p]
    return [_OWNER.get(p, p) if j + 1 < len(said) and said[j + 1] in _OWNED else p for j, p in enumerate(said)]


def gloss(text: str, lang: str | None = None) -> str | None:
    """The English gloss of ``text`` (module docstring), or None when it is English (``lang``:
    :func:`~.langid.detect`'s, when not given) or has nothing to gloss."""
    lang = lang or detect(text)
    if lang not in LANGS:
        return None
    lex = lexicon(lang)
    toks = words(text)
    folded = [t.casefold() for t in toks]
    found = {w: lex.word(w, lang) for t, w in zip(toks, folded) if t[0].isalpha() and not _CJK.match(t)}  # each word looked up once
    seen = [found[w] is not None for j, (t, w) in enumerate(zip(toks, folded)) if w in found
            and not (j and t[0].isupper() and found[w] is None)]  # fmt: skip
    if lang != "zh" and 2 * sum(seen) < len(seen):
        return None  # mostly words the lexicon does not know: English after all ("User works as a pharmacist.")
    out: list[str] = []
    i = 0
    while i < len(toks):
        tok = toks[i]
        if _CJK.match(tok):
            out += _zh(tok, lex)
            i += 1
            continue
        if tok in _PUNCT or not tok[0].isalnum():
            out.append(_PUNCT.get(tok, tok))
            i += 1
            continue
        for n in range(min(lex.longest, len(toks) - i), 1, -1):
            en = lex.get(tuple(folded[i : i + n]))
            if en is not None:
                out.append(en)
                i += n
                break
        else:
            en = found[folded[i]] if folded[i] in found else lex.word(folded[i], lang)
            if en == "the" and i and _names_next(toks, folded, i, found):
                en = ""  # "a Clara", "o Rafael": an article before a person's name says nothing in English
            out.append(tok.rstrip("'") if en is None else en)
            i += 1
    return _join(out)


def _names_next(toks: list[str], folded: list[str], i: int, found: dict[str, str | None]) -> bool:
    """The word after ``toks[i]`` is a name: capitalised and unknown to the lexicon."""
    nxt = toks[i + 1] if i + 1 < len(toks) else ""
    return nxt[:1].isupper() and found.get(folded[i + 1]) is None


def _join(parts: list[str]) -> str | None:
    said: list[str] = []
    for w in " ".join(p for p in parts if p).split():
        if not said or w.casefold() != said[-1].casefold():
            said.append(w)
    return re.sub(r"\s+([?!.,;:])", r"\1", " ".join(said)).strip() or None


def known(word: str, lang: str) -> bool:
    """``word`` is a word of ``lang``'s lexicon (directly, by its endings or as a compound)."""
    return lang in LANGS and lexicon(lang).word(word.casefold(), lang) is not None


def english(text: str, lang: str | None = None) -> str:
    """``text`` in English: its gloss (:func:`gloss`), or the text itself when it is English."""
    return gloss(text, lang) or text


@lru_cache(maxsize=1)
def english_words() -> frozenset[str]:
    """The English side of the lexicons, casefolded (nationalities, languages, common words):
    what a typo or a name is not."""
    return frozenset(w for lang in LANGS for en in lexicon(lang).forms.values() for w in re.findall(r"[^\W\d_]+", en.casefold()))


@lru_cache(maxsize=1)
def known_words() -> frozenset[str]:
    """Every word some lexicon knows: :func:`english_words` and :func:`lexicon_words` (read once)."""
    return english_words() | lexicon_words()


@lru_cache(maxsize=1)
def lexicon_words() -> frozenset[str]:
    """The words of the other capture languages the lexicons hold, casefolded, with and without
    accents ("quando", "métier", "metier"): not typos of an English word."""
    return frozenset(w for lang in LANGS for lex in (lexicon(lang),) for table in (lex.forms, lex.bare) for key in table
                     for w in key if w.isalpha())
