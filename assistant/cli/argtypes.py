"""Argument types for numbers: every numeric CLI argument is range-checked while parsing, so a
value out of range (``1e308`` days, a 23-digit id, ``nan``) is a one-line usage error (exit
code 2), never an overflow deep inside.

``record_id`` fits SQLite's 64-bit integer; ``whole(lo, hi)`` / ``decimal(lo, hi)`` accept
``lo <= value <= hi`` (finite); ``days`` is a positive retention of at most 100 years.
"""

from __future__ import annotations

import argparse
import math
from typing import Callable

MAX_ID = 2**63 - 1  # SQLite INTEGER
MAX_DAYS = 36_525.0  # 100 years: a retention period, not a date


def _int(text: str) -> int:
    try:
        return int(str(text).strip(), 10)
    except ValueError:
        raise argparse.ArgumentTypeError(f"{text!r} is not a whole number") from None


def whole(lo: int, hi: int, what: str = "value") -> Callable[[str], int]:
    """A whole number in ``[lo, hi]``."""

    def parse(text: str) -> int:
        if len(str(text).strip()) > 40:
            raise argparse.ArgumentTypeError(f"{what} must be a whole number from {lo} to {hi}")
        n = _int(text)
        if not lo <= n <= hi:
            raise argparse.ArgumentTypeError(f"{what} must be a whole number from {lo} to {hi}, not {n}")
        return n

    parse.__name__ = "whole"
    return parse


def decimal(lo: float, hi: float, what: str = "value") -> Callable[[str], float]:
    """A finite number in ``[lo, hi]``."""

    def parse(text: str) -> float:
        try:
            x = float(str(text).strip())
        except ValueError:
            raise argparse.ArgumentTypeError(f"{text!r} is not a number") from None
        if not math.isfinite(x) or not lo <= x <= hi:
            raise argparse.ArgumentTypeError(f"{what} must be a number from {lo:g} to {hi:g}, not {text.strip()}")
        return x

    parse.__name__ = "decimal"
    return parse


def whole_list(lo: int, hi: int, what: str = "value") -> Callable[[str], list[int]]:
    """Comma-separated whole numbers, each in ``[lo, hi]`` (at least one)."""
    one = whole(lo, hi, what)

    def parse(text: str) -> list[int]:
        items = [one(part) for part in str(text).split(",") if part.strip()]
        if not items:
            raise argparse.ArgumentTypeError(f"{what} needs at least one whole number")
        return items

    parse.__name__ = "whole_list"
    return parse


record_id = whole(1, MAX_ID, "an id")
version = whole(1, MAX_ID, "a version")
limit = whole(1, MAX_ID, "a limit")
offset = whole(0, MAX_ID, "an offset")
seed = whole(0, 2**32 - 1, "a seed")
threads = whole(1, 256, "a thread count")
tokens = whole(1, 131_072, "a token count")


def days(text: str) -> float:
    """A positive number of days, at most 100 years."""
    x = decimal(0.0, MAX_DAYS, "days")(text)
    if x <= 0:
        raise argparse.ArgumentTypeError(f"days must be more than 0 (at most {MAX_DAYS:g}), not {text.strip()}")
    return x
