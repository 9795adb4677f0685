"""The read side of the ledger: match lists and views, the boards drawn as SVG, the captions
of moves, the public events and the sealed bundles. It writes nothing itself: a read that finds
a deadline passed has ``Deadlines`` write the timeouts first (``Deadlines.fresh``).
"""

from __future__ import annotations

import json
from collections.abc import Iterator, Mapping, Sequence
from typing import Any

from fairdeal.games import RulesError
from fairdeal.verifier.canonical import canonical_bytes
from fairdeal.verifier.keys import SigningKey, key_id, parse_public_key
from fairdeal.verifier.logleaf import seat_counts as log_seat_counts
from fairdeal.verifier.protocol import BUNDLE_FORMAT
from fairdeal.verifier.record import MatchRecorder
from fairdeal.verifier.replay import MatchReplayer
from fairdeal.verifier.report import VerificationError

from .deadlines import Deadlines
from .errors import BadRequest, MatchNotFound, NotEnded
from .live import LiveMatch, LiveMatches, Position, log, match_status, seating_deadline
from .store import EventStore
from .tlog import LogError, TransparencyLog

__all__ = ["ReadSide"]


class ReadSide:
    """What the viewer and the API read (see ``Ledger`` for the list)."""

    def __init__(self, matches: LiveMatches, deadlines: Deadlines, store: EventStore,
                 server_key: SigningKey, transparency_log: TransparencyLog) -> None:
        self.matches = matches
        self.deadlines = deadlines
        self.store = store
        self.server_key = server_key
        self.log = transparency_log

    def _summary(self, row: Mapping[str, Any]) -> dict[str, Any]:
        signed_by = self.signed_by(row["seal_key"])
        return {
            "id": row["id"], "game": row["game"], "params": json.loads(row["params"]),
            "seats": json.loads(row["seat_names"]), "status": row["status"],
            "result": json.loads(row["result"]) if row["result"] else None,
            # "verified" is this server's word: a bundle sealed under another key passed
            # every check under that key, which proves nothing about who wrote it
            "verified": bool(row["verified"]) and bool(signed_by and signed_by["this_server"]),
            "signed_by": signed_by, "imported": row["status"] == "imported",
            "created_ms": row["created_ms"], "events": row["next_seq"],
        }

    def summary(self, row: Mapping[str, Any]) -> dict[str, Any]:
        """A match row as the listings show it (``list_matches``'s items)."""
        return self._summary(row)

    def signed_by(self, seal_key: str | None) -> dict[str, Any] | None:
        """Who sealed a match: ``{"key", "key_id", "this_server"}`` for the public key a
        sealed bundle is signed with (``this_server``: it is the key this server holds now);
        None while the match is not sealed."""
        if seal_key is None:
            return None
        return {"key": seal_key, "key_id": key_id(parse_public_key(seal_key)),
                "this_server": seal_key == self.server_key.public_text}

    def list_matches(self, limit: int = 50, offset: int = 0, game: str | None = None,
                     signer: str | None = None) -> list[dict[str, Any]]:
        """Match summaries, newest first (see the class docstring). ``signer="this"`` keeps
        the matches sealed under this server's key, ``"other"`` those sealed under another
        key (imported ones); matches not sealed yet are in neither."""
        if signer not in (None, "this", "other"):
            raise BadRequest(f"signer must be 'this' or 'other', got {signer!r}",
                             code="invalid-query")
        own = self.server_key.public_text
        rows = self.store.matches(limit=max(0, min(int(limit), 500)),
                                  offset=max(0, int(offset)), game=game,
                                  sealed_by=own if signer == "this" else None,
                                  sealed_by_other_than=own if signer == "other" else None)
        return [self._summary(row) for row in rows]

    def get_match(self, match_id: str) -> dict[str, Any]:
        """One match's summary, commitment and timing; MatchNotFound when there is none."""
        row = self.store.match(match_id) if isinstance(match_id, str) else None
        if row is None:
            raise MatchNotFound(f"no match {match_id!r}")
        return {**self._summary(row), "commitment": row["commitment"],
                "turn_limit_ms": row["turn_limit_ms"], "deadline_ms": row["deadline_ms"],
                "next_seq": row["next_seq"]}

    def view(self, match_id: str, token: str | None = None) -> dict[str, Any]:
        """The match as the caller may see it: a seat's own view with its legal actions, or the
        spectator view. Carries ``next_seq`` (the next ``expected_seq``) and ``head`` (the
        ``prev`` of the next event, for seats that sign)."""
        live = self.deadlines.fresh(match_id)
        seat = None if token is None else live.seat(token)
        recorder = live.recorder
        if recorder is None:  # imported: everything is public after the reveal
            match = self.get_match(match_id)
            match.update(next_seq=match["events"], head=None, seat=seat, current_seat=None,
                         state=None, legal_actions=[])
            return match
        with live.lock:
            if live.stale:  # a failed write elsewhere dropped it: read again
                return self.view(match_id, token)
            return self.view_of(live, seat)

    def view_of(self, live: LiveMatch, seat: int | None) -> dict[str, Any]:
        """``view`` of a cached live match; call with ``live.lock`` held (the seat actions call
        it right after their append, so a move's answer carries the seat's next view)."""
        recorder = live.recorder
        assert recorder is not None
        live.status = match_status(recorder)
        if live.status not in ("seating", "playing"):  # the row changed: read it
            return self._ended_view(live, recorder, seat)
        position = live.position
        if position is None or position.next_seq != recorder.next_seq \
                or position.head != recorder.head:
            position = live.position = self._position(live, recorder)
        match = position.view.copy()
        # the lists as new ones, as every answer had them: the position's stay as they are
        match["seeded"] = list(match["seeded"])
        match["seeds"] = list(match["seeds"])
        match["seat_keys"] = list(match["seat_keys"])
        state = recorder.state
        legal: list[Any] = []
        if seat is not None and seat == position.current and position.playing:
            # asked once a position (by the seat to act), and each answer's own objects
            legal = _legal_actions(recorder)
        match["seat"] = seat
        match["state"] = None if state is None else recorder.game.view(state, seat)
        match["legal_actions"] = legal
        return match

    def _position(self, live: LiveMatch, recorder: MatchRecorder) -> Position:
        """What every seat's view of a seating or playing match shares at its position, in
        the answer's key order (the seat's own part, ``None`` here, is set per view)."""
        if live.summary is None:
            live.summary = {**self._summary(live.row), "commitment": live.row["commitment"],
                            "turn_limit_ms": live.row["turn_limit_ms"]}
        replayer = recorder.replayer
        state = recorder.state
        current = None if state is None else recorder.game.current_seat(state)
        view = {**live.summary, "events": recorder.next_seq, "next_seq": recorder.next_seq,
                "head": recorder.head, "seat": None, "status": live.status,
                **self._progress(live, recorder, current), "state": None,
                "legal_actions": None}
        return Position(recorder.next_seq, recorder.head, view, current,
                        replayer.outcome is None)

    def _ended_view(self, live: LiveMatch, recorder: MatchRecorder,
                    seat: int | None) -> dict[str, Any]:
        """``view_of`` once the match is over: its row as stored now, and the last state."""
        match = self.get_match(live.match_id)
        state = recorder.state
        current = None if state is None else recorder.game.current_seat(state)
        legal: list[Any] = []
        if seat is not None and current == seat and recorder.replayer.outcome is None:
            legal = _legal_actions(recorder)
        match.update(
            next_seq=recorder.next_seq, head=recorder.head, seat=seat, status=live.status,
            **self._progress(live, recorder, current),
            state=None if state is None else recorder.game.view(state, seat),
            legal_actions=legal,
        )
        return match

    @staticmethod
    def _progress(live: LiveMatch, recorder: MatchRecorder,
                  current: int | None) -> dict[str, Any]:
        """The view's fields between ``status`` and ``state``: whose turn, the seeds, the
        seat keys and the next deadline."""
        replayer = recorder.replayer
        return {
            "current_seat": current, "started": replayer.started,
            "seeded": list(replayer.seeded),
            "seeds": [seed.how for seed in replayer.seat_seeds],
            "seed_phase": (None if replayer.started or replayer.ended
                           else "reveal" if replayer.revealing else "commit"),
            "protocol": recorder.protocol,
            "seat_keys": [None if key is None else "ed25519:" + key.hex()
                          for key in replayer.seat_keys],
            "deadline_ms": (replayer.deadline_ms() if replayer.started
                            else seating_deadline(recorder, live)
                            if not replayer.ended else None),
        }

    def board_svg(self, match_id: str, token: str | None = None) -> str | None:
        """The board now, drawn by the game itself: ``render_svg(state, None, spectator=True)``
        — public information only — without a token, the seat's own perspective with one.
        None before play starts, and for imported matches (their bundle draws every step)."""
        live = self.deadlines.fresh(match_id)
        seat = None if token is None else live.seat(token)
        recorder = live.recorder
        if recorder is None:
            return None
        with live.lock:
            if live.stale:
                return self.board_svg(match_id, token)
            state = recorder.state
            if state is None:
                return None
            if seat is None and live.drawing is not None and live.drawing[0] == recorder.next_seq:
                return live.drawing[1]
            drawing = recorder.game.render_svg(state, seat, spectator=seat is None)
            if seat is None:  # the live page polls it: draw each position once
                live.drawing = (recorder.next_seq, drawing)
            return drawing

    def spectator_svg(self, match_id: str) -> str | None:
        """The board as a spectator may see it now (see ``board_svg``)."""
        return self.board_svg(match_id, None)

    def public_captions(self, match_id: str, after: int = -1) -> dict[int, str]:
        """One line for people about each move after position ``after``, by seq: the game's
        ``describe_action`` in the state before the move. It names only what the move itself
        makes public (the card played, the troop placed, how many troops are drawn — never
        which); tests/web/api/test_captions.py proves it for every game. It captions the
        events this process holds: call it after ``public_events``, which catches up."""
        live = self.matches.get(match_id)  # no second catch-up read: public_events just did one
        recorder = live.recorder
        if recorder is None:
            return {}
        with live.lock:
            if live.stale:
                return self.public_captions(match_id, after)
            self._narrate(live, recorder)
            return {seq: text for seq, text in live.captions.items() if seq > after}

    def _narrate(self, live: LiveMatch, recorder: MatchRecorder) -> None:
        """Feed the match's narrator up to the recorder, captioning each move on the way."""
        if live.narrator is None:
            live.narrator = MatchReplayer(recorder.events[0],
                                          bytes.fromhex(live.row["server_seed"]))
            live.captions = {}
        narrator = live.narrator
        game = recorder.game
        events = recorder.events
        for event in events[narrator.last_seq + 1:]:
            if event["type"] == "move" and narrator.state is not None:
                try:
                    action = game.parse_action(event["action"])
                    live.captions[event["seq"]] = game.describe_action(narrator.state, action)
                except (RulesError, KeyError, ValueError):
                    pass  # the event list shows the raw action instead
            try:
                narrator.feed(event)
            except VerificationError:  # the recorder checked it already: never expected
                log.error("narrator: match %s stops at event %s", live.match_id, event["seq"])
                return

    def spectator_view(self, match_id: str) -> dict[str, Any]:
        """What anyone may see of a match: public state only."""
        return self.view(match_id, None)

    def seat_view(self, match_id: str, token: str) -> dict[str, Any]:
        """What one seat may see: its own hand and legal actions, nothing of the opponent's."""
        return self.view(match_id, token)

    def public_events(self, match_id: str, after: int = -1,
                      limit: int = 1_000) -> list[dict[str, Any]]:
        """Events after position ``after``. Before the reveal they hold nothing secret."""
        live = self.deadlines.fresh(match_id)
        events = [stored.to_json()
                  for stored in self.store.read(live.match_id, after=after, limit=limit)]
        for event in events:  # the reveal is the only event with a seed, and it is the last
            if "server_seed" in event and event["type"] != "reveal":
                raise RuntimeError("an event other than the reveal carries a seed")
        return events

    def bundle_bytes(self, match_id: str, log_size: int | None = None) -> bytes | None:
        """The sealed bundle (canonical JSON), or None while the match is not over.

        It carries the inclusion proofs of the match's genesis and seal leaves in ``log``
        (c2sp.org/tlog-proof texts) against the latest checkpoint (the newest one a witness
        cosigned, when one holds the match: TransparencyLog.tlog_proofs), or against the
        checkpoint signed at ``log_size`` when given (one a user already trusts)."""
        row = self.store.match(match_id) if isinstance(match_id, str) else None
        if row is None:
            raise MatchNotFound(f"no match {match_id!r}")
        if row["seal_sig"] is None:
            self.deadlines.fresh(match_id)  # an overdue timeout may end it right now
            row = self.store.match(match_id)
            assert row is not None
            if row["seal_sig"] is None:
                return None
        note = None
        if log_size is not None:
            note = self.log.stored_checkpoint(log_size)
            if note is None:
                raise BadRequest(f"the log signed no checkpoint of size {log_size}",
                                 code="invalid-size")
        try:
            proofs = self.log.tlog_proofs(match_id, note)
        except LogError as e:
            if note is not None:
                raise
            # the signer refuses to sign this tree (its tables were changed behind its back):
            # the match stays exportable and verifiable; the refusal is loud where the log is
            # shown (GET /log/checkpoint, /log, each match page)
            log.error("bundle of %s exported without log proofs: %s", match_id, e.message)
            proofs = {}
        if note is not None and set(proofs) != {"genesis", "seal"}:
            raise BadRequest(f"match {match_id} is not wholly in the checkpoint of size "
                             f"{log_size}: it was sealed later", code="invalid-size")
        bodies = [stored.body.encode() for stored in self.store.read(match_id)]
        signature = canonical_bytes({"key": row["seal_key"], "sig": row["seal_sig"]})
        log_part = b',"log":' + canonical_bytes(proofs) if proofs else b""
        return (b'{"events":[' + b",".join(bodies) + b'],"format":'
                + json.dumps(BUNDLE_FORMAT).encode() + log_part + b',"signature":' + signature
                + b"}")

    def bundle(self, match_id: str, log_size: int | None = None) -> bytes:
        """The sealed bundle's bytes; NotEnded before the end."""
        data = self.bundle_bytes(match_id, log_size)
        if data is None:
            raise NotEnded(f"match {match_id} is not over: its bundle is sealed at the end, "
                           "after the reveal")
        return data

    def sealed_bundles(self, page: int = 200) -> Iterator[tuple[str, bytes]]:
        """Every sealed match's id and bundle, oldest first, read ``page`` rows at a time."""
        for row in self._pages(page, ("ended", "imported")):
            if row["seal_sig"] is not None:
                data = self.bundle_bytes(row["id"])
                if data is not None:
                    yield row["id"], data

    def seat_counts(self) -> dict[str, tuple[int, int]]:
        """Per player name: matches created with them, and of those never sealed — counted
        from the transparency log, where every match is a leaf from its creation on, per
        genesis leaf (a match id dealt twice counts twice; imported matches are not this
        server's and are not counted)."""
        return log_seat_counts(self.log.every_leaf())

    def player_counts(self) -> tuple[dict[str, tuple[int, int]], dict[str, tuple[int, int]]]:
        """``(by name, by seat key id)``: matches created and of those never sealed, each seat
        counted once, for its key when it signed with one, else for its name. The names' come
        from the log (``seat_counts``), less the seats that signed with a key; the keys' from
        the seat-key index (keys are registered after the genesis, so the log cannot name
        them: these counts are the database's word, not the log's)."""
        by_key, keyed_names = self.store.key_seat_counts()
        names = {}
        for name, (created, unsealed) in self.seat_counts().items():
            keyed = keyed_names.get(name, [0, 0])
            names[name] = (max(0, created - keyed[0]), max(0, unsealed - keyed[1]))
        return ({name: counts for name, counts in names.items() if counts[0]},
                {kid: (created, unsealed) for kid, (created, unsealed) in by_key.items()})

    def _pages(self, page: int, status: Sequence[str] | None) -> Iterator[dict[str, Any]]:
        after: tuple[int, str] | None = None
        while rows := self.store.matches_after(after, page, status):
            yield from rows
            after = (rows[-1]["created_ms"], rows[-1]["id"])

    def keys(self) -> list[dict[str, Any]]:
        """The server's public keys (the one that signs new matches first)."""
        return [{"key": self.server_key.public_text, "key_id": self.server_key.key_id,
                 "use": "seals matches created here and signs the log's checkpoints",
                 "log_origin": self.log.origin, "log_key": self.log.verifier_key.text()}]


def _legal_actions(recorder: MatchRecorder) -> list[Any]:
    """What the seat to act may play now, as the API writes actions."""
    game = recorder.game
    return [game.action_to_json(action) for action in game.legal_actions(recorder.state)]
