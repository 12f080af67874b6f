"""What an embedding model needs besides its weights: the prompts it was trained with, its pooling,
and the cosine thresholds retrieval uses with it. Read from the catalog entry whose file is the
model's file (``catalog.json``: ``query_prefix``, ``document_prefix``, ``pooling``,
``calibration``); a file no entry names (the default MiniLM, a GGUF the person picked) gets
:data:`PLAIN`: no prompts, mean pooling, MiniLM's thresholds.

Which texts get which prompt (applied by :class:`assistant.engine.embedder.LlamaEmbedder`):

* **document**: every text whose vector is stored or stands for a memory: a memory at write
  time (capture, consolidation, edits, imports), re-embedding, a memory's older version scored
  on the fly;
* **query**: the question searched for, and the question forms it is compared with
  (:mod:`assistant.memory.retrieval.forms`). The forms are questions ("What do I do for a
  living?") and the question's own variants; a question form and the question are compared
  like with like, so both take the query prompt: query-vs-query is the symmetric comparison
  these models make between two questions, and the question's vector is then one embedding for
  search, slot matching and forms alike.

No GGUF metadata key for prompts is standard in llama.cpp's converters, so the catalog is the
only source; a GGUF the person brings runs without prompts.
"""

from __future__ import annotations

import logging
from dataclasses import dataclass
from pathlib import Path

log = logging.getLogger(__name__)


@dataclass(frozen=True)
class EmbedProfile:
    query_prefix: str = ""
    document_prefix: str = ""
    pooling: str | None = None  # None: mean (MiniLM's)
    threshold: float | None = None  # retrieval threshold; None: the retriever's default (MiniLM's 0.33)
    cosines: tuple[tuple[str, float], ...] = ()  # overrides of the answer-form cosines (forms.Cosines)
    calibrated: bool = True  # False: the values above are a starting point, not calibrated
    source: str = ""  # "catalog <id>" when it comes from an entry

    @property
    def prompted(self) -> bool:
        return bool(self.query_prefix or self.document_prefix)


PLAIN = EmbedProfile()


def for_file(path: Path | str) -> EmbedProfile:
    """The profile of the catalog's embedding entry whose ``file`` is ``path``'s name
    (case-insensitive), else :data:`PLAIN`. Never touches the network (the catalog is a file)."""
    from assistant.engine.catalog import entries  # the catalog file: read only when an embedder is made

    name = Path(path).name.casefold()
    try:
        catalog = entries.load()
    except entries.CatalogError as exc:
        log.warning("embedder %s runs without catalog prompts: %s", name, exc)
        return PLAIN
    for e in catalog:
        if e.role == "embedding" and e.file.casefold() == name:
            return EmbedProfile(e.query_prefix, e.document_prefix, e.pooling, e.threshold, e.cosines, e.calibrated,
                                source=f"catalog {e.id}")  # fmt: skip
    return PLAIN
