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


def test_bench_retrieval_quality_json_on_a_tiny_conversation(capsys, converted_embedder_path, tmp_path):
    """The long-conversation bench on two sessions: import, consolidate, three searches side by
    side. Real MiniLM; the figures are what these few messages give, checked for what must hold."""
    day = [{"id": "s1", "title": "t", "messages": [
        {"id": "a", "role": "user", "content": "My dog Pepper is a four-year-old beagle.", "timestamp": "2025-01-14T08:15:00"},
        {"id": "b", "role": "assistant", "content": "Lovely!", "timestamp": "2025-01-14T08:16:00"},
        {"id": "c", "role": "user", "content": "Give me five tips for sleeping better", "timestamp": "2025-01-14T08:17:00"}]},
        {"id": "s2", "title": "u", "messages": [
        {"id": "d", "role": "user", "content": "I sold my bike, I take the train to work now", "timestamp": "2025-06-10T08:00:00"}]}]  # fmt: skip
    data = {"sessions": day, "never_said": ["What is my blood type?"],
            "questions": [{"q": "What breed is my dog?", "sources": ["a"], "type": "single-hop"},
                          {"q": "How do I get to work?", "sources": ["d"], "type": "knowledge-update"}]}  # fmt: skip
    path = tmp_path / "set.json"
    path.write_text(json.dumps(data))
    assert main(["bench", "retrieval", "--quality", "--set", str(path), "--json"]) == 0
    out = json.loads(capsys.readouterr().out)
    assert {"hybrid_recall_at_5", "dense_recall_at_5", "bm25_recall_at_5", "questions"} <= set(out)
    assert out["questions"] == 2 and out["user_messages"] == 3 and out["messages"] == 4
    # 3 user messages and k=5: plain cosine always returns both sources
    assert out["dense_recall_at_5"] == 1.0 and out["hybrid_recall_at_5"] == 1.0
    assert out["never_said_empty"] == 1.0 and out["hybrid_misses"] == []
    assert set(out["by_type"]) == {"single-hop", "knowledge-update"}


def test_bench_retrieval_quality_rejects_a_set_with_unknown_sources(tmp_path):
    import pytest

    from assistant.bench.retrieval_quality import load_set

    path = tmp_path / "bad.json"
    path.write_text(json.dumps({"sessions": [{"id": "s", "messages": []}], "questions": [{"q": "x?", "sources": ["nope"]}]}))
    with pytest.raises(ValueError, match="unknown source"):
        load_set(path)
