r"""Re-seal an edited bundle: what a dishonest server holding its signing key can do to any
history it rewrites, and so what every tamper test, fixture and fuzz mutant needs.

A bundle that was edited (an event changed, dropped, inserted) fails at the chain or at the
signature; re-sealed, every link and the server's signature hold again, so only the edit itself
is left for the verifier to find, which is the cheat the test means to play. The one helper here
is used by fixtures/build.py, fixtures/hostile/make.py, fuzzing/mutate.py and the tests, so each
forges the same way. Nothing in the verifier calls it: it builds inputs, it checks nothing.

>>> import hashlib, json
>>> from pathlib import Path
>>> from fairdeal.verifier import verify_bytes
>>> from fairdeal.verifier.keys import SigningKey
>>> key = SigningKey.from_seed(hashlib.sha256(b"fairdeal fixtures\x00server key").digest())
>>> honest = sorted(Path("fixtures/bundles/honest").glob("*.json"))[0]  # any game's
>>> bundle = json.loads(honest.read_bytes())
>>> del bundle["events"][8]          # a play dropped: the chain breaks there
>>> verify_bytes(json.dumps(bundle)).failure.check
'chain'
>>> verify_bytes(json.dumps(reseal(bundle, key))).failure.check  # the fixtures' server key
'moves'
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from .protocol import ZERO_HASH, commitment, event_hash, head_message

if TYPE_CHECKING:
    from .keys import SigningKey

__all__ = ["reseal"]


def reseal(bundle: dict[str, Any], key: SigningKey, *, recommit: bool = False
           ) -> dict[str, Any]:
    """Re-chain and re-sign an edited bundle, in place, and return it.

    Every event is renumbered (``seq`` 0, 1, 2, …) and linked to the hash of the one before
    (``prev``), and the head is signed with ``key`` (``bundle["signature"]``). With
    ``recommit`` the genesis's ``commitment`` is first recomputed from the revealed server seed
    and the genesis as edited (for an edit to a field the commitment covers: seats, params).
    Raises whatever a bundle too broken to hash raises (KeyError, TypeError, ValueError)."""
    events = bundle["events"]
    if recommit:
        events[0]["commitment"] = commitment(bytes.fromhex(events[-1]["server_seed"]),
                                             events[0])
    prev = ZERO_HASH
    for seq, event in enumerate(events):
        event["seq"] = seq
        event["prev"] = prev
        prev = event_hash(event)
    message = head_message(events[0]["match_id"], len(events) - 1, prev)
    bundle["signature"] = {"key": key.public_text, "sig": key.sign(message).hex()}
    return bundle
