"""Paša-řada-pyramida in words a player reads: every action's label and group, and what chance awaits.

Groups (a small fixed vocabulary, :data:`GROUPS`, for the page to lay buttons out by):

- ``category``: choose this turn's category right after roll 1 ("Choose Pyramida (14 now)": the points the
  dice on the table would give in it now);
- ``hold``: keep some dice and re-roll the rest ("Keep 3 3 5, re-roll 3");
- ``stop``: end the turn and write the dice in the chosen category ("End the turn: 14 in Pyramida");
- ``enter``: the offline scorekeeper's entry of a whole turn ("Write 12 in Twos");
- ``chance``: a roll, entered by the table or the camera.

Labels of the actions legal in one state are distinct: holds are distinct multisets of the dice, and each
label names the dice kept.
"""

from __future__ import annotations

from engine.game import ChancePrompt
from engine.pasa.game import MAX_ROLLS, Choose, Enter, PasaAction, PasaGame, PasaState, Reroll, Roll, Stop
from engine.pasa.scoring import CATEGORIES, TITLES, score

GROUPS: tuple[str, ...] = PasaGame.action_groups  # named once, on the game

def _faces(dice: tuple[int, ...]) -> str:
    return " ".join(map(str, sorted(dice)))


def _now(state: PasaState, category: str) -> int | None:
    """What the six dice on the table score in ``category`` now (None before roll 1)."""
    if len(state.dice) != 6:
        return None
    return score(category, state.dice, state.rule)


def label(state: PasaState, action: PasaAction) -> tuple[str, str]:
    """(label, group) of ``action`` in ``state``."""
    if isinstance(action, Choose):
        now = _now(state, action.category)
        shown = f" ({now} now)" if now is not None else ""
        return f"Choose {TITLES.get(action.category, action.category)}{shown}", "category"
    if isinstance(action, Reroll):
        thrown = len(state.dice) - len(action.keep) if state.dice else 6 - len(action.keep)
        if not action.keep:
            return f"Re-roll all {thrown} dice", "hold"
        return f"Keep {_faces(action.keep)}, re-roll {thrown}", "hold"
    if isinstance(action, Stop):
        if state.category is None:
            return "End the turn", "stop"
        points = _now(state, state.category)
        title = TITLES.get(state.category, state.category)
        return (f"End the turn: {points} in {title}" if points is not None else "End the turn"), "stop"
    if isinstance(action, Enter):
        return f"Write {action.points} in {TITLES.get(action.category, action.category)}", "enter"
    if isinstance(action, Roll):
        return f"Rolled {_faces(action.dice)}", "chance"
    raise TypeError(f"{action!r} is not a Paša-řada-pyramida action")


def chance_prompt(state: PasaState) -> ChancePrompt | None:
    """What the table enters now: all six dice after roll 1, or after a re-roll (kept dice included)."""
    phase = state.phase
    if phase == "roll":
        what = (
            f"{state.player}, roll 1 of {MAX_ROLLS}: roll all six dice and enter them "
            "(or write a whole turn's score by hand: enter CATEGORY POINTS)"
        )
        return ChancePrompt(what, "roll 1 2 3 4 5 6")
    if phase == "reroll":
        keep = state.keep or ()
        thrown = 6 - len(keep)
        # The example: the kept dice plus the thrown ones showing 1, 2, 3, ... (a roll apply accepts).
        example = tuple(sorted([*keep, *(n % 6 + 1 for n in range(thrown))]))
        kept = f"keep {_faces(keep)} and " if keep else ""
        what = (
            f"{state.player}, roll {state.rolls + 1} of {MAX_ROLLS}: "
            f"{kept}re-roll {thrown} {'die' if thrown == 1 else 'dice'}, then enter all six dice on the table"
        )
        return ChancePrompt(what, f"roll {_faces(example)}")
    return None



# --- the table as text ----------------------------------------------------------------------------


def board_text(state: PasaState) -> str:
    """The dice on the table and this turn so far, then the score sheet (categories down, players across)."""
    lines = []
    if not state.finished:
        dice = _faces(state.dice) if state.dice else "none yet"
        chosen = TITLES[state.category] if state.category else "not chosen"
        kept = f"; keeping {_faces(state.keep) or 'nothing'} for the next roll" if state.keep is not None else ""
        lines.append(f"{state.player}: {state.rolls} of {MAX_ROLLS} rolls made, dice {dice}, category {chosen}{kept}")
    width = max(6, *(len(p) for p in state.players))
    lines.append(f"{'':<9} " + " ".join(f"{p:>{width}}" for p in state.players))
    for c in CATEGORIES:
        cells = [state.sheets[p].get(c) for p in state.players]
        lines.append(f"{TITLES[c]:<9} " + " ".join(f"{'' if v is None else v:>{width}}" for v in cells))
    totals = [sum(state.sheets[p].values()) for p in state.players]
    lines.append(f"{'total':<9} " + " ".join(f"{t:>{width}}" for t in totals))
    return "\n".join(lines)


__all__ = ["GROUPS", "board_text", "chance_prompt", "label"]
