"""Verify a whole tournament offline: numbered steps that mirror docs/tournaments.md §6.

>>> report = verify_tournament_zip(open("t.zip", "rb").read(),
...                                trusted_key="ed25519:…")  # doctest: +SKIP
>>> report.ok, [check.name for check in report.checks][:3]  # doctest: +SKIP
(True, ['format', 'chain', 'signature'])

Bad input never raises: it fails a check, and the first failure names the event (its seq,
type, round, table and match) and says why in words an organiser understands. The matches'
own checks are verifier.verify_bytes's, with both players' registered keys pinned.
"""

from __future__ import annotations

from collections.abc import Collection, Mapping

from ..keys import key_id, parse_public_key, verify_signature
from ..report import counted
from .bundle import InvalidExport, TournamentBundle, read_export
from .events import InvalidTournament
from .matches import MatchChecks
from .primitives import ZERO_HASH, commitment, event_hash, head_message, signed_message
from .report import TournamentCheckFailed, TournamentReport, at_event, fail
from .rounds import check_pairings
from .state import TournamentState
from .tlog import check_tournament_log

__all__ = ["verify_tournament", "verify_tournament_zip"]


def verify_tournament_zip(data: bytes, *, trusted_key: str | None = None,
                          arbiter_key: str | None = None,
                          player_keys: Collection[str] | None = None,
                          checkpoint: str | None = None) -> TournamentReport:
    """``verify_tournament`` on an export zip (tournament.json and matches/<id>.json)."""
    try:
        export = read_export(data)
    except InvalidExport as e:
        report = TournamentReport()
        report.failed(TournamentCheckFailed("format", str(e)))
        return report
    return verify_tournament(export.tournament, export.matches, trusted_key=trusted_key,
                             arbiter_key=arbiter_key, player_keys=player_keys,
                             checkpoint=checkpoint)


def verify_tournament(tournament: bytes | str, matches: Mapping[str, bytes], *,
                      trusted_key: str | None = None, arbiter_key: str | None = None,
                      player_keys: Collection[str] | None = None,
                      checkpoint: str | None = None) -> TournamentReport:
    """Verify a tournament bundle and its matches (by match id). ``trusted_key`` pins the
    server's key, ``arbiter_key`` the arbiter's (the header must name it), ``player_keys``
    players' keys (each must be registered), ``checkpoint`` a log checkpoint the user trusts (the
    log proofs must be against that very tree). Never raises for bad input: see the report.
    Raises InvalidKey for a malformed pin (the caller's mistake)."""
    for key in (trusted_key, arbiter_key, *(player_keys or ())):
        if key is not None:
            parse_public_key(key)
    report = TournamentReport()
    try:
        bundle = TournamentBundle.from_bytes(tournament)
    except InvalidTournament as e:
        report.failed(TournamentCheckFailed("format", str(e)))
        return report
    report.passed("format", f"{counted(len(bundle.events), 'event')}, "
                  f"{counted(len(matches), 'match file', 'match files')}")
    _facts(report, bundle)
    try:
        hashes = _check_chain(report, bundle)                                     # (2)
        server = _check_signature(report, bundle, hashes, trusted_key)            # (3)
        seed = _check_commitment(report, bundle)                                  # (4)
        state = _check_registrations(report, bundle, player_keys or ())           # (5)
        _check_field(report, bundle, state)                                       # (6)
        check_pairings(report, bundle.events, seed)                               # (7)
        checks = MatchChecks(bundle, matches, server, seed)
        checks.matches(report)                                                    # (8)
        checks.results(report)                                                    # (9)
        checks.disputes(report)                                                   # (10)
        checks.rulings(report, arbiter_key)                                       # (11)
        checks.standings(report)                                                  # (12)
        _check_log(report, bundle, hashes, checkpoint)                            # (13)
    except TournamentCheckFailed as e:
        report.failed(e)
    return report


def _facts(report: TournamentReport, bundle: TournamentBundle) -> None:
    header = bundle.header
    report.facts.update(tournament_id=header["tournament_id"], name=header["name"],
                        game=header["game"], system=header["system"],
                        events=len(bundle.events), key_id=None, key_pinned=False)


def _check_chain(report: TournamentReport, bundle: TournamentBundle) -> list[str]:
    """(2) seq without gaps, prev linking each event to the one before, ts never decreasing."""
    hashes: list[str] = []
    prev = ZERO_HASH
    last_ts = 0
    for index, event in enumerate(bundle.events):
        if event["seq"] != index:
            raise TournamentCheckFailed(
                "chain", f"expected event number {index} here, found number {event['seq']} "
                "(an event was removed, repeated, or the events were reordered)", index,
                at_event(event))
        if event["prev"] != prev:
            raise TournamentCheckFailed(
                "chain", f"the link to the previous event is broken: event {index - 1} was "
                "altered after it was recorded, or events were moved", index, at_event(event))
        if event["ts"] < last_ts:
            raise fail("chain", event, "its time is before the previous event's: events are "
                       "recorded in the order they happen")
        last_ts = event["ts"]
        prev = event_hash(event)
        hashes.append(prev)
    report.passed("chain", f"{counted(len(hashes), 'event')}, head {hashes[-1][:16]}…")
    return hashes


def _check_signature(report: TournamentReport, bundle: TournamentBundle, hashes: list[str],
                     trusted_key: str | None) -> str:
    """(3) the server's head signature, by the key the header names (and the pinned one)."""
    last = bundle.events[-1]
    public = parse_public_key(bundle.server_key)
    kid = key_id(public)
    report.facts["key_id"] = kid
    if kid != bundle.header["server_key_id"]:
        raise fail("signature", last, f"the tournament is signed by key {kid}, but it was "
                   f"created under key {bundle.header['server_key_id']}")
    message = head_message(bundle.tournament_id, last["seq"], hashes[-1])
    if not verify_signature(public, bytes.fromhex(bundle.signature), message):
        raise fail("signature", last, "the server's signature does not match the final "
                   "event: the tournament's history was changed after it was sealed")
    if trusted_key is not None:
        if parse_public_key(trusted_key) != public:
            raise fail("signature", last, f"signed by key {kid}, which is not the trusted "
                       f"key {key_id(parse_public_key(trusted_key))}")
        report.facts["key_pinned"] = True
        report.passed("signature", f"signed by the trusted key {kid}")
    else:
        report.passed("signature", f"signed by key {kid} (not pinned: pass --trusted-key to "
                      "check it is the server's)")
    return bundle.server_key


def _check_commitment(report: TournamentReport, bundle: TournamentBundle) -> bytes:
    """(4) exactly one reveal, just before the final standings, opening the commitment."""
    events = bundle.events
    reveals = [event for event in events if event["type"] == "reveal"]
    if len(reveals) != 1 or events[-2]["type"] != "reveal":
        where = reveals[1] if len(reveals) > 1 else events[-2]
        raise fail("commitment", where, "the tournament seed must be revealed once, just "
                   f"before the final standings (found {counted(len(reveals), 'reveal')})")
    seed = bytes.fromhex(reveals[0]["seed"])
    if commitment(seed, bundle.header) != bundle.header["commitment"]:
        raise fail("commitment", reveals[0], "the revealed tournament seed does not open the "
                   "commitment published at creation: the seed (and with it the draw of "
                   "lots and every pairing it decides) was changed after the tournament was "
                   "created")
    report.passed("commitment", f"commitment {bundle.header['commitment'][:16]}… opens to the "
                  "revealed seed")
    return seed


def _check_registrations(report: TournamentReport, bundle: TournamentBundle,
                         pinned: Collection[str]) -> TournamentState:
    """(5) every ``register`` right after the header, signed by its own key, whose id is its
    ``player``; no key twice; within ``max_players``; every pinned key registered."""
    state = TournamentState(bundle.header)
    events = bundle.events
    index = 1
    while events[index]["type"] == "register":
        event = events[index]
        public = parse_public_key(event["public_key"])
        if key_id(public) != event["player"]:
            raise fail("registrations", event, f"the player id {event['player']} is not the "
                       f"id of the key it registers ({key_id(public)})")
        if event["player"] in state.registrations:
            raise fail("registrations", event, f"player {event['player']} registered twice")
        if not verify_signature(public, bytes.fromhex(event["sig"]), signed_message(event)):
            raise fail("registrations", event, f"the registration of {event['name']!r} "
                       f"({event['player']}) is not signed by the key it registers: the "
                       "player never asked to play (a forged registration)")
        state.apply(event)
        index += 1
    later = next((e for e in events[index:] if e["type"] == "register"), None)
    if later is not None:
        raise fail("registrations", later, "a registration after the tournament started")
    count = len(state.registrations)
    if not 2 <= count <= bundle.header["max_players"]:
        raise TournamentCheckFailed("registrations", f"{counted(count, 'player')} registered; "
                                    f"the tournament takes 2 to {bundle.header['max_players']}")
    for key in pinned:
        kid = key_id(parse_public_key(key))
        if kid not in state.registrations or state.registrations[kid].public_key != key:
            raise TournamentCheckFailed("registrations", f"the pinned player key {kid} is not "
                                        "registered in this tournament")
    report.facts["players"] = {r.player: r.name for r in state.registrations.values()}
    pins = f"; {counted(len(pinned), 'pinned key')} registered" if pinned else ""
    report.passed("registrations", f"{counted(count, 'player')}, each signed by its own "
                  f"key{pins}")
    return state


def _check_field(report: TournamentReport, bundle: TournamentBundle,
                 state: TournamentState) -> None:
    """(6) one ``start``, right after the registrations, naming them all in order, with the
    field's hash over their entropy."""
    events = bundle.events
    start = events[len(state.registrations) + 1]
    starts = [event for event in events if event["type"] == "start"]
    if start["type"] != "start" or len(starts) != 1:
        raise fail("field", start, "the tournament starts once, right after the "
                   "registrations")
    expected = list(state.registrations)
    if start["players"] != expected:
        missing = sorted(set(expected) - set(start["players"]))
        extra = sorted(set(start["players"]) - set(expected))
        why = (f"player {missing[0]} registered but is not in the field" if missing else
               f"player {extra[0]} is in the field but never registered" if extra else
               "the players are not in their order of registration")
        raise fail("field", start, why)
    if start["field"] != state.expected_field_hash():
        raise fail("field", start, "the field's hash is not the one of the players' "
                   "registered entropy: the draw of lots was not the players' to share")
    report.passed("field", f"{counted(len(expected), 'player')} started; field "
                  f"{start['field'][:16]}…")


def _check_log(report: TournamentReport, bundle: TournamentBundle, hashes: list[str],
               checkpoint: str | None) -> None:
    """(13) the transparency log's proofs, when the bundle carries them."""
    if bundle.log is not None:
        report.passed("log", check_tournament_log(bundle, hashes, parse_public_key(
            bundle.server_key), checkpoint))
    elif checkpoint is not None:
        raise TournamentCheckFailed("log", "a trusted checkpoint was given, but the "
                                    "tournament carries no log proofs to check against it")
    else:
        report.skipped("log", "the tournament carries no log proofs (built offline, or "
                       "exported before the log)")
