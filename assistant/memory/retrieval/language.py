"""Language identification for retrieval: :func:`assistant.memory.language.langid.detect` (it
sits in the language layer, which consolidation reads too)."""

from assistant.memory.language.langid import detect

__all__ = ["detect"]
