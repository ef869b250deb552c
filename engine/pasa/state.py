"""Paša-řada-pyramida's state and actions: frozen dataclasses that print as text and read back from it.

A turn (RULES.md 4.1) in actions: :class:`Roll` (chance: the six dice on the table after a throw, kept dice
included), :class:`Choose` (the binding category, right after roll 1), :class:`Reroll` (keep some dice, throw
the rest), :class:`Stop` (score the dice in the category); the offline scorekeeper's :class:`Enter` writes a
whole turn at once. :class:`Phase` says which of them a state waits for; :func:`parse_action` reads the text.
"""

from __future__ import annotations

import enum
import re
from collections.abc import Sequence
from dataclasses import dataclass
from typing import ClassVar

from engine.dice import check_face
from engine.errors import InvalidActionError
from engine.pasa.scoring import CATEGORIES, check_category

#: Rolls in one turn: the first and at most two re-rolls.
MAX_ROLLS = 3


class Phase(enum.StrEnum):
    """What a state waits for. A StrEnum: each phase equals its name as text (``Phase.ROLL == "roll"``)."""

    ROLL = "roll"  # turn not started: roll 1 (chance) or an offline entry
    CHOOSE = "choose"  # after roll 1: the category
    HOLD = "hold"  # re-roll some dice or stop
    REROLL = "reroll"  # a re-roll announced: its throw (chance)
    STOP = "stop"  # 3 rolls made: only stop
    FINISHED = "finished"


def _dice_text(dice: Sequence[int]) -> str:
    return " ".join(str(d) for d in dice) if dice else "-"


# --- actions --------------------------------------------------------------------------------------


@dataclass(frozen=True)
class Roll:
    """Chance: the six dice on the table after a throw (kept dice included), in any order."""

    kind: ClassVar[str] = "roll"

    dice: tuple[int, ...]

    def __str__(self) -> str:
        return f"roll {_dice_text(self.dice)}"


@dataclass(frozen=True)
class Choose:
    """The binding choice of this turn's category, made right after roll 1."""

    kind: ClassVar[str] = "choose"

    category: str

    def __str__(self) -> str:
        return f"choose {self.category}"


@dataclass(frozen=True)
class Reroll:
    """Keep these values (a sub-multiset of the dice on the table) and throw the rest again."""

    kind: ClassVar[str] = "reroll"

    keep: tuple[int, ...]

    def __str__(self) -> str:
        return f"reroll keep {_dice_text(self.keep)}"


@dataclass(frozen=True)
class Stop:
    """End the turn: the dice on the table are scored in the chosen category."""

    kind: ClassVar[str] = "stop"

    def __str__(self) -> str:
        return "stop"


@dataclass(frozen=True)
class Enter:
    """Offline scorekeeping: the player to move wrote ``points`` in ``category`` (no dice seen)."""

    kind: ClassVar[str] = "enter"

    category: str
    points: int

    def __str__(self) -> str:
        return f"enter {self.category} {self.points}"


PasaAction = Roll | Choose | Reroll | Stop | Enter

ACTION_FORMS = "roll D D D D D D | choose CATEGORY | reroll keep D ... (or -) | stop | enter CATEGORY POINTS"


# --- state ----------------------------------------------------------------------------------------


@dataclass(frozen=True)
class PasaState:
    """A game of Paša-řada-pyramida between turns or inside one.

    ``sheets`` maps each player to their sheet (category -> points); treat it as read-only, every action
    returns a new state. ``dice`` are the six dice on the table, sorted (empty before roll 1), ``rolls``
    the rolls made this turn, ``category`` the choice made after roll 1, and ``keep`` the values kept
    for a re-roll that has been announced but not thrown yet.
    """

    players: tuple[str, ...]
    rule: str
    sheets: dict[str, dict[str, int]]
    to_move: int = 0
    dice: tuple[int, ...] = ()
    rolls: int = 0
    category: str | None = None
    keep: tuple[int, ...] | None = None

    @property
    def player(self) -> str:
        return self.players[self.to_move]

    def used(self, player: str | None = None) -> frozenset[str]:
        """Categories already written on ``player``'s sheet (default: the player to move)."""
        return frozenset(self.sheets[player if player is not None else self.player])

    def open_categories(self, player: str | None = None) -> list[str]:
        used = self.used(player)
        return [c for c in CATEGORIES if c not in used]

    @property
    def finished(self) -> bool:
        return all(len(self.sheets[p]) == len(CATEGORIES) for p in self.players)

    @property
    def rolls_left(self) -> int:
        """Re-rolls still allowed this turn (2 after roll 1, 0 after roll 3)."""
        return MAX_ROLLS - self.rolls

    @property
    def phase(self) -> Phase:
        """roll (turn not started), choose, hold (decide: re-roll or stop), reroll (awaiting the throw),
        stop (3 rolls made: only stop), finished."""
        if self.finished:
            return Phase.FINISHED
        if self.rolls == 0:
            return Phase.ROLL
        if self.category is None:
            return Phase.CHOOSE
        if self.keep is not None:
            return Phase.REROLL
        if self.rolls >= MAX_ROLLS:
            return Phase.STOP
        return Phase.HOLD


def _parse_faces(words: list[str], text: str) -> tuple[int, ...]:
    if words == ["-"]:
        return ()
    if len(words) == 1 and words[0].isdigit() and len(words[0]) > 1:
        words = list(words[0])  # "roll 123456" as a shorthand
    faces = []
    for w in words:
        try:
            faces.append(check_face(int(w)))
        except ValueError:
            raise InvalidActionError(f"{text!r}: {w!r} is not a die face 1..6") from None
    return tuple(faces)


def parse_action(text: str) -> PasaAction:
    """Rebuild an action from the text its ``str()`` prints (see :data:`ACTION_FORMS`)."""
    words = re.split(r"[\s,]+", text.strip().lower())
    head, rest = words[0], words[1:]
    if head == "roll" and rest:
        return Roll(_parse_faces(rest, text))
    if head == "choose" and len(rest) == 1:
        return Choose(check_category(rest[0]))
    if head == "reroll" and rest[:1] == ["keep"] and len(rest) > 1:
        return Reroll(_parse_faces(rest[1:], text))
    if head == "stop" and not rest:
        return Stop()
    if head == "enter" and len(rest) == 2:
        try:
            points = int(rest[1])
        except ValueError:
            raise InvalidActionError(f"{text!r}: points {rest[1]!r} are not a whole number") from None
        category = check_category(rest[0])
        return Enter(category, points)  # whether the points are possible depends on the game's rule: apply checks
    raise InvalidActionError(f"{text!r} is not a Paša-řada-pyramida action; forms: {ACTION_FORMS}")


__all__ = [
    "ACTION_FORMS",
    "MAX_ROLLS",
    "Choose",
    "Enter",
    "PasaAction",
    "PasaState",
    "Phase",
    "Reroll",
    "Roll",
    "Stop",
    "parse_action",
]
