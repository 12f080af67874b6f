"""One display name per model file, used by ``keepsake models``, ``doctor``, ``keepsake chat``
and the app (no I/O here: names come from the file name alone).

The defaults are called by their model names; any other GGUF by its file name without the
``.gguf`` extension and the quantisation suffix ("qwen2.5-1.5b-instruct-q4_k_m.gguf" ->
"qwen2.5-1.5b-instruct"). The ``general.name`` metadata is not used: it is often a training-run
label ("Smollm2 135M 8k Lc100K Mix1 Ep2" for the default).
"""

from __future__ import annotations

import re
from pathlib import Path

DEFAULT_CHAT_FILE = "SmolLM2-135M-Instruct.Q4_1.gguf"
DEFAULT_EMBEDDER_FILE = "all-minilm-l6-v2-f16.gguf"
DEFAULT_CHAT_NAME = "SmolLM2-135M-Instruct"
DEFAULT_EMBEDDER_NAME = "all-MiniLM-L6-v2"

_KNOWN = {DEFAULT_CHAT_FILE.lower(): DEFAULT_CHAT_NAME, DEFAULT_EMBEDDER_FILE.lower(): DEFAULT_EMBEDDER_NAME}
_QUANT = re.compile(r"[._-](i?q\d\w*|f16|f32|bf16)$", re.IGNORECASE)


def display_name(path_or_name: str | Path) -> str:
    """The name a person sees for a model file (or a setting value such as a path)."""
    filename = Path(str(path_or_name)).name
    if filename.lower() in _KNOWN:
        return _KNOWN[filename.lower()]
    stem = filename[:-5] if filename.lower().endswith(".gguf") else filename
    return _QUANT.sub("", stem) or stem
