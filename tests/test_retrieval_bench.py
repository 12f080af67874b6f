"""`keepsake bench retrieval --json` runs end to end (tiny sizes; figures are never asserted)."""

from __future__ import annotations

import json

from assistant.cli import main


def test_bench_retrieval_json_shape(capsys, converted_embedder_path):
    code = main(["bench", "retrieval", "--sizes", "300,700", "--pool", "40", "--queries", "10", "--json"])
    assert code == 0
    out = json.loads(capsys.readouterr().out)
    assert [s["n"] for s in out["sizes"]] == [300, 700]
    for s in out["sizes"]:
        assert {"n", "p50_ms", "p95_ms", "embed_query_ms", "numpy_p50_ms", "ratio_p50", "peak_rss_mb"} <= set(s)
        assert s["p50_ms"] > 0 and s["numpy_p50_ms"] > 0 and s["peak_rss_mb"] > 0
        assert s["real_vectors"] == 40 and s["mean_hits"] >= 0
    assert "perturb" in out["method"] and "40" in out["method"]
