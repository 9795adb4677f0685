"""Verify a sealed match bundle: numbered steps that mirror docs/SPEC.md, section "Verify".

>>> report = verify_bytes(open("fixtures/bundles/honest/….json", "rb").read())  # doctest: +SKIP
>>> report.ok
True
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from .bundle import Bundle, InvalidBundle
from .checkpoint import WitnessPolicy
from .errors import FairdealError
from .keys import InvalidKey, key_id, parse_public_key, verify_signature
from .logcheck import check_log
from .protocol import ZERO_HASH, commitment, event_hash, head_message, seat_index
from .receipts import Receipt, check_receipts
from .replay import MatchReplayer
from .report import Report, VerificationError, counted

__all__ = ["UnknownSeat", "chain_hashes", "verify_bundle", "verify_bytes", "verify_replayed"]


def chain_hashes(events: list[dict[str, Any]]) -> list[str]:
    """Check seq and prev links; return every event's hash. Raises VerificationError("chain")."""
    hashes = []
    prev = ZERO_HASH
    for index, event in enumerate(events):
        if event["seq"] != index:
            what = ("an event before it was removed, or the events were reordered"
                    if event["seq"] > index else
                    "an event was recorded twice, or the events were reordered")
            raise VerificationError(
                "chain", f"expected event number {index} here, found number {event['seq']} "
                f"({what})", index)
        if event["prev"] != prev:
            raise VerificationError(
                "chain", f"the link to the previous event is broken: this event names "
                f"{event['prev'][:16]}… as its predecessor, but event {index - 1} hashes to "
                f"{prev[:16]}… (event {index - 1} was altered after it was recorded, or "
                "events were moved)", index)
        prev = event_hash(event, checked=False)
        hashes.append(prev)
    return hashes


class UnknownSeat(FairdealError):
    """A key is pinned for a seat the match does not have (the caller's mistake, not the
    bundle's): a usage error."""


def verify_bytes(data: bytes | str, trusted_key: str | None = None,
                 seat_keys: Mapping[str, str] | None = None,
                 receipts: Sequence[Receipt] | None = None,
                 checkpoint: str | None = None, receipts_for: str | None = None,
                 witnesses: WitnessPolicy | None = None) -> Report:
    """Parse and verify a bundle file's bytes. Never raises for bad input: see the report.

    ``seat_keys`` pins players' signing keys by seat name or index (``{"A": "ed25519:…"}``):
    the match must show that seat registering exactly that key, and every seed event, move
    and resignation of the seat signed by it, so all of them are provably the player's (a pin
    on a fairdeal/1 bundle fails: its seeds are unsigned). ``receipts`` are a player's receipts
    (verifier.receipts.parse_receipts), checked against the bundle. ``checkpoint`` is a
    signed log checkpoint the user trusts: the bundle's log proofs must be against that very
    tree. ``receipts_for`` is the match id the receipts file names (ReceiptsFile.match_id):
    a bundle of another match fails ``receipts``, naming both ids. ``witnesses`` is a witness
    policy: the checkpoint the log proofs lead to must carry valid cosignatures of enough of
    its witnesses. Raises UnknownSeat for a pin naming a seat the match does not have."""
    report = Report()
    try:
        bundle = Bundle.from_bytes(data)
    except InvalidBundle as e:
        report.failed(VerificationError("format", str(e)))
        return report
    report.passed("format", f"{len(bundle.events)} events")
    return verify_bundle(bundle, trusted_key, report, seat_keys, receipts, checkpoint,
                         receipts_for, witnesses)


def verify_bundle(bundle: Bundle, trusted_key: str | None = None,
                  report: Report | None = None,
                  seat_keys: Mapping[str, str] | None = None,
                  receipts: Sequence[Receipt] | None = None,
                  checkpoint: str | None = None, receipts_for: str | None = None,
                  witnesses: WitnessPolicy | None = None) -> Report:
    """Run every check on a parsed bundle and return the report."""
    return verify_replayed(bundle, trusted_key, report, seat_keys, receipts, checkpoint,
                           receipts_for, witnesses)[0]


def verify_replayed(bundle: Bundle, trusted_key: str | None = None,
                    report: Report | None = None,
                    seat_keys: Mapping[str, str] | None = None,
                    receipts: Sequence[Receipt] | None = None,
                    checkpoint: str | None = None,
                    receipts_for: str | None = None,
                    witnesses: WitnessPolicy | None = None
                    ) -> tuple[Report, MatchReplayer | None]:
    """``verify_bundle``, and the replayer that checked the events (None if the checks stopped
    before the replay): whoever reads the match after verifying it (the audit) finds the deal
    there rather than replaying the match a second time.

    The steps are docs/SPEC.md section 9's, in its order and under its numbers (1, the format,
    is ``Bundle.from_bytes``'s); each passes its check on ``report`` or raises the
    VerificationError that fails it, and the first failure ends the run."""
    replayer: MatchReplayer | None = None
    if report is None:
        report = Report()
        report.passed("format", f"{len(bundle.events)} events")
    _record_facts(report, bundle)
    try:
        hashes = _check_chain(report, bundle)                                     # (2)
        public = _check_signature(report, bundle, hashes, trusted_key)            # (3)
        replayer, pins = _check_rules(report, bundle, seat_keys or {})            # (4)
        _check_commitment(report, bundle, replayer)                               # (5)
        _replay(report, bundle, replayer, pins)                                   # (6)-(12)
        _check_receipts(report, bundle, hashes, receipts, receipts_for)           # (13)
        _check_log(report, bundle, hashes, public, checkpoint, witnesses)         # (14)
    except VerificationError as e:
        report.failed(e)
    except InvalidKey as bad_key:
        report.failed(VerificationError("signature", str(bad_key)))
    return report, replayer


def _record_facts(report: Report, bundle: Bundle) -> None:
    """What the bundle says of itself, before any check (the report shows it even on a
    failure); the checks below add what they establish."""
    events = bundle.events
    genesis = events[0]
    reveal = events[-1]
    report.facts.update(
        match_id=genesis["match_id"], game=genesis["game"], params=genesis["params"],
        protocol=genesis["protocol"], rules_version=genesis["rules_version"],
        events=len(events), seats=[seat["name"] for seat in genesis["seats"]],
        commitment=genesis["commitment"], server_seed=reveal["server_seed"],
        result=reveal["result"], key_id=None, key_pinned=False, seat_keys_pinned=[],
        deal_influence=None,
    )


def _check_chain(report: Report, bundle: Bundle) -> list[str]:
    """(2) the chain: every event links by hash to the one before it. Returns the hashes."""
    hashes = chain_hashes(bundle.events)
    report.passed("chain", f"{len(bundle.events)} events, head {hashes[-1][:16]}…")
    return hashes


def _check_signature(report: Report, bundle: Bundle, hashes: list[str],
                     trusted_key: str | None) -> bytes:
    """(3) the server's signature over the head, by the key the genesis names (and, when
    pinned, the trusted key). Returns the server's public key."""
    genesis = bundle.genesis
    last = len(bundle.events) - 1
    public = parse_public_key(bundle.server_key)
    kid = key_id(public)
    report.facts["key_id"] = kid
    if kid != genesis["server_key_id"]:
        raise VerificationError(
            "signature", f"the bundle is signed by key {kid}, but the match was created "
            f"under key {genesis['server_key_id']}", last)
    message = head_message(genesis["match_id"], last, hashes[-1])
    if not verify_signature(public, bytes.fromhex(bundle.signature), message):
        raise VerificationError(
            "signature", "the server's signature does not match the final event: the "
            "history was changed after it was sealed", last)
    if trusted_key is not None:
        if parse_public_key(trusted_key) != public:
            raise VerificationError(
                "signature", f"signed by key {kid}, which is not the trusted key "
                f"{key_id(parse_public_key(trusted_key))}", last)
        report.facts["key_pinned"] = True
        report.passed("signature", f"signed by the trusted key {kid}")
    else:
        report.passed("signature", f"signed by key {kid} (not pinned: pass --trusted-key "
                      "to check it is the server's)")
    return public


def _check_rules(report: Report, bundle: Bundle, seat_keys: Mapping[str, str]
                 ) -> tuple[MatchReplayer, dict[int, bytes]]:
    """(4) the game, its rules version and rules data (the replayer checks them as it is
    made); the players' pinned keys. Returns the replayer and the pins by seat index (a pin
    for a seat the match does not have raises UnknownSeat: the caller's mistake)."""
    replayer = MatchReplayer(bundle.genesis, bytes.fromhex(bundle.events[-1]["server_seed"]))
    names = replayer.game.seat_names
    pins = _seat_pins(names, seat_keys)
    replayer.pin(pins)
    report.facts["seat_keys_pinned"] = [names[seat] for seat in sorted(pins)]
    report.passed("rules", f"{replayer.game.title}, rules {bundle.genesis['rules_version']}")
    return replayer, pins


def _check_commitment(report: Report, bundle: Bundle, replayer: MatchReplayer) -> None:
    """(5) the revealed seed opens the commitment published in the genesis; then what the
    genesis alone decides (a pin on a version 1 bundle, a seating window below the minimum),
    reported at event 0 before the replay."""
    genesis = bundle.genesis
    if commitment(replayer.server_seed or b"", genesis) != genesis["commitment"]:
        raise VerificationError(
            "commitment", "the revealed server seed does not open the commitment "
            "published at the start: the seed or the commitment was changed after the "
            "match began",
            len(bundle.events) - 1)
    report.passed("commitment", f"SHA-256 commitment {genesis['commitment'][:16]}… opens "
                  "to the revealed seed")
    replayer.check_genesis()


def _replay(report: Report, bundle: Bundle, replayer: MatchReplayer,
            pins: Mapping[int, bytes]) -> None:
    """(6)-(12) replay every event under the protocol and the rules: the seeds, timing, deal,
    moves, seat signatures and timers are checked together, event by event; then the result.
    Each check is passed, in the spec's order, once the whole replay held."""
    events = bundle.events
    last = len(events) - 1
    for event in events[1:]:
        replayer.feed(event)
    if not replayer.started and not replayer.ended:
        raise VerificationError("timing", "the match never started: not every seat's seed "
                                "was fixed and revealed", last)
    if replayer.outcome is None:
        raise VerificationError("result", "the seed was revealed but the match is not over",
                                last)
    report.facts["deal_influence"] = replayer.deal_influence(last)
    report.passed("seeds", _seeds_words(replayer))
    added = sum(seed is not None for seed in replayer.client_seeds)
    report.passed("timing", f"commitment at event 0; {added} of {replayer.seats} client "
                  "seeds, all before the first move; one reveal, last")
    if replayer.started:
        report.passed("deal", "deal seed mixes the server seed with "
                      + counted(added, "client seed"))
    else:
        report.passed("deal", "no deal: the match ended before it (a seed not revealed)")
    report.passed("moves", f"{replayer.plies} plays checked under "
                  f"{bundle.genesis['rules_version']}")
    report.passed("seat-signatures", _seat_signature_words(report, replayer, pins))
    limit = replayer.turn_limit_ms
    span = " for the whole turn" if replayer.timer.per_turn else ""
    report.passed("timers", f"turn limit {limit} ms{span}" if limit else "no turn limit")
    report.passed("result", _result_words(replayer))


def _check_receipts(report: Report, bundle: Bundle, hashes: list[str],
                    receipts: Sequence[Receipt] | None, receipts_for: str | None) -> None:
    """(13) the player's receipts: nothing the server accepted was dropped or changed. They
    are bound to their match: receipts of another match fail, they are not "nothing to
    check" (a server handing out another match's bundle would pass otherwise)."""
    if receipts is None and receipts_for is None:
        report.skipped("receipts", "no receipts given (a player checks its own with "
                       "--receipts FILE)")
        return
    match_id = bundle.genesis["match_id"]
    checked = check_receipts(bundle, hashes, receipts or (), receipts_for)
    report.facts["receipts"] = {"checked": checked, "match_id": match_id}
    if checked:
        report.passed("receipts", f"{counted(checked, 'server-signed receipt')} for match "
                      f"{match_id} match this bundle")
    else:
        report.skipped("receipts", "the receipts file of this match holds no receipt")


def _check_log(report: Report, bundle: Bundle, hashes: list[str], public: bytes,
               checkpoint: str | None, witnesses: WitnessPolicy | None) -> None:
    """(14) the match's genesis and seal are in the server's transparency log (against the
    trusted checkpoint, cosigned by the witnesses, when they are given)."""
    if bundle.log is not None:
        report.passed("log", check_log(bundle, hashes, public, checkpoint, witnesses))
    elif checkpoint is not None:
        raise VerificationError("log", "a trusted checkpoint was given, but the bundle "
                                "carries no log proofs to check against it")
    elif witnesses is not None:
        raise VerificationError("log", f"witness cosignatures were asked for "
                                f"({witnesses.asked()}), but the bundle carries no log "
                                "proofs, so no checkpoint for them to have cosigned")
    else:
        report.skipped("log", "the bundle carries no log proofs (built offline, or "
                       "exported before the log)")


def _seat_pins(seat_names: Sequence[str], seat_keys: Mapping[str, str]) -> dict[int, bytes]:
    """Seat labels (a seat letter, name or index) to seat indices; UnknownSeat otherwise."""
    pins: dict[int, bytes] = {}
    for seat_text, key_text in seat_keys.items():
        seat = seat_index(seat_names, seat_text)
        if seat is None:
            raise UnknownSeat(f"a key is pinned for seat {seat_text!r}, but this match's "
                              f"seats are {', '.join(seat_names)}")
        try:
            pins[seat] = parse_public_key(key_text)
        except InvalidKey as e:
            raise UnknownSeat(f"the key pinned for seat {seat_text!r}: {e}") from None
    return pins


def _seat_signature_words(report: Report, replayer: MatchReplayer,
                          pins: Mapping[int, bytes]) -> str:
    signed = sum(key is not None for key in replayer.seat_keys)
    what = "seeds and moves" if replayer.v2 else "moves"
    detail = (f"{signed} of {replayer.seats} seats signed their {what}" if signed
              else f"no seat registered a key ({what} unsigned)")
    if pins:
        detail += (f"; pinned: {', '.join(report.facts['seat_keys_pinned'])} (every seed "
                   "event, move and resignation of a pinned seat is signed by its pinned "
                   "key)")
    return detail


def _seeds_words(replayer: MatchReplayer) -> str:
    if not replayer.v2:
        return ("protocol v1: client seeds were neither committed nor signed (the weaker "
                "guarantee of version 1 bundles)")
    hows = [seed.how for seed in replayer.seat_seeds]
    parts = [f"{name}: {how}" for name, how in zip(replayer.game.seat_names, hows, strict=True)]
    return "every seed committed before any was shown; " + ", ".join(parts)


def _result_words(replayer: MatchReplayer) -> str:
    outcome = replayer.outcome
    assert outcome is not None
    if outcome.winner is None:
        return f"draw ({outcome.reason})"
    return f"{replayer.seat_name(outcome.winner)} won ({outcome.reason})"
