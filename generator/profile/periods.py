"""Partition periods: which period keeps a history partition under the row budget, and
the arithmetic behind it (rows a day, partitions kept). Pure, on the profile's numbers,
so the profile's validation, the model and PLAN.md agree."""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Literal

PeriodName = Literal["month", "week", "day", "hour", "minute"]
DAY = 86400
TARGET_ROWS_PER_PARTITION = 50_000_000  # keeps a partition's indexes cache-friendly
# More partitions than this and every query that is not pruned at plan time (and every
# lock of the parent) pays per partition: beyond it the profile is refused.
MAX_PARTITIONS = 1000


@dataclass(frozen=True)
class Period:
    name: PeriodName  # a date_trunc() field, so SQL aligns partitions with it
    seconds: int  # nominal length (a month: 30 days)
    adverb: str
    suffix: str  # to_char() format of a partition's lower bound in its name
    maintenance_cron: str  # partition maintenance runs many times per period
    maintenance_words: str

    def rows(self, rows_per_day: int) -> int:
        return math.ceil(rows_per_day * self.seconds / DAY)


PERIODS = (
    Period("month", 30 * DAY, "monthly", "YYYYMMDD", "0 3 * * *", "daily at 03:00"),
    Period("week", 7 * DAY, "weekly", "YYYYMMDD", "0 */6 * * *", "every 6 hours"),
    Period("day", DAY, "daily", "YYYYMMDD", "0 * * * *", "hourly"),
    Period("hour", 3600, "hourly", "YYYYMMDDHH24", "*/10 * * * *", "every 10 minutes"),
    Period("minute", 60, "minutely", "YYYYMMDDHH24MI", "* * * * *", "every minute"),
)
BY_NAME = {p.name: p for p in PERIODS}


def period(name: str) -> Period:
    return BY_NAME[name]  # type: ignore[index]


def choose(rows_per_day: int, retention_seconds: int) -> Period | None:
    """The coarsest period whose partitions stay under the row budget and that keeps at
    least two partitions inside the retention window (so dropping one is cheap, and a run
    keeps its history at least one period less than the window). None: no period does."""
    for candidate in PERIODS:
        if (
            candidate.rows(rows_per_day) <= TARGET_ROWS_PER_PARTITION
            and 2 * candidate.seconds <= retention_seconds
        ):
            return candidate
    return None


def partitions_kept(chosen: Period, retention_seconds: int, runway: int) -> int:
    """About how many partitions exist at steady state: the retained ones, the current
    one and the runway ahead."""
    return math.ceil(retention_seconds / chosen.seconds) + 1 + runway


def event_rows_per_day(steps_per_second: int, events_per_step: int) -> int:
    return steps_per_second * events_per_step * DAY


def checkpoint_rows_per_day(steps_per_second: int) -> int:
    return steps_per_second * DAY  # at most one checkpoint per step
