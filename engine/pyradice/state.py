"""Pyradice states and actions: frozen dataclasses that round-trip through JSON and print as text.

A turn is split into the steps the rulebook names, so each step is one small action the camera can see:
``Take`` a quarry die (or ``UseReserve``), ``Place`` it, then optionally one ``Skill`` (or ``Pass``).
Chance enters as actions: ``RollOff`` (the first-player roll), ``Roll`` (the outcome of skill A2 when
it was not given with the skill) and ``Reveal`` (a quarry die first seen when it is uncovered, at a table
whose covered dice were not known at set-up).
"""

from __future__ import annotations

import enum
from dataclasses import dataclass, field
from typing import ClassVar

from engine.dice import Die
from engine.pyradice.pyramid import SLOTS, Slot, slot_text
from engine.pyradice.quarry import Position, Quarry, geometry, position_text


class Phase(enum.Enum):
    ROLL_OFF = "roll-off"  # players roll for first player (chance)
    TAKE = "take"  # acquire a die: from the quarry or the reserve
    PLACE = "place"  # put the die in hand into the pyramid
    SKILL = "skill"  # optionally use the skill of the level just placed on
    ROLL = "roll"  # skill A2: the re-rolled value is awaited (chance)
    OVER = "over"


@dataclass(frozen=True)
class Board:
    """The tokens every player's board shows (all boards are identical).

    ``skills[k-2]`` is the face-up skill on level k (2..6), e.g. "A3"; ``objectives[k-1]`` is the
    objective token on level k (1..5), e.g. "C6".
    """

    skills: tuple[str, ...]
    objectives: tuple[str, ...]

    def skill_on(self, level: int) -> str | None:
        return self.skills[level - 2] if 2 <= level <= 6 else None

    def objective_on(self, level: int) -> str | None:
        return self.objectives[level - 1] if 1 <= level <= 5 else None


@dataclass(frozen=True)
class Card:
    """An objective card in play and the colour of the disc on it."""

    title: str
    colour: str


@dataclass(frozen=True)
class PlayerState:
    name: str
    pyramid: dict[Slot, Die] = field(default_factory=dict)
    reserve: Die | None = None


@dataclass(frozen=True)
class PyradiceState:
    """Everything on the table. ``turn`` is the seat of the player to move; ``first`` the first player.

    ``hand`` is the die taken this turn (phase PLACE); ``placed`` is the slot placed on this turn (phase
    SKILL and ROLL); ``pending`` the target of an A2 re-roll whose value is awaited (phase ROLL);
    ``rolling`` the seats still in the first-player roll-off (phase ROLL_OFF).
    """

    players: tuple[PlayerState, ...]
    quarry: Quarry
    board: Board
    cards: tuple[Card, ...]
    options: dict[str, str]
    phase: Phase
    turn: int = 0
    first: int = 0
    rolling: tuple[int, ...] = ()
    hand: Die | None = None
    placed: Slot | None = None
    pending: Slot | None = None

    @property
    def mover(self) -> PlayerState:
        return self.players[self.turn]

    def player(self, name: str) -> PlayerState:
        for p in self.players:
            if p.name == name:
                return p
        raise KeyError(name)


# --- actions --------------------------------------------------------------------------------------
# Each action has a class-level ``kind``: the tag of its JSON (engine.serial.action_codec).


@dataclass(frozen=True, slots=True)
class RollOff:
    """The first-player roll: one value per player still rolling, in seat order."""

    values: tuple[int, ...]
    kind: ClassVar[str] = "roll-off"

    def __str__(self) -> str:
        return "roll-off " + " ".join(map(str, self.values))


@dataclass(frozen=True, slots=True)
class Take:
    """Take the available quarry die at ``position``."""

    position: Position
    kind: ClassVar[str] = "take"

    def __str__(self) -> str:
        return "take " + position_text(self.position)


@dataclass(frozen=True, slots=True)
class UseReserve:
    """Use the reserve die (skill B3) instead of taking from the quarry."""

    kind: ClassVar[str] = "reserve"

    def __str__(self) -> str:
        return "reserve"


@dataclass(frozen=True, slots=True)
class Place:
    """Put the die in hand on ``slot`` = (level, index)."""

    slot: Slot
    kind: ClassVar[str] = "place"

    def __str__(self) -> str:
        return "place " + slot_text(self.slot)


@dataclass(frozen=True, slots=True)
class Skill:
    """Use skill ``code`` (the effective skill: under B6 this is the skill borrowed from below).

    ``target``: the pyramid die acted on; ``other``: the second die for A5; ``quarry``: the quarry die
    for B3 and A4; ``value``: the new value for A2 (the observed re-roll; None leaves it to chance),
    B4, B5 and A6.
    """

    code: str
    target: Slot | None = None
    other: Slot | None = None
    quarry: Position | None = None
    value: int | None = None
    kind: ClassVar[str] = "skill"

    def __str__(self) -> str:
        parts = [self.code]
        if self.target is not None:
            parts.append(slot_text(self.target))
        if self.other is not None:
            parts.append(slot_text(self.other))
        if self.quarry is not None:
            parts.append(position_text(self.quarry))
        if self.value is not None:
            parts.append(f"={self.value}")
        return " ".join(parts)


@dataclass(frozen=True, slots=True)
class Pass:
    """Use no skill this turn."""

    kind: ClassVar[str] = "pass"

    def __str__(self) -> str:
        return "pass"


@dataclass(frozen=True, slots=True)
class Roll:
    """The value an A2 re-roll came up with."""

    value: int
    kind: ClassVar[str] = "roll"

    def __str__(self) -> str:
        return f"roll {self.value}"


@dataclass(frozen=True, slots=True)
class Reveal:
    """Chance seen by the camera: the quarry die at ``position``, unknown until now, is ``die``. It is no step
    of a turn (the phase and the mover stay); it is legal whenever that die's top is uncovered."""

    position: Position
    die: Die
    kind: ClassVar[str] = "reveal"

    def __str__(self) -> str:
        return f"reveal {position_text(self.position)} {self.die}"


Action = RollOff | Take | UseReserve | Place | Skill | Pass | Roll | Reveal

PASS = Pass()
USE_RESERVE = UseReserve()


# Interned actions: legal_actions hands out the same objects every time, which keeps listing cheap.
# Every position of both quarry sides is filled in up front, so listing takes is a plain look-up.
TAKES: dict[Position, Take] = {p: Take(p) for boxes in (1, 2) for p in geometry(boxes).positions}
PLACES: dict[Slot, Place] = {s: Place(s) for s in SLOTS}


def take(position: Position) -> Take:
    found = TAKES.get(position)
    if found is None:
        found = TAKES[position] = Take(position)
    return found


def place(slot: Slot) -> Place:
    return PLACES.get(slot) or Place(slot)
