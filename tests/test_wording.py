"""One wording of when a memory became true (assistant/memory/wording.py): the inspector, the
chat's "memories used" line, the forget dialog, the CLI and the "From your memory" line all say
"true since <day>" the same way (issue 27: it was spelled five ways)."""

from __future__ import annotations

from datetime import datetime, timezone

import pytest

from assistant.answering import memory_line
from assistant.cli.memory import _line
from assistant.memory.records import Kind
from assistant.memory.store.facade import MemoryStore
from assistant.memory.wording import TRUE_SINCE, day, true_since, true_since_phrase

UTC = timezone.utc


def test_the_forms_of_a_start():
    said = datetime(2026, 12, 3, 9, 30, tzinfo=UTC)
    stated = datetime(2026, 11, 23, tzinfo=UTC)  # midnight UTC: a date the person gave
    assert day(stated) == "2026-11-23" and day("2026-11-23T00:00:00+00:00") == "2026-11-23"
    assert day(said) == said.astimezone().strftime("%Y-%m-%d")  # a moment: its local day
    assert true_since(stated, "stated") == "2026-11-23"
    assert true_since(stated, "observed") == "at least 2026-11-23"  # only when it was said
    assert true_since(None, "observed", stated) == "unknown (said 2026-11-23)"
    assert true_since(None) == "not recorded" and true_since("not a date") == "not recorded"
    assert true_since_phrase(stated) == "true since 2026-11-23"
    assert true_since_phrase(stated, "observed") == "true since at least 2026-11-23"
    assert true_since_phrase(None) == ""
    assert TRUE_SINCE == "True since"


@pytest.fixture
def memory(tmp_path):
    store = MemoryStore(tmp_path / "m.db")
    mid = store.add("User lives in Ghent.", kind=Kind.FACT, valid_at=datetime(2026, 11, 23, tzinfo=UTC), start_kind="stated")
    yield store.get(mid)
    store.close()


def test_every_face_says_it_the_same_way(memory, request):
    pytest.importorskip("pytestqt")
    qtbot = request.getfixturevalue("qtbot")
    from ui.chat.forget_dialog import candidate_label
    from ui.chat.message import MemoryAnswerLine, _memory_line
    from ui.inspector.cells import COLUMNS, tooltip

    said = "true since 2026-11-23"
    valid_at = memory.valid_at.isoformat()
    assert said in _line(memory)  # keepsake memory list
    assert f"({said}, memory #{memory.id})" in memory_line({"text": memory.text, "memory_id": memory.id, "valid_at": valid_at})
    assert said in candidate_label({"text": memory.text, "kind": "fact", "valid_at": valid_at, "reason": "names Ghent"})
    assert said in _memory_line({"id": memory.id, "text": memory.text, "score": 0.9, "valid_at": valid_at})
    line = MemoryAnswerLine({"memory_id": memory.id, "text": memory.text, "valid_at": valid_at})  # under a reply
    qtbot.addWidget(line)
    assert said in line.text()
    assert dict(COLUMNS)["valid_from"] == TRUE_SINCE
    assert tooltip(memory, "valid_from") == "True since: 2026-11-23"


def test_a_cut_part_is_quoted_without_the_separator_it_began_with():
    from assistant.memory.wording import quoted

    # the cut of "My partner Joost is a carpenter, and we have a cat called Pepper." begins at the comma
    assert quoted(", and we have a cat called Pepper.") == "“and we have a cat called Pepper.”"
    assert quoted("; the rest") == "“the rest”"
    assert quoted("x" * 10, 5) == "“xxxx…”"  # 5 characters, the ellipsis counted


def test_an_answer_says_a_day_as_a_person_reads_it():
    from assistant.memory.wording import spoken_days

    # dev16: "When did Krill die?" had been answered "Krill died on 2026-04-06." (a person asks for April)
    assert spoken_days("Krill died on 2026-04-06.") == "Krill died on 6 April 2026."
    assert spoken_days("Faroe Islands, 19–2026-09-26") == "Faroe Islands, 19–26 September 2026"
    assert spoken_days("flat 2026-13-01, ref 12026-04-06x") == "flat 2026-13-01, ref 12026-04-06x"  # no day: as written
