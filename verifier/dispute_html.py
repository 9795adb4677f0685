"""The dispute report as one self-contained HTML page (no script, nothing fetched): the data of
``dispute.dispute_report`` laid out for a tournament organiser."""

from __future__ import annotations

import json
from html import escape
from typing import Any

from .dispute import verdict_words

__all__ = ["dispute_html"]

_STYLE = """body{font-family:system-ui,sans-serif;max-width:1100px;margin:1.5em auto;padding:0 1em;
color:#222}table{border-collapse:collapse;font-size:14px}td,th{border:1px solid #ccc;
padding:4px 8px;text-align:left;vertical-align:top}.pass{color:#1e8449}
.fail{color:#c0392b;font-weight:bold}
.boards{display:flex;flex-wrap:wrap;gap:1em}.boards figure{margin:0;flex:1 1 300px}
.boards svg{width:100%;height:auto}pre{background:#f6f6f6;padding:.5em;overflow-x:auto;
font-size:12px}.verdict{padding:.5em;border-radius:4px}.ok{background:#d5f5e3}
.bad{background:#f5b7b1}.influence{font-size:1.1em;
border-left:4px solid #2e86c1;padding-left:.6em}"""


def _json(value: Any) -> str:
    return f"<pre>{escape(json.dumps(value, indent=2, ensure_ascii=False))}</pre>"


def _checks(verification: dict[str, Any]) -> str:
    rows = "".join(
        f'<tr><td class="{"pass" if c["status"] == "pass" else "fail"}">{escape(c["status"])}'
        f"</td><td>{escape(c['name'])}</td><td>{escape(c['detail'])}</td></tr>"
        for c in verification["checks"])
    return f"<table><tr><th>status</th><th>check</th><th>detail</th></tr>{rows}</table>"


def _signers(signers: dict[str, Any]) -> str:
    server = signers["server"]
    if server["checked"]:
        pin = "pinned (--trusted-key)" if server["pinned"] else "not pinned"
        lines = [f"<li>Server: key <code>{escape(str(server['key_id']))}</code>, {pin}: "
                 f"{escape(server['what'])}.</li>"]
    else:
        lines = [f"<li>Server: {escape(server['what'])}.</li>"]
    player = signers["player"]
    if player is not None:
        key = player["key_id"]
        lines.append(
            f"<li>Seat {escape(player['seat'])} ({escape(player['player'])}): "
            + (f"key <code>{escape(key)}</code>, "
               f"{'pinned (--seat-key)' if player['pinned'] else 'not pinned'}; " if key else "")
            + f"{escape(player['what'])}.</li>")
    return "<ul>" + "".join(lines) + "</ul>"


def _timing(timing: dict[str, Any] | None) -> str:
    if timing is None:
        return "<p>The deal has no turn to time.</p>"
    limit = timing["turn_limit_ms"]
    words = (f"{timing['elapsed_ms']:,} ms after the previous event by the server's clock "
             f"(event stamped {timing['server_time']})")
    if limit is None:
        words += "; the match has no turn limit"
    else:
        words += (f", against a turn limit of {limit:,} ms: "
                  f"{'within the limit' if timing['within_limit'] else 'past the limit'}")
    if timing["client_ts"] is not None:
        words += (f". The player's signed clock says {timing['client_time']} "
                  f"({timing['client_elapsed_ms']:,} ms after the previous event); the "
                  "server's time governs the deadline")
    else:
        words += ". No player clock is recorded (the player's signed time came with protocol 2)"
    return f"<p>{escape(words)}.</p>"


def _boards(title: str, svgs: dict[str, str] | None,
            missing: str = "Before the deal there is no board.") -> str:
    if svgs is None:
        return f"<h3>{escape(title)}</h3><p>{escape(missing)}</p>"
    figures = "".join(f"<figure>{svg}<figcaption>as seat {escape(seat)} sees it"
                      "</figcaption></figure>" for seat, svg in svgs.items())
    return f"<h3>{escape(title)}</h3><div class=boards>{figures}</div>"


def dispute_html(report: dict[str, Any]) -> str:
    """The page for one dispute report (see dispute.dispute_report)."""
    verification = report["verification"]
    ok = verification["ok"]
    seats = ", ".join(f"seat {s['seat']}: {s['player']}" for s in report["seats"])
    step = report["step"]
    title = f"Dispute report: match {report['match_id']}, step {step}"
    parts = [
        f"<!doctype html><html lang=en><meta charset=utf-8><title>{escape(title)}</title>",
        f"<style>{_STYLE}</style><h1>{escape(title)}</h1>",
        f"<p>{escape(report['game_title'])}, rules {escape(report['rules_version'])}, "
        f"protocol {escape(str(report['protocol']))}; {escape(seats)}. Step {step} of "
        f"{report['last_step']} (event {report['seq']}).</p>",
        f'<p class="verdict {"ok" if ok else "bad"}">'
        + escape(verdict_words(report)) + "</p>",
    ]
    influence = report["deal_influence"]
    if influence is not None:
        parts.append(f"<h2>Who could have influenced this deal</h2><p class=influence>"
                     f"{escape(influence['text'])}</p>")
    divergence = report["divergence"]
    failing = report["failing_step"]
    if divergence is not None:
        here = ("this step" if failing == step
                else f"step {failing}" if failing is not None else None)
        parts += [f"<h2>First diverging event: event {divergence['seq']} "
                  f"({escape(divergence['check'])} check)"
                  + (f", {here}" if here else "") + "</h2>",
                  f"<p>{escape(divergence['reason'])}</p><h3>Recorded</h3>",
                  _json(divergence["recorded"]), "<h3>Expected</h3>",
                  _json(divergence["expected"]) if divergence["expected"] is not None
                  else "<p>(see the reason above)</p>"]
    parts += [
        f"<h2>Step {step}: the rule applied</h2><p>{escape(report['rule'])}</p>",
        "<h3>The event as recorded</h3>",
        _json(report["event"]) if report["event"] is not None else "<p>(the deal)</p>",
        "<h2>Who signed it</h2>", _signers(report["signers"]),
        "<h2>Timing</h2>", _timing(report["timing"]),
        "<h2>The state before and after, from each seat's point of view</h2>",
        _boards("Before" if step else "Before (none: this is the deal)", report["svg_before"]),
        _boards("After", report["svg_after"],
                "None: the rules refuse this step, so the match stops before it (see the "
                "diverging event above)."),
        "<details><summary>Each seat's view as data</summary>",
        "<h3>Before</h3>", _json(report["before"]), "<h3>After</h3>", _json(report["after"]),
        "</details>",
        "<h2>Verification of the whole match</h2>", _checks(verification),
        "</html>\n",
    ]
    return "".join(parts)
