"""(8)-(12) the checks that read the matches: every match verified on its own with its players'
keys pinned, every result read off its match, every dispute's report re-computed from the
match, every ruling's signature, and the standings re-computed (docs/tournaments.md §5-6).
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping
from typing import Any

from ..bundle import Bundle
from ..canonical import canonical_bytes
from ..dispute import DisputeError
from ..keys import parse_public_key, verify_signature
from ..protocol import event_hash as match_event_hash
from ..receipts import InvalidReceipts, parse_receipts_file
from ..report import counted
from ..verify import verify_bytes
from .build import standings_json
from .bundle import TournamentBundle
from .disputes import dispute_report_hash
from .primitives import signed_message
from .report import TournamentCheckFailed, TournamentReport, fail
from .standings import standings
from .state import Table, TournamentState, header_points

__all__ = ["MatchChecks"]

#: the genesis fields a tournament's match must share with the tournament's header
_SHARED = ("game", "rules_version", "rules_hash", "params")


class MatchChecks:
    """The checks over the matches, run in order on one export; each passes or raises."""

    def __init__(self, bundle: TournamentBundle, matches: Mapping[str, bytes], server: str,
                 seed: bytes) -> None:
        self.bundle = bundle
        self.events = bundle.events
        self.header = bundle.header
        self.files = matches
        self.server = server
        self.seed = seed
        self.verified: dict[str, Bundle] = {}
        self._named: dict[str, dict[str, Any]] = {}
        self.state = TournamentState(dict(self.header))
        for event in self.events[1:]:
            self.state.apply(event)

    def _fold(self) -> Iterator[tuple[TournamentState, dict[str, Any]]]:
        """Each event with the state just before it (a fresh fold, applied as it goes)."""
        state = TournamentState(dict(self.header))
        for event in self.events[1:]:
            yield state, event
            state.apply(event)

    def _pins(self, state: TournamentState, table: Table) -> dict[str, str]:
        return {str(seat): state.registrations[player].public_key
                for seat, player in enumerate(table.seats)}

    def _naming(self, match_id: str) -> dict[str, Any]:
        """The event that brought a match into the tournament (its round, or a replay's
        ruling)."""
        if not self._named:
            for event in self.events:
                if event["type"] == "round":
                    for pairing in event["pairings"]:
                        self._named.setdefault(pairing["match_id"], event)
                elif event["type"] == "ruling" and "match_id" in event["decision"]:
                    self._named.setdefault(event["decision"]["match_id"], event)
        return self._named.get(match_id, self.events[0])

    # (8) -----------------------------------------------------------------------------------
    def matches(self, report: TournamentReport) -> None:
        """Every match not forfeited is in the export and verifies with its players' keys
        pinned, under the header's game, rules and params; nothing else is in the export."""
        forfeited = {e["match_id"] for e in self.events
                     if e["type"] == "result" and e["outcome"] != "match"}
        named = {match_id for table in self.state.tables.values() for match_id in table.matches}
        extra = sorted(set(self.files) - named)
        if extra:
            raise TournamentCheckFailed("matches", f"the export holds match {extra[0]}, which "
                                        "no table of this tournament plays")
        for table in self.state.tables.values():
            for match_id in table.matches:
                if match_id not in forfeited:
                    self._verify_match(match_id, table)
        report.facts["matches"] = len(self.verified)
        report.passed("matches", f"{counted(len(self.verified), 'match', 'matches')} verified "
                      "with both players' keys pinned")

    def _verify_match(self, match_id: str, table: Table) -> None:
        naming = self._naming(match_id)
        data = self.files.get(match_id)
        if data is None:
            raise fail("matches", naming, f"match {match_id} (round {table.round}, table "
                       f"{table.number}) is not in the export: its result cannot be checked")
        seat_keys = self._pins(self.state, table)
        match = verify_bytes(data, self.server, seat_keys)
        if not match.ok:
            raise fail("matches", naming, f"match {match_id} (round {table.round}, table "
                       f"{table.number}) does not verify with its players' keys pinned: "
                       f"{match.failure}")
        bundle = Bundle.from_bytes(data)
        genesis = bundle.genesis
        if len(genesis["seats"]) != 2:
            raise fail("matches", naming, f"match {match_id} has {len(genesis['seats'])} "
                       "seats: a tournament's match is played by the table's two players")
        if genesis["match_id"] != match_id:
            raise fail("matches", naming, f"the file of match {match_id} holds match "
                       f"{genesis['match_id']}: a match was swapped for another")
        for name in _SHARED:
            if genesis[name] != self.header[name]:
                raise fail("matches", naming, f"match {match_id} was played with {name} "
                           f"{genesis[name]!r}, but the tournament plays {self.header[name]!r}")
        self.verified[match_id] = bundle

    # (9) -----------------------------------------------------------------------------------
    def results(self, report: TournamentReport) -> None:
        """Each result names its table's current match once, and is that match's own
        outcome, or a forfeit of players who withdrew after the round was paired."""
        counted_results = 0
        for state, event in self._fold():
            if event["type"] != "result":
                continue
            table = state.tables.get((event["round"], event["table"]))
            if table is None:
                raise fail("results", event, f"round {event['round']} has no table "
                           f"{event['table']}")
            if event["match_id"] != table.match_id:
                raise fail("results", event, f"the result names match {event['match_id']}, "
                           f"but that table plays match {table.match_id}")
            if table.result is not None:
                raise fail("results", event, "a second result for a table that has one")
            if event["outcome"] == "match":
                self._read_off(event, table)
            else:
                self._forfeit(state, event, table)
            counted_results += 1
        report.passed("results", f"{counted(counted_results, 'result')}, each read off its "
                      "match or a withdrawal")

    def _read_off(self, event: Mapping[str, Any], table: Table) -> None:
        bundle = self.verified.get(event["match_id"])
        if bundle is None:  # the log calls the same match a forfeit elsewhere
            raise fail("results", event, f"match {event['match_id']} is said to be played "
                       "here and forfeited elsewhere in the log")
        last = bundle.events[-1]
        winner = last["result"]["winner"]
        truth = table.seats[winner] if winner is not None else None
        if event["head"] != match_event_hash(last) or event["match_seq"] != last["seq"]:
            raise fail("results", event, "the result names another end of the match than its "
                       "sealed record's (head or last event differ)")
        if event["winner"] != truth:
            said = self._name(event["winner"])
            raise fail("results", event, f"the result says {said}, but the match's sealed "
                       f"record says {self._name(truth)}: the result was typed in, not read "
                       "off the match")

    def _name(self, player: str | None) -> str:
        if player is None:
            return "a draw"
        registration = self.state.registrations.get(player)
        return f"{registration.name if registration else player} won"

    def _forfeit(self, state: TournamentState, event: Mapping[str, Any], table: Table) -> None:
        gone = [p for p in table.seats if state.withdrawn.get(p, 10**9) <= event["round"] + 1]
        if event["outcome"] == "double-forfeit" and len(gone) == 2:
            return
        if (event["outcome"] == "forfeit" and len(gone) == 1 and event["winner"] in table.seats
                and event["winner"] not in gone):
            return
        raise fail("results", event, f"a {event['outcome']} counts only for players who "
                   f"withdrew before the match, and {counted(len(gone), 'player')} of this "
                   "table did: the result was typed in")

    # (10) ----------------------------------------------------------------------------------
    def disputes(self, report: TournamentReport) -> None:
        """Each dispute numbered in order, signed by a player of a match played, its report
        hash the match's own dispute report of that step, its receipts the server's."""
        filed = 0
        for state, event in self._fold():
            if event["type"] != "dispute":
                continue
            if event["dispute"] != len(state.disputes) + 1:
                raise fail("disputes", event, f"dispute {event['dispute']} where dispute "
                           f"{len(state.disputes) + 1} comes next: a dispute is missing, or "
                           "they were reordered")
            table = state.table_of(event["match_id"])
            if table is None or event["match_id"] not in self.verified:
                raise fail("disputes", event, f"match {event['match_id']} is not a match "
                           "this tournament played")
            if event["player"] not in table.seats:
                raise fail("disputes", event, f"player {event['player']} did not play match "
                           f"{event['match_id']}: only its players may dispute it")
            public = parse_public_key(state.registrations[event["player"]].public_key)
            if not verify_signature(public, bytes.fromhex(event["sig"]), signed_message(event)):
                raise fail("disputes", event, "the dispute is not signed by the player's "
                           "registered key: it is not the player's")
            self._dispute_evidence(state, event, table)
            filed += 1
        report.passed("disputes", f"{counted(filed, 'dispute')}, each signed by a player of "
                      "its match, its report re-computed")

    def _dispute_evidence(self, state: TournamentState, event: Mapping[str, Any],
                          table: Table) -> None:
        data = self.files[event["match_id"]]
        pins = self._pins(state, table)
        try:
            expected = dispute_report_hash(data, event["step"], [pins["0"], pins["1"]])
        except DisputeError as e:
            raise fail("disputes", event, f"no dispute report for step {event['step']}: "
                       f"{e}") from None
        if expected != event["report"]:
            raise fail("disputes", event, f"the dispute report attached is not the one match "
                       f"{event['match_id']} gives for step {event['step']}")
        if event["receipts"] is None:
            return
        try:
            receipts = parse_receipts_file(canonical_bytes(event["receipts"]))
        except InvalidReceipts as e:
            raise fail("disputes", event, f"the receipts attached are not a receipts file: "
                       f"{e}") from None
        checked = verify_bytes(data, self.server, pins, receipts.receipts,
                               receipts_for=receipts.match_id or event["match_id"])
        if not checked.ok:
            raise fail("disputes", event, f"the receipts attached do not hold against match "
                       f"{event['match_id']}: {checked.failure}")

    # (11) ----------------------------------------------------------------------------------
    def rulings(self, report: TournamentReport, arbiter_key: str | None) -> None:
        """Each ruling on a dispute filed before it, once, signed by the header's arbiter
        key (the pinned one, when given), with a decision that fits its match."""
        arbiter = self.header["arbiter_key"]
        if arbiter_key is not None and parse_public_key(arbiter_key) != parse_public_key(
                arbiter):
            raise fail("rulings", self.header, "the tournament names another arbiter than "
                       "the pinned one")
        ruled = 0
        for state, event in self._fold():
            if event["type"] != "ruling":
                continue
            dispute = state.disputes.get(event["dispute"])
            if dispute is None:
                raise fail("rulings", event, f"a ruling on dispute {event['dispute']}, which "
                           "was never filed before it: the dispute was dropped from the log")
            if event["dispute"] in state.rulings:
                raise fail("rulings", event, f"dispute {event['dispute']} was ruled on "
                           "already")
            if not verify_signature(parse_public_key(arbiter), bytes.fromhex(event["sig"]),
                                    signed_message(event)):
                raise fail("rulings", event, "the ruling is not signed by the tournament's "
                           "arbiter: nobody but the arbiter rules")
            self._decision(state, event, dispute)
            ruled += 1
        report.passed("rulings", f"{counted(ruled, 'ruling')}, each signed by the arbiter "
                      f"{arbiter[8:24]}…")

    def _decision(self, state: TournamentState, event: Mapping[str, Any],
                  dispute: Mapping[str, Any]) -> None:
        decision = event["decision"]
        table = state.table_of(dispute["match_id"])
        assert table is not None  # the disputes check found it
        kind = decision["kind"]
        if kind == "result-changed" and (decision["winner"] not in (*table.seats, None)
                                         or table.result is None):
            raise fail("rulings", event, "the changed result names a winner who did not play "
                       "the match, or the table has no result yet")
        if kind == "penalty" and decision["player"] not in state.registrations:
            raise fail("rulings", event, f"the penalty is for {decision['player']}, who is "
                       "not registered")
        if kind == "replay-ordered" and decision["match_id"] in state.match_tables:
            raise fail("rulings", event, f"the replay's match {decision['match_id']} is one "
                       "the tournament already named")

    # (12) ----------------------------------------------------------------------------------
    def standings(self, report: TournamentReport) -> None:
        """The final standings are the ones the counted results give."""
        final = self.events[-1]
        try:
            computed = standings_json(standings(
                self.state.field(self.seed), self.state.history(), header_points(self.header),
                self.header["tiebreaks"]))
        except ValueError as e:
            raise fail("standings", final, f"the standings cannot be computed from the "
                       f"counted results: {e}") from None
        stated = final["standings"]
        for index, (mine, theirs) in enumerate(zip(stated, computed, strict=False)):
            if mine != theirs:
                raise fail("standings", final, f"line {index + 1} says {_line(mine)}, but the "
                           f"counted results give {_line(theirs)}")
        if len(stated) != len(computed):
            raise fail("standings", final, f"the standings list "
                       f"{counted(len(stated), 'player')}, the field has {len(computed)}")
        report.facts["standings"] = computed
        report.passed("standings", f"{counted(len(computed), 'player')} ranked; tie-breaks "
                      f"{', '.join(self.header['tiebreaks']) or 'none'}")


def _line(line: Mapping[str, Any]) -> str:
    return (f"rank {line['rank']}: {line['player']} with {line['score']} half-points, "
            f"tie-breaks {line['tiebreaks']}")
