"""Pyramido's states and actions: frozen dataclasses that round-trip through JSON and print as text.

A state (:class:`PyramidoState`) holds the explorers (pyramid, gems, stage scores), the five exploration spaces,
the gem bag and supply, the stage, the turn order, the :class:`Phase`, the domino in hand, the chance still
pending (:class:`Pending`: a gem to draw, a domino to reveal), the Legend in solo play and, for a seeded game,
the dominoes not yet seen. The actions are the turn's steps (take, flip, place), the stage scoring's (activate,
end, discard) and chance (draw, reveal); :func:`parse_action` reads the text ``str(action)`` prints.
"""

from __future__ import annotations

import enum
from collections.abc import Mapping
from dataclasses import dataclass
from typing import ClassVar

from engine import serial
from engine.errors import InvalidActionError
from engine.pyramido.activation import AreaActivation
from engine.pyramido.dominoes import NO_GEMS, Back, Domino, Gem, Gems, parse_back, parse_domino
from engine.pyramido.exploration import Space
from engine.pyramido.geometry import Placement, Pyramid

# --- state --------------------------------------------------------------------------------------


class Phase(enum.Enum):
    TAKE = "take"
    FLIP = "flip"
    PLACE = "place"
    SCORE = "score"
    OVER = "over"


class PendingKind(enum.Enum):
    GEM_TO_SPACE = "gem-to-space"
    DOMINO_TO_PILE = "domino-to-pile"
    GEM_TO_LEGEND = "gem-to-legend"
    DOMINO_TO_LEGEND = "domino-to-legend"

    #: What the table is asked for; a plain attribute because status() prints it at every chance step.
    text: str

    def __init__(self, value: str) -> None:
        self.text = {
            "gem-to-space": "draw a gem into space {}",
            "domino-to-pile": "reveal the top of pile {}",
            "gem-to-legend": "draw a random gem for the Legend",
            "domino-to-legend": "reveal the Legend's first domino",
        }[value]


@dataclass(frozen=True, slots=True)
class Pending:
    """A chance event still to come: a gem drawn into a space (1-5) or to the Legend, a domino revealed."""

    kind: PendingKind
    target: int = 0

    def __str__(self) -> str:
        return self.kind.text.format(self.target)


@dataclass(frozen=True)
class Explorer:
    """A player: pyramid, gem inventory, stage scores so far, and this stage's state."""

    name: str
    pyramid: Pyramid
    inventory: Gems = NO_GEMS
    stage_scores: tuple[int, ...] = ()
    complete: bool = False  # this stage is complete (no room when their turn came)
    activated: tuple[AreaActivation, ...] = ()  # gems placed in the scoring under way
    lost_turns: int = 0

    @property
    def total(self) -> int:
        return sum(self.stage_scores)


@dataclass(frozen=True)
class LegendState:
    """The Legend in solo mode: his pile (top last), gems and stage scores."""

    pile: tuple[Domino, ...] = ()
    inventory: Gems = NO_GEMS
    stage_scores: tuple[int, ...] = ()
    last_search: str = ""

    @property
    def total(self) -> int:
        return sum(self.stage_scores)


@dataclass(frozen=True)
class PyramidoState:
    explorers: tuple[Explorer, ...]
    spaces: tuple[Space, ...]
    bag: Gems
    discards: Gems
    supply: Gems
    options: Mapping[str, str]
    stage: int = 1
    order: tuple[int, ...] = ()  # seats in this stage's turn order
    turn: int = 0  # index into order of the player taking a turn
    phase: Phase = Phase.TAKE
    holding: Domino | None = None
    pending: tuple[Pending, ...] = ()
    legend: LegendState | None = None
    unseen: tuple[Domino, ...] | None = None  # with a known deck: the dominoes not yet seen

    @property
    def solo(self) -> bool:
        return self.legend is not None


# --- actions ------------------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class Take:
    kind: ClassVar[str] = "take"

    space: int
    gem: Gem | None
    refill_from: int | None = None

    def __str__(self) -> str:
        g = self.gem.letter if self.gem is not None else "-"
        return f"take {self.space} {g}" + (f" refill {self.refill_from}" if self.refill_from else "")


@dataclass(frozen=True, slots=True)
class Flip:
    """Turn pile ``pile``'s top face up; ``back`` is the back seen on it, when the device saw it."""

    kind: ClassVar[str] = "flip"

    pile: int
    back: Back | None = None

    def __str__(self) -> str:
        return f"flip {self.pile}" + (f" {self.back}" if self.back is not None else "")


@dataclass(frozen=True, slots=True)
class Place:
    kind: ClassVar[str] = "place"

    placement: Placement

    def __str__(self) -> str:
        return f"place {self.placement}"


@dataclass(frozen=True, slots=True)
class Activate:
    kind: ClassVar[str] = "activate"

    activation: AreaActivation

    def __str__(self) -> str:
        return f"activate {self.activation}"


@dataclass(frozen=True, slots=True)
class EndScoring:
    kind: ClassVar[str] = "end"

    def __str__(self) -> str:
        return "end"


@dataclass(frozen=True, slots=True)
class Discard:
    kind: ClassVar[str] = "discard"

    gem: Gem

    def __str__(self) -> str:
        return f"discard {self.gem.letter}"


@dataclass(frozen=True, slots=True)
class Draw:
    """Chance: the gem drawn from the bag for the next pending draw."""

    kind: ClassVar[str] = "draw"

    gem: Gem

    def __str__(self) -> str:
        return f"draw {self.gem.letter}"


@dataclass(frozen=True, slots=True)
class Reveal:
    """Chance: the domino turned face up for the next pending reveal."""

    kind: ClassVar[str] = "reveal"

    domino: Domino

    def __str__(self) -> str:
        return f"reveal {self.domino}"


PyramidoAction = Take | Flip | Place | Activate | EndScoring | Discard | Draw | Reveal
#: Each action class by its ``kind`` (the word its text starts with, and the tag of its JSON).
_ACTION_KINDS: dict[str, type] = serial.action_codec(PyramidoAction).kinds


def parse_action(text: str) -> PyramidoAction:
    """Rebuild an action from the text ``str(action)`` prints."""
    words = text.split()
    if not words or words[0].lower() not in _ACTION_KINDS:
        raise InvalidActionError(f"action {text!r} does not start with one of {', '.join(_ACTION_KINDS)}")
    kind, rest = words[0].lower(), words[1:]
    try:
        if kind == "take":
            if len(rest) not in (2, 4) or (len(rest) == 4 and rest[2].lower() != "refill"):
                raise ValueError
            gem = None if rest[1] == "-" else Gem.parse(rest[1])
            return Take(int(rest[0]), gem, int(rest[3]) if len(rest) == 4 else None)
        if kind == "flip" and len(rest) in (1, 2):
            return Flip(int(rest[0]), parse_back(rest[1]) if len(rest) == 2 else None)
        if kind == "place":
            return Place(Placement.parse(" ".join(rest)))
        if kind == "activate":
            return Activate(AreaActivation.parse(" ".join(rest)))
        if kind == "end" and not rest:
            return EndScoring()
        if kind in ("discard", "draw") and len(rest) == 1:
            return Discard(Gem.parse(rest[0])) if kind == "discard" else Draw(Gem.parse(rest[0]))
        if kind == "reveal" and len(rest) == 1:
            return Reveal(parse_domino(rest[0]))
    except InvalidActionError as exc:
        raise InvalidActionError(f"action {text!r}: {exc}") from None
    except ValueError:
        pass
    forms = (
        "take S G [refill P] | flip P [BACK] | place sK X,Y DIR | activate X,Y NcMm | end | discard G | draw G | "
        "reveal D"
    )
    raise InvalidActionError(f"action {text!r} is malformed; forms: {forms}")


__all__ = [
    "Activate",
    "Discard",
    "Draw",
    "EndScoring",
    "Explorer",
    "Flip",
    "LegendState",
    "Pending",
    "PendingKind",
    "Phase",
    "Place",
    "PyramidoAction",
    "PyramidoState",
    "Reveal",
    "Take",
    "parse_action",
]
