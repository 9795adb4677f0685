"""The self-contained HTML report: the text report's table and plots drawn with matplotlib,
embedded as inline SVG (no script, no file beside it, nothing fetched)."""

from __future__ import annotations

import html
import io
import math
from typing import Any

import matplotlib

matplotlib.use("Agg")  # no display: the plots only ever become SVG text
import matplotlib.pyplot as plt  # noqa: E402
from matplotlib.figure import Figure  # noqa: E402

from .report import CORRECTION, AuditReport  # noqa: E402
from .stats import ALPHA  # noqa: E402
from .tally import Z_BINS, dealt_order  # noqa: E402

__all__ = ["render_html"]

#: players drawn in the per-player plot: those with the most hands
PLOTTED_PLAYERS = 8

plt.rcParams.update({"svg.fonttype": "none", "svg.hashsalt": "fairdeal-audit",
                     "font.size": 9})


def _svg(figure: Figure) -> str:
    buffer = io.StringIO()
    figure.savefig(buffer, format="svg", bbox_inches="tight", metadata={"Date": None})
    plt.close(figure)
    text = buffer.getvalue()
    return text[text.index("<svg"):]  # drop the XML prolog and DOCTYPE: it sits in HTML


def _p_values(report: AuditReport) -> str | None:
    ran = [r for r in report.results if r.adjusted_p is not None]
    if not ran:
        return None
    figure, axes = plt.subplots(figsize=(7, 0.28 * len(ran) + 1))
    heights = [-math.log10(max(r.adjusted_p or 1.0, 1e-300)) for r in ran]
    colours = ["#c0392b" if r.verdict == "FAIL" else "#2e86c1" for r in ran]
    axes.barh([r.name for r in ran], heights, color=colours)
    axes.axvline(-math.log10(ALPHA), color="black", linestyle="--", linewidth=1)
    axes.invert_yaxis()
    axes.set_xlabel(f"-log10(Holm-adjusted p); dashed: the {ALPHA:g} level (beyond it: FAIL)")
    return _svg(figure)


def _heat_maps(report: AuditReport) -> list[tuple[str, str]]:
    maps = []
    for key, table in sorted(report.tally.positions.items()):
        deck, order = key.split(":")
        n = sum(row[0] for row in table)
        if n == 0:
            continue
        size = len(table[0])
        cells = []
        for row in table:
            expected = n * sum(row) / n / size
            cells.append([(o - expected) / math.sqrt(expected) for o in row])
        dealt = dealt_order(deck, order)
        figure, axes = plt.subplots(figsize=(7, dealt.plot_height))
        image = axes.imshow(cells, aspect="auto", cmap="RdBu_r", vmin=-4, vmax=4,
                            interpolation="nearest")
        axes.set_xlabel("position in the dealt order (1 = first dealt)")
        axes.set_ylabel(dealt.axis_label or dealt.item_word)
        if dealt.labelled_rows:
            axes.set_yticks(range(len(dealt.items)), dealt.items)
        figure.colorbar(image, ax=axes, label="(seen - expected) / sqrt(expected)")
        maps.append((f"{deck} {order}: {dealt.item_word} × position "
                     f"over {n:,} deals", _svg(figure)))
    return maps


def _seat_hands(report: AuditReport) -> list[tuple[str, str]]:
    from fairdeal.games import get_game

    plots = []
    for deck, seats in sorted(report.tally.seat_raw.items()):
        names = get_game(deck.split("/")[0]).seat_names
        figure, axes = plt.subplots(figsize=(7, 2.6))
        for seat, counts in enumerate(seats):
            total = sum(counts.values()) or 1
            xs = sorted(counts)
            axes.step(xs, [counts[x] / total for x in xs], where="mid",
                      label=f"seat {names[seat]}")
        axes.set_xlabel("opening-hand strength (total cost or troop strength)")
        axes.set_ylabel("share of hands")
        axes.legend()
        plots.append((f"{deck}: opening-hand strength by seat", _svg(figure)))
    return plots


def _player_hands(report: AuditReport) -> str | None:
    everyone = report.tally.identities()
    players = sorted(((p.hands, name) for name, p in everyone.items() if p.hands),
                     reverse=True)[:PLOTTED_PLAYERS]
    if not players:
        return None
    figure, axes = plt.subplots(figsize=(7, 2.8))
    centres = [-4 + 0.25 * (i + 0.5) for i in range(Z_BINS)]
    for hands, name in players:
        record = everyone[name]
        axes.step(centres, [c / hands for c in record.z_hist], where="mid",
                  label=f"{name} (mean z {record.z_sum / hands:+.2f})")
    ideal = [math.exp(-c * c / 2) / math.sqrt(2 * math.pi) * 0.25 for c in centres]
    axes.plot(centres, ideal, color="black", linestyle=":", label="fair deal (approx.)")
    axes.set_xlabel("standardised opening-hand strength z (0 = a fair deal's average)")
    axes.set_ylabel("share of hands")
    axes.legend(fontsize=7)
    return _svg(figure)


def _table(report: AuditReport) -> str:
    rows = []
    for r in report.results:
        stat = "" if r.verdict == "SKIP" else f"{r.statistic_name} = {r.statistic:.4g}"
        if r.df is not None and r.verdict != "SKIP":
            stat += f" (df {r.df})"
        p = "" if r.verdict == "SKIP" else f"{r.p_value:.3g}"
        adj = "" if r.adjusted_p is None else f"{r.adjusted_p:.3g}"
        rows.append(
            f'<tr class="{r.verdict.lower()}"><td>{r.verdict}</td><td>{html.escape(r.name)}'
            f"<br><small>{html.escape(r.title)}</small></td><td>{html.escape(stat)}</td>"
            f"<td>{p}</td><td>{adj}</td><td>{html.escape(r.counted)}</td>"
            f"<td>{html.escape(r.detail)}</td></tr>")
    return ("<table><tr><th>verdict</th><th>test</th><th>statistic</th><th>p</th>"
            "<th>Holm p</th><th>counted</th><th>detail</th></tr>" + "".join(rows) + "</table>")


def _other_keys(report: AuditReport) -> list[str]:
    """The bundles sealed under other keys: counted per key, then each key's own report (the
    tests' table) when they were tallied, never mixed into the figures above."""
    if not report.tally.apart:
        return []
    parts = [f"<h2>Not counted above: bundles sealed under other keys</h2><p>Anyone can seal a "
             f"bundle under a key of their own; these "
             f"{sum(report.tally.apart.values()):,} are not counted in the figures above.</p>"
             "<ul>"]
    parts += [f"<li>key <code>{html.escape(key)}</code>: {count:,} bundles</li>"
              for key, count in sorted(report.tally.apart.items())]
    parts.append("</ul>")
    if report.apart_hint and not report.others:
        parts.append(f"<p>{html.escape(report.apart_hint)}</p>")
    for other in report.others:
        parts += [f"<h2>{html.escape(other.first_line())}</h2>",
                  f'<p class="verdict {_verdict_class(other)}">'
                  f"{html.escape(other.summary())}.</p>", _table(other)]
        if other.tally.failures:
            parts.append("<ul>")
            parts += [f"<li><b>{html.escape(where)}</b>: {html.escape(reason)}</li>"
                      for where, reason in other.tally.failures]
            parts.append("</ul>")
    return parts


_STYLE = """body{font-family:system-ui,sans-serif;max-width:980px;margin:2em auto;padding:0 1em;
color:#222}table{border-collapse:collapse;font-size:13px}td,th{border:1px solid #ccc;
padding:4px 6px;vertical-align:top}tr.fail td:first-child{background:#f5b7b1;font-weight:bold}
tr.pass td:first-child{background:#d5f5e3}tr.skip{color:#777}figure{margin:1.5em 0}
svg{max-width:100%;height:auto}.verdict{font-size:1.3em;padding:.5em;border-radius:4px}
.ok{background:#d5f5e3}.bad{background:#f5b7b1}.none{background:#eee}"""


def _verdict_class(report: AuditReport) -> str:
    if report.failed or report.tally.failures:
        return "bad"
    return "ok" if report.tally.matches else "none"


def render_html(report: AuditReport, title: str = "fairdeal fairness audit",
                nav: str = "") -> str:
    """The whole report as one HTML document; ``nav`` is trusted markup put above the title
    (the viewer's links back)."""
    parts: list[Any] = [
        f"<!doctype html><html lang=en><meta charset=utf-8><title>{html.escape(title)}</title>",
        f"<style>{_STYLE}</style>{nav}<h1>{html.escape(title)}</h1>",
        f'<p class="audited"><b>{html.escape(report.first_line())}</b></p>',
        f'<p class="verdict {_verdict_class(report)}">'
        f"{html.escape(report.summary())}.</p>",
        f"<p>Source: {html.escape(report.source or 'bundles')}. Verdicts: "
        f"{html.escape(CORRECTION)}.</p>",
        "<h2>Tests</h2>", _table(report),
    ]
    overview = _p_values(report)
    if overview:
        parts += ["<h2>p-value overview</h2><figure>", overview, "</figure>"]
    for caption, svg in _heat_maps(report):
        parts += [f"<h2>{html.escape(caption)}</h2><figure>", svg,
                  "<figcaption>Red: seen more often than a fair deal would put it there; blue: "
                  "less often.</figcaption></figure>"]
    for caption, svg in _seat_hands(report):
        parts += [f"<h2>{html.escape(caption)}</h2><figure>", svg, "</figure>"]
    players = _player_hands(report)
    if players:
        parts += ["<h2>Opening-hand strength by player</h2><figure>", players, "</figure>"]
    if report.tally.failures:
        parts.append("<h2>Bundles that failed verification (not counted)</h2><ul>")
        parts += [f"<li><b>{html.escape(where)}</b>: {html.escape(reason)}</li>"
                  for where, reason in report.tally.failures]
        parts.append("</ul>")
    parts += _other_keys(report)
    parts.append("</html>\n")
    return "".join(parts)
