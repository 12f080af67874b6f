"""A day said by its number alone after another day of the same sentence is the first such day
after it: "fly 20 dec to see mum, ..., back on the 28th" said on 9 November is 28 December (the
28th of the month it is said in, 28 November, is before the trip); "flying out 30 jan, back on the
3rd" is 3 February. Read on the grounded spans (:func:`~.dates.find_spans`). Pure.
"""

from __future__ import annotations

import contextlib
import re
from dataclasses import replace
from datetime import timedelta
from typing import Any

_BARE_DAY = re.compile(r"^(?:on\s+|by\s+|until\s+)?(?:the\s+)?\d{1,2}(?:st|nd|rd|th)$", re.I)


def after_day(before: Any, s: Any, text: str) -> Any:
    """``s`` (a :class:`~.dates.DateSpan`) moved after ``before`` when it is a bare day number of the
    same sentence not after it (module docstring), else ``s``."""
    if not (s.granularity == before.granularity == "day" and _BARE_DAY.match(s.original) and s.period_start <= before.period_start) \
            or re.search(r"[.!?]\s", text[before.end:s.start]) or before.original.endswith("."):  # "5 feb. then ...": a full stop
        return s
    day = int(re.search(r"\d+", s.original).group())
    month = before.period_start.replace(day=1) + timedelta(days=32 if day <= before.period_start.day else 0)
    with contextlib.suppress(ValueError):  # "the 31st" after a day in a month of 30: as it was
        d = month.replace(day=day)
        return replace(s, replacement=s.replacement.replace(s.period_start.isoformat(), d.isoformat()), period_start=d,
                       period_end=d + timedelta(days=1))  # fmt: skip
    return s
