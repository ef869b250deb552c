"""Dice and colours: the vocabulary every game and the camera share.

A die is a colour name and a face value. Colour names are plain strings from a game's palette (Pyradice:
white, gray, maroon, orange; Dice Treasure and Pyramido have their own), so the camera can report a
colour the game does not know without the type system getting in the way; each game validates names
against its own palette.
"""

from __future__ import annotations

from dataclasses import dataclass

from engine.errors import InvalidActionError

FACES: tuple[int, ...] = (1, 2, 3, 4, 5, 6)

#: Colour palettes of the games, by game name. Order is the order the rulebooks list them.
PALETTES: dict[str, tuple[str, ...]] = {
    "pyradice": ("white", "gray", "maroon", "orange"),
    "pyramido": ("orange", "blue", "purple", "green", "red"),
    "dicetreasure": ("red", "yellow", "green", "blue", "purple"),
}


def check_face(value: object, what: str = "die") -> int:
    """Return ``value`` as a face 1..6 or raise InvalidActionError quoting it."""
    if isinstance(value, bool) or not isinstance(value, int) or not 1 <= value <= 6:
        raise InvalidActionError(f"{what} value {value!r} is not a face of a six-sided die (1..6)")
    return value


def check_colour(colour: str, palette: tuple[str, ...], what: str = "die") -> str:
    """Return ``colour`` if the palette has it, else raise InvalidActionError listing the palette."""
    if colour not in palette:
        raise InvalidActionError(f"{what} colour {colour!r} is not one of {', '.join(palette)}")
    return colour


@dataclass(frozen=True, slots=True)
class Die:
    """A die as the rules see it: its colour (``None`` where the game has one colour) and its face."""

    value: int
    colour: str | None = None

    def __post_init__(self) -> None:
        check_face(self.value)

    def __str__(self) -> str:
        return f"{self.colour}:{self.value}" if self.colour else str(self.value)

    @classmethod
    def parse(cls, text: str) -> Die:
        """Parse ``"4"`` or ``"maroon:4"`` (the text :meth:`__str__` prints)."""
        colour, _, value = text.rpartition(":")
        try:
            face = int(value)
        except ValueError:
            raise InvalidActionError(f"die {text!r} is not VALUE or COLOUR:VALUE") from None
        return cls(check_face(face), colour or None)
