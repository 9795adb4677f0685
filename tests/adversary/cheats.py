"""The cheater's tools and the honest players: a cheating server built on the real ledger, and
seats that keep their receipts.

Every test in this folder plays one attack against the real components — the ledger on a real
SQLite file, the bundled client's receipt check (``ReceiptBook``), ``fairdeal verify`` — and
asserts which defence catches it, or that docs/guarantees.md lists the attack as out of reach.
The cheater holds the server's own key: it can rewrite its database and re-seal any history.
"""

from __future__ import annotations

import copy
import json
from collections.abc import Callable
from pathlib import Path
from typing import Any

from fairdeal.client import ReceiptBook
from fairdeal.games import get_game
from fairdeal.ledger.service import Ledger
from fairdeal.verifier.forge import reseal
from fairdeal.verifier.keys import SigningKey
from fairdeal.verifier.protocol import (
    PROTOCOL_V2,
    client_commitment,
    deal_seed,
    event_hash,
    ply_stream,
    seat_message,
    setup_stream,
)
from fairdeal.verifier.receipts import Receipt, parse_receipts
from fairdeal.verifier.record import MatchRecorder, make_genesis
from fairdeal.verifier.report import Report
from fairdeal.verifier.verify import verify_bytes

ROOT = Path(__file__).parents[2]
GUARANTEES = (ROOT / "docs" / "guarantees.md").read_text()
START_MS = 1_800_000_000_000


class Clock:
    """The server's clock, advanced by the test."""

    def __init__(self) -> None:
        self.now = START_MS

    def __call__(self) -> int:
        return self.now

    def tick(self, ms: int) -> int:
        self.now += ms
        return self.now


class Player:
    """An honest seat: its token, its key (or none), its seed and the receipts it keeps.

    Every write goes through the real ledger and is checked on arrival exactly as the bundled
    client checks it (``ReceiptBook.check``)."""

    def __init__(self, ledger: Ledger, match_id: str, seat: int, token: str,
                 key: SigningKey | None, seed: str) -> None:
        self.ledger, self.match_id, self.seat, self.token = ledger, match_id, seat, token
        self.key, self.seed = key, seed
        self.book = ReceiptBook(ledger.server_key.public_text)

    def _signed(self, kind: str, fields: dict[str, Any]) -> dict[str, Any]:
        if self.key is None:
            return {}
        view = self.ledger.seat_view(self.match_id, self.token)
        draft = {"seq": view["next_seq"], "prev": view["head"], "type": kind,
                 "seat": self.seat, **fields}
        return {"expected_seq": view["next_seq"],
                "sig": self.key.sign(seat_message(draft)).hex()}

    def _check(self, answer: dict[str, Any], kind: str, fields: dict[str, Any],
               extra: dict[str, Any]) -> dict[str, Any]:
        sent = {"type": kind, "seat": self.seat, **fields}
        if "sig" in extra:
            sent["sig"] = extra["sig"]
        self.book.check(answer, sent)
        return answer

    def register(self) -> None:
        assert self.key is not None
        answer = self.ledger.register_key(self.match_id, self.token, self.key.public_text)
        self._check(answer, "seat_key", {"public_key": self.key.public_text}, {})

    def commit(self) -> None:
        fields = {"commitment": client_commitment(self.match_id, self.seat, self.seed)}
        extra = self._signed("seed_commit", fields)
        answer = self.ledger.add_seed(self.match_id, self.token, commitment=fields["commitment"],
                                      expected_seq=extra.get("expected_seq"),
                                      sig=extra.get("sig"))
        self._check(answer, "seed_commit", fields, extra)

    def reveal(self) -> None:
        fields = {"client_seed": self.seed}
        extra = self._signed("seed_reveal", fields)
        answer = self.ledger.add_seed(self.match_id, self.token, self.seed,
                                      expected_seq=extra.get("expected_seq"),
                                      sig=extra.get("sig"))
        self._check(answer, "seed_reveal", fields, extra)

    def decline(self) -> None:
        fields = {"client_seed": None}
        extra = self._signed("client_seed", fields)
        answer = self.ledger.add_seed(self.match_id, self.token, None,
                                      expected_seq=extra.get("expected_seq"),
                                      sig=extra.get("sig"))
        self._check(answer, "client_seed", fields, extra)

    def one_step(self) -> None:
        fields = {"client_seed": self.seed}
        extra = self._signed("client_seed", fields)
        answer = self.ledger.add_seed(self.match_id, self.token, self.seed,
                                      expected_seq=extra.get("expected_seq"),
                                      sig=extra.get("sig"))
        self._check(answer, "client_seed", fields, extra)

    def move(self, action: Any, client_ts: int | None = None) -> dict[str, Any]:
        view = self.ledger.seat_view(self.match_id, self.token)
        action_id = f"s{self.seat}-{view['next_seq']}"
        fields: dict[str, Any] = {"action": action, "action_id": action_id}
        extra: dict[str, Any] = {}
        if self.key is not None:
            fields["client_ts"] = self.ledger.clock() if client_ts is None else client_ts
            extra = self._signed("move", fields)
        answer = self.ledger.play(self.match_id, self.token, action,
                                  expected_seq=view["next_seq"], action_id=action_id,
                                  client_ts=fields.get("client_ts"), sig=extra.get("sig"))
        return self._check(answer, "move", fields, extra)

    def resign(self) -> dict[str, Any]:
        """The seat resigns (signed, with its own clock, if it has a key)."""
        fields: dict[str, Any] = {}
        extra: dict[str, Any] = {}
        if self.key is not None:
            fields["client_ts"] = self.ledger.clock()
            extra = self._signed("resign", fields)
        answer = self.ledger.resign(self.match_id, self.token,
                                    expected_seq=extra.get("expected_seq"),
                                    client_ts=fields.get("client_ts"), sig=extra.get("sig"))
        return self._check(answer, "resign", fields, extra)

    @property
    def receipts(self) -> list[Receipt]:
        return parse_receipts(json.dumps(self.book.receipts))

    @property
    def pin(self) -> dict[str, str]:
        assert self.key is not None
        return {str(self.seat): self.key.public_text}


class Match:
    """One match on the real ledger, with its honest players."""

    def __init__(self, ledger: Ledger, clock: Clock, game: str = "arcomage",
                 signed: tuple[bool, bool] = (True, True), turn_limit_ms: int | None = 60_000,
                 seeds: tuple[str, str] = ("a1" * 32, "b2" * 32)) -> None:
        self.ledger, self.clock = ledger, clock
        created = ledger.create_match(game, {}, turn_limit_ms=turn_limit_ms)
        self.id = created["id"]
        self.game = get_game(game)
        self.players = [
            Player(ledger, self.id, seat, info["token"],
                   SigningKey.from_seed(bytes([seat + 7]) * 32) if signed[seat] else None,
                   seeds[seat])
            for seat, info in enumerate(created["seats"])]
        for player in self.players:
            if player.key is not None:
                player.register()

    def seat_both_in_two_steps(self) -> None:
        for player in self.players:
            self.clock.tick(200)
            player.commit()
        for player in self.players:
            self.clock.tick(200)
            player.reveal()

    @property
    def state(self) -> Any:
        return self.ledger.matches.get(self.id).recorder.state

    def current(self) -> Player:
        seat = self.game.current_seat(self.state)
        return self.players[seat]

    def play_to_the_end(self, choose: Callable[[list[Any]], Any] | None = None,
                        limit: int = 4_000) -> None:
        for _ in range(limit):
            if self.ledger.spectator_view(self.id)["status"] == "ended":
                return
            player = self.current()
            view = self.ledger.seat_view(self.id, player.token)
            self.clock.tick(500)
            options = view["legal_actions"]
            player.move(choose(options) if choose else options[0])
        raise AssertionError("the match did not end")

    def bundle(self) -> dict[str, Any]:
        return json.loads(self.ledger.bundle(self.id))


def verify(bundle: dict[str, Any] | bytes, trusted: SigningKey | None = None,
           pins: dict[str, str] | None = None,
           receipts: list[Receipt] | None = None) -> Report:
    data = bundle if isinstance(bundle, bytes) else json.dumps(bundle).encode()
    return verify_bytes(data, trusted.public_text if trusted else None, pins, receipts)


def continue_as_server(events: list[dict[str, Any]], server_seed: bytes,
                       choose: Callable[[Any, list[Any]], Any], key: SigningKey) -> dict[str, Any]:
    """A server rewriting history from ``events`` on: it plays every later move itself (it can
    only do so for seats that sign nothing), then reveals and seals with its key."""
    recorder = MatchRecorder.resume(copy.deepcopy(events), server_seed)
    ts = events[-1]["ts"]
    while recorder.replayer.outcome is None:
        state = recorder.state
        seat = recorder.game.current_seat(state)
        options = recorder.game.legal_actions(state)
        ts += 500
        recorder.append("move", ts, seat=seat,
                        action=recorder.game.action_to_json(choose(state, options)))
    recorder.reveal(ts + 10)
    return recorder.seal(key)


def forge_match(bundle: dict[str, Any], key: SigningKey, *,
                seeds: dict[int, str] | None = None,
                keys: dict[int, SigningKey] | None = None,
                signers: dict[int, SigningKey] | None = None,
                choose: Callable[[Any, list[Any]], Any] = lambda state, options: options[0],
                ) -> dict[str, Any]:
    """What a server holding ``key`` does to rewrite a match from its seating on: it keeps the
    genesis (its commitment binds it), replaces seats' seeds (``seeds``) and registered keys
    (``keys``), re-signs every event of a seat whose key it holds (``signers``: its own impostor
    keys, or a colluding player's), keeps every other signature as it was, deals anew, plays the
    whole match itself, reveals and re-seals. Nothing here is checked: the verifier does that."""
    seeds, keys, signers = seeds or {}, keys or {}, signers or {}
    events = copy.deepcopy(bundle["events"])
    genesis = events[0]
    match_id = genesis["match_id"]
    server_seed = bytes.fromhex(events[-1]["server_seed"])
    forged = [genesis]
    client_seeds: list[str | None] = [None] * len(genesis["seats"])

    def add(event: dict[str, Any]) -> dict[str, Any]:
        event["seq"], event["prev"] = len(forged), event_hash(forged[-1])
        seat = event.get("seat")
        if seat in signers and "sig" in event:
            event["sig"] = signers[seat].sign(seat_message(event)).hex()
        forged.append(event)
        return event

    for event in events[1:]:
        kind, seat = event["type"], event.get("seat")
        if kind in ("move", "timeout", "resign", "reveal"):
            break
        if kind == "seat_key" and seat in keys:
            event["public_key"] = keys[seat].public_text
        if seat in seeds and kind == "seed_commit":
            event["commitment"] = client_commitment(match_id, seat, seeds[seat])
        if seat in seeds and kind in ("seed_reveal", "client_seed"):
            event["client_seed"] = seeds[seat]
        if kind in ("seed_reveal", "client_seed"):
            client_seeds[seat] = event["client_seed"]
        add(event)
    keyed = {e["seat"] for e in forged if e["type"] == "seat_key"}
    _play_out(genesis, server_seed, client_seeds, forged[-1]["ts"], choose, add, keyed)
    return reseal({"format": bundle["format"], "events": forged}, key)


def _play_out(genesis: dict[str, Any], server_seed: bytes, client_seeds: list[str | None],
              ts: int, choose: Callable[[Any, list[Any]], Any],
              add: Callable[[dict[str, Any]], Any], signing: set[int]) -> None:
    """The rest of the match as the server writes it: from the deal those seeds give, every
    play ``choose`` picks (500 ms apart, from ``ts``), then the reveal, each handed to ``add``.
    A seat in ``signing`` gets a placeholder signature (which ``add`` re-signs if it holds the
    seat's key)."""
    game = get_game(genesis["game"])
    deal = deal_seed(server_seed, genesis["match_id"], client_seeds)
    state = game.setup(genesis["params"], setup_stream(deal))
    ply = 0
    while game.result(state) is None:
        seat = game.current_seat(state)
        action = choose(state, game.legal_actions(state))
        ts += 500
        move: dict[str, Any] = {"type": "move", "ts": ts, "seat": seat,
                                "action": game.action_to_json(action)}
        if seat in signing:
            move.update(client_ts=ts, sig="00" * 64)
        add(move)
        state = game.apply(state, action, ply_stream(deal, ply))
        ply += 1
    outcome = game.result(state)
    assert outcome is not None
    add({"type": "reveal", "ts": ts + 10, "server_seed": server_seed.hex(),
         "result": outcome.to_json()})


def opening_hand_value(game_name: str, deal_seed_state: Any, seat: int) -> int:
    """How good a two-tower opening hand is for ``seat``: the total cost of its cards (what a
    grinding server would maximise)."""
    game = get_game(game_name)
    data = game.state_to_json(deal_seed_state)
    cards = {card["id"]: card for card in game.rules_data()["cards"]}
    return sum(cards[card]["cost"] for card in data["players"][seat]["hand"])


def reforged_under(bundle: dict[str, Any], key: SigningKey) -> dict[str, Any]:
    """The whole history re-created under another server key: the genesis names the new key,
    the commitment is recomputed, everything is relinked and re-sealed."""
    bundle = copy.deepcopy(bundle)
    bundle["events"][0]["server_key_id"] = key.key_id
    return reseal(bundle, key, recommit=True)


def server_written(bundle: dict[str, Any], key: SigningKey, *, protocol: str = PROTOCOL_V2,
                   seating_ms: int | None = None, seeds: dict[int, str | None] | None = None,
                   keys: dict[int, str] | None = None,
                   choose: Callable[[Any, list[Any]], Any] = lambda state, options: options[0],
                   ) -> dict[str, Any]:
    """What a server holding ``key`` writes with no player in it at all, for the match of
    ``bundle`` (its id, game, params, seat names, start and server seed): a new genesis under
    ``protocol`` (fairdeal/2: with ``seating_ms``, the original's by default); a ``seat_key``
    for each seat in ``keys`` (players' public keys: the server knows them, it cannot sign with
    them); each seat's seed fixed by the server itself — ``seeds[seat]`` as an unsigned
    ``client_seed`` of its choosing (None: a decline), or under fairdeal/2 for a seat not in
    ``seeds`` a ``seed_expired`` stamped at the seating deadline; every play its own, unsigned;
    the reveal, and its seal. No log proofs: the log holds the real match, so the forger
    leaves them out."""
    seeds, keys = seeds or {}, keys or {}
    original = bundle["events"][0]
    server_seed = bytes.fromhex(bundle["events"][-1]["server_seed"])
    window = original.get("seating_ms", 300_000) if seating_ms is None else seating_ms
    genesis = make_genesis(game_name=original["game"], params=original["params"],
                           seats=[seat["name"] for seat in original["seats"]],
                           match_id=original["match_id"], server_seed=server_seed,
                           server_key_id=key.key_id, turn_limit_ms=original["turn_limit_ms"],
                           ts=original["ts"], seating_ms=window, protocol=protocol,
                           rules_version=original["rules_version"])
    events = [genesis]

    def add(event: dict[str, Any]) -> None:
        events.append({"seq": len(events), "prev": event_hash(events[-1]), **event})

    ts = genesis["ts"]
    for seat, public in sorted(keys.items()):
        ts += 10
        add({"type": "seat_key", "ts": ts, "seat": seat, "public_key": public})
    client_seeds: list[str | None] = [None] * len(genesis["seats"])
    for seat in range(len(genesis["seats"])):
        if seat in seeds:
            ts += 10
            client_seeds[seat] = seeds[seat]
            add({"type": "client_seed", "ts": ts, "seat": seat, "client_seed": seeds[seat]})
        else:
            ts = max(ts, genesis["ts"] + window)
            add({"type": "seed_expired", "ts": ts, "seat": seat})
    _play_out(genesis, server_seed, client_seeds, ts, choose, add, set())
    return reseal({"format": bundle["format"], "events": events}, key)
