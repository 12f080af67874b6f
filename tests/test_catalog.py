"""The model catalog: the shipped data file is well-formed and honest, recommendation follows the
machine's RAM and disk, ``keepsake models catalog --json`` lists it, and nothing here needs (or
opens) a socket."""

from __future__ import annotations

import json

import pytest

from assistant.cli import main
from assistant.engine.catalog import entries as catalog
from assistant.engine.catalog.entries import GB, Machine

SHIPPED = catalog.load(catalog.CATALOG_FILE)


def test_the_shipped_catalog_has_4_to_6_chat_models_and_a_multilingual_embedder_with_prompts():
    chat = [e for e in SHIPPED if e.role == "chat"]
    embed = [e for e in SHIPPED if e.role == "embedding"]
    assert 4 <= len(chat) <= 6
    assert all(e.file.lower().endswith("q4_k_m.gguf") for e in chat)
    # 0.5B .. ~8B: file sizes from ~0.4 GB to under 5 GB at Q4_K_M
    assert min(e.size_bytes for e in chat) < 0.6 * GB and max(e.size_bytes for e in chat) < 5.5 * GB
    assert any("multilingual" in " ".join(e.languages) and e.query_prefix for e in embed)
    for e in SHIPPED:
        assert e.license and e.repo.count("/") == 1 and e.file.endswith(".gguf")
        assert e.ram_gb > 0 and e.context_length >= 2048 and e.size_bytes > 0
        # a recorded SHA-256 always says where it comes from; an unconfirmed one is None, never a guess
        assert (e.sha256 is None) == (e.sha256_source is None)


def test_the_tier_ladder_grows_with_the_model():
    ladder = sorted((e for e in SHIPPED if e.tier is not None), key=lambda e: e.tier)
    assert [e.size_bytes for e in ladder] == sorted(e.size_bytes for e in ladder)
    assert [e.recommended_ram_gb for e in ladder] == sorted(e.recommended_ram_gb for e in ladder)


@pytest.mark.parametrize(
    ("total", "available", "disk", "expected"),
    [
        # 16 GB computer, 9 GB free, 50 GB disk: tier 3 (needs 3.5 GB, meant for 16 GB) fits, tier 4 wants 32 GB
        (16, 9, 50, "qwen2.5-3b-instruct"),
        # 8 GB computer: tier 3 wants a 16 GB one -> tier 2 (1.5B, meant for 8 GB)
        (8, 5, 50, "qwen2.5-1.5b-instruct"),
        # 32 GB but only 5 GB available: 7B needs 7 GB -> the 3B
        (32, 5, 50, "qwen2.5-3b-instruct"),
        (32, 20, 50, "qwen2.5-7b-instruct"),
        # 4 GB of disk: 7B needs 4.68 + 1 (margin) = 5.68 GB > 4; 3B needs 2.1 + 1 = 3.1 GB <= 4
        (32, 20, 4, "qwen2.5-3b-instruct"),
        # 1.2 GB of disk: even the 0.5B needs 0.4 + 1 = 1.4 GB -> nothing fits
        (16, 9, 1.2, None),
        (4, 2, 50, "qwen2.5-0.5b-instruct"),
    ],
)
def test_recommend_by_ram_and_disk(total, available, disk, expected):
    machine = Machine(total_ram=int(total * GB), available_ram=int(available * GB), free_disk=int(disk * GB))
    best = catalog.recommend(SHIPPED, machine)
    assert (best.id if best else None) == expected


def test_find_accepts_id_display_name_and_file_and_names_the_choices_when_wrong():
    assert catalog.find("Qwen2.5 3B Instruct", SHIPPED).id == "qwen2.5-3b-instruct"
    assert catalog.find("QWEN2.5-3B-INSTRUCT-Q4_K_M.GGUF", SHIPPED).id == "qwen2.5-3b-instruct"
    with pytest.raises(catalog.CatalogError, match="qwen2.5-0.5b-instruct"):
        catalog.find("gpt-5", SHIPPED)


def test_a_bad_catalog_file_is_one_clear_error(tmp_path):
    bad = tmp_path / "c.json"
    bad.write_text(json.dumps({"models": [{**SHIPPED[0].to_json(), "sha256": "abc"}]}))
    with pytest.raises(catalog.CatalogError, match="sha256"):
        catalog.load(bad)
    bad.write_text("{not json")
    with pytest.raises(catalog.CatalogError, match="cannot read"):
        catalog.load(bad)


def test_models_catalog_json_lists_size_ram_and_license(capsys):
    assert main(["models", "catalog", "--json"]) == 0
    report = json.loads(capsys.readouterr().out)
    assert [m["id"] for m in report["models"]] == [e.id for e in SHIPPED]
    for m in report["models"]:
        assert m["size_bytes"] > 0 and m["ram_gb"] > 0 and m["license"]
        assert m["downloaded"] is False and m["partial_bytes"] == 0
    assert report["endpoint"].startswith("http")
    assert sum(m["recommended"] for m in report["models"]) == (report["recommended"] is not None)


def test_models_use_needs_a_downloaded_model_and_default_goes_back(capsys):
    assert main(["models", "use", "qwen2.5-3b-instruct"]) == 2
    assert "not downloaded yet: keepsake models download qwen2.5-3b-instruct" in capsys.readouterr().err
    assert main(["models", "use", "default", "--json"]) == 0
    assert json.loads(capsys.readouterr().out) == {"chat_model": "default"}


def test_doctor_says_which_host_a_download_contacts_and_when(profile, monkeypatch):
    from assistant import doctor

    monkeypatch.setenv("HF_ENDPOINT", "https://hub.example.org/")
    check = doctor._network(profile)
    assert check.ok and "no connection unless you ask" in check.detail
    assert check.data["download_endpoint"] == "https://hub.example.org" and check.data["model_server"] is None


def test_the_first_run_offer_is_made_once_only_for_the_default_model_and_only_when_one_fits(profile):
    from dataclasses import replace

    from assistant.engine.catalog import offer

    p, s = profile.paths.ensure(), profile.settings
    sixteen = Machine(total_ram=16 * GB, available_ram=9 * GB, free_disk=50 * GB)
    assert offer.first_run_offer(p, s, sixteen, SHIPPED).id == "qwen2.5-3b-instruct"
    assert offer.first_run_offer(p, s, Machine(16 * GB, 9 * GB, 1 * GB), SHIPPED) is None  # no disk: no offer
    assert offer.first_run_offer(p, replace(s, chat_model="/models/mine.gguf"), sixteen, SHIPPED) is None
    (p.models / SHIPPED[0].file).write_bytes(b"GGUF")  # a catalog chat model is already here
    assert offer.first_run_offer(p, s, sixteen, SHIPPED) is None
    (p.models / SHIPPED[0].file).unlink()
    offer.mark_offered(p, "not now")
    assert offer.first_run_offer(p, s, sixteen, SHIPPED) is None  # asked once, never again
