"""Hypothesis fuzz of every `keepsake` argument that takes a number or a date (issue 19.6).

The arguments are found by walking the real parser (an argument with a ``type``, or a date
metavar ``D``/``T``), so a new one is fuzzed without touching this file. Every value -- huge and
negative integers, ``1e308``, ``nan``, ``inf``, random text, date-like strings at the ends of the
calendar -- must end in a clean result: exit code 0, 1 or 2 with at most a one-line error,
never a traceback. Store commands run for real on a small store; commands that load a chat
model or run a benchmark are fuzzed up to the end of argument parsing (their numbers are all
range-checked there).
"""

from __future__ import annotations

import argparse

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from assistant.cli import build_parser, main

DATE_METAVARS = ("D", "T")
# commands that load a chat model or run a benchmark: parsing only
PARSE_ONLY = ("chat", "bench")


def _numeric_and_date_args() -> list[tuple[tuple[str, ...], argparse.Action]]:
    out = []

    def walk(parser: argparse.ArgumentParser, prefix: tuple[str, ...]) -> None:
        for action in parser._actions:
            if isinstance(action, argparse._SubParsersAction):
                for name, sub in action.choices.items():
                    walk(sub, prefix + (name,))
            elif action.type is not None or action.metavar in DATE_METAVARS:
                out.append((prefix, action))

    walk(build_parser(), ())
    return out


ARGS = _numeric_and_date_args()

# the rest of each command line (positionals other than the fuzzed one); {id} = an existing memory
TEMPLATES = {
    ("memory", "add"): ["memory", "add", "I keep bees on the roof"],
    ("memory", "list"): ["memory", "list"],
    ("memory", "show"): ["memory", "show", "{id}"],
    ("memory", "edit"): ["memory", "edit", "{id}", "I keep three hives"],
    ("memory", "invalidate"): ["memory", "invalidate", "{id}"],
    ("memory", "delete"): ["memory", "delete", "--dry-run", "{id}"],
    ("memory", "history"): ["memory", "history", "{id}"],
    ("memory", "pin"): ["memory", "pin", "{id}"],
    ("memory", "unpin"): ["memory", "unpin", "{id}"],
    ("memory", "archive"): ["memory", "archive", "{id}"],
    ("memory", "restore"): ["memory", "restore", "{id}"],
    ("memory", "ttl"): ["memory", "ttl", "{id}"],
    ("memory", "search"): ["memory", "search", "bees"],
    ("memory", "forget"): ["memory", "forget", "bees", "--dry-run"],
    ("memory", "forget-versions"): ["memory", "forget-versions", "--dry-run", "{id}"],
    ("sessions", "list"): ["sessions", "list"],
    ("sessions", "search"): ["sessions", "search", "bees"],
    ("sessions", "show"): ["sessions", "show", "{sid}"],
    ("sessions", "rename"): ["sessions", "rename", "{sid}", "Bees"],
    ("sessions", "delete"): ["sessions", "delete", "--dry-run", "{sid}"],
    ("notices",): ["notices"],
    ("export",): ["export", "{out}"],
    ("note", "restore"): ["note", "restore"],
    ("consolidate", "runs"): ["consolidate", "runs"],
    ("jobs", "extract"): ["jobs", "extract"],  # nothing queued here: the chat model is not loaded
}

ISO_EDGES = ["0001-01-01", "0001-01-01T00:00:00+14:00", "9999-12-31", "9999-12-31T23:59:59-14:00", "1970-01-01T00:00:00Z",
             "2024-02-30", "2024-13-01", "10000-01-01", "-2024-01-01", "yesterday", "in 3 days", "May 1 2024", "31/12/1999",
             "1e308", "99999999999999999999999", "@@@", "", " ", "\x00", "２０２４-０５-０１"]  # fmt: skip
NUMBER_EDGES = ["0", "-1", "1", "9223372036854775807", "9223372036854775808", "99999999999999999999999", "-99999999999999999999",
                "1e308", "-1e308", "nan", "inf", "-inf", "0.5", "1_000", "0x10", " 7 ", "", "1e-320"]  # fmt: skip
values = st.one_of(
    st.sampled_from(NUMBER_EDGES + ISO_EDGES),
    st.integers(min_value=-(10**30), max_value=10**30).map(str),
    st.floats(allow_nan=True, allow_infinity=True).map(repr),
    st.text(max_size=24),
    st.builds(lambda y, m, d, h: f"{y:04d}-{m:02d}-{d:02d}T{h:02d}:00:00", st.integers(0, 12000), st.integers(0, 13),
              st.integers(0, 32), st.integers(0, 25)),  # fmt: skip
)


def _argv(prefix: tuple[str, ...], action: argparse.Action, value: str, ctx: dict[str, str]) -> list[str]:
    base = [part.format(**ctx) for part in TEMPLATES.get(prefix, list(prefix))]
    if action.option_strings:
        return base + [f"{action.option_strings[-1]}={value}"]
    # a positional: replace the template's placeholder at that position, or append
    positional = [a for a in _parser_for(prefix)._actions if not a.option_strings and a.dest != "help"]
    index = [a.dest for a in positional].index(action.dest)
    plain = [p for p in base[len(prefix):] if not p.startswith("--")]
    flags = [p for p in base[len(prefix):] if p.startswith("--")] + (["--clear"] if prefix == ("memory", "ttl") else [])
    plain = plain + [""] * (len(positional) - len(plain))
    plain[index] = value
    return list(prefix) + flags + ["--"] + plain  # "--": a value like "-1" is a positional, not a flag


def _parser_for(prefix: tuple[str, ...]) -> argparse.ArgumentParser:
    parser = build_parser()
    for name in prefix:
        sub = next(a for a in parser._actions if isinstance(a, argparse._SubParsersAction))
        parser = sub.choices[name]
    return parser


def _seed(home) -> dict[str, str]:
    """One session and one memory in this test's home (the store commands need ids)."""
    from assistant.memory.records import Source
    from assistant.profile import Profile
    from assistant.services import Services

    with Services(Profile.load(home)) as services:
        store = services.open_store(with_embedder=False)
    try:
        s = store.create_session("Bees")
        msg = store.add_message(s.id, "user", "I keep bees on the roof")
        mid = store.add("User keeps bees on the roof", source=Source(s.id, msg.id, observed_at=msg.observed_at))
        return {"id": str(mid), "sid": str(s.id), "out": str(home / "export.json")}
    finally:
        store.close()


def test_every_numeric_and_date_argument_is_fuzzed():
    found = {(prefix, a.dest) for prefix, a in ARGS}
    assert len(found) >= 30  # the walk sees the real parser
    store_cmds = {prefix for prefix, _ in ARGS if prefix[0] not in PARSE_ONLY}
    assert store_cmds <= set(TEMPLATES), store_cmds - set(TEMPLATES)


@pytest.mark.parametrize("prefix,action", ARGS, ids=[" ".join(p) + " " + (a.option_strings or [a.dest])[-1] for p, a in ARGS])
def test_fuzz_argument(prefix, action, keepsake_home, converted_embedder_path, capsys):
    ctx = _seed(keepsake_home)
    parse_only = prefix[0] in PARSE_ONLY

    @settings(max_examples=10, deadline=None, suppress_health_check=list(HealthCheck), derandomize=True)
    @given(values)
    def run(value: str) -> None:
        argv = _argv(prefix, action, value, ctx)
        if parse_only:
            try:
                build_parser().parse_args(argv)
            except SystemExit as exc:
                assert exc.code == 2, (argv, exc.code)
            _clean(capsys.readouterr().err, argv)
            return
        try:
            code = main(argv)
        except SystemExit as exc:  # argparse: a usage error
            code = exc.code
        out = capsys.readouterr()
        assert code in (0, 1, 2), (argv, code, out.err)
        _clean(out.err, argv)
        if code == 2 and "error:" in out.err:
            assert len([ln for ln in out.err.splitlines() if "error:" in ln]) == 1, (argv, out.err)

    run()


def _clean(err: str, argv: list[str]) -> None:
    assert "Traceback" not in err and "Error:" not in err.replace("error:", ""), (argv, err)
