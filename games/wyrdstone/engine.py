"""The working copy one state change is resolved on: effects, deaths, the start of a turn and
the attacks. rules.py builds a ``Duel`` from a state, calls these steps and freezes the result.

Order of a creature's death (seed 001): its own death abilities, then the other creatures'
abilities (the dead creature's side left to right, then the other side left to right), then
skills (the dead creature's owner first), then artifacts (likewise). Several creatures that
fall at once die one by one: the acting mage's side left to right, then the other side.

Energy-linked properties fire the moment a counter changes: every change of a Death counter
checks that mage's Werewolves (``_energy``).

Under defeat at zero (wyrdstone/2) the duel ends the moment a mage's health reaches 0: each
blow — one effect on its targets, one creature's strike, one Wrath strike — is judged as it
lands (``judge``), and ``DuelOver`` stops the sequence there; both mages at 0 after the same
blow is a draw. Under wyrdstone/1 a mage is judged only at the points rules.py names.
"""

from __future__ import annotations

from ..base import Outcome, Rng
from .book import (
    ARTIFACT_BY_ID,
    ELEMENTS,
    SCHOOL,
    SCROLL_BY_ID,
    SKILL_BY_ID,
    TAVERN_BY_ID,
    Ability,
    Effect,
    Scroll,
)
from .state import HEALTH, SEAT_NAMES, SLOTS, Creature, Last, WyrdState

__all__ = ["DEATH", "DRAW_TURN", "WEREWOLF_DEATH", "WRATH_FROM", "Duel", "DuelOver", "Streams"]

#: the index of Death among the energy counters
DEATH = ELEMENTS.index("death")
#: the Werewolf becomes a wolf the moment its owner's Death exceeds this
WEREWOLF_DEATH = 5
#: Wrath of the Gods strikes from this turn on, ``turn - WRATH_FROM + 1`` damage to each mage
WRATH_FROM = 50
#: both mages alive at this turn: a draw (when it would begin under wyrdstone/1, once it has
#: been played from wyrdstone/2)
DRAW_TURN = 70


class DuelOver(Exception):  # noqa: N818  (a signal, not an error: the duel ended mid-sequence)
    """A mage fell under defeat at zero: nothing after this blow resolves."""

    def __init__(self, outcome: Outcome) -> None:
        super().__init__(outcome.detail)
        self.outcome = outcome


class Streams:
    """The per-purpose sub-streams of one state change, opened only when a rule draws."""

    __slots__ = ("_open", "_rng", "purpose")

    def __init__(self, rng: Rng | None) -> None:
        self._rng = rng
        self._open: dict[str, Rng] = {}
        self.purpose = "start"

    def pick(self, n: int) -> int:
        """An index in [0, n) from the sub-stream of the current purpose."""
        stream = self._open.get(self.purpose)
        if stream is None:
            if self._rng is None:
                raise AssertionError(f"a {self.purpose} pick needs a random stream")
            stream = self._open[self.purpose] = self._rng.substream(self.purpose)
        return stream.randbelow(n)


class Duel:
    """A mutable copy of a state while one action, timeout or turn change resolves."""

    def __init__(self, state: WyrdState, rng: Rng | None) -> None:
        self.state = state
        self.rules = state.rules
        self.turn = state.turn
        self.seat = state.seat
        self.health = list(state.health)
        self.energy = list(state.energy)
        self.board: list[Creature | None] = [
            None if creature is None else creature.copy() for creature in state.board
        ]
        self.belts = [list(state.belts[0]), list(state.belts[1])]
        self.rune_used = state.rune_used
        self.last_cast = state.last_cast
        self.streams = Streams(rng)
        #: which mages fell to Wrath of the Gods (for the outcome's reason)
        self.wrath = False

    # ------------------------------------------------------------------ freezing

    def freeze(self, last: Last | None, result: Outcome | None) -> WyrdState:
        """The new immutable state."""
        return WyrdState(
            loadouts=self.state.loadouts,
            training=self.state.training,
            turn=self.turn,
            seat=self.seat,
            health=(self.health[0], self.health[1]),
            energy=tuple(self.energy),
            board=tuple(self.board),
            belts=(tuple(self.belts[0]), tuple(self.belts[1])),
            rune_used=self.rune_used,
            last=last,
            last_cast=self.last_cast,
            result=result,
            rules=self.rules,
        )

    def outcome(self) -> Outcome | None:
        """The end of the duel if a mage has fallen: both at once is a draw."""
        fallen = [seat for seat in (0, 1) if self.health[seat] <= 0]
        if not fallen:
            return None
        if len(fallen) == 2:
            how = "Wrath of the Gods" if self.wrath else "the same blow"
            return Outcome(None, "simultaneous", f"both mages fell at once ({how})")
        loser = fallen[0]
        reason = "wrath" if self.wrath else "health"
        cause = "Wrath of the Gods" if self.wrath else "the duel"
        return Outcome(1 - loser, reason, f"{SEAT_NAMES[loser]} fell to {cause}")

    def judge(self) -> None:
        """A blow has landed: under defeat at zero, a fallen mage ends the duel now."""
        if self.rules.defeat_at_zero:
            result = self.outcome()
            if result is not None:
                raise DuelOver(result)

    # ------------------------------------------------------------------ energy

    def gain(self, seat: int, element: int, amount: int) -> None:
        """Change one counter (never below 0) and fire what is linked to it at once."""
        index = 5 * seat + element
        before = self.energy[index]
        self.energy[index] = max(before + amount, 0)
        if element == DEATH and self.energy[index] != before:
            self.check_werewolves(seat)

    def check_werewolves(self, seat: int) -> None:
        """Every Werewolf of ``seat`` becomes a wolf if its owner's Death exceeds 5 now."""
        if self.energy[5 * seat + DEATH] <= WEREWOLF_DEATH:
            return
        for index in range(seat * SLOTS, seat * SLOTS + SLOTS):
            self._transform(index)

    def _transform(self, index: int) -> None:
        creature = self.board[index]
        if creature is None or creature.wolf:
            return
        wolf = SCROLL_BY_ID[creature.scroll].wolf
        if wolf is None:
            return
        creature.wolf = True
        creature.attack = max(creature.attack, wolf[0])
        creature.health += wolf[1]
        creature.max_health += wolf[1]

    def pay(self, seat: int, scroll: Scroll) -> None:
        """Take a scroll's price (checked before) from ``seat``'s counters."""
        for element, amount in scroll.cost:
            self.gain(seat, ELEMENTS.index(element), -amount)

    # ------------------------------------------------------------------ effects

    def _targets(self, effect: Effect, seat: int, source: int | None,
                 target: int | None) -> list[int]:
        """Board indexes of the creatures ``effect`` touches (-1 / -2: own / enemy mage)."""
        who = effect.who
        enemy = 1 - seat
        if who == "own-mage":
            return [-1]
        if who == "enemy-mage":
            return [-2]
        if who == "self":
            return [] if source is None else [source]
        if who == "opposite":
            if source is None:
                return []
            facing = (source + SLOTS) % (2 * SLOTS)
            return [facing] if self.board[facing] is not None else []
        if who == "target":
            return [] if target is None else [target]
        sides = {"own-creatures": (seat,), "enemy-creatures": (enemy,),
                 "all-creatures": (self.seat, 1 - self.seat)}.get(who)
        if sides is not None:
            return [i for side in sides for i in range(side * SLOTS, side * SLOTS + SLOTS)
                    if self.board[i] is not None]
        living = [i for i in range(enemy * SLOTS, enemy * SLOTS + SLOTS)
                  if self.board[i] is not None]
        if not living:
            return [-2] if who == "random-enemy" else []
        return [living[self.streams.pick(len(living))]]

    def run(self, effect: Effect, seat: int, source: int | None = None,
            target: int | None = None) -> None:
        """Resolve one effect of ``seat``'s (deaths are resolved by the caller)."""
        for index in self._targets(effect, seat, source, target):
            if index < 0:
                mage = seat if index == -1 else 1 - seat
                self._on_mage(effect, seat, mage)
                continue
            creature = self.board[index]
            if creature is None:
                continue
            op = effect.op
            if op == "damage":
                creature.health -= effect.amount
            elif op == "heal":
                creature.health = min(creature.health + effect.amount, creature.max_health)
            elif op == "poison":
                creature.poison = max(creature.poison, effect.amount)
                creature.poison_turns = max(creature.poison_turns, effect.turns)
            elif op == "stun":
                creature.stun = max(creature.stun, effect.turns)
            elif op == "buff":
                if effect.turns == 0:
                    creature.attack += effect.amount
                else:
                    creature.buff += effect.amount
                    creature.buff_turns = max(creature.buff_turns, effect.turns)
        self.judge()

    def _on_mage(self, effect: Effect, seat: int, mage: int) -> None:
        if effect.op == "damage":
            self.health[mage] -= effect.amount
        elif effect.op == "heal":
            self.health[mage] = min(self.health[mage] + effect.amount, HEALTH)
        elif effect.op == "energy":
            element = effect.element
            if element == SCHOOL:
                element = self.state.loadouts[mage].element
            self.gain(mage, ELEMENTS.index(element), effect.amount)

    def fire(self, abilities: tuple[Ability, ...], trigger: str, seat: int,
             source: int | None = None, target: int | None = None) -> None:
        """Run every ability of ``abilities`` with ``trigger``, in order, then the deaths."""
        for ability in abilities:
            if ability.trigger == trigger:
                self.run(ability.effect, seat, source, target)
                self.deaths()

    # ------------------------------------------------------------------ deaths

    def deaths(self) -> None:
        """Remove every creature at 0 health or less, one by one, each with its death order."""
        while True:
            order = [*range(self.seat * SLOTS, self.seat * SLOTS + SLOTS),
                     *range((1 - self.seat) * SLOTS, (1 - self.seat) * SLOTS + SLOTS)]
            dying = next((i for i in order if (c := self.board[i]) is not None and c.health <= 0),
                         None)
            if dying is None:
                return
            self._die(dying)

    def bury(self) -> None:
        """The duel ended mid-blow: creatures that blow left at 0 health or less are dead too,
        and leave the board; nothing they would trigger resolves any more (wyrdstone/2)."""
        for index, creature in enumerate(self.board):
            if creature is not None and creature.health <= 0:
                self.board[index] = None

    def _die(self, index: int) -> None:
        creature = self.board[index]
        assert creature is not None
        self.board[index] = None
        owner = index // SLOTS
        sides = (owner, 1 - owner)
        # (1) its own death abilities: "opposite" still means the slot it stood in
        for ability in SCROLL_BY_ID[creature.scroll].abilities:
            if ability.trigger == "death":
                self.run(ability.effect, owner, index)
        # (2) the other creatures' abilities
        for side in sides:
            for other in range(side * SLOTS, side * SLOTS + SLOTS):
                survivor = self.board[other]
                if survivor is None:
                    continue
                for ability in SCROLL_BY_ID[survivor.scroll].abilities:
                    if _hears(ability.trigger, side, owner):
                        self.run(ability.effect, side, other)
        # (3) skills, then (4) artifacts
        for catalogue, kind in ((SKILL_BY_ID, "skills"), (ARTIFACT_BY_ID, "artifacts")):
            for side in sides:
                for item in getattr(self.state.loadouts[side], kind):
                    for ability in catalogue[item].abilities:
                        if _hears(ability.trigger, side, owner):
                            self.run(ability.effect, side)

    # ------------------------------------------------------------------ the turn

    def start_turn(self) -> None:
        """The start of ``self.seat``'s turn ``self.turn``: Wrath of the Gods (the duel ends at
        once if it fells a mage), then the seed's five steps in order. Under wyrdstone/1 all
        five run and a mage who falls during them is judged once the start is over; under
        defeat at zero the fall ends the duel at that blow."""
        seat = self.seat
        self.streams.purpose = "start"
        if self.turn >= WRATH_FROM:
            self.wrath = True
            damage = self.turn - WRATH_FROM + 1
            self.health[0] -= damage
            self.health[1] -= damage
            self.judge()
            if self.outcome() is not None:
                return
            self.wrath = False
        # (1) +1 energy of each element
        for element in range(len(ELEMENTS)):
            self.gain(seat, element, 1)
        # (2) temporary effects: poison bites, buffs and stuns count down
        own = range(seat * SLOTS, seat * SLOTS + SLOTS)
        for index in own:
            creature = self.board[index]
            if creature is None:
                continue
            if creature.buff_turns > 0:
                creature.buff_turns -= 1
                if creature.buff_turns == 0:
                    creature.buff = 0
            if creature.stun > 0:
                creature.stun -= 1
                creature.held = True
            if creature.poison_turns > 0:
                creature.health -= creature.poison
                creature.poison_turns -= 1
                if creature.poison_turns == 0:
                    creature.poison = 0
                self.deaths()
        # (3) creature abilities, left to right (a stunned creature misses them)
        for index in own:
            creature = self.board[index]
            if creature is not None and not creature.stunned:
                self.fire(SCROLL_BY_ID[creature.scroll].abilities, "start", seat, index)
        # (4) skills, (5) artifacts
        loadout = self.state.loadouts[seat]
        for skill in loadout.skills:
            self.fire(SKILL_BY_ID[skill].abilities, "start", seat)
        for artifact in loadout.artifacts:
            self.fire(ARTIFACT_BY_ID[artifact].abilities, "start", seat)

    def attacks(self) -> None:
        """The acting mage's creatures attack: first strikers, then the rest, each left to
        right. Summoned this turn, stunned or weaponless creatures do not attack."""
        seat = self.seat
        self.streams.purpose = "combat"
        own = range(seat * SLOTS, seat * SLOTS + SLOTS)
        first = [i for i in own if _first_strike(self.board[i])]
        order = first + [i for i in own if i not in first]
        for index in order:
            if self.outcome() is not None:
                return
            creature = self.board[index]
            if (creature is None or creature.summoned == self.turn or creature.stunned
                    or creature.strength <= 0):
                continue
            facing = (index + SLOTS) % (2 * SLOTS)
            defender = self.board[facing]
            if defender is None:
                self.health[1 - seat] -= creature.strength
                self.judge()
                continue
            defender.health -= creature.strength
            for ability in SCROLL_BY_ID[creature.scroll].abilities:
                if ability.trigger == "hit":
                    self.run(ability.effect, seat, index)
            self.deaths()

    def duel_start(self) -> None:
        """Before turn 1: each mage's tavern effects, seat A's then B's, each in the order of
        its equipment (wyrdstone/2; a wyrdstone/1 loadout has none)."""
        self.streams.purpose = "start"
        for seat in (0, 1):
            for item in self.state.loadouts[seat].tavern:
                self.fire(TAVERN_BY_ID[item].abilities, "duel-start", seat)

    def end_turn(self) -> None:
        """Pass the turn to the other mage and start theirs (under wyrdstone/1 turn 70 is not
        started: the duel is drawn when it would begin)."""
        for index in range(self.seat * SLOTS, self.seat * SLOTS + SLOTS):
            creature = self.board[index]
            if creature is not None:
                creature.held = False
        self.turn += 1
        self.seat = 1 - self.seat
        self.rune_used = False
        if self.turn < DRAW_TURN or self.rules.turn_70_played:
            self.start_turn()


def _hears(trigger: str, side: int, owner: int) -> bool:
    """Whether an ability of ``side`` with ``trigger`` fires when ``owner``'s creature dies."""
    return trigger == "any-death" or (trigger == "ally-death" and side == owner)


def _first_strike(creature: Creature | None) -> bool:
    return creature is not None and "first-strike" in SCROLL_BY_ID[creature.scroll].keywords
