"""`keepsake bench context` as a person runs it (a real subprocess, the REAL SmolLM2): the JSON
shape the issue asks for, and Keepsake's prefix reuse against the naive rebuild. No timing is
asserted (timings are for the benchmark to report, never for tests)."""

from __future__ import annotations

import json
import os
import subprocess
import sys


def test_bench_context_json_shape_and_prefix_reuse(keepsake_home):
    out = subprocess.run(
        [sys.executable, "-m", "assistant.cli", "bench", "context", "--turns", "4", "--window", "2048", "--json"],
        capture_output=True, text=True, timeout=600, env=os.environ.copy(),
    )  # fmt: skip
    assert out.returncode == 0, out.stderr
    result = json.loads(out.stdout)
    assert result["window"] == 2048 and len(result["turns"]) == 4
    for row in result["turns"]:
        for key in ("turn", "new_tokens", "keepsake_evaluated", "keepsake_ttft_ms", "naive_evaluated", "naive_ttft_ms"):
            assert key in row, key
        assert row["keepsake_ttft_ms"] > 0 and row["naive_ttft_ms"] > 0
    last = result["turns"][-1]
    # turn 4: Keepsake evaluates about the new turn only (the cached prefix is reused); the
    # naive assembler changed its system prompt, so it evaluates everything again
    assert last["keepsake_evaluated"] <= last["new_tokens"] * 1.2
    assert last["keepsake_evaluated"] < last["keepsake_prompt_tokens"] / 2
    # the naive prompt only shares its first ~50 tokens (system prompt up to the memory lines)
    assert last["naive_evaluated"] >= 0.8 * last["naive_prompt_tokens"]
    assert result["compactions_in_turn"] == 0
    assert isinstance(result["assemble_ms_200_turns"], float)
    assert result["targets"]["evaluated_over_new_at_last_turn"] <= 1.2
