"""Names that enter the ledger (the players' names at a match's seats): printable text only.

A control character (Unicode category Cc: NUL, escape, line feed, ...) or a formatting one
(Cf: the bidirectional overrides U+202A–U+202E and isolates U+2066–U+2069, the marks
U+200E/U+200F and U+061C, the zero-width characters) makes a name read otherwise than it is
— "\u202eecila" shows as "alice" — or breaks the pages and reports that print it. A new
match refuses them, naming the character. This is a rule for new matches, not for the
verifier: a bundle sealed before it, or elsewhere, with such a name still verifies.
"""

from __future__ import annotations

import unicodedata

from .errors import BadRequest

__all__ = ["REFUSED_CATEGORIES", "check_name", "refused_character"]

#: controls, formatting characters, lone surrogates, and the line and paragraph separators
REFUSED_CATEGORIES = frozenset({"Cc", "Cf", "Cs", "Zl", "Zp"})
#: the controls the Unicode character database gives no name (it knows them by alias only)
_CONTROL_NAMES = {0x00: "NULL", 0x07: "BELL", 0x08: "BACKSPACE", 0x09: "CHARACTER TABULATION",
                  0x0A: "LINE FEED", 0x0B: "LINE TABULATION", 0x0C: "FORM FEED",
                  0x0D: "CARRIAGE RETURN", 0x1B: "ESCAPE", 0x7F: "DELETE",
                  0x85: "NEXT LINE"}


def _describe(char: str) -> str:
    """``U+202E RIGHT-TO-LEFT OVERRIDE``: the code point and its Unicode name."""
    code = ord(char)
    name = unicodedata.name(char, None) or _CONTROL_NAMES.get(code) or (
        "SURROGATE" if 0xD800 <= code <= 0xDFFF else "CONTROL CHARACTER")
    return f"U+{code:04X} {name}"


def refused_character(name: str) -> str | None:
    """The first character of ``name`` a name may not hold, described (None: none)."""
    for char in name:
        if unicodedata.category(char) in REFUSED_CATEGORIES:
            return _describe(char)
    return None


def check_name(name: str, what: str) -> None:
    """Refuse (BadRequest, code ``invalid-name``) a name holding a control or formatting
    character, naming ``what`` it is ("seat 0's name") and the character."""
    found = refused_character(name)
    if found is not None:
        raise BadRequest(f"{what} holds {found}: a name may not hold control or invisible "
                         "formatting characters (they can make it read as another name)",
                         code="invalid-name")
