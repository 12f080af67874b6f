"""Language identification for retrieval. ``detect(text)``: the language the embedder compares a
text in. MiniLM is an English model, and every text of the five other capture languages is read
through its English gloss (:mod:`assistant.memory.language.reading`: the store embeds a memory's
gloss, retrieval a question's, memory answers their question forms'), so they are all compared
in English: "en". A language without a lexicon would keep its own
(:func:`assistant.memory.language.langid.detect`, which sits in the language layer that
consolidation reads too). ``spoken(text)``: the language the text is written in."""

from assistant.memory.language.gloss import LANGS
from assistant.memory.language.langid import detect as spoken


def detect(text: str) -> str:
    lang = spoken(text)
    return "en" if lang in LANGS else lang


__all__ = ["detect", "spoken"]
