"""Pure presentation helpers: the words and rows the templates show. No Flask here.

>>> duration_words(75_000)
'1:15'
>>> badges("any-game", {"deck": "infinite", "battlefield": "Meadow"}, 60_000)[0]
{'label': 'Meadow', 'kind': 'board'}
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from datetime import UTC, datetime
from typing import Any

from fairdeal.client.simulate import SIMULATED_SEAT_SUFFIX
from fairdeal.games import GamePlugin, RulesError, get_plugin, plugins

from .matches import LoadedMatch

__all__ = [
    "badges",
    "date_words",
    "duration_words",
    "event_rows",
    "is_simulated",
    "live_secrecy",
    "match_facts",
    "perspectives",
    "result_words",
    "seat_label",
    "state_tables",
    "utc_times",
]

DEFAULT_SEAT_NAMES = ("A", "B", "C", "D", "E", "F", "G", "H")


def duration_words(ms: int) -> str:
    """A duration as m:ss (or h:mm:ss)."""
    seconds = max(0, ms) // 1000
    hours, rest = divmod(seconds, 3600)
    minutes, seconds = divmod(rest, 60)
    if hours:
        return f"{hours}:{minutes:02d}:{seconds:02d}"
    return f"{minutes}:{seconds:02d}"


def date_words(ms: int | None) -> str:
    """A timestamp in ms as ``2026-01-01 00:00 UTC`` (empty when unknown).

    >>> date_words(1_767_225_600_000)
    '2026-01-01 00:00 UTC'
    """
    if not isinstance(ms, int) or isinstance(ms, bool):
        return ""
    moment = datetime.fromtimestamp(ms / 1000, tz=UTC)
    return moment.strftime("%Y-%m-%d %H:%M UTC")


#: an event's ``ts`` as the verifier's reasons quote it: a 13-digit count of ms since 1970
#: (2001 to 2033), standing on its own (not part of a hash, an id or a longer number)
_EPOCH_MS = re.compile(r"(?<![\w.,])1\d{12}(?!\w|[.,]\d)")


def utc_times(text: str) -> str:
    """``text`` with each event time in ms since 1970 written as UTC ISO 8601, for people (the
    verifier's reasons quote an event's ``ts`` as it is in the file).

    >>> utc_times("the clock runs backwards: this event is stamped 1767225635558, 5 ms before")
    'the clock runs backwards: this event is stamped 2026-01-01T00:00:35.558Z, 5 ms before'
    >>> utc_times("head 1767225635558a…, 1,767,225,635,558, 1767225635558.5")
    'head 1767225635558a…, 1,767,225,635,558, 1767225635558.5'
    """
    def iso(found: re.Match[str]) -> str:
        moment = datetime.fromtimestamp(int(found.group()) / 1000, tz=UTC)
        return moment.strftime("%Y-%m-%dT%H:%M:%S.") + f"{moment.microsecond // 1000:03d}Z"

    return _EPOCH_MS.sub(iso, str(text))


def game_title(game_name: str | None, game: Any = None) -> str:
    """The game's human title, from the rules package when it is loaded, else from its
    registered plug-in (a game no plug-in registers is shown by its name)."""
    if game is not None and getattr(game, "title", None):
        return str(game.title)
    try:
        return get_plugin(game_name or "").title
    except RulesError:
        return game_name or "unknown game"


def _plugin_of(game: Any) -> GamePlugin | None:
    """The plug-in of a loaded rules object (None: no game, or one no plug-in registers)."""
    try:
        return get_plugin(str(getattr(game, "name", "")))
    except RulesError:
        return None


def live_secrecy(game: Any) -> str:
    """What a spectator of a match in play is told stays hidden: the game's own words (its
    plug-in's ``live_secrecy``), else the plug-ins' default, which promises nothing."""
    plugin = _plugin_of(game)
    return plugin.live_secrecy if plugin is not None else GamePlugin.live_secrecy


def match_facts(game: Any, params: Any) -> list[tuple[str, str]]:
    """The game's facts about a match's parameters (its plug-in's ``match_facts``), as
    (label, words); none for a game not loaded or parameters that are not an object."""
    plugin = _plugin_of(game)
    if plugin is None or not isinstance(params, Mapping):
        return []
    try:
        return [(str(label), str(words)) for label, words in plugin.match_facts(game, params)]
    except Exception:  # noqa: BLE001  a game's words must never break the page
        return []


def is_simulated(seat_names: Sequence[str]) -> bool:
    """True for a match `fairdeal simulate` wrote: every seat is named after a bot
    ("random-bot"). Its clock is the simulator's, so the viewer says "simulated" beside its
    dates. A label read from the names, not something the verifier checks.

    >>> is_simulated(["random-bot", "greedy-bot"]), is_simulated(["random bot 1", "alice"])
    (True, False)
    """
    return bool(seat_names) and all(str(name).endswith(SIMULATED_SEAT_SUFFIX)
                                    for name in seat_names)


def seat_names(game: Any, count: int) -> tuple[str, ...]:
    names = tuple(getattr(game, "seat_names", ()) or ())
    return names if len(names) >= count else DEFAULT_SEAT_NAMES[:count]


def seat_label(game: Any, seats: Sequence[Mapping[str, Any]], seat: Any) -> str:
    """``"A (alice)"`` for a seat index; ``"?"`` for one that does not exist."""
    if not isinstance(seat, int) or isinstance(seat, bool) or not 0 <= seat < len(seats):
        return "?"
    label = seat_names(game, len(seats))[seat]
    name = seats[seat].get("name", "?")
    # the ledger's default seat name ("player blue") would only repeat the seat's own name
    return label if name == f"player {label}" else f"{label} ({name})"


def badges(game_name: str | None, params: Mapping[str, Any] | None,
           turn_limit_ms: int | None) -> list[dict[str, str]]:
    """The badges of a match card: battlefield or board, deck type, turn timer."""
    params = params or {}
    out = []
    for key in ("battlefield", "board"):
        if params.get(key):
            out.append({"label": str(params[key]), "kind": "board"})
    if params.get("deck"):
        out.append({"label": f"{params['deck']} deck", "kind": "deck"})
    if turn_limit_ms:
        out.append({"label": f"{duration_words(turn_limit_ms)} per turn", "kind": "timer"})
    else:
        out.append({"label": "no turn timer", "kind": "timer"})
    return out


#: how a match can end in any game, said to players: {winner} and {loser} are seat labels (a
#: draw has neither). Each game adds its own ways (its plug-in's ``reason_words`` and
#: ``draw_words``); a reason missing everywhere is shown as its code, dashes as spaces.
_COMMON_REASONS = {
    "timeouts": "{loser} let too many turns in a row run out",
    "timeout": "{loser} ran out of time",
    "resigned": "{loser} resigned",
    "simultaneous": "both sides met a winning or losing condition at the same moment",
}
_COMMON_DRAWS = {
    "simultaneous": "both sides won or fell at the same moment",
}
#: every game's words and the common ones (for a match whose game is not loaded)
REASON_WORDS = {**{reason: words for plugin in plugins()
                   for reason, words in plugin.reason_words.items()}, **_COMMON_REASONS}
DRAW_WORDS = {**{reason: words for plugin in plugins()
                 for reason, words in plugin.draw_words.items()}, **_COMMON_DRAWS}


def _words(game: Any, reason: str, draw: bool) -> str | None:
    """The sentence for ``reason``: the game's own first, then the common ones."""
    try:
        plugin = get_plugin(str(getattr(game, "name", "")))
    except RulesError:
        return (DRAW_WORDS if draw else REASON_WORDS).get(reason)
    own = plugin.draw_words if draw else plugin.reason_words
    common = _COMMON_DRAWS if draw else _COMMON_REASONS
    return own.get(reason) or common.get(reason)


def result_words(result: Mapping[str, Any] | None, seats: Sequence[Any], game: Any = None) -> str:
    """How the match ended, in a player's words: ``"A (alice) won: A destroyed B's tower"``,
    ``"draw: the turn limit came with the medals level"``, or ``"in play"``."""
    if not result:
        return "in play"
    seat_dicts = [seat if isinstance(seat, Mapping) else {"name": seat} for seat in seats]
    reason = str(result.get("reason", ""))
    winner = result.get("winner")
    if winner is None:
        words = _words(game, reason, draw=True) or reason.replace("-", " ")
        return f"draw: {words}" if words else "draw"
    label = seat_label(game, seat_dicts, winner)
    names = seat_names(game, len(seat_dicts))
    valid = isinstance(winner, int) and 0 <= winner < len(seat_dicts) == 2
    template = _words(game, reason, draw=False)
    if template is None or not valid:
        return f"{label} won: {reason.replace('-', ' ')}" if reason else f"{label} won"
    return f"{label} won: " + template.format(winner=names[winner], loser=names[1 - winner])


def perspectives(match: LoadedMatch) -> list[dict[str, Any]]:
    """The perspective switch: each seat, and the spectator (everything, after the reveal).

    A live match has only the spectator's public view: hidden cards are shown only after the
    reveal.
    """
    genesis = match.genesis or {}
    seats = genesis.get("seats", [])
    spectator = {"key": "all", "seat": None,
                 "label": "Spectator" if match.live else "Spectator (all revealed)"}
    if match.live:
        return [spectator]
    names = seat_names(match.game, len(seats))
    return [spectator] + [
        {"key": names[index].lower(), "seat": index,
         "label": f"Seat {names[index]}: {seat.get('name', '?')}"}
        for index, seat in enumerate(seats)
    ]


def _event_text(match: LoadedMatch, event: Mapping[str, Any]) -> str:
    genesis = match.genesis or {}
    seats = genesis.get("seats", [])
    who = "Seat " + seat_label(match.game, seats, event.get("seat"))
    kind = event.get("type")
    if kind == "genesis":
        return f"Match created; commitment {str(event.get('commitment', ''))[:12]}… published"
    if kind == "seat_key":
        return f"{who} registered a signing key"
    signed = " (signed)" if "sig" in event else ""
    if kind == "client_seed":
        if event.get("client_seed") is None:
            return f"{who} declined to add a client seed{signed}"
        return f"{who} added a client seed {str(event['client_seed'])[:12]}… in one step{signed}"
    if kind == "seed_commit":
        return f"{who} committed to a seed {str(event.get('commitment', ''))[:12]}…{signed}"
    if kind == "seed_reveal":
        return f"{who} revealed its seed {str(event.get('client_seed', ''))[:12]}…{signed}"
    if kind == "seed_expired":
        return f"{who} sent no seed before the seating deadline: declined by the server"
    if kind == "seed_forfeit":
        return f"{who} committed but never revealed its seed: it forfeits"
    if kind == "reveal":
        outcome = result_words(event.get("result"), seats, match.game)
        return f"Seed revealed {str(event.get('server_seed', ''))[:12]}… — {outcome}"
    number = match.step_of_seq.get(event.get("seq", -1))
    if number is not None and number < len(match.steps) and not match.live:
        return match.steps[number].caption
    if kind == "move":
        # a live match: the ledger's public caption, else what the event says
        caption = match.captions.get(event.get("seq", -1))
        return caption if caption else f"{who}: {_cell(event.get('action'))}"
    if kind == "timeout":
        return f"{who} let the turn run out"
    if kind == "resign":
        return f"{who} resigned"
    return str(kind)


def event_rows(match: LoadedMatch) -> list[dict[str, Any]]:
    """Every event as a row of the event list: seq, time into the match, seat, words, step.

    ``step`` is the step number a row links to (None for events that do not change the state
    or that lie past a failure); ``failed`` marks the first failing event.
    """
    if not match.events:
        return []
    start = match.events[0].get("ts", 0)
    names = seat_names(match.game, len((match.genesis or {}).get("seats", [])))
    failure_seq = match.failure_seq
    rows = []
    for event in match.events:
        seq = event.get("seq")
        seat = event.get("seat")
        step = match.step_of_seq.get(seq) if isinstance(seq, int) else None
        if step is not None and not match.live and step >= len(match.steps):
            step = None
        rows.append({
            "seq": seq,
            "kind": event.get("type"),
            "time": duration_words(int(event.get("ts", start)) - int(start)),
            "seat": names[seat] if isinstance(seat, int) and 0 <= seat < len(names) else "",
            "text": _event_text(match, event),
            "step": step,
            "failed": failure_seq is not None and seq == failure_seq,
            "signed": "sig" in event,
        })
    return rows


def _scalar(value: Any) -> bool:
    return value is None or isinstance(value, (str, int, float, bool))


def _cell(value: Any) -> str:
    if value is None:
        return "–"
    if isinstance(value, bool):
        return "yes" if value else "no"
    if isinstance(value, list) and all(_scalar(item) for item in value):
        return ", ".join(_cell(item) for item in value) if value else "–"
    if isinstance(value, Mapping):
        return ", ".join(f"{key} {_cell(item)}" for key, item in value.items()) or "–"
    if _scalar(value):
        return str(value)
    return "…"


def state_tables(view: Any) -> dict[str, Any] | None:
    """A game's public view (JSON) as plain rows, for a live match the board cannot be drawn for.

    Game-agnostic: top-level scalars become facts; a list of objects (the players) becomes a
    table with a row per seat; other values are summarised in one cell.

    >>> tables = state_tables({"turn": 3, "players": [{"tower": 20, "wall": 5}]})
    >>> tables["facts"], tables["tables"][0]["rows"]
    ([('turn', '3')], [['20', '5']])
    """
    if not isinstance(view, Mapping):
        return None
    facts: list[tuple[str, str]] = []
    tables: list[dict[str, Any]] = []
    for key, value in view.items():
        if isinstance(value, list) and value and all(isinstance(item, Mapping) for item in value):
            columns: list[str] = []
            for item in value:
                columns.extend(column for column in item if column not in columns)
            rows = [[_cell(item.get(column)) for column in columns] for item in value]
            tables.append({"name": str(key), "columns": columns, "rows": rows})
        else:
            facts.append((str(key), _cell(value)))
    return {"facts": facts, "tables": tables}
