"""Pyradice in words a player reads: every action's label and group, and what chance awaits.

Groups (a small fixed vocabulary, :data:`GROUPS`, for the page to lay buttons out by):

- ``take``: take an available quarry die ("Take the white 4 from q2,1,1");
- ``reserve``: use the reserve die instead of taking one (skill B3's die, "Use the reserve die (gray 3)");
- ``place``: put the die in hand on an open slot ("Place the white 4 on level 3, slot 2");
- ``skill``: use the skill of the level just placed on ("Skill A3: turn the gray 2 on level 1, slot 4
  over to 5"; under B6 the label says which skill is borrowed);
- ``pass``: use no skill this turn;
- ``chance``: the first-player roll-off and an A2 re-roll, entered by the table or the camera.

Pyramid slots are named as a player counts them: level 1 (bottom) to 6 (apex), slot 1 at the owner's
left (the notation ``place 3,1`` is level 3, slot 2). Quarry dice are named by their notation
(``q2,1,1``: layer 2 is the top layer) and by colour and face. Labels of the actions legal in one state
are distinct: each names the positions, slots and values that tell the actions apart.
"""

from __future__ import annotations

from engine.dice import Die
from engine.game import ChancePrompt
from engine.pyradice.pyramid import FULL, LEVELS, Slot, level_size
from engine.pyradice.quarry import Position, position_text
from engine.pyradice.state import (
    Action,
    Pass,
    Phase,
    Place,
    PyradiceState,
    Reveal,
    Roll,
    RollOff,
    Skill,
    Take,
    UseReserve,
)

GROUPS: tuple[str, ...] = ("take", "reserve", "place", "skill", "pass", "chance")


def die_words(die: Die | None) -> str:
    """``white 4``; ``a die`` when it is not known."""
    if die is None:
        return "a die"
    return f"{die.colour} {die.value}" if die.colour else str(die.value)


def slot_words(slot: Slot) -> str:
    """``level 3, slot 2`` for the notation's ``3,1`` (slots counted from the owner's left, from 1)."""
    return f"level {slot[0]}, slot {slot[1] + 1}"


def _mine(state: PyradiceState, slot: Slot | None) -> str:
    """``the gray 2 on level 1, slot 4`` (the mover's die there)."""
    if slot is None:
        return "a die of your pyramid"
    die = state.mover.pyramid.get(slot)
    return f"the {die_words(die)} on {slot_words(slot)}" if die is not None else f"the die on {slot_words(slot)}"


def _quarry(state: PyradiceState, pos: Position | None) -> str:
    if pos is None:
        return "a quarry die"
    die = state.quarry.dice.get(pos)
    return f"the {die_words(die)} from {position_text(pos)}" if die is not None else f"the die at {position_text(pos)}"


def _skill_words(state: PyradiceState, use: Skill) -> str:
    target = _mine(state, use.target)
    die = state.mover.pyramid.get(use.target) if use.target is not None else None
    match use.code:
        case "A2":
            came = f" (it came up {use.value})" if use.value is not None else ""
            return f"re-roll {target}{came}"
        case "B2":
            placed = state.mover.pyramid.get(state.placed) if state.placed is not None else None
            value = placed.value if placed is not None else use.value
            return f"set {target} to {value}, the value of the die just placed"
        case "A3":
            return f"turn {target} over to {7 - die.value}" if die is not None else f"turn {target} over"
        case "B3":
            return f"put {_quarry(state, use.quarry)} into your reserve"
        case "A4":
            return f"swap {target} with {_quarry(state, use.quarry)}"
        case "A5":
            return f"swap {target} with {_mine(state, use.other)}"
        case "B4":
            return f"change {target} to {use.value}"
        case "B5":
            return f"copy a {use.value} from the quarry onto {target}"
        case "A6":
            return f"set {target} to {use.value}"
    return str(use)


def label(state: PyradiceState, action: Action) -> tuple[str, str]:
    """(label, group) of ``action`` in ``state``."""
    if isinstance(action, Take):
        return f"Take {_quarry(state, action.position)}", "take"
    if isinstance(action, UseReserve):
        reserve = state.mover.reserve if 0 <= state.turn < len(state.players) else None
        shown = f" ({die_words(reserve)})" if reserve is not None else ""
        return f"Use the reserve die{shown}", "reserve"
    if isinstance(action, Place):
        what = f"the {die_words(state.hand)}" if state.hand is not None else "the die"
        return f"Place {what} on {slot_words(action.slot)}", "place"
    if isinstance(action, Skill):
        token = state.board.skill_on(state.placed[0]) if state.placed is not None else None
        via = f" (via {token})" if token is not None and token != action.code else ""
        return f"Skill {action.code}{via}: {_skill_words(state, action)}", "skill"
    if isinstance(action, Pass):
        return "Pass: use no skill this turn", "pass"
    if isinstance(action, RollOff):
        return f"Roll-off: {' '.join(map(str, action.values))}", "chance"
    if isinstance(action, Roll):
        return f"The re-rolled die came up {action.value}", "chance"
    if isinstance(action, Reveal):
        return f"Quarry {position_text(action.position)} uncovered: {die_words(action.die)}", "chance"
    raise TypeError(f"{action!r} is not a Pyradice action")


def chance_prompt(state: PyradiceState) -> ChancePrompt | None:
    """What the table enters now: the roll-off faces in seat order, or the face an A2 re-roll came up."""
    if state.phase is Phase.ROLL_OFF:
        names = [state.players[s].name for s in state.rolling if 0 <= s < len(state.players)]
        who = " and ".join([", ".join(names[:-1]), names[-1]]) if len(names) > 1 else "".join(names)
        again = "the tied players roll again: " if len(names) < len(state.players) else ""
        what = (
            f"Roll-off for the first player: {again}{who} each roll a die; enter the faces in seat order "
            "(the highest starts)"
        )
        example = " ".join(str(6 - i) for i in range(len(names)))
        return ChancePrompt(what, f"roll-off {example}")
    if state.phase is Phase.ROLL:
        what = f"Skill A2: roll {_mine(state, state.pending)} again and enter the face it came up"
        return ChancePrompt(what, "roll 6")
    unseen = state.quarry.to_reveal() if state.quarry.unknown and state.phase is not Phase.OVER else []
    if unseen:
        # A table set up by its players (the setup option's words): the camera reads each uncovered die; where it
        # cannot, or with no camera, the players say what lies there.
        shown = ", ".join(position_text(p) for p in unseen[:6]) + (f" and {len(unseen) - 6} more" if len(unseen) > 6
                                                                   else "")
        what = (f"The quarry dice at {shown} are uncovered but not read yet: enter each one's colour and face "
                "(one entry a die)")
        return ChancePrompt(what, f"reveal {position_text(unseen[0])} white:6")
    return None



# --- the table as text ----------------------------------------------------------------------------


def _cell(die: Die | None) -> str:
    """``5w`` for a white 5 (colour by its first letter), ``..`` for an empty slot."""
    if die is None:
        return ".."
    return f"{die.value}{(die.colour or '?')[0]}"


def board_text(state: PyradiceState) -> str:
    """The board's tokens, the quarry's available dice, and every pyramid (apex on top, slots from the
    owner's left; ``5w`` is a white 5)."""
    skills = " ".join(f"{level}:{s}" for level, s in enumerate(state.board.skills, start=2))
    objectives = " ".join(f"{level}:{o}" for level, o in enumerate(state.board.objectives, start=1))
    lines = [f"skills {skills}; objective tokens {objectives}"]
    if state.cards:
        lines.append("cards: " + ", ".join(f"{c.title} ({c.colour})" for c in state.cards))
    available = state.quarry.available()
    lines.append(
        f"quarry: {len(state.quarry)} dice"
        + (f" ({len(state.quarry.unknown)} not seen yet)" if state.quarry.unknown else "") + ", available: "
        + (" ".join(f"{position_text(p)}={_cell(state.quarry.dice.get(p)) if p in state.quarry.dice else '??'}"
                    for p in available) or "none")
    )
    if state.hand is not None:
        lines.append(f"in hand: {die_words(state.hand)}")
    for seat, player in enumerate(state.players):
        mark = "  (to move)" if seat == state.turn and state.phase not in (Phase.ROLL_OFF, Phase.OVER) else ""
        reserve = die_words(player.reserve) if player.reserve is not None else "-"
        lines.append(f"{player.name}: {len(player.pyramid)} of {FULL} dice, reserve {reserve}{mark}")
        for level in reversed(LEVELS):
            cells = " ".join(_cell(player.pyramid.get((level, i))) for i in range(level_size(level)))
            lines.append(f"  {level} {'  ' * (level - 1)}{cells}")
    return "\n".join(lines)


__all__ = ["GROUPS", "board_text", "chance_prompt", "die_words", "label", "slot_words"]
