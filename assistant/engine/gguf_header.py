"""Read a GGUF file's header without building its metadata: the few keys a check needs, the
tensor table's extent, and nothing else.

The file layout (GGUF v2/v3, little-endian; https://github.com/ggml-org/ggml/blob/master/docs/gguf.md)::

    "GGUF" | version u32 | tensor_count u64 | kv_count u64
    kv_count x  (key: string, value_type u32, value)
    tensor_count x  (name: string, n_dims u32, dims u64 x n_dims, ggml_type u32, offset u64)
    padding to general.alignment (default 32) | tensor data

    string = length u64 + UTF-8 bytes;  array = item_type u32 + count u64 + count items

``gguf.GGUFReader`` turns every field into numpy views, including the tokenizer's vocabulary
and merges (about 100,000 strings for SmolLM2): seconds of pure Python per file. Here a scalar
array is skipped in one step (``count x item size``) and a string array by hopping over each
length prefix; only scalars and strings are decoded. A tensor's size is
``elements / block_size x type_size`` (ggml's block quantisation, :data:`GGML_BLOCKS`), so the
data must reach ``data_start + max(offset + size)`` bytes.
"""

from __future__ import annotations

import mmap
import struct
from dataclasses import dataclass, field
from pathlib import Path

MAGIC = b"GGUF"
DEFAULT_ALIGNMENT = 32
STRING, ARRAY = 8, 9
#: GGUF value type -> struct format of one item (STRING and ARRAY are handled apart).
SCALARS = {0: "<B", 1: "<b", 2: "<H", 3: "<h", 4: "<I", 5: "<i", 6: "<f", 7: "<?", 10: "<Q", 11: "<q", 12: "<d"}
SCALAR_SIZES = {t: struct.calcsize(f) for t, f in SCALARS.items()}
_U64 = struct.Struct("<Q")

_QK = 256  # super-block size of the k-quants and i-quants
#: ggml type id -> (elements per block, bytes per block); the same table as
#: ``gguf.constants.GGML_QUANT_SIZES`` (a test keeps the two equal).
GGML_BLOCKS: dict[int, tuple[int, int]] = {
    0: (1, 4), 1: (1, 2),  # F32, F16
    2: (32, 2 + 16), 3: (32, 2 + 2 + 16), 6: (32, 2 + 4 + 16), 7: (32, 2 + 2 + 4 + 16),  # Q4_0 Q4_1 Q5_0 Q5_1
    8: (32, 2 + 32), 9: (32, 4 + 4 + 32),  # Q8_0 Q8_1
    10: (_QK, 2 + 2 + _QK // 16 + _QK // 4), 11: (_QK, 2 + _QK // 4 + _QK // 8 + 12),  # Q2_K Q3_K
    12: (_QK, 2 + 2 + _QK // 2 + 12), 13: (_QK, 2 + 2 + _QK // 2 + _QK // 8 + 12),  # Q4_K Q5_K
    14: (_QK, 2 + _QK // 2 + _QK // 4 + _QK // 16), 15: (_QK, 4 + _QK + _QK // 8),  # Q6_K Q8_K
    16: (_QK, 2 + _QK // 4), 17: (_QK, 2 + _QK // 4 + _QK // 32), 18: (_QK, 2 + _QK // 4 + _QK // 8),  # IQ2_XXS IQ2_XS IQ3_XXS
    19: (_QK, 2 + _QK // 8 + _QK // 16), 20: (32, 2 + 16),  # IQ1_S IQ4_NL
    21: (_QK, 2 + _QK // 4 + _QK // 8 + _QK // 32 + 4), 22: (_QK, 2 + _QK // 4 + _QK // 16),  # IQ3_S IQ2_S
    23: (_QK, 2 + 2 + _QK // 2 + _QK // 64),  # IQ4_XS
    24: (1, 1), 25: (1, 2), 26: (1, 4), 27: (1, 8), 28: (1, 8),  # I8 I16 I32 I64 F64
    29: (_QK, _QK // 8 + _QK // 16 + _QK // 32), 30: (1, 2),  # IQ1_M BF16
    34: (_QK, 2 + 4 * 13), 35: (_QK, 2 + 64), 39: (32, 1 + 16),  # TQ1_0 TQ2_0 MXFP4
}


class HeaderError(ValueError):
    """The header cannot be read: the message says where it stops making sense."""


@dataclass
class Header:
    version: int
    tensor_count: int
    #: scalar and string values by key (arrays are skipped: their keys are in ``keys`` only)
    values: dict[str, object] = field(default_factory=dict)
    keys: set[str] = field(default_factory=set)
    #: bytes the file must have for every tensor's data (0 without tensors); None when a tensor
    #: has a type this table does not know (then only the offsets are checked)
    data_end: int = 0
    exact_sizes: bool = True


class _Cursor:
    def __init__(self, buf) -> None:
        self.buf, self.off, self.size = buf, 0, len(buf)

    def take(self, fmt: str, n: int):
        if self.off + n > self.size:
            raise HeaderError(f"ends at byte {self.size}, inside the header")
        (v,) = struct.unpack_from(fmt, self.buf, self.off)
        self.off += n
        return v

    def u32(self) -> int:
        return self.take("<I", 4)

    def u64(self) -> int:
        return self.take("<Q", 8)

    def skip(self, n: int) -> None:
        if n < 0 or self.off + n > self.size:
            raise HeaderError(f"ends at byte {self.size}, inside the header (a field claims {n} bytes)")
        self.off += n

    def string(self) -> str:
        n = self.u64()
        start = self.off
        self.skip(n)
        return bytes(self.buf[start:self.off]).decode("utf-8", errors="replace")

    def skip_value(self, vtype: int) -> None:
        if vtype in SCALAR_SIZES:
            self.skip(SCALAR_SIZES[vtype])
        elif vtype == STRING:
            self.skip(self.u64())
        elif vtype == ARRAY:
            self.skip_array()
        else:
            raise HeaderError(f"unknown value type {vtype} at byte {self.off}")

    def skip_array(self) -> None:
        itype, count = self.u32(), self.u64()
        if itype in SCALAR_SIZES:
            self.skip(count * SCALAR_SIZES[itype])
        elif itype == STRING:  # hop over each length prefix: the vocabulary is never decoded
            u64, buf, off = _U64.unpack_from, self.buf, self.off
            try:
                for _ in range(count):
                    off += 8 + u64(buf, off)[0]
            except struct.error:  # a length prefix past the end
                raise HeaderError(f"ends at byte {self.size}, inside a string array") from None
            if off > self.size:
                raise HeaderError(f"ends at byte {self.size}, inside a string array")
            self.off = off
        else:
            for _ in range(count):
                self.skip_value(itype)


def read_header(path: Path | str) -> Header:
    """Parse ``path``'s header (see the module docstring); :class:`HeaderError` says why not."""
    with open(path, "rb") as fh:
        head = fh.read(24)
        if len(head) < 24 or head[:4] != MAGIC:
            raise HeaderError("not a GGUF file (missing GGUF magic bytes)")
        with mmap.mmap(fh.fileno(), 0, access=mmap.ACCESS_READ) as buf:
            return _parse(buf)


def _parse(buf) -> Header:
    cur = _Cursor(buf)
    cur.skip(4)
    version = cur.u32()
    if version not in (2, 3):
        raise HeaderError(f"unsupported GGUF version {version}")
    n_tensors, n_kv = cur.u64(), cur.u64()
    if n_tensors > cur.size or n_kv > cur.size:  # every entry takes at least a byte
        raise HeaderError(f"impossible counts ({n_tensors} tensors, {n_kv} keys)")
    hdr = Header(version, n_tensors)
    for _ in range(n_kv):
        key = cur.string()
        vtype = cur.u32()
        hdr.keys.add(key)
        if vtype in SCALARS:
            hdr.values[key] = cur.take(SCALARS[vtype], SCALAR_SIZES[vtype])
        elif vtype == STRING:
            hdr.values[key] = cur.string()
        else:
            cur.skip_value(vtype)
    ends = []
    for _ in range(n_tensors):
        cur.skip(cur.u64())  # the tensor's name
        n_dims = cur.u32()
        if n_dims > 8:
            raise HeaderError(f"a tensor with {n_dims} dimensions at byte {cur.off}")
        elements = 1
        for _ in range(n_dims):
            elements *= cur.u64()
        ttype, offset = cur.u32(), cur.u64()
        block = GGML_BLOCKS.get(ttype)
        if block is None:
            hdr.exact_sizes = False
            ends.append(offset)
        else:
            ends.append(offset + elements * block[1] // block[0])
    align = hdr.values.get("general.alignment", DEFAULT_ALIGNMENT)
    if not isinstance(align, int) or align <= 0:
        align = DEFAULT_ALIGNMENT
    data_start = -(-cur.off // align) * align
    hdr.data_end = data_start + max(ends) if ends else 0
    return hdr
