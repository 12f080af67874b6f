"""The generated scenarios of ``keepsake bench truth``: a state, then a change said in plain
words, in every combination of topic x order x date cue (8 x 3 x 6 = 144; the default run takes
an even spread of ``--size`` of them). Written before any rule was tuned on them; pure data.

Each scenario is two messages said by the person on the bench's calendar (``NOW`` is Thursday
2026-12-03 12:00 UTC): ``old`` (the earlier state, said at ``t_old``) and ``change`` (said at
``t_change``, its date cue grounding when the change happened, ``changed_at``). Orders:

- ``same hour``: said 09:00 and 09:30 on 2026-12-03;
- ``days apart``: said 2026-10-01 09:00 and 2026-12-03 09:00;
- ``imported out of order``: the same two times, but the change is captured (imported) first.

What must hold (the issue's rules): now, the change's memories are current and the old
message's are not; on a day before the change the old state is true and the change is not; just
after the change was said, the change is true and the old state is not.
"""

from __future__ import annotations

import random
from dataclasses import dataclass
from datetime import date, datetime, timedelta, timezone

UTC = timezone.utc
NOW = datetime(2026, 12, 3, 12, 0, tzinfo=UTC)

# topic -> (old statement, change statement with {cue}, value pairs (old, new))
TOPICS: dict[str, tuple[str, str, tuple[tuple[str, str], ...]]] = {
    "home": ("I live in {a}.", "I moved to {b}{cue}.", (("Ghent", "Antwerp"), ("Lagos", "Accra"), ("Porto", "Lisbon"))),
    "job": ("I work as a {a}.", "I changed jobs{cue} and now work as a {b}.", (("nurse", "teacher"), ("baker", "pilot"), ("plumber", "chef"))),
    "employer": ("I work at {a}.", "I joined {b}{cue}.", (("Tesco", "Lidl"), ("Siemens", "Bosch"), ("Oxfam", "Unicef"))),
    "partner": ("My girlfriend is {a}.", "My girlfriend is {b} now, we got together{cue}.", (("Anna", "Clara"), ("Maya", "Sofia"), ("Lena", "Ines"))),
    "pet": ("I have a dog named {a}.", "I gave away my dog {a}{cue} and adopted a cat named {b}.", (("Rex", "Miso"), ("Bruno", "Luna"), ("Max", "Pixel"))),
    "diet": ("I am {a}.", "I am {b} now, I switched{cue}.", (("vegetarian", "vegan"), ("vegan", "pescatarian"), ("pescatarian", "vegetarian"))),
    "habit": ("I {a} every morning.", "I {b} every morning now instead of {a_ing}{cue}.", (("swim", "run"), ("cycle", "walk"), ("run", "swim"))),
    "preference": ("I drink {a} at breakfast.", "I drink {b} at breakfast now instead of {a}{cue}.", (("coffee", "tea"), ("tea", "cocoa"), ("juice", "coffee"))),
}  # fmt: skip
_ING = {"swim": "swimming", "cycle": "cycling", "run": "running", "walk": "walking"}
CUES = {"none": "", "yesterday": " yesterday", "last week": " last week", "two weeks ago": " two weeks ago",
        "in March": " in March", "in 2019": " in 2019"}  # fmt: skip
ORDERS = ("same hour", "days apart", "imported out of order")


@dataclass(frozen=True)
class Scenario:
    id: str
    topic: str
    order: str
    cue: str
    old: str
    change: str
    t_old: datetime
    t_change: datetime
    changed_at: datetime  # when the change happened (its cue's date, else when it was said)
    old_word: str  # a word only the old message's memories say
    new_word: str
    # the held-out set names what must be true by words (None: the generated scenarios' checks)
    now_true: tuple[str, ...] | None = None
    no_longer_true: tuple[str, ...] = ()
    has_date: bool = True

    @property
    def change_first(self) -> bool:
        return self.order == "imported out of order"

    def before(self) -> datetime:
        """A moment when the old state held and the change had not happened: between the old
        statement and the change, or (a change dated before the old statement was said, whose
        start is only observed) a day before the change."""
        if self.changed_at > self.t_old:
            return self.t_old + (self.changed_at - self.t_old) / 2
        return self.changed_at - timedelta(days=1)

    def after(self) -> datetime:
        return self.t_change + timedelta(minutes=1)


def _cue_date(cue: str, said: datetime) -> datetime:
    day = said.date()
    if cue == "yesterday":
        d = day - timedelta(days=1)
    elif cue == "last week":
        d = day - timedelta(days=day.weekday() + 7)
    elif cue == "two weeks ago":
        d = day - timedelta(days=day.weekday() + 14)
    elif cue == "in March":
        d = date(day.year if day.month > 3 else day.year - 1, 3, 1)
    elif cue == "in 2019":
        d = date(2019, 1, 1)
    else:
        return said
    return datetime(d.year, d.month, d.day, tzinfo=UTC)


def generate() -> list[Scenario]:
    out = []
    for topic, (old_t, change_t, pairs) in TOPICS.items():
        for oi, order in enumerate(ORDERS):
            for ci, (cue, text) in enumerate(CUES.items()):
                a, b = pairs[(oi + ci) % len(pairs)]
                if order == "same hour":
                    t_old, t_change = NOW.replace(hour=9), NOW.replace(hour=9, minute=30)
                else:
                    t_old, t_change = datetime(2026, 10, 1, 9, tzinfo=UTC), NOW.replace(hour=9)
                fill = {"a": a, "b": b, "a_ing": _ING.get(a, a), "cue": text}
                out.append(Scenario(
                    f"{topic}/{order}/{cue}", topic, order, cue, old_t.format(**fill), change_t.format(**fill),
                    t_old, t_change, _cue_date(cue, t_change), a, b,
                ))  # fmt: skip
    return out


def spread(items: list, size: int) -> list:
    """``size`` of ``items`` drawn with a fixed seed, in their order (all of them when size >= len)."""
    if size >= len(items):
        return list(items)
    keep = set(random.Random(23).sample(range(len(items)), size))
    return [x for i, x in enumerate(items) if i in keep]
