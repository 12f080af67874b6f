"""The model catalog: a small list reviewed by hand (``catalog.json`` next to this module).

Nothing here touches the network: the catalog is data shipped in the package. An organisation
can point ``KEEPSAKE_CATALOG`` at a catalog file of its own (same format), e.g. together with
``HF_ENDPOINT`` for a hub mirror.

Recommendation (:func:`recommend`) is a pure function of the machine's memory and disk:

* an entry fits when ``ram_gb <= available RAM`` and ``size + 1 GB <= free disk``;
* among the chat entries that have a ``tier`` (one model family, growing in size), the
  recommended one is the highest tier that fits and whose ``recommended_ram_gb <= total RAM``.
  E.g. 16 GB total, 9 GB available, 50 GB free -> Qwen2.5 3B (tier 3: needs 3.5 GB, meant for
  16 GB); 8 GB total -> Qwen2.5 1.5B (tier 3 wants a 16 GB computer).
"""

from __future__ import annotations

import json
import os
from dataclasses import asdict, dataclass
from pathlib import Path

GB = 1_000_000_000
DISK_MARGIN = 1 * GB  # free disk left after a download: never fill the disk to the last byte
CATALOG_FILE = Path(__file__).with_name("catalog.json")
POOLINGS = frozenset({"model", "none", "mean", "cls", "last"})  # llama.cpp's (engine.embedder.POOLING_TYPES)
COSINE_NAMES = frozenset({"answer", "lexical", "top", "below", "slot"})  # memory.retrieval.forms.Cosines


class CatalogError(ValueError):
    """A catalog name that does not exist, or a catalog file that cannot be read."""


@dataclass(frozen=True)
class CatalogEntry:
    id: str  # the name on the command line: `keepsake models download qwen2.5-3b-instruct`
    name: str  # display name: "Qwen2.5 3B Instruct"
    role: str  # "chat" | "embedding"
    repo: str
    file: str
    revision: str
    size_bytes: int
    sha256: str | None  # None: not confirmed at review; verified against the hub's LFS etag
    sha256_source: str | None
    ram_gb: float
    recommended_ram_gb: float
    context_length: int
    license: str
    license_url: str
    languages: tuple[str, ...]
    summary: str
    tier: int | None = None
    query_prefix: str = ""  # embedders trained with prompts: prepended to a question...
    document_prefix: str = ""  # ...and to every text stored as a vector
    pooling: str | None = None  # embedders: llama.cpp pooling ("mean", "last"...); None: mean
    # embedders: retrieval threshold and answer-form cosines for this model (None/absent: MiniLM's),
    # and whether they were calibrated on the dev split (False: a starting point)
    threshold: float | None = None
    cosines: tuple[tuple[str, float], ...] = ()
    calibrated: bool = True

    @property
    def size_gb(self) -> float:
        return round(self.size_bytes / GB, 1)

    def label(self) -> str:
        """"Qwen2.5 3B Instruct, 2.1 GB, recommended for 16 GB RAM"."""
        return f"{self.name}, {self.size_gb} GB, recommended for {self.recommended_ram_gb:g} GB RAM"

    def to_json(self) -> dict:
        d = asdict(self)
        d.update(languages=list(self.languages), size_gb=self.size_gb, sha256_confirmed=self.sha256 is not None,
                 cosines=dict(self.cosines))
        return d


@dataclass(frozen=True)
class Machine:
    total_ram: int  # bytes
    available_ram: int  # bytes
    free_disk: int  # bytes, on the volume of the models folder


def _entry(raw: dict) -> CatalogEntry:
    sha = raw.get("sha256")
    if sha is not None and (len(sha) != 64 or any(c not in "0123456789abcdef" for c in sha)):
        raise CatalogError(f"catalog entry {raw.get('id')!r}: sha256 is not 64 lowercase hex digits")
    if raw.get("role") not in ("chat", "embedding"):
        raise CatalogError(f"catalog entry {raw.get('id')!r}: role must be chat or embedding")
    cal = raw.get("calibration") or {}
    if raw.get("pooling") not in POOLINGS | {None}:
        raise CatalogError(f"catalog entry {raw.get('id')!r}: pooling must be one of {sorted(POOLINGS)}")
    unknown = set(cal.get("cosines", {}) if isinstance(cal, dict) else ()) - COSINE_NAMES
    if unknown:
        raise CatalogError(f"catalog entry {raw.get('id')!r}: unknown cosines {sorted(unknown)} (known: {sorted(COSINE_NAMES)})")
    try:
        return CatalogEntry(
            id=raw["id"], name=raw["name"], role=raw["role"], repo=raw["repo"], file=raw["file"],
            revision=raw.get("revision") or "main", size_bytes=int(raw["size_bytes"]), sha256=sha,
            sha256_source=raw.get("sha256_source"), ram_gb=float(raw["ram_gb"]),
            recommended_ram_gb=float(raw["recommended_ram_gb"]), context_length=int(raw["context_length"]),
            license=raw["license"], license_url=raw.get("license_url", ""),
            languages=tuple(raw.get("languages", ())), summary=raw.get("summary", ""), tier=raw.get("tier"),
            query_prefix=raw.get("query_prefix", ""), document_prefix=raw.get("document_prefix", ""),
            pooling=raw.get("pooling"), threshold=_opt_float(cal.get("threshold")), calibrated=bool(cal.get("calibrated", True)),
            cosines=tuple(sorted((str(k), float(v)) for k, v in cal.get("cosines", {}).items())),
        )  # fmt: skip
    except (KeyError, TypeError, ValueError, AttributeError) as exc:
        raise CatalogError(f"catalog entry {raw.get('id')!r}: {exc!r}") from None


def _opt_float(v) -> float | None:
    return None if v is None else float(v)


def load(path: Path | None = None) -> tuple[CatalogEntry, ...]:
    """The catalog entries: ``path``, else ``$KEEPSAKE_CATALOG``, else the shipped catalog."""
    path = Path(path or os.environ.get("KEEPSAKE_CATALOG") or CATALOG_FILE)
    try:
        raw = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError) as exc:
        raise CatalogError(f"cannot read the model catalog {path}: {exc}") from None
    entries = tuple(_entry(m) for m in raw.get("models", ()))
    ids = [e.id for e in entries]
    if len(set(ids)) != len(ids):
        raise CatalogError(f"the model catalog {path} names a model twice")
    return entries


def find(name: str, entries: tuple[CatalogEntry, ...] | None = None) -> CatalogEntry:
    """The entry called ``name`` (its id, display name or file name; case-insensitive)."""
    entries = load() if entries is None else entries
    key = name.strip().lower()
    for e in entries:
        if key in (e.id.lower(), e.name.lower(), e.file.lower()):
            return e
    raise CatalogError(f"no model called {name!r} in the catalog (try: {', '.join(e.id for e in entries)})")


def fits(entry: CatalogEntry, machine: Machine) -> bool:
    """The entry can run here and its file fits on the disk with a 1 GB margin."""
    return entry.ram_gb * GB <= machine.available_ram and entry.size_bytes + DISK_MARGIN <= machine.free_disk


def recommend(entries: tuple[CatalogEntry, ...], machine: Machine) -> CatalogEntry | None:
    """The chat model to offer on this machine (module docstring), or None when none fits."""
    ladder = sorted((e for e in entries if e.role == "chat" and e.tier is not None), key=lambda e: e.tier)
    best = None
    for e in ladder:
        if fits(e, machine) and e.recommended_ram_gb * GB <= machine.total_ram * 1.05:
            best = e  # 1.05: a "16 GB" computer reports a little less (15.6 GB) as its total
    return best
