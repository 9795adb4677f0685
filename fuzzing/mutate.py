"""Mutations of fairdeal inputs, as an attacker would make them: byte-wise (flips, cuts,
splices, repeats, odd bytes) and structural (a value at a path of the JSON replaced by a
hostile one: a huge integer, a lone surrogate, a list where a name belongs, deep nesting, a
long string, a float, a key added or removed). Structural mutants of a bundle are re-chained,
re-committed and re-signed with the fixtures' key half of the time, so the hostile value gets
past the chain and signature checks into the replay and the rules.

Everything draws from a ``random.Random`` handed in: a run is reproducible from its seed.
"""

from __future__ import annotations

import copy
import hashlib
import json
import random
from collections.abc import Callable
from typing import Any

from fairdeal.verifier import forge
from fairdeal.verifier.keys import SigningKey

__all__ = ["HOSTILE_VALUES", "mutate_bytes", "mutate_json", "reseal", "structural"]

#: the fixtures' server key (fixtures/build.py derives it the same way)
SERVER_KEY = SigningKey.from_seed(hashlib.sha256(b"fairdeal fixtures\x00server key").digest())

_HUGE = int("9" * 30)


def _hostile_values() -> list[Any]:
    nested: Any = 0
    for _ in range(40):
        nested = [nested]
    wide = list(range(2000))
    return [
        None, True, False, 0, -1, 1, 2**31, 2**53 + 1, 2**63 - 1, -(2**63) + 1, _HUGE,
        "", "x", "\ud800", "a\udfff", "\ufeff", "\u202e", "\x00", "é" * 3, "𝔣" * 2,
        "A" * 10_000, "0" * 64, "f" * 128, "ed25519:" + "0" * 64, "genesis", "move", "reveal",
        "play", "discard", "lich", "neutral", [], {}, [None], {"": None}, ["move"],
        {"kind": "play", "card": _HUGE}, {"kind": ["play"]}, nested, wide,
        {"a" * 100: [1] * 100}, [[[]]], {"seat": -1}, {"x": {"y": {"z": "\ud800"}}},
    ]


HOSTILE_VALUES: list[Any] = _hostile_values()

#: raw snippets a byte mutation splices in: numbers past every limit, bad escapes, floats
_SNIPPETS = [
    b"9" * 5000, b"-" + b"1" * 4400, b"1e999", b"1.5", b"NaN", b"-Infinity", b'"\\ud800"',
    b'"\\uDFFF"', b'"\\u0000"', b"\\", b'"', b"{", b"}", b"[", b"]", b",", b":", b"null",
    b"\xff", b"\xc3", b"\xed\xa0\x80", b"\xef\xbb\xbf", b"\x00", b"[" * 2000, b"]" * 2000,
    b'{"a":1,"a":2}', b"true", b'"' + b"x" * 70_000 + b'"', b"\n" * 100, b"\t",
]


def mutate_bytes(data: bytes, rng: random.Random) -> bytes:
    """One to four byte-level edits of ``data``."""
    out = bytearray(data)
    for _ in range(rng.randint(1, 4)):
        kind = rng.randrange(9)
        at = rng.randrange(len(out) + 1)
        if kind == 0 and out:  # flip a bit
            index = rng.randrange(len(out))
            out[index] ^= 1 << rng.randrange(8)
        elif kind == 1 and out:  # a random byte
            out[rng.randrange(len(out))] = rng.randrange(256)
        elif kind == 2:  # cut
            out = out[:at] + out[at + rng.randint(1, 64):]
        elif kind == 3:  # truncate
            out = out[:at]
        elif kind == 4:  # insert a hostile snippet
            out[at:at] = rng.choice(_SNIPPETS)
        elif kind == 5 and out:  # duplicate a chunk (repeated structures)
            start = rng.randrange(len(out))
            chunk = out[start:start + rng.randint(1, 512)]
            out[at:at] = chunk * rng.randint(1, 20)
        elif kind == 6:  # replace a digit run by a huge number
            digits = [i for i in range(max(0, at - 200), min(len(out), at + 200))
                      if 48 <= out[i] <= 57]
            if digits:
                i = rng.choice(digits)
                out[i:i + 1] = rng.choice([b"9" * 5000, b"9" * 20, b"0", b"-1", b"1.0"])
        elif kind == 7 and out:  # swap two chunks
            a, b = sorted(rng.randrange(len(out)) for _ in range(2))
            size = rng.randint(1, 32)
            out[a:a + size], out[b:b + size] = out[b:b + size], out[a:a + size]
        else:  # a quote or bracket somewhere
            out[at:at] = rng.choice([b'"', b"{", b"}", b"[", b"]", b",", b":"])
    return bytes(out)


def _paths(value: Any, prefix: tuple[Any, ...] = ()) -> list[tuple[Any, ...]]:
    found = [prefix]
    if isinstance(value, dict):
        for key, child in value.items():
            found.extend(_paths(child, (*prefix, key)))
    elif isinstance(value, list):
        for index, child in enumerate(value):
            found.extend(_paths(child, (*prefix, index)))
    return found


def _set(root: Any, path: tuple[Any, ...], value: Any) -> Any:
    if not path:
        return value
    parent = root
    try:
        for step in path[:-1]:
            parent = parent[step]
        parent[path[-1]] = value
    except (KeyError, IndexError, TypeError):  # an earlier edit changed what the path names
        pass
    return root


def mutate_json(value: Any, rng: random.Random, paths: list[tuple[Any, ...]] | None = None
                ) -> Any:
    """A deep copy of ``value`` with one to three structural edits."""
    out = copy.deepcopy(value)
    for _ in range(rng.randint(1, 3)):
        candidates = paths if paths is not None else _paths(out)
        path = rng.choice(candidates)
        try:
            target = out
            for step in path:
                target = target[step]
        except (KeyError, IndexError, TypeError):
            continue
        kind = rng.randrange(6)
        if kind <= 2:  # a hostile value
            out = _set(out, path, copy.deepcopy(rng.choice(HOSTILE_VALUES)))
        elif kind == 3 and isinstance(target, dict):  # add or drop a key
            if target and rng.random() < 0.5:
                target.pop(rng.choice(list(target)))
            else:
                target[rng.choice(["extra", "sig", "ts", "seat", "type", "\ud800"])] = \
                    copy.deepcopy(rng.choice(HOSTILE_VALUES))
        elif kind == 4 and isinstance(target, list) and target:  # repeat or drop items
            index = rng.randrange(len(target))
            if rng.random() < 0.5:
                target[index:index] = [copy.deepcopy(target[index])] * rng.randint(1, 50)
            else:
                del target[index]
        elif isinstance(target, int) and not isinstance(target, bool):  # nudge a number
            out = _set(out, path, target + rng.choice([-1, 1, -target - 1, 2**63, -(2**63)]))
        else:
            out = _set(out, path, copy.deepcopy(rng.choice(HOSTILE_VALUES)))
    return out


def reseal(bundle: Any) -> Any:
    """Re-commit, re-chain and re-sign an edited bundle (fairdeal.verifier.forge.reseal, with
    the fixtures' key) where its shape allows (else as is)."""
    try:
        return forge.reseal(bundle, SERVER_KEY, recommit=True)
    except Exception:  # noqa: BLE001  a mutant too broken to reseal is a fine input as it is
        return bundle


def encode(value: Any, rng: random.Random) -> bytes:
    """JSON bytes of a mutant, in one of the spellings a client might send."""
    style = rng.randrange(3)
    text = json.dumps(value, ensure_ascii=style == 0,
                      separators=(",", ":") if style else (", ", ": "))
    return text.encode("utf-8", "surrogatepass")


def structural(bundle: Any, rng: random.Random) -> bytes:
    """A structural mutant of a parsed bundle, resealed half of the time."""
    events = bundle.get("events") if isinstance(bundle, dict) else None
    paths = None
    if isinstance(events, list) and events and rng.random() < 0.8:
        # aim at one event's fields: that is where the meaning is
        index = rng.randrange(len(events))
        paths = [("events", index, *path) for path in _paths(events[index])]
    mutant = mutate_json(bundle, rng, paths)
    if rng.random() < 0.5:
        mutant = reseal(mutant)
    return encode(mutant, rng)


Mutator = Callable[[bytes, random.Random], bytes]
