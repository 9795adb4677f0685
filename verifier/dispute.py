"""The dispute report for one step of one match: what a tournament organiser needs to settle a
disputed move, as data (``dispute_report``) — rendered to HTML by ``dispute_html``.

It holds the verification of the whole match (and, for a failing bundle, the first diverging
event with the recorded and the expected outcome), the state before and after step N from each
seat's point of view, the rule applied with its card's, troop's or scroll's text, who signed the
move (server and player, with key fingerprints, and whether they were pinned), the move's timing
against the turn limit, and who could have influenced the deal.

Pure: bytes in, JSON-ready data out (it runs wherever the verifier runs).
"""

from __future__ import annotations

from collections.abc import Collection, Mapping
from typing import Any

from fairdeal.games import RulesError, get_plugin

from .bundle import Bundle, InvalidBundle
from .errors import FairdealError
from .keys import InvalidKey, key_id
from .protocol import PLAY_TYPES, event_hash, utc_time
from .replay import MatchReplayer, Step, replay_steps
from .report import Failure, Report, VerificationError
from .verify import verify_bundle

__all__ = ["V1_INFLUENCE", "DisputeError", "NoSuchStep", "deal_influence", "dispute_report",
           "verdict_words"]

#: what a version 1 report says when the verifier gave no deal-influence line
V1_INFLUENCE = ("version 1 bundle, client seeds unsigned: the server could have chosen this "
                "deal")


class DisputeError(FairdealError):
    """The report cannot be made: the file is no bundle, or the step does not exist."""


class NoSuchStep(DisputeError):
    """The file is a bundle, but the step asked for is not one of its steps."""


def deal_influence(report: Report, genesis: Mapping[str, Any]) -> dict[str, Any] | None:
    """The report's "who could have influenced this deal" fact, or the version 1 wording."""
    influence = report.facts.get("deal_influence")
    if isinstance(influence, dict) and "text" in influence:
        return influence
    if genesis.get("protocol") == "fairdeal/1":
        return {"text": V1_INFLUENCE, "colluders_needed": ["server"], "seats": []}
    return None


def _views(game: Any, state: Any) -> dict[str, Any] | None:
    if state is None:
        return None
    views: dict[str, Any] = {name: game.view(state, seat)
                             for seat, name in enumerate(game.seat_names)}
    views["spectator"] = game.view(state, None)
    return views


def _svgs(game: Any, state: Any) -> dict[str, str] | None:
    if state is None:
        return None
    return {name: str(game.render_svg(state, seat)) for seat, name in enumerate(game.seat_names)}


def _rule(game: Any, before: Any, event: Mapping[str, Any] | None, seat_name: str,
          refused: VerificationError | None = None) -> str:
    """The rule applied at a step in words; for the step verification refuses (``refused``:
    the check that failed there), what the recorded event claims, and why it cannot be."""
    if refused is not None and event is not None:
        if event["type"] == "move" and before is not None \
                and game.current_seat(before) != event.get("seat"):
            claimed = f"{seat_name or 'a seat'} plays {event.get('action')!r}, out of turn"
        else:
            claimed = _rule(game, before, event, seat_name)
        return (f"This step fails the {refused.check} check: {refused.reason}. The event "
                f"records: {claimed}. The replay stops here: nothing after it is applied")
    if event is None:
        return ("the deal: every shuffle and draw of the setup, re-derived from the deal seed "
                "(the server seed mixed with the client seeds)")
    kind = event["type"]
    if kind == "move" and before is None:  # a move before the deal: no state to read it on
        return f"{seat_name or 'a seat'} moves {event.get('action')!r} before the deal was made"
    if kind == "move":
        try:
            action = game.parse_action(event["action"])
            words = str(game.describe_action(before, action))
        except (ValueError, KeyError, AssertionError) as e:
            return f"the recorded move {event['action']!r} is not a move of this game here ({e})"
        return words + _quote(game, action)
    if kind not in PLAY_TYPES:  # a seat's key or seed event, before the deal
        return f"{seat_name or 'the server'} wrote a {kind.replace('_', ' ')} event"
    if kind == "timeout":
        return (f"{seat_name} let the turn's time run out; the server wrote a timeout and the "
                "rules' timeout applied (docs/rules: what a timeout does in this game)")
    return f"{seat_name} resigned: the other seat wins"


def _quote(game: Any, action: Any) -> str:
    """The rule or card text the game's plug-in adds to a move's description (most games'
    descriptions quote their card's text already: they add nothing)."""
    try:
        plugin = get_plugin(game.name)
    except RulesError:  # a game replayed without its plug-in registered: nothing to add
        return ""
    return plugin.quote(action)


def _check_status(report: Report, name: str) -> str:
    """``pass``, ``fail``, ``not-checked`` or ``skipped`` for the named check."""
    for check in report.checks:
        if check.name == name:
            return check.status
    return "not-checked"


def _server_signer(report: Report, bundle: Bundle,
                   server_keys: Collection[str] | None) -> dict[str, Any]:
    """What the report may say about the server's signature: only what the verification
    checked. ``this_server`` is None where no server's own keys were given (the CLI)."""
    status = _check_status(report, "signature")
    failure = report.failure
    if status == "pass":
        kid = report.facts.get("key_id")
        pinned = bool(report.facts.get("key_pinned"))
        this_server = None if server_keys is None else bundle.server_key in server_keys
        if this_server is False and not pinned:
            what = (f"signed by another server · key {kid}: every check passes under that key, "
                    "which is not this server's, and anyone can seal a history under a key of "
                    "their own")
        elif this_server:
            what = ("this server signed the final event, sealing every event including this "
                    "one")
        else:
            what = ("signed the final event, sealing every event including this one"
                    + ("" if pinned else "; pass --trusted-key to check the key is the "
                       "server's"))
        return {"checked": True, "key_id": kid, "pinned": pinned, "this_server": this_server,
                "what": what}
    if status == "fail" and failure is not None:
        what = f"the server's signature does not verify: {failure.reason}"
    else:
        where = "" if failure is None or failure.seq is None else f" (event {failure.seq})"
        stopped = failure.check if failure is not None else "an earlier"
        what = (f"the server's signature was not checked: verification stopped at the "
                f"{stopped} check{where}, before it")
    return {"checked": False, "key_id": None, "pinned": False, "this_server": None,
            "what": what}


def _signers(report: Report, bundle: Bundle, replayer: MatchReplayer,
             event: Mapping[str, Any] | None, seat_keys: Mapping[str, str],
             server_keys: Collection[str] | None) -> dict[str, Any]:
    server = _server_signer(report, bundle, server_keys)
    player: dict[str, Any] | None = None
    if event is not None and "seat" in event and event["seat"] < replayer.seats:
        seat = event["seat"]
        name = replayer.game.seat_names[seat]
        key = replayer.seat_keys[seat]
        pinned_labels = {label.strip().lower() for label in seat_keys}
        signatures = _check_status(report, "seat-signatures")
        player = {
            "seat": name, "player": replayer.genesis["seats"][seat]["name"],
            "key_id": key_id(key) if key is not None else None,
            "signed": "sig" in event,
            # only what the verification confirmed: a key is "pinned" once the pin was checked
            "pinned": signatures == "pass" and key is not None and (
                name.lower() in pinned_labels or str(seat) in pinned_labels),
            "checked": signatures == "pass",
        }
        if event["type"] == "timeout":
            player["what"] = "a timeout is written by the server, never by the player"
        elif key is None:
            player["what"] = "this seat registered no key: its moves are the server's word"
        elif "sig" not in event:
            player["what"] = "not signed although the seat registered a key"
        elif signatures == "pass":
            player["what"] = "signed by the seat's registered key (the signature verifies)"
        elif signatures == "fail":
            player["what"] = ("carries a signature, but the seat-signatures check failed: see "
                              "the verification below")
        else:
            player["what"] = ("carries a signature that was not checked: verification stopped "
                              "before the seat-signatures check")
    return {"server": server, "player": player}


def verdict_words(report: Mapping[str, Any]) -> str:
    """The dispute report's one-line verdict, saying only what was checked: which checks
    passed, which were skipped for want of input, and whose key sealed the match."""
    verification = report["verification"]
    if not verification["ok"]:
        failure = verification["failure"] or {}
        where = f" at event {failure['seq']}" if failure.get("seq") is not None else ""
        return (f"The match does NOT verify: the {failure.get('check')} check failed{where}: "
                f"{failure.get('reason')}")
    passed = [c["name"] for c in verification["checks"] if c["status"] == "pass"]
    skipped = [f"{c['name']} ({c['detail']})" for c in verification["checks"]
               if c["status"] == "skipped"]
    total = len(verification["checks"])
    if skipped:
        words = (f"{len(passed)} of {total} checks passed; the other {len(skipped)} did not "
                 "run, for want of input: " + "; ".join(skipped))
    else:
        words = f"The whole match verifies: all {total} checks passed"
    server = report["signers"]["server"]
    if server["this_server"] is False and not server["pinned"]:
        words += (f". Signed by another server · key {server['key_id']}: this proves the file "
                  "is consistent under that key, not that this server recorded the match")
    return words + "."


def _timing(replayer: MatchReplayer, events: list[dict[str, Any]],
            event: Mapping[str, Any] | None) -> dict[str, Any] | None:
    if event is None:
        return None
    seq = event["seq"]
    previous = events[seq - 1]["ts"] if 0 < seq <= len(events) else event["ts"]
    elapsed = event["ts"] - previous
    limit = replayer.turn_limit_ms
    return {
        "server_ts": event["ts"], "server_time": utc_time(event["ts"]),
        "previous_ts": previous, "elapsed_ms": elapsed,
        "turn_limit_ms": limit,
        "within_limit": None if limit is None else elapsed <= limit,
        "client_ts": event.get("client_ts"),
        "client_time": utc_time(event["client_ts"]) if "client_ts" in event else None,
        "client_elapsed_ms": (event["client_ts"] - previous if "client_ts" in event else None),
    }


def _state_before(steps: list[Step], seq: int | None) -> Any:
    """The state the event ``seq`` was played on: the last step before it."""
    earlier = [step for step in steps if seq is None or step.seq < seq]
    return earlier[-1].state if earlier else None


def _expected(failure: Failure, recorded: Mapping[str, Any] | None,
              events: list[dict[str, Any]], steps: list[Step],
              replayer: MatchReplayer) -> Any:
    """What the rules expected where the recorded event diverges, as far as the check says."""
    seq = failure.seq
    if failure.check == "chain" and seq is not None and 0 < seq < len(events):
        return {"seq": seq, "prev": event_hash(events[seq - 1], checked=False)}
    if recorded is None:
        return None
    if recorded["type"] in PLAY_TYPES and failure.check == "moves":
        state = _state_before(steps, seq)
        game = replayer.game
        to_act = None if state is None else game.current_seat(state)
        if to_act is not None:
            return {"seat to act": game.seat_names[to_act],
                    "legal actions": [game.action_to_json(a) for a in game.legal_actions(state)]}
    if failure.check == "timers" and seq is not None and 0 < seq < len(events):
        previous = events[seq - 1]["ts"]
        limit = replayer.turn_limit_ms
        expected = {"not before": utc_time(previous)}
        if limit is not None and recorded["type"] in PLAY_TYPES:
            expected["not after"] = utc_time(previous + limit)
        return expected
    if recorded["type"] == "reveal" and replayer.outcome is not None:
        return {"result": replayer.outcome.to_json()}
    return None


def _divergence(report: Report, events: list[dict[str, Any]], steps: list[Step],
                replayer: MatchReplayer) -> dict[str, Any] | None:
    failure = report.failure
    if failure is None:
        return None
    seq = failure.seq
    recorded = events[seq] if seq is not None and 0 <= seq < len(events) else None
    step = next((s.number for s in steps if s.seq == seq and s.number > 0), None)
    return {"check": failure.check, "seq": seq, "reason": failure.reason, "step": step,
            "recorded": recorded,
            "expected": _expected(failure, recorded, events, steps, replayer)}


def _failing_step(events: list[dict[str, Any]], steps: list[Step],
                  error: VerificationError | None) -> Step | None:
    """The event the replay stopped at, as one more step with no state after it, so that the
    step where the cheat is can be disputed like any other: a play after the last step, or,
    when the match broke before its deal (a seed event), step 0 itself."""
    if error is None or error.seq is None:
        return None
    last = steps[-1].seq if steps else 0
    event = next((e for e in events[1:] if e.get("seq") == error.seq and error.seq > last),
                 None)
    if event is None or (steps and event.get("type") not in PLAY_TYPES):
        return None
    return Step(len(steps), error.seq, event, None)


def _replayed(events: list[dict[str, Any]]
              ) -> tuple[MatchReplayer, list[Step], Step | None, VerificationError | None]:
    """Every step of the match, the one where the replay stopped included (the failing step,
    also returned, with the check that refused it)."""
    try:
        seed = bytes.fromhex(events[-1]["server_seed"])
        replayer, steps, error = replay_steps(events, seed)
    except VerificationError as e:
        raise DisputeError(f"the match cannot be replayed at all: {e}") from None
    failing = _failing_step(events, steps, error)
    if failing is None:
        return replayer, steps, None, None
    return replayer, [*steps, failing], failing, error


def dispute_report(data: bytes | str, step: int, *, trusted_key: str | None = None,
                   seat_keys: Mapping[str, str] | None = None,
                   server_keys: Collection[str] | None = None) -> dict[str, Any]:
    """Everything about step ``step`` (0 is the deal, N the N-th play) of the bundle ``data``.

    ``server_keys`` are the public keys of the server showing the report (the viewer's own):
    a match sealed under any other key is then said to be "signed by another server", as on
    every other page. The report says only what the verification checked: a signature that
    was never reached is "not checked", never vouched for.

    Raises DisputeError for a file that is no bundle or a step the match does not have."""
    try:
        bundle = Bundle.from_bytes(data)
    except InvalidBundle as bad_bundle:
        raise DisputeError(f"not a valid bundle: {bad_bundle}") from None
    seat_keys = seat_keys or {}
    try:
        report = verify_bundle(bundle, trusted_key, None, seat_keys)
    except InvalidKey as bad_key:
        raise DisputeError(str(bad_key)) from None
    events = bundle.events
    genesis = events[0]
    replayer, steps, failing, refused = _replayed(events)
    if not 0 <= step < len(steps):
        last = len(steps) - 1
        raise NoSuchStep(f"step {step} does not exist: this match has steps 0 to {last}"
                         if steps else "this match has no steps to show")
    game = replayer.game
    current = steps[step]
    before = steps[step - 1].state if step > 0 else None
    event = current.event if step > 0 or current is failing else None
    seat_name = (replayer.seat_name(event["seat"])
                 if event is not None and 0 <= event.get("seat", -1) < replayer.seats else "")
    divergence = _divergence(report, events, steps, replayer)
    return {
        "match_id": genesis["match_id"], "game": game.name, "game_title": game.title,
        "rules_version": genesis["rules_version"], "params": genesis["params"],
        "protocol": genesis.get("protocol"),
        "seats": [{"seat": name, "player": genesis["seats"][i]["name"]}
                  for i, name in enumerate(game.seat_names)],
        "step": step, "last_step": len(steps) - 1, "seq": current.seq,
        "event": event,
        "verification": report.to_json(),
        "divergence": divergence,
        # the step the replay stopped at (its state after is None), or the step of the
        # first failing event: where the report has to be read
        "failing_step": (failing.number if failing is not None
                         else None if divergence is None else divergence["step"]),
        "rule": _rule(game, before, event, seat_name,
                      refused=refused if current is failing else None),
        "signers": _signers(report, bundle, replayer, event, seat_keys, server_keys),
        "timing": _timing(replayer, events, event),
        "deal_influence": deal_influence(report, genesis),
        "before": _views(game, before),
        "after": _views(game, current.state),
        "svg_before": _svgs(game, before),
        "svg_after": _svgs(game, current.state),
    }
