"""Number options, read one way for every command: integers within 64 bits (what the ledger's
database columns and the log's tree sizes hold) and the option's own range; numbers with a
fraction finite. A value outside is a usage error naming the option (exit 2), never a
traceback from the database or the clock."""

from __future__ import annotations

import math
from typing import Any

import click

from fairdeal.verifier.bundle import MAX_INT

__all__ = ["INT64_MAX", "INT64_MIN", "bounded_float", "bounded_int"]

INT64_MAX = MAX_INT
INT64_MIN = -MAX_INT - 1


def bounded_int(minimum: int = INT64_MIN, maximum: int = INT64_MAX) -> click.IntRange:
    """click's integer type from ``minimum`` to ``maximum``, both clipped to 64 bits."""
    return click.IntRange(max(minimum, INT64_MIN), min(maximum, INT64_MAX))


class _FiniteRange(click.FloatRange):
    """A FloatRange that refuses ``nan`` (every comparison with it is false, so a plain
    range lets it through)."""

    def convert(self, value: Any, param: click.Parameter | None,
                ctx: click.Context | None) -> Any:
        number = super().convert(value, param, ctx)
        if isinstance(number, float) and not math.isfinite(number):
            self.fail(f"{value!r} is not a finite number", param, ctx)
        return number


def bounded_float(minimum: float, maximum: float) -> click.FloatRange:
    """click's number type from ``minimum`` to ``maximum``, finite (no ``nan``)."""
    return _FiniteRange(minimum, maximum)
