"""The 52 cards of a standard deck, as short codes: rank then suit letter (``"10h"``, ``"Qs"``).

The codes are what a move event stores and what the audit's card × position table lists. The
deck's canonical order (before the protocol's shuffle) is clubs, diamonds, hearts, spades, each
ace to king.

>>> len(CARDS), CARDS[0], CARDS[-1]
(52, 'Ac', 'Ks')
>>> rank_of("10h"), suit_of("10h"), POINTS["8d"], card_name("Qs")
('10', 'hearts', 50, 'queen of spades')
"""

from __future__ import annotations

__all__ = ["CARDS", "EIGHT", "POINTS", "RANKS", "SUITS", "SYMBOLS", "card_label", "card_name",
           "rank_of", "suit_of"]

RANKS: tuple[str, ...] = ("A", "2", "3", "4", "5", "6", "7", "8", "9", "10", "J", "Q", "K")
SUITS: tuple[str, ...] = ("clubs", "diamonds", "hearts", "spades")
#: the wild rank
EIGHT = "8"
SYMBOLS = {"clubs": "♣", "diamonds": "♦", "hearts": "♥", "spades": "♠"}
_SUIT_BY_LETTER = {suit[0]: suit for suit in SUITS}
_RANK_WORDS = {"A": "ace", "J": "jack", "Q": "queen", "K": "king"}

CARDS: tuple[str, ...] = tuple(f"{rank}{suit[0]}" for suit in SUITS for rank in RANKS)


def rank_of(card: str) -> str:
    """The card's rank (``"10"``, ``"Q"``)."""
    return card[:-1]


def suit_of(card: str) -> str:
    """The card's suit, as a word (``"hearts"``)."""
    return _SUIT_BY_LETTER[card[-1]]


def _points(card: str) -> int:
    rank = rank_of(card)
    if rank == EIGHT:
        return 50
    if rank in ("J", "Q", "K"):
        return 10
    return 1 if rank == "A" else int(rank)


#: what a card left in hand costs when a blocked or capped game is decided by points (the
#: traditional count: an eight 50, a court card 10, an ace 1, any other its pips)
POINTS: dict[str, int] = {card: _points(card) for card in CARDS}


def card_name(card: str) -> str:
    """The card in words: ``"8 of hearts"``, ``"queen of spades"``."""
    rank = rank_of(card)
    return f"{_RANK_WORDS.get(rank, rank)} of {suit_of(card)}"


def card_label(card: str) -> str:
    """The card as drawn on a board: ``"10♥"``."""
    return f"{rank_of(card)}{SYMBOLS[suit_of(card)]}"
