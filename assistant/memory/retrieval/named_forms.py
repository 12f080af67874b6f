"""The question forms of a statement about a named person, from its clause structure (issue
28.1: "Kasper repairs bicycles." -> "What does Kasper do?"). Pure; no I/O."""

from __future__ import annotations

import re

# "Kasper repairs bicycles for a living." / "Ana lives in Porto.": a name, a present-tense verb, the rest
_THIRD = re.compile(r"^(?P<n>[A-Z][a-z][\w-]*)\s+(?:(?:also|just|still|now|currently|usually|often|always|mostly)\s+)?"
                    r"(?P<v>[a-z]+s)\b\s*(?P<rest>[^.!?]*)")
# verbs of being, having, liking, knowing: they say what someone is or feels, not what they do
_STATIVE = frozenset("""is was has does loves likes hates prefers wants needs knows owns seems means thinks believes feels looks
    sounds belongs enjoys adores misses remembers understands deserves lives stays resides comes""".split())  # fmt: skip
_ROLE = re.compile(r"^(?P<n>[A-Z][a-z][\w-]*)(?:\s+is|['’]s|\s+works as)\s+(?:an?|the)\s+[a-z]")  # "Joost is a carpenter.", "Shona's a midwife"
_NUMBER_WORD = r"(?:one|two|three|four|five|six|seven|eight|nine|ten|eleven|twelve|\w+teen|twenty|thirty|forty|fifty|sixty|seventy|eighty|ninety)(?:-\w+)?"
_AGE = re.compile(rf"^(?:\d+|{_NUMBER_WORD})(?:\s+(?:years?|months?)(?:\s+old)?)?\s*$", re.I)
_WHERE = re.compile(r"^(?:in|at|on|near|from|outside|abroad|overseas|for)\b", re.I)
#: Capitalised at a sentence's start, never a name: "Nothing beats a proper tortilla."
INDEFINITE = frozenset("nothing everything something anything nobody everybody somebody anybody noone everyone someone anyone "
                       "this that these those it there here".split())
_JUDGED = re.compile(r"\bthe\s+(?:best|worst|nicest|greatest|loveliest)\b|\bever\b", re.I)
_RELATION_NAME = re.compile(r"^User['’]s\s+(?:[a-z]+\s+){1,2}(?:is|was)\s+(?P<n>[A-Z][\w'’-]+)\.?$")


def _base(verb: str) -> str:
    """"repairs" -> "repair", "teaches" -> "teach", "studies" -> "study", "goes" -> "go"."""
    if verb.endswith("ies") and len(verb) > 4:
        return verb[:-3] + "y"
    if verb.endswith(("ches", "shes", "sses", "xes", "zes", "oes")):
        return verb[:-2]
    return verb[:-1]


def named_forms(text: str) -> list[str]:
    """Questions a statement about a named person answers (:func:`tagged_named_forms`, without
    their slots)."""
    return [f for f, _slot in tagged_named_forms(text)]


#: The slots a named person's form asks of them: "What does Joost do?" a job, "Where does Ana
#: live?" a home. A question asking another slot does not count it ("What does my brother do?" is
#: not answered by "Where does Finlay live?", 0.81 by MiniLM).
JOB, HOME = "job_title", "home_city"


def tagged_named_forms(text: str) -> list[tuple[str, str | None]]:
    """Questions a statement about a named person answers, built from its clause structure
    (name + present-tense verb + the rest), in the third person, each with the slot it asks
    (:data:`JOB`, :data:`HOME` or None): "Kasper repairs bicycles." -> "What does Kasper do?" (a
    verb of doing, not of being, living or liking), "What does Kasper repair?" (an object
    follows), "Where does Kasper live?" ("in/at ..." follows); "Joost is a carpenter." -> "What
    does Joost do?", "What is Joost's job?"; "Mila is 7." -> "How old is Mila?"; "User's brother
    is Kasper." -> "Who is Kasper?"."""
    rel = _RELATION_NAME.match(text.strip())
    if rel:
        return [(f"Who is {rel['n']}?", None)]
    role = _ROLE.match(text.strip())
    if role and role["n"] != "User":
        return [(f"What does {role['n']} do?", JOB), (f"What is {role['n']}'s job?", JOB)]
    m = _THIRD.match(text.strip())
    if m is None or m["n"] == "User" or m["n"].casefold() in INDEFINITE or m["v"].endswith("ss"):
        return []
    n, v, rest = m["n"], m["v"], m["rest"].strip()
    if v in ("is", "was"):  # "Mila is 7." -> "How old is Mila?"; "Ana is in Lyon." -> "Where is Ana?"
        return [(f"How old is {n}?", None)] if _AGE.match(rest) else \
            [(f"Where {v} {n}?", HOME if v == "is" else None)] if _WHERE.match(rest) else []
    base = {"has": "have", "does": "do"}.get(v) or _base(v)
    # a verb of doing, unless its object is judged ("Noor makes the best shakshuka I've ever had": a praise, no job)
    out: list[tuple[str, str | None]] = [] if v in _STATIVE or _JUDGED.search(rest) else [(f"What does {n} do?", JOB)]
    if rest and _WHERE.match(rest):
        out.append((f"Where does {n} {base}?", HOME if base == "live" else None))
    elif rest:
        out.append((f"What does {n} {base}?", JOB if base == "do" else None))
    return out
