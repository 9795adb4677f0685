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
from .stats import ALPHA, TestResult  # noqa: E402
from .tally import Z_BINS, dealt_order  # noqa: E402

__all__ = ["render_body", "render_html"]

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


#: the p-values the overview's axis names (where they fall on its -log10 scale)
_P_TICKS = (1.0, 0.1, 0.01, 1e-3, 1e-4, 1e-6, 1e-8, 1e-12, 1e-20, 1e-50, 1e-100)


def _p_values(report: AuditReport) -> str | None:
    """Every test on one axis, SKIPs included (named, without a bar): how far each adjusted
    p-value is from 1, with the level beyond which a test FAILs. The axis always reaches past
    that level, so a report whose every adjusted p is 1 still shows a real, labelled axis."""
    if not report.results:
        return None
    rows = list(report.results)
    figure, axes = plt.subplots(figsize=(7, 0.3 * len(rows) + 1.3))
    level = -math.log10(ALPHA)
    heights = [0.0 if r.adjusted_p is None else -math.log10(max(r.adjusted_p, 1e-300))
               for r in rows]
    right = max(2 * level, *(h * 1.25 for h in heights))
    places = range(len(rows))
    for place, r, height in zip(places, rows, heights, strict=True):
        if r.adjusted_p is None:
            axes.text(0.02 * right, place, "not run (too few data)", va="center",
                      color="#777777", fontsize=8)
            continue
        colour = "#c0392b" if r.verdict == "FAIL" else "#2e86c1"
        axes.barh(place, height, color=colour, height=0.6)
        axes.plot([height], [place], "o", color=colour, markersize=4)
        axes.text(height + 0.015 * right, place, f"{r.adjusted_p:.2g}", va="center",
                  fontsize=8)
    axes.set_yticks(list(places), [r.name for r in rows])
    axes.axvline(level, color="black", linestyle="--", linewidth=1)
    axes.set_xlim(0, right)
    axes.set_ylim(len(rows) - 0.5, -0.5)
    ticks = [p for p in _P_TICKS if -math.log10(p) <= right]
    axes.set_xticks([-math.log10(p) for p in ticks], [f"{p:g}" for p in ticks])
    axes.set_xlabel(f"Holm-adjusted p (log scale; 1 at the left: nothing unusual); "
                    f"dashed: the {ALPHA:g} level, beyond it FAIL")
    return _svg(figure)


def _not_drawn(result: TestResult | None) -> str | None:
    """Why a figure is left out: its test was not run (too few data to tell chance from
    bias, so a picture would show chance noise as alarming colours); None when it was run."""
    if result is None or result.verdict != "SKIP":
        return None
    reason = f"it {result.detail}" if result.detail.startswith("needs") else result.detail
    return (f"Not drawn: the test {result.name} was not run with {result.counted}: "
            f"{reason}. With so few data, most of what a picture would show is "
            "chance (cells that look alarming and mean nothing), so none is drawn.")


#: a figure: its heading, then either its SVG or, for a test not run, why it is not drawn
Drawn = tuple[str, str | None, str | None]


def _heat_maps(report: AuditReport) -> list[Drawn]:
    maps: list[Drawn] = []
    for key, table in sorted(report.tally.positions.items()):
        deck, order = key.split(":")
        n = sum(row[0] for row in table)
        if n == 0:
            continue
        dealt = dealt_order(deck, order)
        caption = f"{deck} {order}: {dealt.item_word} × position over {n:,} deals"
        why = _not_drawn(report.result(f"deal-position {deck} {order}"))
        if why:
            maps.append((caption, None, why))
            continue
        size = len(table[0])
        cells = []
        for row in table:
            expected = sum(row) / size
            cells.append([(o - expected) / math.sqrt(expected) for o in row])
        figure, axes = plt.subplots(figsize=(7, dealt.plot_height))
        image = axes.imshow(cells, aspect="auto", cmap="RdBu_r", vmin=-4, vmax=4,
                            interpolation="nearest")
        axes.set_xlabel("position in the dealt order (1 = first dealt)")
        axes.set_ylabel(dealt.axis_label or dealt.item_word)
        if dealt.labelled_rows:
            axes.set_yticks(range(len(dealt.items)), dealt.items)
        figure.colorbar(image, ax=axes, label="(seen - expected) / sqrt(expected)")
        maps.append((caption, _svg(figure), None))
    return maps


def _seat_hands(report: AuditReport) -> list[Drawn]:
    from fairdeal.games import get_game

    plots: list[Drawn] = []
    for deck, seats in sorted(report.tally.seat_raw.items()):
        caption = f"{deck}: opening-hand strength by seat"
        why = _not_drawn(report.result(f"seat-hands {deck}"))
        if why:
            plots.append((caption, None, why))
            continue
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
        plots.append((caption, _svg(figure), None))
    return plots


def _player_hands(report: AuditReport) -> Drawn | None:
    everyone = report.tally.identities()
    players = sorted(((p.hands, name) for name, p in everyone.items() if p.hands),
                     reverse=True)[:PLOTTED_PLAYERS]
    if not players:
        return None
    caption = "Opening-hand strength by player"
    why = _not_drawn(report.result("player-hands"))
    if why:
        return caption, None, why
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
    return caption, _svg(figure), None


def _figure(caption: str, svg: str | None, why: str | None, note: str = "") -> list[str]:
    """One figure's section: the drawing (scrolling sideways on a narrow screen) or, for a
    test not run, the sentence that says why there is none."""
    head = f"<h2>{html.escape(caption)}</h2>"
    if svg is None:
        return [head, f'<p class="not-drawn">{html.escape(why or "")}</p>']
    tail = f"<figcaption>{html.escape(note)}</figcaption>" if note else ""
    return [head, '<figure class="audit-figure"><div class="figure-scroll">', svg,
            f"</div>{tail}</figure>"]


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
    # a region of its own that scrolls sideways on a narrow screen (and by keyboard: it takes
    # the focus), so the page around it never does
    return ('<div class="table-scroll" role="region" aria-label="the tests" tabindex="0">'
            '<table class="audit-tests"><thead><tr><th scope="col">verdict</th>'
            '<th scope="col">test</th><th scope="col">statistic</th><th scope="col">p</th>'
            '<th scope="col">Holm p</th><th scope="col">counted</th><th scope="col">detail</th>'
            "</tr></thead><tbody>" + "".join(rows) + "</tbody></table></div>")


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
                  f'<p class="audit-verdict {_verdict_class(other)}">'
                  f"{html.escape(other.summary())}.</p>", _table(other)]
        if other.tally.failures:
            parts.append("<ul>")
            parts += [f"<li><b>{html.escape(where)}</b>: {html.escape(reason)}</li>"
                      for where, reason in other.tally.failures]
            parts.append("</ul>")
    return parts


#: the standalone file's own style (the viewer's /audit page uses the site's, viewer.css)
_STYLE = """body{font-family:system-ui,sans-serif;max-width:980px;margin:2em auto;padding:0 1em;
color:#222}table{border-collapse:collapse;font-size:13px}td,th{border:1px solid #ccc;
padding:4px 6px;vertical-align:top;text-align:left}tr.fail td:first-child{background:#f5b7b1;
font-weight:bold}tr.pass td:first-child{background:#d5f5e3}tr.skip{color:#777}
.table-scroll,.figure-scroll{overflow-x:auto;max-width:100%}figure{margin:1.5em 0}
svg{max-width:100%;height:auto}.audit-verdict{font-size:1.3em;padding:.5em;border-radius:4px}
.ok{background:#d5f5e3}.bad{background:#f5b7b1}.none{background:#eee}
.not-drawn{color:#555;font-style:italic}
@media (max-width:600px){.figure-scroll svg{width:640px;max-width:none}}"""


def _verdict_class(report: AuditReport) -> str:
    if report.failed or report.tally.failures:
        return "bad"
    return "ok" if report.tally.matches else "none"


_HEAT_NOTE = ("Red: seen more often than a fair deal would put it there; blue: less often.")


def render_body(report: AuditReport) -> str:
    """The report's content, below its title: the verdict, the tests' table, the figures (a
    test not run gets a sentence instead of its figure), the failing bundles and the other
    keys. What the viewer's /audit page puts inside the site's own layout."""
    parts: list[Any] = [
        f'<p class="audited"><b>{html.escape(report.first_line())}</b></p>',
        f'<p class="audit-verdict {_verdict_class(report)}">'
        f"{html.escape(report.summary())}.</p>",
        f"<p>Source: {html.escape(report.source or 'bundles')}. Verdicts: "
        f"{html.escape(CORRECTION)}.</p>",
        "<h2>Tests</h2>", _table(report),
    ]
    overview = _p_values(report)
    if overview:
        parts += _figure("p-value overview", overview, None)
    for caption, svg, why in _heat_maps(report):
        parts += _figure(caption, svg, why, _HEAT_NOTE)
    for caption, svg, why in _seat_hands(report):
        parts += _figure(caption, svg, why)
    players = _player_hands(report)
    if players:
        parts += _figure(*players)
    if report.tally.failures:
        parts.append("<h2>Bundles that failed verification (not counted)</h2><ul>")
        parts += [f"<li><b>{html.escape(where)}</b>: {html.escape(reason)}</li>"
                  for where, reason in report.tally.failures]
        parts.append("</ul>")
    parts += _other_keys(report)
    return "".join(parts)


def render_html(report: AuditReport, title: str = "fairdeal fairness audit") -> str:
    """The whole report as one self-contained HTML document (its own style, no script,
    nothing fetched): what ``fairdeal audit --html`` writes."""
    return (f"<!doctype html><html lang=en><meta charset=utf-8>"
            '<meta name="viewport" content="width=device-width, initial-scale=1">'
            f"<title>{html.escape(title)}</title><style>{_STYLE}</style>"
            f"<h1>{html.escape(title)}</h1>{render_body(report)}</html>\n")
