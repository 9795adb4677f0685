"""The match lifecycle over the event store: create, seat keys, client seeds, moves, timeouts,
resignation, reveal and seal, export and import.

``Ledger`` is a façade over parts that each receive what they need in their constructor, and
that ``Ledger.__init__`` builds and wires (docs/architecture.md, "The composed ledger"):

- ``live.LiveMatches`` — the cache of live matches and the one write path (every event goes
  through the verifier's ``MatchRecorder`` before it is stored);
- ``deadlines.Deadlines`` — overdue timeouts and seat declines, and the background sweeper;
- ``reading.ReadSide`` — views, SVG boards, captions, public events and sealed bundles;
- ``imports.BundleImports`` — bundles from elsewhere, verified and stored read-only;
- ``creating.MatchCreator`` and ``seats.SeatActions`` — what the seats do: create, seat keys,
  client seeds, moves, resignation;
- ``tournaments_results.TournamentResults`` and ``tournaments_read.TournamentReads`` —
  tournaments (docs/tournaments.md): their lifecycle, results synced from their matches (the
  sweeper runs ``sync_tournaments``), disputes, rulings, bundles and exports.

Time: every event is stamped with the server clock when it is accepted, and that clock alone
governs every deadline; a seat that signs its moves puts its own clock in them (``client_ts``)
as evidence only, so no seat can shorten the opponent's turn by backdating its move (matches
created under fairdeal/1 keep the old rule until they end). A timeout is always stamped with
the deadline itself (previous event's ts + turn limit), whether the background sweeper writes it
on time or a request finds it late: the record is the same as if it had been written at the
deadline.
"""

from __future__ import annotations

import os
from collections.abc import Callable, Iterator, Mapping, Sequence
from typing import Any

from fairdeal.verifier.keys import SigningKey
from fairdeal.verifier.note import VerifierKey
from fairdeal.verifier.protocol import PROTOCOL

from .creating import DEFAULT_SEED_DEADLINE_MS, DEFAULT_TURN_LIMIT_MS, CreatedMatch, MatchCreator
from .deadlines import Deadlines
from .imports import BundleImports, Imported
from .live import MAX_SKEW_MS, LiveMatches, now_ms
from .players import KeyPages
from .ratelimits import SharedBuckets
from .reading import ReadSide
from .seats import SeatActions, SeatAnswer, signed_receipt
from .store import EventStore
from .tlog import TransparencyLog, default_origin, witness_keys
from .tournaments import TournamentStore
from .tournaments_life import TournamentCore, TournamentLife
from .tournaments_read import TournamentReads
from .tournaments_results import TournamentResults

__all__ = ["DEFAULT_SEED_DEADLINE_MS", "DEFAULT_TURN_LIMIT_MS", "Ledger", "now_ms"]


class Ledger:
    """Live matches on a database, and the sealed and imported ones.

    The viewer and the API call these methods (JSON-ready values, or typed answers that read
    as their JSON: ``CreatedMatch``, ``SeatAnswer``, ``Imported``):

    - ``list_matches(limit=50, offset=0, game=None, signer=None)`` → summaries: id, game,
      params, seats, status (``seating``/``playing``/``ended``/``imported``), result, verified
      (only under this server's own key), signed_by, created_ms, events.
    - ``get_match(match_id)`` → one summary plus commitment, turn limit, deadline, server key id.
    - ``public_events(match_id, after=-1)`` → the events after a position. Before the reveal no
      event carries anything secret (events never hold the server seed, hands or deck order).
    - ``bundle_bytes(match_id)`` → the sealed bundle's bytes, or None before the end.
    - ``import_bundle(data)`` → ``(match_id, report)``; ``match_id`` is None when it failed.
    - ``spectator_view(match_id)`` / ``seat_view(match_id, token)`` → what they may see.

    ``clock`` may be swapped after construction (the tests do): every part reads it through
    the façade.
    """

    def __init__(self, store: EventStore, server_key: SigningKey, *,
                 clock: Callable[[], int] = now_ms, max_skew_ms: int = MAX_SKEW_MS,
                 log_origin: str | None = None,
                 log_witnesses: Sequence[VerifierKey] = ()) -> None:
        self.store = store
        self.server_key = server_key
        self.clock = clock
        self.max_skew_ms = max_skew_ms
        #: the transparency log of every genesis and seal written here (ledger.tlog)
        self.log = TransparencyLog(store.engine, server_key,
                                   log_origin or default_origin(server_key.key_id),
                                   log_witnesses)
        #: the live matches' cache and the one write path every other part writes through
        self.matches = LiveMatches(store, server_key, self.log)
        self.deadlines = Deadlines(self.matches, store, self._now)
        self.reading = ReadSide(self.matches, self.deadlines, store, server_key, self.log)
        self.imports = BundleImports(store)
        self.creator = MatchCreator(store, server_key, self._now)
        self.seats = SeatActions(self.matches, self.deadlines, self.reading, store,
                                 self.receipt, self._now, max_skew_ms)
        #: players by the key they sign with, and the search (ledger.players)
        self.players = KeyPages(store, self.reading.summary)
        #: tournaments (ledger.tournaments*): what every action shares, the lifecycle, the
        #: results and rulings, and the reads
        self.tournament_core = TournamentCore(TournamentStore(store.engine, store.writes),
                                              store, server_key, self._now)
        self.tournament_life = TournamentLife(self.tournament_core)
        self.tournaments = TournamentResults(self.tournament_core, self.tournament_life,
                                             self.reading.bundle_bytes)
        self.tournament_reads = TournamentReads(self.tournament_core, self.tournaments,
                                                self.log, self.reading.bundle_bytes)
        self.deadlines.hooks.append(self.sync_tournaments)

    @classmethod
    def open(cls, data_dir: Any, database_url: str | None = None, **kwargs: Any) -> Ledger:
        """The ledger of a data folder (its SQLite file and key), or of ``database_url``."""
        from .keys import load_or_create_server_key
        from .store import database_url as url_for
        from .store import open_engine

        engine = open_engine(url_for(data_dir, database_url))
        kwargs.setdefault("log_origin", os.environ.get("FAIRDEAL_LOG_ORIGIN") or None)
        kwargs.setdefault("log_witnesses", witness_keys(os.environ.get("FAIRDEAL_LOG_WITNESSES")))
        return cls(EventStore(engine), load_or_create_server_key(data_dir), **kwargs)

    def rate_buckets(self) -> SharedBuckets:
        """The shared rate-limit buckets beside this ledger's database (``EventStore``)."""
        return self.store.rate_buckets()

    def _now(self) -> int:
        """The clock the parts are given: whatever ``self.clock`` is at the time of the call."""
        return self.clock()

    # --- what the seats do ---------------------------------------------------------------------

    def create_match(self, game: str, params: Mapping[str, Any] | None = None, *,
                     turn_limit_ms: int | None = DEFAULT_TURN_LIMIT_MS,
                     seats: Sequence[str] | None = None,
                     seed_deadline_ms: int | None = None,
                     protocol: str = PROTOCOL) -> CreatedMatch:
        """Create a match: draw its server seed, publish the commitment, issue seat tokens.

        The tokens are returned here once and only their hashes are kept. A seat that has not
        fixed its seed ``seed_deadline_ms`` after the creation (default: the turn limit but at
        least MIN_SEATING_MS, or DEFAULT_SEED_DEADLINE_MS without one; never less than
        MIN_SEATING_MS, which every verifier checks) is declined by the server; a seat that
        committed and has not revealed as long after the last seed was fixed forfeits.
        ``protocol`` is always the current one for new matches; ``fairdeal/1`` exists so that
        the tests can recreate a live match of a database that predates version 2.
        """
        return self.creator.create_match(game, params, turn_limit_ms=turn_limit_ms,
                                         seats=seats, seed_deadline_ms=seed_deadline_ms,
                                         protocol=protocol)

    def seat_of(self, match_id: str, token: str | None) -> int:
        """The seat a token opens; Unauthorized without one, Forbidden for a wrong one."""
        return self.matches.get(match_id).seat(token)

    def register_key(self, match_id: str, token: str | None, public_key: Any) -> SeatAnswer:
        """A seat registers its Ed25519 key; from then on it must sign its moves. Returns
        ``{"event", "view"}``: the stored event and the seat's view after it."""
        return self.seats.register_key(match_id, token, public_key)

    def add_seed(self, match_id: str, token: str | None, client_seed: Any = None, *,
                 commitment: Any = None, expected_seq: Any = None,
                 sig: Any = None) -> SeatAnswer:
        """A seat's seed, in one step or two (fairdeal/2, docs/SPEC.md §4).

        - ``commitment`` (64 hex): the first of two steps, a ``seed_commit``;
        - ``client_seed`` (64 hex) after a commitment: its ``seed_reveal``, accepted only once
          every seat has committed or declined, and only if it opens the commitment;
        - ``client_seed`` (64 hex) without one: commit and reveal at once (``client_seed``);
        - ``client_seed`` None (no commitment): decline.

        A seat that registered a key signs the event (``expected_seq`` and ``sig`` over
        ``seat_message`` of ``{seq, prev, type, seat, commitment | client_seed}``). Play starts,
        and the deal is fixed, once every seed is in. Returns ``{"event", "view", "receipt"}``.
        """
        return self.seats.add_seed(match_id, token, client_seed, commitment=commitment,
                                   expected_seq=expected_seq, sig=sig)

    def play(self, match_id: str, token: str | None, action: Any, *, expected_seq: Any,
             action_id: Any, client_ts: Any = None, sig: Any = None,
             ts: Any = None) -> SeatAnswer:
        """Record a seat's move after the rules accept it. Returns ``{"event", "replayed",
        "view"}``: ``view`` is the seat's ``view`` after the move (``next_seq``, ``head``,
        ``legal_actions``…), so a client needs no read between its moves.

        A retry with an ``action_id`` already recorded returns the stored event
        (``replayed: true``) and stores nothing. A seat with a registered key sends
        ``client_ts`` (its own clock, kept as evidence) and ``sig``: the Ed25519 signature of
        ``seat_message(event)`` for ``{seq: expected_seq, prev: head, type: "move", seat,
        action, action_id, client_ts}``. The event's ``ts`` is always the server's clock, which
        alone governs every deadline. (A fairdeal/1 match, created before version 2, still
        takes the seat's signed ``ts`` within ``max_skew_ms``.)
        """
        return self.seats.play(match_id, token, action, expected_seq=expected_seq,
                               action_id=action_id, client_ts=client_ts, sig=sig, ts=ts)

    def resign(self, match_id: str, token: str | None, *, expected_seq: Any = None,
               client_ts: Any = None, sig: Any = None, ts: Any = None) -> SeatAnswer:
        """A seat resigns; the match ends, is revealed and sealed (``{"event", "replayed",
        "receipt", "view"}`` as ``play``). A signing seat sends ``expected_seq``,
        ``client_ts`` and ``sig`` over ``{seq, prev, type: "resign", seat, client_ts}``."""
        return self.seats.resign(match_id, token, expected_seq=expected_seq,
                                 client_ts=client_ts, sig=sig, ts=ts)

    def receipt(self, match_id: str, event: Mapping[str, Any]) -> dict[str, Any]:
        """The server's signed receipt for a stored event (verifier.receipts); every seat
        action's answer carries one (for an event just written, of the hash the write made)."""
        return signed_receipt(self.server_key, match_id, event,
                              self.matches.accepted_hash(match_id, event))

    # --- what the viewer and the API read ------------------------------------------------------

    def signed_by(self, seal_key: str | None) -> dict[str, Any] | None:
        """Who sealed a match (``ReadSide.signed_by``)."""
        return self.reading.signed_by(seal_key)

    def list_matches(self, limit: int = 50, offset: int = 0, game: str | None = None,
                     signer: str | None = None) -> list[dict[str, Any]]:
        """Match summaries, newest first (``ReadSide.list_matches``)."""
        return self.reading.list_matches(limit, offset, game, signer)

    def key_matches(self, key: Any, limit: int = 50, cursor: str | None = None,
                    with_record: bool = True) -> dict[str, Any]:
        """A seat key's matches, newest first, with its names and record
        (``KeyPages.key_matches``): BadRequest for a malformed or ambiguous key id, KeyNotFound
        for one no match here was signed with."""
        return self.players.key_matches(key, limit, cursor, with_record)

    def resolve_key(self, key: Any) -> str:
        """The full key id a key id, a prefix of one or a public key names here."""
        return self.players.resolve(key)

    def search(self, text: str, limit: int = 20, offset: int = 0) -> dict[str, Any]:
        """The home page's search: a match-id or key-id prefix, or a name (``KeyPages``)."""
        return self.players.search(text, limit, offset)

    def get_match(self, match_id: str) -> dict[str, Any]:
        """One match's summary, commitment and timing; MatchNotFound when there is none."""
        return self.reading.get_match(match_id)

    def view(self, match_id: str, token: str | None = None) -> dict[str, Any]:
        """The match as the caller may see it (``ReadSide.view``)."""
        return self.reading.view(match_id, token)

    def spectator_view(self, match_id: str) -> dict[str, Any]:
        """What anyone may see of a match: public state only."""
        return self.reading.spectator_view(match_id)

    def seat_view(self, match_id: str, token: str) -> dict[str, Any]:
        """What one seat may see: its own hand and legal actions, nothing of the opponent's."""
        return self.reading.seat_view(match_id, token)

    def board_svg(self, match_id: str, token: str | None = None) -> str | None:
        """The board now, drawn by the game itself (``ReadSide.board_svg``)."""
        return self.reading.board_svg(match_id, token)

    def spectator_svg(self, match_id: str) -> str | None:
        """The board as a spectator may see it now."""
        return self.reading.spectator_svg(match_id)

    def public_captions(self, match_id: str, after: int = -1) -> dict[int, str]:
        """One line for people about each move after ``after`` (``ReadSide.public_captions``)."""
        return self.reading.public_captions(match_id, after)

    def public_events(self, match_id: str, after: int = -1,
                      limit: int = 1_000) -> list[dict[str, Any]]:
        """Events after position ``after``. Before the reveal they hold nothing secret."""
        return self.reading.public_events(match_id, after, limit)

    def bundle_bytes(self, match_id: str, log_size: int | None = None) -> bytes | None:
        """The sealed bundle with its log proofs, or None while the match is not over."""
        return self.reading.bundle_bytes(match_id, log_size)

    def bundle(self, match_id: str, log_size: int | None = None) -> bytes:
        """The sealed bundle's bytes; NotEnded before the end."""
        return self.reading.bundle(match_id, log_size)

    def sealed_bundles(self, page: int = 200) -> Iterator[tuple[str, bytes]]:
        """Every sealed match's id and bundle, oldest first."""
        return self.reading.sealed_bundles(page)

    def seat_counts(self) -> dict[str, tuple[int, int]]:
        """Per player name: matches created with them, and of those never sealed."""
        return self.reading.seat_counts()

    def player_counts(self) -> tuple[dict[str, tuple[int, int]],
                                     dict[str, tuple[int, int]]]:
        """Matches created and never sealed, by name and by seat key (``ReadSide``)."""
        return self.reading.player_counts()

    def keys(self) -> list[dict[str, Any]]:
        """The server's public keys (the one that signs new matches first)."""
        return self.reading.keys()

    def import_bundle(self, data: bytes) -> Imported:
        """Verify a bundle from elsewhere and store it read-only when it passes:
        ``(match_id, report)``, ``match_id`` None when verification failed."""
        return self.imports.import_bundle(data)

    def writes(self, match_id: str) -> int:
        """How many writes this process has made to a match (``LiveMatches.writes``)."""
        return self.matches.writes(match_id)

    def wait_for_write(self, match_id: str, seen: int, timeout: float) -> int:
        """Wait up to ``timeout`` s for a write by this process to the match after the count
        ``seen`` (``LiveMatches.wait_for_write``): a live stream wakes at once for a move this
        process stored, and polls for the others'."""
        return self.matches.wait_for_write(match_id, seen, timeout)

    # --- tournaments (docs/tournaments.md; the API's contract: api.md) -------------------------

    def create_tournament(self, **fields: Any) -> dict[str, Any]:
        """A new tournament: its header, commitment and organiser token (given once)."""
        return self.tournament_life.create(fields)

    def tournament(self, tournament_id: str) -> dict[str, Any]:
        """Everything public about a tournament, standings computed (``TournamentReads``)."""
        return self.tournament_reads.tournament(tournament_id)

    def tournament_events(self, tournament_id: str, after: int = -1) -> list[dict[str, Any]]:
        """A tournament's events after a position (all public)."""
        return self.tournament_reads.events(tournament_id, after)

    def list_tournaments(self, limit: int = 50, cursor: str | None = None) -> dict[str, Any]:
        """Tournament summaries, newest first, a keyset page at a time."""
        return self.tournament_reads.list(limit, cursor)

    def key_tournaments(self, key_id: Any, limit: int = 50,
                        cursor: str | None = None) -> dict[str, Any]:
        """The tournaments a key registered in, newest first, with where it stands
        (``TournamentReads.key_tournaments``): BadRequest for a malformed key id or cursor."""
        return self.tournament_reads.key_tournaments(key_id, limit, cursor)

    def register_player(self, tournament_id: str, fields: Any) -> dict[str, Any]:
        """A player's signed registration: its key id, player token (given once), event."""
        return self.tournament_life.register(tournament_id, _fields(fields))

    def start_tournament(self, tournament_id: str, token: str | None) -> dict[str, Any]:
        """The organiser starts: the ``start`` event (and round 1 with ``auto``)."""
        return self.tournament_life.start(tournament_id, token,
                                          self.tournament_life.pair_next)

    def pair_next_round(self, tournament_id: str, token: str | None) -> dict[str, Any]:
        """The organiser asks for the next round: paired, its matches created."""
        self.tournament_core.organiser(self.tournament_core.tstore.row(tournament_id), token)
        self.tournaments.sync(tournament_id)
        return self.tournament_life.pair_next(tournament_id)

    def tournament_me(self, tournament_id: str, token: str | None) -> dict[str, Any]:
        """A player's own state: its table of the current round, or its bye."""
        return self.tournament_reads.me(tournament_id, token)

    def withdraw_player(self, tournament_id: str, token: str | None,
                        fields: Any) -> dict[str, Any]:
        """A player's signed withdrawal."""
        return self.tournament_life.withdraw(tournament_id, token, _fields(fields))

    def file_dispute(self, tournament_id: str, token: str | None, fields: Any) -> dict[str, Any]:
        """A player's signed dispute on a step of its own sealed match."""
        return self.tournaments.file_dispute(tournament_id, token, _fields(fields))

    def order_replay(self, tournament_id: str, token: str | None, dispute: Any) -> dict[str, Any]:
        """The organiser's new match for a disputed table, for a replay ruling to name."""
        return self.tournaments.order_replay(tournament_id, token, dispute)

    def rule_dispute(self, tournament_id: str, fields: Any) -> dict[str, Any]:
        """The arbiter's signed ruling on a filed dispute."""
        return self.tournaments.rule(tournament_id, _fields(fields))

    def finish_tournament(self, tournament_id: str, token: str | None) -> dict[str, Any]:
        """The organiser ends it: the seed revealed, the final standings, the head signed."""
        return self.tournaments.finish(tournament_id, token)

    def tournament_bundle(self, tournament_id: str) -> bytes:
        """The signed tournament bundle with its log proofs; NotEnded before the end."""
        return self.tournament_reads.bundle(tournament_id)

    def tournament_export(self, tournament_id: str) -> bytes:
        """The zip of the bundle and every sealed match it names."""
        return self.tournament_reads.export(tournament_id)

    def sync_tournaments(self) -> int:
        """Append every result the matches now give (the sweeper runs it)."""
        return self.tournaments.sync_all()

    # --- deadlines -----------------------------------------------------------------------------

    def sweep(self) -> int:
        """Write the timeouts of every match whose deadline passed; how many were looked at."""
        return self.deadlines.sweep()

    def start_sweeper(self, interval: float = 0.25) -> None:
        """Run ``sweep`` every ``interval`` seconds in a daemon thread of this process."""
        self.deadlines.start_sweeper(interval)

    def stop_sweeper(self) -> None:
        """Stop the background sweeper."""
        self.deadlines.stop_sweeper()

    def after_fork(self) -> None:
        """Call in a forked worker: drop the parent's connections and cache (``Deadlines``)."""
        self.deadlines.after_fork()


def _fields(fields: Any) -> Mapping[str, Any]:
    """A request's fields: an object, or a clear BadRequest."""
    from .errors import BadRequest

    if not isinstance(fields, Mapping):
        raise BadRequest("the request body must be a JSON object", code="invalid-json")
    return fields
