"""The ledger's typed answers read as their JSON form too.

``create_match`` answers a ``CreatedMatch`` and the seat actions a ``SeatAnswer``: frozen
dataclasses whose fields callers read (``created.seats[0].token``). Each also reads as the JSON
the API returns for it (``created["seats"][0]["token"]``), so callers written against that
JSON — tests, benchmarks, scripts — read it unchanged. ``JsonAnswer`` is that one behaviour.
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping
from typing import Any

__all__ = ["JsonAnswer"]


class JsonAnswer(Mapping[str, Any]):
    """A read-only mapping over ``to_json()``, which a subclass defines."""

    __slots__ = ()

    def to_json(self) -> dict[str, Any]:
        raise NotImplementedError

    def __getitem__(self, key: str) -> Any:
        return self.to_json()[key]

    def __iter__(self) -> Iterator[str]:
        return iter(self.to_json())

    def __len__(self) -> int:
        return len(self.to_json())
