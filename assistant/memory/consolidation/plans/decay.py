"""Decay rank used by consolidation: old, unused, low-confidence memories sink and get archived.

Pure: ``now`` is passed in, nothing is read or written. Formula (MemoryBank-style forgetting
curve whose half-life grows with use)::

    idle_days  = days since last use (since creation when never used), never negative
    half_life  = policy.half_life_days * (1 + ln(1 + use_count))
    rank       = confidence * 0.5 ** (idle_days / half_life)

    archive    = not pinned and age_days >= policy.grace_days and rank < policy.floor

Examples with the defaults (half-life 90 days, floor 0.05, grace 30 days):
confidence 0.8, never used, 180 days old -> 0.8 * 0.5**2 = 0.2 (kept);
confidence 0.8, never used, 450 days old -> 0.8 * 0.5**5 = 0.025 (archived);
the same memory used 3 times, last 450 days ago -> half-life 90*(1+ln 4) = 214.8 days,
rank 0.8 * 0.5**(450/214.8) = 0.187 (kept).

Archived memories stay visible and restorable; decay never deletes. Pinned memories are exempt.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from datetime import datetime


@dataclass(frozen=True)
class DecayPolicy:
    half_life_days: float = 90.0
    floor: float = 0.05
    grace_days: float = 30.0


DEFAULT_POLICY = DecayPolicy()


@dataclass(frozen=True)
class DecayRank:
    """The rank, whether to archive, and the numbers behind it (for the audit log / --dry-run)."""

    rank: float
    archive: bool
    reason: str
    idle_days: float
    age_days: float
    half_life_days: float


def _days(later: datetime, earlier: datetime) -> float:
    if later.tzinfo is None or earlier.tzinfo is None:
        raise ValueError("decay needs timezone-aware datetimes")
    return max(0.0, (later - earlier).total_seconds() / 86400.0)


def half_life(use_count: int, policy: DecayPolicy = DEFAULT_POLICY) -> float:
    """``policy.half_life_days * (1 + ln(1 + use_count))``: 0 uses -> 90 d, 3 uses -> 214.8 d."""
    return policy.half_life_days * (1.0 + math.log1p(max(0, use_count)))


def decay_rank(
    *,
    confidence: float,
    created_at: datetime,
    last_used_at: datetime | None,
    use_count: int,
    now: datetime,
    pinned: bool = False,
    policy: DecayPolicy = DEFAULT_POLICY,
) -> DecayRank:
    """Rank a memory for decay; see the module docstring for the formula and thresholds."""
    age = _days(now, created_at)
    idle = _days(now, last_used_at) if last_used_at is not None else age
    hl = half_life(use_count, policy)
    rank = max(0.0, min(1.0, confidence)) * 0.5 ** (idle / hl)
    if pinned:
        archive, reason = False, "pinned: exempt from decay"
    elif age < policy.grace_days:
        archive, reason = False, f"younger than the {policy.grace_days:g}-day grace period"
    elif rank < policy.floor:
        archive, reason = True, f"rank {rank:.3f} below floor {policy.floor:g}"
    else:
        archive, reason = False, f"rank {rank:.3f} at or above floor {policy.floor:g}"
    return DecayRank(rank, archive, reason, idle, age, hl)
