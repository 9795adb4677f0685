"""The adversary as a property: classes of forgery, not instances.

The scripted attacks beside this file (test_attacks.py) each play one cheat. Here Hypothesis
plays any sequence of the edits open to a server that holds ONLY its own signing key — never a
seat's — on honest signed matches of every game, and checks what an OK verdict promises.

The honest matches (made once per session): arcomage, toybattle and wyrdstone played through
the real simulate path (``simulate_match``, both seats registering Ed25519 keys and signing
every seed event and move, some turns timed out by the server), and one arcomage match played
through the real ledger on a real SQLite file, whose players kept every receipt.

The forger's edits (any sequence, then one re-seal):

- drop, move, copy or replace any event after the genesis; insert events the server can write:
  timeouts, seed expiries and forfeits, reveals, ``seat_key`` events (with the seat's true
  public key, or a key of the server's own), moves, resignations and seed events for a seat
  (unsigned, or signed with a key of the server's own); a seat's signed event can be copied or
  moved, never re-signed;
- rewrite the genesis: protocol ``fairdeal/1`` or ``fairdeal/2`` (the events rewritten into
  that version's forms), the seating window (1 ms included), the params, a seat's name, the
  rules version, the turn limit, the match id;
- re-stamp any event's ``ts`` (or shift every later one); strip signatures (one event's, or
  all of a seat's); replace a seat's seed events by one unsigned seed of the server's choosing,
  or change the seed an event carries;
- optionally finish as the server: cut the history anywhere and write the rest itself — seats'
  seeds expired, declined, chosen by it (unsigned or under an impostor key of its own), honest
  commitments forfeited, every later ply a timeout at its deadline or a move it picks — and
  reveal;
- re-seal: recompute every ``seq`` and ``prev``, keep the genesis commitment or re-commit it
  (to the same server seed or to a new one, which the reveal then carries), drop the log
  proofs (they name the honest history) and sign the head with the server's key.

THE ORACLE. Whenever ``verify_bytes`` answers OK for the forged bundle with every seat's true
key pinned (and, for the ledger match when the case gives them, both players' true receipts):

1. every pinned seat has its ``seat_key`` event in the bundle, with the pinned key;
2. every event that speaks for a seat — its ``seed_commit``, ``client_seed``, ``seed_reveal``,
   ``move`` or ``resign`` — is, apart from the ``ts`` the server stamps, byte for byte an event
   that seat made in the honest match, signature included (a pinned seat cannot be made to
   say anything it did not sign; stripped of its signature, an honest event is not the
   seat's: it is the server speaking for the seat);
3. the deal is the honest deal: the same deal seed (HMAC of the same server seed, match id and
   client seeds), hence the same cards. The one exception is the server refusing a seat's
   write: a seed that expired (the server never took the commitment) or a commitment
   forfeited (it never took the reveal). Nothing in one bundle can show that; the report
   must then say so — its deal line names the server among those who could have chosen the
   deal, or says no deal was made — and only the players' receipts prove it, so with
   receipts given there is no exception at all;
4. with receipts given, every event a player holds a receipt for is in the bundle, byte for
   byte, at its seq (whatever match id the bundle claims).

Why "the honest deal" is the right word for a server that re-commits with a new seed: the
deal seed mixes the server seed committed in the genesis with the seats' seeds. Every event a
seat signs names its predecessor's hash, so its signature binds the whole history before it,
the genesis and its commitment included. A server that picks a new seed after the commitment
cannot open the old commitment (``commitment`` check); one that re-commits rewrites the genesis,
which breaks every signed event of both seats, so the bundle can keep none of them — and then
clauses 1 and 2 decide. The property therefore demands the very deal seed of the honest match.

The suite runs a short, derandomized campaign (campaign.SUITE_CASES cases, the same on every
run); ``make adversary`` runs a long one (ADVERSARY_CASES, default 100,000) and prints how many
cases ran and how the verdicts fell.
"""

from __future__ import annotations

import atexit
import copy
import json
import random
import shutil
import tempfile
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import campaign
import pytest
from cheats import Clock, Match
from hypothesis import given, note, settings
from hypothesis import strategies as st

from fairdeal.client.simulate import SimulationSettings, simulate_match
from fairdeal.games import RulesError, get_game, get_rules, rules_versions
from fairdeal.ledger.service import Ledger
from fairdeal.verifier.canonical import canonical_bytes
from fairdeal.verifier.keys import SigningKey
from fairdeal.verifier.protocol import (
    BUNDLE_FORMAT,
    PLAY_TYPES,
    PROTOCOL_V1,
    PROTOCOL_V2,
    SEAT_SIGNED_TYPES,
    ZERO_HASH,
    client_commitment,
    commitment,
    event_hash,
    head_message,
    rules_hash,
    signed_message,
)
from fairdeal.verifier.receipts import Receipt
from fairdeal.verifier.record import MatchRecorder
from fairdeal.verifier.replay import MatchReplayer
from fairdeal.verifier.report import Report, VerificationError
from fairdeal.verifier.verify import verify_bytes

Event = dict[str, Any]
#: keys of the server's own it registers for a seat (never a seat's true key)
IMPOSTORS = (SigningKey.from_seed(b"\x5a" * 32), SigningKey.from_seed(b"\x5b" * 32))
#: a forger finishing a match stops after this many plies (a bundle left unfinished fails)
MAX_FORGED_PLIES = 600
#: a fixed private mark on an event to be signed with an impostor key once it is relinked
_SIGN_AS = "_impostor"


# --- the honest matches -------------------------------------------------------------------------

@dataclass(frozen=True, repr=False)
class Honest:
    """One honest signed match and what the oracle compares a forgery with."""

    name: str
    bundle: Mapping[str, Any]
    server_key: SigningKey
    seat_keys: tuple[SigningKey, ...]
    receipts: tuple[Receipt, ...] | None
    deal: bytes
    #: per seat: the canonical bytes, without ``ts``, of every event that speaks for it
    spoken: tuple[frozenset[bytes], ...]
    client_seeds: tuple[str, ...]
    #: the actions of the honest moves: what a forger writes moves from
    actions: tuple[Any, ...]

    def __repr__(self) -> str:  # what a falsifying example prints: not the whole bundle
        return f"<honest match {self.name}>"

    @property
    def pins(self) -> dict[str, str]:
        return {str(seat): key.public_text for seat, key in enumerate(self.seat_keys)}

    @property
    def events(self) -> list[Event]:
        return copy.deepcopy(self.bundle["events"])

    @property
    def server_seed(self) -> bytes:
        return bytes.fromhex(self.bundle["events"][-1]["server_seed"])


def _spoken(event: Mapping[str, Any]) -> bytes:
    """What the oracle compares: the event without the ``ts`` the server stamps."""
    return canonical_bytes({key: value for key, value in event.items() if key != "ts"})


def _honest(name: str, bundle: dict[str, Any], server_key: SigningKey,
            seat_keys: Sequence[SigningKey], receipts: Sequence[Receipt] | None) -> Honest:
    report = verify_bytes(json.dumps(bundle).encode(), server_key.public_text,
                          {str(seat): key.public_text for seat, key in enumerate(seat_keys)},
                          receipts)
    assert report.ok, (name, report.failure)
    events = bundle["events"]
    replayer = MatchReplayer(events[0], bytes.fromhex(events[-1]["server_seed"]))
    for event in events[1:]:
        replayer.feed(event)
    assert replayer.deal is not None and all(replayer.client_seeds)
    spoken = tuple(frozenset(_spoken(e) for e in events
                             if e["type"] in SEAT_SIGNED_TYPES and e.get("seat") == seat)
                   for seat in range(len(seat_keys)))
    return Honest(name, bundle, server_key, tuple(seat_keys),
                  tuple(receipts) if receipts is not None else None, replayer.deal, spoken,
                  tuple(seed for seed in replayer.client_seeds if seed is not None),
                  tuple(e["action"] for e in events if e["type"] == "move"))


def _simulated(game: str, bots: tuple[str, str], index: int) -> Honest:
    server_key = SigningKey.from_seed(bytes([0x11 + index]) * 32)
    keys = [SigningKey.from_seed(bytes([0x21 + 2 * index + seat]) * 32) for seat in range(2)]
    bundle = simulate_match(
        SimulationSettings(game, {}, bots, signed_moves=True, decline_chance=0.0,
                           timeout_chance=0.05),
        server_seed=bytes([0x31 + index]) * 32, match_id=f"property-{game}",
        server_key=server_key, bot_random=random.Random(index), start_ms=1_767_225_600_000,
        seat_keys=keys)
    return _honest(f"{game} (simulated)", bundle, server_key, keys, None)


def _on_the_ledger(folder: Path) -> Honest:
    clock = Clock()
    ledger = Ledger.open(folder, clock=clock)
    match = Match(ledger, clock)
    match.seat_both_in_two_steps()
    choices = random.Random(18)
    match.play_to_the_end(lambda options: choices.choice(options))
    players = match.players
    keys = [player.key for player in players]
    assert all(key is not None for key in keys)
    return _honest("arcomage (ledger, with receipts)", match.bundle(), ledger.server_key,
                   [key for key in keys if key is not None],
                   [receipt for player in players for receipt in player.receipts])


_HONEST: list[Honest] = []


def honest_matches() -> list[Honest]:
    """The honest matches, made once per session (a few tenths of a second)."""
    if not _HONEST:
        folder = Path(tempfile.mkdtemp(prefix="fairdeal-adversary-"))
        atexit.register(shutil.rmtree, folder, ignore_errors=True)
        _HONEST.extend([
            _simulated("arcomage", ("greedy", "greedy"), 0),
            _simulated("toybattle", ("greedy", "random"), 1),
            _simulated("wyrdstone", ("greedy", "random"), 2),
            _on_the_ledger(folder),
        ])
    return _HONEST


# --- the forger's edits ---------------------------------------------------------------------
#
# An edit is a tuple whose first item names it; its integers are resolved against the bundle
# as it stands when the edit applies (positions modulo its length), so that any sequence is
# meaningful and Hypothesis shrinks towards small numbers and short sequences.

SEATS = st.integers(0, 1)
SPOTS = st.integers(0, 400)
#: ts deltas: the next event's own stamp, a millisecond on, the limits' edges
DELTAS = st.integers(0, 9)
#: which seed: 0 the seat's honest one, 1 the other seat's, 2+ one the server chose
SEEDS = st.integers(0, 4)
KINDS = ("timeout", "seed_expired", "seed_forfeit", "reveal", "seat_key", "move", "resign",
         "client_seed", "seed_commit", "seed_reveal")

server_events = st.tuples(st.sampled_from(KINDS), SEATS, DELTAS, SEEDS, st.integers(0, 200),
                          st.booleans())
edits = st.one_of(
    st.tuples(st.just("drop"), SPOTS),
    st.tuples(st.just("move"), SPOTS, SPOTS),
    st.tuples(st.just("copy"), SPOTS, SPOTS),
    st.tuples(st.just("insert"), SPOTS, server_events),
    st.tuples(st.just("replace"), SPOTS, server_events),
    st.tuples(st.just("restamp"), SPOTS, DELTAS),
    st.tuples(st.just("shift"), SPOTS, DELTAS),
    st.tuples(st.just("strip"), SPOTS),
    st.tuples(st.just("strip_seat"), SEATS),
    st.tuples(st.just("drop_kind"), st.sampled_from(KINDS), st.one_of(st.none(), SEATS)),
    st.tuples(st.just("one_step"), SEATS, SEEDS),
    st.tuples(st.just("set_seed"), SPOTS, SEEDS),
    st.tuples(st.just("protocol"), st.sampled_from((PROTOCOL_V1, PROTOCOL_V2))),
    st.tuples(st.just("seating"), st.sampled_from((1, 2, 1_000, 60_000, 300_000, 3_600_000))),
    st.tuples(st.just("params"), st.integers(0, 3)),
    st.tuples(st.just("seat_name"), SEATS, st.sampled_from(("mallory", "player A", "B"))),
    st.tuples(st.just("rules"), st.integers(0, 3)),
    st.tuples(st.just("turn_limit"), st.sampled_from((None, 1, 1_000, 600_000))),
    st.tuples(st.just("match_id"), st.sampled_from(("forged", "another-match"))),
)
#: the seating plans of a finishing forger, per seat
PLANS = ("expire", "own-seed", "decline", "commit", "impostor", "forfeit", "honest-seed")
#: where a finishing forger cuts: before the seats' keys, their seeds, the reveals or the
#: first ply; or anywhere
PHASES = ("genesis", "keys", "commits", "reveals")
_finish = st.tuples(
    st.just("finish"), st.one_of(st.sampled_from(PHASES), SPOTS),
    st.one_of(st.sampled_from(PLANS).map(lambda plan: (plan, plan)),
              st.tuples(st.sampled_from(PLANS), st.sampled_from(PLANS))),
    st.lists(st.integers(0, 7), max_size=6))
# finishing is the forger's strongest move: two cases in three finish
finishes = st.one_of(st.none(), _finish, _finish)
#: keep the genesis commitment, re-commit to the same server seed, or to a new one
SEALS = ("keep", "recommit", "new-seed")


@dataclass(frozen=True)
class Case:
    match: int
    edits: tuple[tuple[Any, ...], ...]
    finish: tuple[Any, ...] | None
    seal: str
    with_receipts: bool


cases = st.builds(Case, st.integers(0, 3), st.lists(edits, max_size=6).map(tuple), finishes,
                  st.sampled_from(SEALS), st.booleans())


class Forger:
    """A server holding ``honest.server_key`` and nothing else, rewriting one honest match."""

    def __init__(self, honest: Honest, case: Case) -> None:
        self.honest, self.case = honest, case
        self.events = honest.events
        self.server_seed = (bytes([0xf0 + case.match % 8]) * 32
                            if case.seal == "new-seed" else honest.server_seed)

    # positions and values ---------------------------------------------------------------

    def spot(self, number: int) -> int | None:
        """An existing event after the genesis."""
        return 1 + number % (len(self.events) - 1) if len(self.events) > 1 else None

    def gap(self, number: int) -> int:
        """A place to insert at, after the genesis."""
        return 1 + number % len(self.events)

    @property
    def genesis(self) -> Event:
        return self.events[0]

    def delta(self, choice: int) -> int:
        limit = self.genesis.get("turn_limit_ms") or 60_000
        seating = self.genesis.get("seating_ms") or 300_000
        return (0, 1, 499, limit - 1, limit, limit + 1, seating - 1, seating, seating + 1,
                3_600_000)[choice]

    def seed(self, seat: int, choice: int) -> str:
        if choice < 2:
            return self.honest.client_seeds[(seat + choice) % 2]
        return f"{choice:02x}" * 32  # one the server chose

    def stamp_after(self, index: int, choice: int) -> int:
        return int(self.events[index - 1]["ts"]) + self.delta(choice)

    # the edits ------------------------------------------------------------------------------

    def apply(self, edit: tuple[Any, ...]) -> None:
        getattr(self, "edit_" + edit[0])(*edit[1:])

    def edit_drop(self, number: int) -> None:
        index = self.spot(number)
        if index is not None:
            del self.events[index]

    def edit_move(self, source: int, target: int) -> None:
        index = self.spot(source)
        if index is not None:
            event = self.events.pop(index)
            self.events.insert(self.gap(target), event)

    def edit_copy(self, source: int, target: int) -> None:
        index = self.spot(source)
        if index is not None:
            self.events.insert(self.gap(target), copy.deepcopy(self.events[index]))

    def edit_insert(self, number: int, what: tuple[Any, ...]) -> None:
        index = self.gap(number)
        self.events.insert(index, self.server_event(index, *what))

    def edit_replace(self, number: int, what: tuple[Any, ...]) -> None:
        index = self.spot(number)
        if index is not None:
            self.events[index] = self.server_event(index, *what)

    def server_event(self, index: int, kind: str, seat: int, delta: int, seed: int,
                     action: int, impostor: bool) -> Event:
        """An event the server writes itself (signed, if at all, by a key of its own)."""
        event: Event = {"seq": index, "prev": ZERO_HASH, "type": kind,
                        "ts": self.stamp_after(index, delta)}
        if kind != "reveal":
            event["seat"] = seat
        if kind == "reveal":
            winner = None if action % 3 == 2 else action % 3
            event.update(server_seed=self.server_seed.hex() if seed == 0 else f"{seed:02x}" * 32,
                         result={"winner": winner, "reason": "tower-destroyed"})
        elif kind == "seat_key":
            key = IMPOSTORS[seat] if impostor else self.honest.seat_keys[seat]
            event["public_key"] = key.public_text
        elif kind == "move":
            actions = self.honest.actions
            event["action"] = copy.deepcopy(actions[action % len(actions)])
        elif kind == "client_seed":
            event["client_seed"] = None if seed == 4 else self.seed(seat, seed)
        elif kind == "seed_commit":
            event["commitment"] = client_commitment(self.genesis["match_id"], seat,
                                                    self.seed(seat, seed))
        elif kind == "seed_reveal":
            event["client_seed"] = self.seed(seat, seed)
        if impostor and kind in SEAT_SIGNED_TYPES:
            if kind in ("move", "resign"):
                event["client_ts"] = event["ts"]
            event[_SIGN_AS] = seat
        return event

    def edit_restamp(self, number: int, delta: int) -> None:
        index = self.spot(number)
        if index is not None:
            self.events[index]["ts"] = self.stamp_after(index, delta)

    def edit_shift(self, number: int, delta: int) -> None:
        index = self.spot(number)
        if index is not None:
            for event in self.events[index:]:
                event["ts"] += self.delta(delta)

    def edit_strip(self, number: int) -> None:
        index = self.spot(number)
        if index is not None:
            self.events[index].pop("sig", None)
            self.events[index].pop("client_ts", None)

    def edit_strip_seat(self, seat: int) -> None:
        for event in self.events[1:]:
            if event.get("seat") == seat:
                event.pop("sig", None)
                event.pop("client_ts", None)

    def edit_drop_kind(self, kind: str, seat: int | None) -> None:
        self.events[1:] = [e for e in self.events[1:]
                           if not (e["type"] == kind and seat in (None, e.get("seat")))]

    def edit_one_step(self, seat: int, seed: int) -> None:
        """The seat's seed events replaced by one unsigned seed of the server's choosing."""
        places = [i for i, e in enumerate(self.events) if e.get("seat") == seat
                  and e["type"] in ("seed_commit", "seed_reveal", "client_seed")]
        if not places:
            return
        first = places[0]
        one = {"seq": first, "prev": ZERO_HASH, "type": "client_seed",
               "ts": self.events[first]["ts"], "seat": seat,
               "client_seed": self.seed(seat, seed)}
        for index in reversed(places):
            del self.events[index]
        self.events.insert(first, one)

    def edit_set_seed(self, number: int, seed: int) -> None:
        index = self.spot(number)
        if index is None:
            return
        event = self.events[index]
        seat = event.get("seat", 0)
        if event["type"] in ("client_seed", "seed_reveal"):
            event["client_seed"] = self.seed(seat, seed)
        elif event["type"] == "seed_commit":
            event["commitment"] = client_commitment(self.genesis["match_id"], seat,
                                                    self.seed(seat, seed))

    def edit_protocol(self, protocol: str) -> None:
        """The genesis rewritten under ``protocol``, the events into that version's forms."""
        genesis = self.genesis
        genesis["protocol"] = protocol
        if protocol == PROTOCOL_V2:
            genesis.setdefault("seating_ms", 300_000)
            return
        genesis.pop("seating_ms", None)
        rewritten = [genesis]
        for event in self.events[1:]:
            kind = event["type"]
            if kind in ("seed_commit", "seed_expired", "seed_forfeit"):
                continue
            if kind == "seed_reveal":
                event = {**event, "type": "client_seed"}
            if kind in ("seed_reveal", "client_seed"):
                event.pop("sig", None)
            event.pop("client_ts", None)
            rewritten.append(event)
        self.events[:] = rewritten

    def edit_seating(self, ms: int) -> None:
        self.genesis["seating_ms"] = ms

    def edit_params(self, choice: int) -> None:
        game = get_game(self.genesis["game"])
        variants: list[dict[str, Any]] = [{}]
        data = game.rules_data()
        if self.genesis["game"] == "arcomage":
            variants += [{"deck": "infinite"},
                         {"battlefield": data["battlefields"][-1]["id"]}]
        elif self.genesis["game"] == "toybattle":
            variants += [{"board": board["id"]} for board in data["boards"][-2:]]
        else:
            variants += [{"training": True}, {"A": {"school": "water"}}]
        try:
            self.genesis["params"] = game.normalize_params(variants[choice % len(variants)])
        except RulesError:
            self.genesis["params"] = variants[choice % len(variants)]

    def edit_seat_name(self, seat: int, name: str) -> None:
        self.genesis["seats"][seat] = {"name": name}

    def edit_rules(self, choice: int) -> None:
        versions = rules_versions(self.genesis["game"])
        version = versions[choice % len(versions)]
        self.genesis["rules_version"] = version
        self.genesis["rules_hash"] = rules_hash(get_rules(self.genesis["game"],
                                                          version).rules_data())

    def edit_turn_limit(self, ms: int | None) -> None:
        self.genesis["turn_limit_ms"] = ms

    def edit_match_id(self, match_id: str) -> None:
        self.genesis["match_id"] = match_id

    # finishing as the server -------------------------------------------------------------

    def cut(self, where: int | str) -> int:
        """How many events a finishing forger keeps."""
        if isinstance(where, int):
            return 1 + where % len(self.events)
        after = {"genesis": ("genesis",), "keys": ("genesis", "seat_key"),
                 "commits": ("genesis", "seat_key", "seed_commit", "client_seed",
                             "seed_expired")}.get(where)
        for index, event in enumerate(self.events):
            if index and (event["type"] not in after if after is not None
                          else event["type"] in (*PLAY_TYPES, "reveal")):
                return index
        return len(self.events)

    def finish(self, where: int | str, plans: tuple[str, str], plies: list[int]) -> None:
        """Cut the history at ``where`` and write the rest as the server would."""
        end = self.cut(where)
        prefix = [e for e in self.events[:end] if e["type"] != "reveal"]
        _relink(prefix, self.genesis["protocol"])
        try:
            recorder = MatchRecorder.resume(prefix, self.server_seed)
            self._complete(recorder, plans, plies)
        except (VerificationError, RulesError, ValueError, KeyError, TypeError):
            return  # the server could not go on from here: the edited bundle stays as it is
        self.events = recorder.events

    def _complete(self, recorder: MatchRecorder, plans: tuple[str, str],
                  plies: list[int]) -> None:
        replayer = recorder.replayer
        match_id = self.genesis["match_id"]
        signers: dict[int, SigningKey] = {}
        chosen: dict[int, str] = {}

        def last() -> int:
            return int(recorder.events[-1]["ts"])

        def signer(seat: int) -> SigningKey | None:
            return signers.get(seat) if replayer.v2 else None

        # the seats' seeds: every plan but an expiry first (an expiry closes the seating)
        for seat in sorted(range(2), key=lambda s: plans[s] == "expire"):
            plan = plans[seat]
            if replayer.seeded[seat]:
                continue
            if plan == "impostor" and replayer.seat_keys[seat] is None:
                signers[seat] = IMPOSTORS[seat]
                recorder.append("seat_key", last() + 50, seat=seat,
                                public_key=IMPOSTORS[seat].public_text)
            seed = f"{seat + 0xc0:02x}" * 32
            if plan == "expire" and replayer.v2:
                deadline = replayer.seating_deadline or last()
                recorder.append("seed_expired", max(deadline, last()), seat=seat)
            elif plan == "decline":
                recorder.append("client_seed", last() + 50, signer=signer(seat), seat=seat,
                                client_seed=None)
            elif plan == "honest-seed" or not replayer.v2 or plan == "own-seed":
                if plan == "honest-seed":
                    seed = self.honest.client_seeds[seat]
                recorder.append("client_seed", last() + 50, signer=signer(seat), seat=seat,
                                client_seed=seed)
            else:
                chosen[seat] = seed
                recorder.append("seed_commit", last() + 50, signer=signer(seat), seat=seat,
                                commitment=client_commitment(match_id, seat, seed))
        # the reveals: the seeds it chose; an honest commitment revealed or forfeited
        for seat in range(2):
            if replayer.seat_seeds[seat].how != "committed" or replayer.ended:
                continue
            if seat not in chosen and plans[seat] in ("forfeit", "expire"):
                deadline = replayer.reveal_deadline or last()
                recorder.append("seed_forfeit", max(deadline, last()), seat=seat)
                continue
            seed = chosen.get(seat, self.honest.client_seeds[seat])
            recorder.append("seed_reveal", last() + 50, signer=signer(seat), seat=seat,
                            client_seed=seed)
        # every later ply: a timeout at its deadline, or a move the server picks
        game = recorder.game
        for ply in range(MAX_FORGED_PLIES):
            if replayer.outcome is not None or recorder.state is None:
                break
            seat = game.current_seat(recorder.state)
            choice = plies[ply % len(plies)] if plies else 1
            deadline = replayer.deadline_ms()
            if choice % 4 == 0 and deadline is not None:
                recorder.append("timeout", max(deadline, last()), seat=seat)
                continue
            options = game.legal_actions(recorder.state)
            ts = last() + 400 if deadline is None else min(last() + 400, deadline)
            fields: dict[str, Any] = {
                "seat": seat, "action": game.action_to_json(options[choice % len(options)])}
            if signer(seat) is not None:
                fields["client_ts"] = ts
            recorder.append("move", ts, signer=signer(seat), **fields)
        if replayer.outcome is not None:
            recorder.reveal(last() + 10)

    # the seal -----------------------------------------------------------------------------

    def forge(self) -> bytes:
        for edit in self.case.edits:
            self.apply(edit)
        if self.case.seal != "keep":
            self.genesis["commitment"] = commitment(self.server_seed, self.genesis)
            for event in self.events:
                if event["type"] == "reveal":
                    event["server_seed"] = self.server_seed.hex()
        _relink(self.events, self.genesis["protocol"])
        if self.case.finish is not None:
            self.finish(*self.case.finish[1:])
        head = _relink(self.events, self.genesis["protocol"])
        key = self.honest.server_key
        message = head_message(self.genesis["match_id"], len(self.events) - 1, head)
        return json.dumps({"format": BUNDLE_FORMAT, "events": self.events,
                           "signature": {"key": key.public_text,
                                         "sig": key.sign(message).hex()}}).encode()


def _relink(events: list[Event], protocol: Any) -> str:
    """Renumber and relink; sign the events marked for an impostor key. The head's hash."""
    prev = ZERO_HASH
    for seq, event in enumerate(events):
        event["seq"], event["prev"] = seq, prev
        seat = event.pop(_SIGN_AS, None)
        if seat is not None:
            event["sig"] = IMPOSTORS[seat].sign(signed_message(str(protocol), event)).hex()
        try:
            prev = event_hash(event)
        except (ValueError, TypeError):
            prev = ZERO_HASH  # not canonical: the verifier refuses the file anyway
    return prev


# --- the oracle -------------------------------------------------------------------------------

def _forged_deal(events: list[Event]) -> bytes | None:
    replayer = MatchReplayer(events[0], bytes.fromhex(events[-1]["server_seed"]))
    for event in events[1:]:
        replayer.feed(event)
    return replayer.deal


def _server_refused_a_write(report: Report) -> bool:
    """The report says the deal is not the seats' to vouch for: the server could have chosen
    it, or no deal was made (a commitment forfeited)."""
    influence = report.facts["deal_influence"]
    return ["server"] in influence["colluders_needed"] or not influence["colluders_needed"]


def violations(honest: Honest, data: bytes, receipts: Sequence[Receipt] | None,
               report: Report) -> dict[int, str]:
    """The clauses of the oracle (the module's docstring) an OK verdict broke: clause number
    to what was found (the first instance of each)."""
    found: dict[int, str] = {}
    events: list[Event] = json.loads(data)["events"]
    for seat, key in enumerate(honest.seat_keys):
        registered = [e for e in events if e["type"] == "seat_key" and e.get("seat") == seat]
        if not any(e["public_key"] == key.public_text for e in registered):
            found.setdefault(1, f"seat {seat} is pinned, but no seat_key event of it registers "
                             f"its key (its seat_key events: {registered})")
    for event in events:
        seat = event.get("seat")
        if (event["type"] in SEAT_SIGNED_TYPES and isinstance(seat, int) and seat < 2
                and _spoken(event) not in honest.spoken[seat]):
            found.setdefault(2, f"event {event['seq']} ({event['type']}) speaks for pinned "
                             f"seat {seat} and is not an event it made"
                             + ("" if "sig" in event else " (it carries no signature)"))
    if _forged_deal(events) != honest.deal and (
            receipts is not None or not _server_refused_a_write(report)):
        found[3] = ("the deal is not the honest deal; the report's deal line: "
                    f"{report.facts['deal_influence']['text']!r}"
                    + (" (receipts given)" if receipts is not None else ""))
    if receipts is not None:
        hashes = [event_hash(event) for event in events]
        for receipt in receipts:
            if receipt.seq >= len(hashes) or hashes[receipt.seq] != receipt.event:
                found.setdefault(4, f"a player holds a receipt for event {receipt.seq}, which "
                                 "is not in the bundle (the bundle's match id: "
                                 f"{events[0]['match_id']!r})")
    return found


def check_oracle(honest: Honest, data: bytes, receipts: Sequence[Receipt] | None,
                 report: Report) -> None:
    """Assert every clause; each is its own assertion, so that Hypothesis reports each failing
    clause as a bug of its own."""
    found = violations(honest, data, receipts, report)
    assert 1 not in found, f"OK with every seat pinned, but clause 1 fails: {found[1]}"
    assert 2 not in found, f"OK with every seat pinned, but clause 2 fails: {found[2]}"
    assert 3 not in found, f"OK with every seat pinned, but clause 3 fails: {found[3]}"
    assert 4 not in found, f"OK with the receipts, but clause 4 fails: {found[4]}"


def _describe(case: Case, honest: Honest) -> str:
    parts = [f"match: {honest.name}", f"seal: {case.seal}",
             f"receipts: {'given' if case.with_receipts and honest.receipts else 'none'}"]
    parts += [f"edit: {edit}" for edit in case.edits]
    if case.finish is not None:
        parts.append(f"finish: {case.finish}")
    return "\n".join(parts)


def play(case: Case, matches: list[Honest], tally: Callable[[str], None]) -> None:
    """Forge one bundle from ``case``, verify it with the true pins, check the oracle."""
    honest = matches[case.match % len(matches)]
    data = Forger(honest, case).forge()
    receipts = honest.receipts if case.with_receipts else None
    report = verify_bytes(data, honest.server_key.public_text, honest.pins, receipts)
    tally("cases")
    if report.failure is not None:
        tally("FAIL")
        tally(f"FAIL {report.failure.check}")
        return
    tally("OK")
    note(_describe(case, honest))
    try:
        check_oracle(honest, data, receipts, report)
    except AssertionError:
        tally("violations")
        raise


@settings(settings.get_profile(campaign.profile_name()))
@given(case=cases)
def test_no_forgery_verifies_as_the_honest_match(case: Case) -> None:
    """Whatever a server holding only its own key does to honest signed matches, an OK with
    the seats' keys pinned (and their receipts, where given) vouches only for what the seats
    signed and for the honest deal. The oracle is the module's docstring."""
    play(case, honest_matches(), campaign.tally)


def test_the_honest_matches_verify_and_the_oracle_accepts_them() -> None:
    """The honest case beside the forgeries: each untouched match, re-sealed as the forger
    re-seals, verifies with its pins and satisfies every clause of the oracle."""
    for index, honest in enumerate(honest_matches()):
        case = Case(index, (), None, "keep", honest.receipts is not None)
        data = Forger(honest, case).forge()
        report = verify_bytes(data, honest.server_key.public_text, honest.pins,
                              honest.receipts)
        assert report.ok, (honest.name, report.failure)
        check_oracle(honest, data, honest.receipts, report)


# the classes the property found on protocol v2 as first released (docs/guarantees.md, "The
# adversary as a property"), shrunk: the oracle must call each a forgery whatever the verifier
# answers — the verifier is judged against the oracle, never the other way round
PIN_MISSING_EXPIRED = Case(0, (), ("finish", "genesis", ("expire", "expire"), []), "keep", False)
PIN_MISSING_VERSION_1 = Case(0, (("protocol", PROTOCOL_V1),),
                             ("finish", "genesis", ("expire", "expire"), []), "recommit", False)
#: the server refuses every write of both seats: their seeds expire, every turn times out
REFUSES_EVERY_WRITE = Case(3, (), ("finish", "keys", ("expire", "expire"), [0]), "keep", True)
#: the same under another match id, re-committed: the players' receipts name the honest one
REFUSES_UNDER_ANOTHER_ID = Case(3, (("match_id", "forged"),),
                                ("finish", "keys", ("expire", "expire"), [0]), "recommit", True)


@pytest.mark.parametrize("case", [PIN_MISSING_EXPIRED, PIN_MISSING_VERSION_1],
                         ids=["seeds-expired-moves-unsigned", "reforged-as-version-1"])
def test_the_oracle_calls_a_pinned_seat_with_no_signed_events_a_forgery(case: Case) -> None:
    """The server drops the seats' keys and writes everything itself, unsigned: the bundle is
    consistent (it verifies with no pin), and the oracle finds a pinned seat with no key
    (clause 1) and events that speak for it unsigned (clause 2)."""
    honest = honest_matches()[case.match]
    data = Forger(honest, case).forge()
    unpinned = verify_bytes(data, honest.server_key.public_text)
    assert unpinned.ok, unpinned.failure
    assert sorted(violations(honest, data, None, unpinned)) == [1, 2]


def test_a_server_refusing_every_write_is_caught_by_the_receipts_alone() -> None:
    """`refuses-a-write`, to its end: the server keeps the seats' keys, lets both seeds expire
    and times out every turn. Nothing a seat signed is altered and the report says the server
    could have chosen the deal, so the oracle accepts the OK with both pins (clause 3's one
    exception); the players' receipts refuse the bundle."""
    honest = honest_matches()[REFUSES_EVERY_WRITE.match]
    data = Forger(honest, REFUSES_EVERY_WRITE).forge()
    pinned = verify_bytes(data, honest.server_key.public_text, honest.pins)
    assert pinned.ok, pinned.failure
    assert ["server"] in pinned.facts["deal_influence"]["colluders_needed"]
    assert violations(honest, data, None, pinned) == {}
    with_receipts = verify_bytes(data, honest.server_key.public_text, honest.pins,
                                 honest.receipts)
    assert with_receipts.failure is not None
    assert with_receipts.failure.check == "receipts"
    assert "server-signed proof of tampering" in with_receipts.failure.reason


def test_the_oracle_holds_receipts_to_their_match_whatever_id_the_bundle_claims() -> None:
    """The server refuses every write and re-seals the match under another match id: the
    players' receipts name the honest id, so a verifier that sets them aside as "for other
    matches" vouches for a deal the server chose. The oracle calls it a forgery: the deal is
    not the honest one though receipts were given (clause 3), and the receipted events are
    missing (clause 4)."""
    honest = honest_matches()[REFUSES_UNDER_ANOTHER_ID.match]
    data = Forger(honest, REFUSES_UNDER_ANOTHER_ID).forge()
    unpinned = verify_bytes(data, honest.server_key.public_text)
    assert unpinned.ok, unpinned.failure
    assert json.loads(data)["events"][0]["match_id"] == "forged"
    assert sorted(violations(honest, data, honest.receipts, unpinned)) == [3, 4]
