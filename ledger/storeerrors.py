"""The store's own errors, translated from the database driver's at the store's edge.

Nothing above the store imports a database driver: the store (ledger/store.py and its parts,
the transparency log's tables, the shared rate-limit buckets) wraps every call that reaches
the database in ``translated``, which turns SQLAlchemy's errors and the drivers' own (the hot
paths talk to sqlite3 and psycopg directly) into these, ``raise … from`` the original:

- ``StoreUnavailable``: the database is not there now — it cannot be reached, was restarted,
  is read-only or its file is gone (the base case), is busy (``StoreBusy``: a lock held too
  long, a timeout) or its disk is full (``StoreFull``). A retry later may succeed.
- ``StoreError``: any other failure of the database (a statement it refused, a damaged
  schema): a bug or an operator's edit, not an outage.

The store's refusals that are about the request, not the database — ``ConflictError`` (a
position or a match id already taken), ``MatchIdUsed`` — are raised as they were and pass
``translated`` untouched.

An error's message never quotes the driver's, which may quote a statement: ``detail`` holds
the driver's first line for a person opening the database by hand (the CLI), and
``error_type`` / ``driver_error_type`` name the classes for a log.
"""

from __future__ import annotations

import functools
import sqlite3
import sys
from collections.abc import Callable
from typing import ParamSpec, TypeVar

from sqlalchemy import exc

__all__ = ["StoreBusy", "StoreError", "StoreFull", "StoreUnavailable", "store_error",
           "translated"]

_P = ParamSpec("_P")
_R = TypeVar("_R")


def _driver_classes() -> tuple[tuple[type[BaseException], ...], tuple[type[BaseException], ...]]:
    """(every error of the drivers, those that mean an outage): PostgreSQL's only once psycopg
    is imported. A driver that was never imported raised nothing, and importing psycopg here
    would cost every SQLite process (each command of the CLI) a fifth of a second."""
    errors: list[type[BaseException]] = [sqlite3.Error]
    outages: list[type[BaseException]] = [sqlite3.OperationalError]
    psycopg = sys.modules.get("psycopg")
    if psycopg is not None:
        errors.append(psycopg.Error)
        outages.append(psycopg.OperationalError)
    return tuple(errors), tuple(outages)


def database_errors() -> tuple[type[BaseException], ...]:
    """Whatever the database layer may raise: SQLAlchemy's errors and the drivers' own."""
    return (exc.SQLAlchemyError, *_driver_classes()[0])


def outages() -> tuple[type[BaseException], ...]:
    """Of those, the ones that mean "the database is not there now", not "this statement is
    wrong"."""
    return (exc.OperationalError, exc.InterfaceError, exc.TimeoutError, exc.DisconnectionError,
            *_driver_classes()[1])


class StoreError(Exception):
    """The database failed a call of the store. ``error_type`` and ``driver_error_type`` name
    the classes of the error translated and of the driver's error inside it (the same class
    when the driver raised it directly); ``detail`` is the translated error's class and first
    line, for a person (it may name a file or a host, never a statement's parameters)."""

    def __init__(self, message: str, cause: BaseException) -> None:
        super().__init__(message)
        self.message = message
        driver_error = getattr(cause, "orig", cause)
        self.error_type = type(cause).__name__
        self.driver_error_type = type(driver_error).__name__
        lines = str(cause).splitlines()
        self.detail = f"{self.error_type}: {lines[0] if lines else ''}"


class StoreUnavailable(StoreError):
    """The database cannot be reached now (stopped, restarted, read-only, its file gone): a
    retry later may succeed."""


class StoreBusy(StoreUnavailable):
    """The database is there but busy: a lock held too long, a timeout."""


class StoreFull(StoreUnavailable):
    """The database's disk is full."""


def store_error(error: BaseException) -> StoreError:
    """The store's error for a database error: an outage's kind is read off the driver's
    message (a full disk, a lock or a timeout, else unreachable), as the drivers give no
    finer class for them."""
    if not isinstance(error, outages()):
        return StoreError(f"the database failed ({type(error).__name__})", error)
    text = str(getattr(error, "orig", error)).lower()
    if "full" in text:
        return StoreFull("the database is unavailable (its disk is full)", error)
    if "locked" in text or "timeout" in text or "timed out" in text:
        return StoreBusy("the database is unavailable (it is busy)", error)
    return StoreUnavailable("the database is unavailable (it cannot be reached)", error)


def translated(function: Callable[_P, _R]) -> Callable[_P, _R]:
    """``function`` raising the store's errors instead of the database's (see the module's
    text); every other error passes as it is. The one place the store translates: each call
    that reaches the database from outside the store goes through a function wrapped in it."""

    @functools.wraps(function)
    def call(*args: _P.args, **kwargs: _P.kwargs) -> _R:
        try:
            return function(*args, **kwargs)
        except database_errors() as e:  # evaluated only when something was raised
            raise store_error(e) from e

    return call
