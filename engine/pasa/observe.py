"""For the camera: which legal Paša action explains the dice seen in the tray, or why none does.

The camera sees six dice lying still in the tray, each with a value and how sure the reader is of it.
A throw is never seen as an event, only its result, so:

- at the start of a turn the dice lying still are the last player's dice until they were seen to move
  (``moved``); then they are the new turn's roll 1;
- later in the turn, dice that differ from those the engine holds are a re-roll (the engine refuses one
  before the category is chosen or after roll 3, and one that lost a kept die);
- the same dice as the engine holds are no change.

Doubtful dice (unsure or cocked) are never explained silently: :func:`doubts` names them, and the caller
asks the players to correct them or to accept them as read.
"""

from __future__ import annotations

from dataclasses import dataclass

from engine.errors import InvalidActionError
from engine.pasa.game import PasaState, Roll
from engine.pasa.scoring import check_dice

DICE = 6


@dataclass(frozen=True)
class SeenDie:
    """One die as the camera read it (or a player corrected it)."""

    value: int
    sure: bool = True
    cocked: bool = False
    corrected: bool = False


@dataclass(frozen=True)
class TrayView:
    """The dice lying still in the tray, in table order, and whether they were seen to move since the
    last accepted reading."""

    dice: tuple[SeenDie, ...]
    moved: bool = False

    def values(self) -> tuple[int, ...]:
        return tuple(d.value for d in self.dice)


def doubts(seen: TrayView) -> list[str]:
    """Why the dice cannot be taken as read without a player (empty: they can). Corrected dice are sure."""
    if len(seen.dice) != DICE:
        return [f"{DICE} dice expected in the tray, {len(seen.dice)} seen"]
    out = []
    for i, d in enumerate(seen.dice):
        if d.corrected:
            continue
        if d.cocked:
            out.append(f"die {i + 1} is cocked (leaning): lay it flat, correct it, or press CONFIRM")
        elif not d.sure:
            out.append(f"die {i + 1} is hard to read (looks like {d.value}): correct it or press CONFIRM")
    return out


def explain_tray(state: PasaState, seen: TrayView) -> Roll | None:
    """The roll that explains ``seen`` (None: nothing changed); InvalidActionError when the dice are not
    six faces. Whether the roll is legal now is the engine's to say when it is applied."""
    if len(seen.dice) != DICE:
        raise InvalidActionError(f"{DICE} dice expected in the tray, {len(seen.dice)} seen")
    dice = check_dice(seen.values(), "reading of the tray")
    if state.phase == "roll":
        # A new turn starts when the dice were thrown; the last player's dice lying still are not a roll.
        return Roll(dice) if seen.moved else None
    if state.phase in ("hold", "reroll", "stop", "choose") and dice != tuple(state.dice):
        return Roll(dice)
    return None


def is_tray_action(action: object) -> bool:
    """Whether ``action`` is one the tray explains (a roll), so a correction of the dice can replace it."""
    return isinstance(action, Roll)

