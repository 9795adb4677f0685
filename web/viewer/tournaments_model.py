"""The tournament pages' model: the ledger's answer for one tournament (the API's GET
/tournaments/<id>, docs/tournaments.md) turned into what the templates show — the standings
with their tie-breaks in points, each round's tables in a player's words, the disputes with
their rulings and who signed them, the cross-table. Pure: dicts in, dicts out, so every line
of a page is tested without Flask (the routes in tournaments.py only fetch and render)."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from fairdeal.verifier.keys import InvalidKey, key_id, parse_public_key, verify_signature
from fairdeal.verifier.protocol import utc_time
from fairdeal.verifier.tournament.primitives import signed_message

__all__ = ["TIEBREAK_NAMES", "crosstable", "disputes", "half_points", "players", "points_words",
           "rounds", "standings", "summary", "tiebreak_columns", "window"]

#: each tie-break's column: its abbreviation, its name, its definition (docs/tournaments.md
#: §5) and how many of the stored integer's units make one point (scores are in half-points;
#: Sonneborn-Berger counts beaten opponents' scores twice so that it stays integral)
TIEBREAK_NAMES: dict[str, tuple[str, str, str, int]] = {
    "buchholz": ("Bu", "Buchholz", "the sum of the scores of the opponents played", 2),
    "median-buchholz": ("MBu", "Median Buchholz",
                        "Buchholz without the highest and the lowest opponent's score "
                        "(0 with fewer than 3 opponents)", 2),
    "sonneborn-berger": ("SB", "Sonneborn-Berger",
                         "the scores of the opponents beaten plus half the scores of the "
                         "opponents drawn", 4),
    "direct-encounter": ("DE", "Direct encounter",
                         "points scored against the other players on the same score, counted "
                         "only when every pair of them met", 2),
    "wins": ("W", "Wins", "games won over the board (byes and forfeits not counted)", 1),
}

_FRACTIONS = {0: "", 1: "¼", 2: "½", 3: "¾"}
_SYSTEMS = {"swiss": "Swiss", "round-robin": "Round-robin"}
_STATUS = {"registering": "registering players", "running": "in play",
           "finished": "finished"}


def half_points(value: Any, per_point: int = 2) -> str:
    """An integer score in ``1/per_point`` units as a person writes it.

    >>> half_points(3), half_points(4), half_points(1), half_points(0)
    ('1½', '2', '½', '0')
    >>> half_points(7, 4), half_points(-1)
    ('1¾', '-½')
    """
    if not isinstance(value, int) or isinstance(value, bool):
        return "–"
    if per_point not in (1, 2, 4):
        return str(value)
    sign, value = ("-", -value) if value < 0 else ("", value)
    whole, rest = divmod(value * (4 // per_point), 4)
    text = (str(whole) if whole or not rest else "") + _FRACTIONS[rest]
    return sign + (text or "0")


def short_key(text: Any) -> str | None:
    """The key id of an ``ed25519:…`` public key, or None when it is not one."""
    try:
        return key_id(parse_public_key(text))
    except (InvalidKey, TypeError, ValueError):
        return None


def players(answer: Mapping[str, Any]) -> dict[str, dict[str, Any]]:
    """The registered players by key id: their name (a label) and public key."""
    found: dict[str, dict[str, Any]] = {}
    for item in answer.get("players") or []:
        if isinstance(item, Mapping) and isinstance(item.get("player"), str):
            found[item["player"]] = {"player": item["player"], "name": str(item.get("name", "")),
                                     "public_key": item.get("public_key"),
                                     "withdrawn_from": item.get("withdrawn_from")}
    return found


def _name(roster: Mapping[str, Mapping[str, Any]], player: Any) -> str:
    entry = roster.get(player) if isinstance(player, str) else None
    return str(entry["name"]) if entry and entry.get("name") else str(player)


def summary(answer: Mapping[str, Any]) -> dict[str, Any]:
    """The heading: name, game, system, rounds, status, time control, who the arbiter is."""
    header = answer.get("header") or {}
    rounds = answer.get("rounds") or []
    status = str(answer.get("status", ""))
    return {
        "id": str(answer.get("id", "")),
        "name": str(answer.get("name") or header.get("name") or ""),
        "game": str(header.get("game", "")),
        "rules_version": header.get("rules_version"),
        "system": _SYSTEMS.get(str(header.get("system")), str(header.get("system", ""))),
        "cycles": header.get("rounds"),
        "rounds_played": len(rounds),
        # known once the field is (round-robin: from the number of players)
        "total_rounds": answer.get("total_rounds"),
        "status": status,
        "status_words": _STATUS.get(status, status),
        "live": status in ("registering", "running"),
        "turn_limit_ms": header.get("turn_limit_ms"),
        "seating_ms": header.get("seating_ms"),
        "max_players": header.get("max_players"),
        "points": points_words(header.get("points") or {}),
        "arbiter_key": header.get("arbiter_key"),
        "arbiter_id": short_key(header.get("arbiter_key")),
        "server_key_id": header.get("server_key_id"),
        "commitment": header.get("commitment"),
        "seed": answer.get("seed"),
        "next_seq": answer.get("next_seq"),
        "head": answer.get("head"),
        "window": window(answer),
    }


def window(answer: Mapping[str, Any]) -> str | None:
    """What an ``auto`` tournament whose every round is played waits for before the server
    finishes it (docs/tournaments.md §8), in words; None when it waits for nothing.

    >>> window({"disputes_until": 1767225635558, "disputes": []}).split(". ")[0]
    'Every round is played: waiting for disputes until 2026-01-01T00:00:35.558Z'
    >>> window({"disputes_until": 1, "disputes": [{"dispute": 1, "ruling": None}]})[23:]
    "waiting for the arbiter's ruling on dispute 1. The server finishes once it is ruled."
    """
    until = answer.get("disputes_until")
    if not isinstance(until, int) or isinstance(until, bool):
        return None
    pending = [str(item.get("dispute")) for item in answer.get("disputes") or []
               if isinstance(item, Mapping) and not item.get("ruling")]
    if pending:
        which, them = ("dispute", "it is") if len(pending) == 1 else ("disputes", "they are")
        return (f"Every round is played: waiting for the arbiter's ruling on {which} "
                f"{', '.join(pending)}. The server finishes once {them} ruled.")
    return (f"Every round is played: waiting for disputes until {utc_time(until)}. The "
            "server finishes the tournament then.")


def points_words(points: Mapping[str, Any]) -> str:
    """The header's points (half-points) as an organiser states them.

    >>> points_words({"win": 2, "draw": 1, "loss": 0, "bye": 2, "forfeit-win": 2})
    'win 1, draw ½, loss 0, bye 1, forfeit win 1'
    """
    order = ("win", "draw", "loss", "bye", "forfeit-win")
    return ", ".join(f"{name.replace('-', ' ')} {half_points(points[name])}"
                     for name in order if name in points)


def tiebreak_columns(header: Mapping[str, Any]) -> list[dict[str, Any]]:
    """The standings' tie-break columns in the header's order, each with its definition."""
    columns = []
    for name in header.get("tiebreaks") or []:
        abbr, title, meaning, per_point = TIEBREAK_NAMES.get(
            str(name), (str(name), str(name), "a tie-break", 1))
        columns.append({"name": str(name), "abbr": abbr, "title": title,
                        "definition": f"{title}: {meaning}", "per_point": per_point})
    return columns


def standings(answer: Mapping[str, Any]) -> list[dict[str, Any]]:
    """The computed standings, best first, with the score and tie-breaks written in points."""
    roster = players(answer)
    columns = tiebreak_columns(answer.get("header") or {})
    lines = []
    for line in answer.get("standings") or []:
        values = list(line.get("tiebreaks") or [])
        lines.append({
            "rank": line.get("rank"),
            "player": line.get("player"),
            "name": str(line.get("name") or _name(roster, line.get("player"))),
            "score": half_points(line.get("score")),
            "tiebreaks": [half_points(values[index], column["per_point"])
                          if index < len(values) else "–"
                          for index, column in enumerate(columns)],
        })
    return lines


def result_words(result: Any, seats: Sequence[Any]) -> tuple[str, str]:
    """``(score, words)`` of a table's counted result: ``("1–0", "ann won")``.

    >>> result_words({"outcome": "match", "winner": None}, ["a", "b"])
    ('½–½', 'draw')
    >>> result_words(None, ["a", "b"])
    ('', 'not finished')
    """
    if not isinstance(result, Mapping):
        return "", "not finished"
    outcome = result.get("outcome", "match")
    winner = result.get("winner")
    if outcome == "double-forfeit":
        return "0–0", "double forfeit: both withdrew"
    first = len(seats) > 0 and winner == seats[0]
    if winner is None:
        return "½–½", "draw"
    score = "1–0" if first else "0–1"
    if outcome == "forfeit":
        return score.replace("1", "+").replace("0", "−"), "won by forfeit"
    return score, "won"


def rounds(answer: Mapping[str, Any]) -> list[dict[str, Any]]:
    """Each round: its tables (the two players by name and key, the match, the result) and
    its bye, newest round last."""
    roster = players(answer)
    shown = []
    for item in answer.get("rounds") or []:
        tables = []
        for pairing in item.get("pairings") or []:
            seats = list(pairing.get("seats") or [])
            score, words = result_words(pairing.get("result"), seats)
            winner = (pairing.get("result") or {}).get("winner") if isinstance(
                pairing.get("result"), Mapping) else None
            matches = [match for match in pairing.get("matches") or []
                       if match != pairing.get("match_id")]
            changed = isinstance(pairing.get("result"), Mapping) and bool(
                pairing["result"].get("changed"))
            tables.append({
                "table": pairing.get("table"),
                # the matches a replay ruling replaced (the last one counts)
                "replaced": matches,
                "changed": changed,
                "seats": [{"player": seat, "name": _name(roster, seat)} for seat in seats],
                "match_id": pairing.get("match_id"),
                "score": score,
                "words": f"{_name(roster, winner)} {words}" if winner and words.startswith(
                    "won") else words,
                "finished": isinstance(pairing.get("result"), Mapping),
            })
        shown.append({"round": item.get("round"), "tables": tables,
                      "byes": [{"player": bye, "name": _name(roster, bye)}
                               for bye in item.get("byes") or []]})
    return shown


def decision_words(decision: Any, roster: Mapping[str, Mapping[str, Any]]) -> str:
    """The arbiter's decision in words.

    >>> decision_words({"kind": "penalty", "player": "p", "points": 2}, {})
    'p penalised 1 point'
    """
    if not isinstance(decision, Mapping):
        return "an unreadable decision"
    kind = decision.get("kind")
    if kind == "result-stands":
        return "the result stands"
    if kind == "result-changed":
        winner = decision.get("winner")
        return (f"result changed: {_name(roster, winner)} wins" if winner
                else "result changed: a draw")
    if kind == "replay-ordered":
        return "replay ordered"
    if kind == "penalty":
        points = half_points(decision.get("points"))
        unit = "point" if points in ("1", "½") else "points"
        return f"{_name(roster, decision.get('player'))} penalised {points} {unit}"
    return f"{kind!s}"


def _signed_by(event: Mapping[str, Any] | None, public_key: Any) -> bool:
    """Whether ``event`` (as the log has it, with ``seq`` and ``prev``) carries a valid
    signature by ``public_key`` over its signed message (docs/tournaments.md §2)."""
    if not isinstance(event, Mapping) or not isinstance(event.get("sig"), str):
        return False
    try:
        return verify_signature(parse_public_key(public_key), bytes.fromhex(event["sig"]),
                                signed_message(event))
    except (InvalidKey, TypeError, ValueError):
        return False


def disputes(answer: Mapping[str, Any], events: Sequence[Mapping[str, Any]]
             ) -> list[dict[str, Any]]:
    """Each dispute with its ruling: the decision in words, the arbiter's key id and whether
    the ruling's signature in the log checks against the header's arbiter key (this page
    checks it itself, as the verifier does offline)."""
    roster = players(answer)
    arbiter = (answer.get("header") or {}).get("arbiter_key")
    logged = {(event.get("type"), event.get("dispute")): event for event in events
              if event.get("type") in ("dispute", "ruling")}
    shown = []
    for item in answer.get("disputes") or []:
        ruling = item.get("ruling")
        number = item.get("dispute")
        ruling_event = logged.get(("ruling", number))
        filer = roster.get(item.get("player"), {})
        shown.append({
            "dispute": number,
            "player": item.get("player"),
            "name": _name(roster, item.get("player")),
            "match_id": item.get("match_id"),
            "step": item.get("step"),
            "text": str(item.get("text") or ""),
            "signed": _signed_by(logged.get(("dispute", number)), filer.get("public_key")),
            "ruling": None if not isinstance(ruling, Mapping) else {
                "words": decision_words(ruling.get("decision"), roster),
                "decision": ruling.get("decision"),
                "text": str(ruling.get("text") or ""),
                "seq": (ruling_event or {}).get("seq"),
                "signer": short_key(arbiter),
                "signed": _signed_by(ruling_event, arbiter),
            },
        })
    return shown


def _games(answer: Mapping[str, Any]) -> list[tuple[int, str, str, str, str]]:
    """Every table as ``(round, seat 0, seat 1, seat 0's mark, seat 1's mark)``: "1", "0",
    "½", "+"/"−" for a forfeit, "…" while it is not finished."""
    games = []
    for item in answer.get("rounds") or []:
        for pairing in item.get("pairings") or []:
            seats = list(pairing.get("seats") or [])
            if len(seats) == 2:
                score, _ = result_words(pairing.get("result"), seats)
                mine, theirs = score.split("–") if score else ("…", "…")
                games.append((item.get("round"), seats[0], seats[1], mine, theirs))
    return games


def crosstable(answer: Mapping[str, Any]) -> dict[str, Any]:
    """The cross-table: the players in standings order (numbered by rank), each with its byes
    and its score, and its games — for a round-robin against every other player (a column
    each: ``"1 r3"``, a win in round 3), for a Swiss by round (a column each: ``"1 v 12"``, a
    win against number 12): a Swiss of a thousand players is a thousand rows of a few rounds,
    never a million cells."""
    lines = standings(answer)
    order = [line["player"] for line in lines]
    roster = players(answer)
    order += [player for player in roster if player not in order]
    number = {player: index + 1 for index, player in enumerate(order)}
    byes: dict[str, list[int]] = {}
    for item in answer.get("rounds") or []:
        for bye in item.get("byes") or []:
            byes.setdefault(bye, []).append(item.get("round"))
    swiss = (answer.get("header") or {}).get("system") == "swiss"
    rounds = [item.get("round") for item in answer.get("rounds") or []]
    cells: dict[tuple[str, Any], list[str]] = {}
    for number_of_round, first, second, mine, theirs in _games(answer):
        for player, other, mark in ((first, second, mine), (second, first, theirs)):
            key = (player, number_of_round) if swiss else (player, other)
            text = (f"{mark} v {number.get(other, '?')}" if swiss
                    else f"{mark} r{number_of_round}")
            cells.setdefault(key, []).append(text)
    scores = {line["player"]: line["score"] for line in lines}

    def row(player: str) -> list[list[str] | None]:
        if swiss:
            return [cells.get((player, r), ["bye"] if r in byes.get(player, []) else [])
                    for r in rounds]
        return [None if other == player else cells.get((player, other), []) for other in order]

    return {"kind": "rounds" if swiss else "players", "rounds": rounds,
            "players": [{"number": number[player], "player": player,
                         "name": _name(roster, player), "score": scores.get(player, "–"),
                         "byes": byes.get(player, []), "cells": row(player)}
                        for player in order]}
