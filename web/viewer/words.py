"""The board in words: the game's own text drawing of a step (``render_text``, what
``fairdeal replay`` prints), as lines a phone can read at the page's font size. The SVG board
scales to the width it is given, so on a 390 px phone its card text shrinks to a few pixels;
these lines say the same state, from the same perspective (``render_text`` keeps
``render_svg``'s secrecy), and wrap instead of shrinking. Game-agnostic: every game has a
``render_text``, and its indentation becomes the lines' nesting."""

from __future__ import annotations

from typing import Any

from markupsafe import Markup, escape

__all__ = ["board_words", "word_lines"]

#: the deepest nesting drawn (deeper lines are drawn at this depth)
MAX_DEPTH = 4


def word_lines(text: str) -> list[tuple[int, str]]:
    """``text``'s non-blank lines as (depth, words): two leading spaces are one level.

    >>> word_lines("Field: turn 3\\n  seat A: tower 20\\n    Amethyst (2 mana)\\n")
    [(0, 'Field: turn 3'), (1, 'seat A: tower 20'), (2, 'Amethyst (2 mana)')]
    """
    lines = []
    for line in text.splitlines():
        words = line.strip()
        if words:
            indent = len(line) - len(line.lstrip(" "))
            lines.append((min(indent // 2, MAX_DEPTH), words))
    return lines


def board_words(game: Any, state: Any, seat: int | None) -> Markup:
    """Step ``state`` in words, from ``seat``'s perspective (None: everything, as after the
    reveal), as a list; a game whose text drawing fails gets one line saying so."""
    if game is None or state is None:
        return Markup("")
    try:
        text = str(game.render_text(state, seat))
    except Exception as e:  # noqa: BLE001  a drawing bug must not hide the rest of the page
        return Markup('<p class="muted">This game\'s text drawing failed: {}</p>').format(
            type(e).__name__)
    items = "".join(f'<li class="depth-{depth}">{escape(words)}</li>'
                    for depth, words in word_lines(text))
    return Markup(f'<ul class="words">{items}</ul>')
