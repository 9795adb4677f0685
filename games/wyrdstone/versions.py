"""The rules versions of the Wyrdstone duel: what changed from one to the next, as values.

A recorded duel replays under the version its header names, so every version stays here and
the engine asks its ``RuleSet`` wherever two versions differ. docs/rules/wyrdstone.md lists
the changes of each version with their tests.

>>> V1.turn_70_played, V2.turn_70_played
(False, True)
>>> V2.turn_limit_ms, V2.per_turn
(60000, True)
"""

from __future__ import annotations

from dataclasses import dataclass

__all__ = ["LATEST", "V1", "V2", "RuleSet"]


@dataclass(frozen=True, slots=True)
class RuleSet:
    """The rules that differ between versions of the duel.

    - ``defeat_at_zero``: a mage whose health reaches 0 loses at that moment and nothing after
      it in the sequence resolves (v2); else a mage is judged only at the judgement points of
      v1 (after the rune, the cast, each attack, the Wrath and the whole start of a turn).
    - ``turn_70_played``: whether turn 70 is played before the draw of two living mages
      (v2: the draw comes after its attacks; v1: the moment it would begin, so turn 69 is
      the last); ``draw_when`` words it in the outcome.
    - ``tavern``: tavern effects exist (a seat's ``tavern`` parameter).
    - ``turn_limit_ms`` / ``per_turn``: the limit the rules fix for the whole turn (v2), or
      None: the header's, for each action (v1).
    """

    version: str
    defeat_at_zero: bool
    turn_70_played: bool
    draw_when: str
    tavern: bool
    turn_limit_ms: int | None
    per_turn: bool


V1 = RuleSet("wyrdstone/1", defeat_at_zero=False, turn_70_played=False,
             draw_when="at turn 70", tavern=False, turn_limit_ms=None, per_turn=False)
V2 = RuleSet("wyrdstone/2", defeat_at_zero=True, turn_70_played=True,
             draw_when="at the end of turn 70", tavern=True, turn_limit_ms=60_000,
             per_turn=True)
#: what new duels are played under
LATEST = V2
