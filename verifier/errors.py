"""The verifier's one error family: every error the verifier raises is a ``FairdealError``.

A caller that wants "anything the verifier refused" catches ``FairdealError``; one that wants a
particular refusal catches its subclass (``InvalidBundle``, ``InvalidKey``, ``ProofError``, …).
The base stays a ``ValueError`` (as every one of them was before there was a base), so code that
catches ``ValueError`` keeps working. The messages are the subclasses' own: the base adds no
words, so a report or a CLI line reads exactly as it did.

>>> from fairdeal.verifier import FairdealError, InvalidBundle
>>> issubclass(InvalidBundle, FairdealError) and issubclass(FairdealError, ValueError)
True
"""

from __future__ import annotations

__all__ = ["FairdealError"]


class FairdealError(ValueError):
    """The common base of every error the verifier raises (as sigstore's ``Error``): bad
    bytes, a bad key, a proof that does not hold, a check that failed."""
