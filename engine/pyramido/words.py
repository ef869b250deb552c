"""Pyramido: Forgotten Treasures in words a player reads: every action's label and group, and what chance awaits.

Groups (a small fixed vocabulary, :data:`GROUPS`, for the page to lay buttons out by):

- ``take``: take the face-up domino of a space and a gem from its gem area ("Take the red-blue domino of
  space 2 with a red gem"; when the pile is left empty the label says which pile refills it);
- ``flip``: turn over the face-down top of a pile ("Turn over the top domino of pile 3");
- ``place``: lay the domino in the pyramid ("Place the domino at 2,3 facing east: red on 2,3, blue on
  3,3"; block A's block of the stage grid, then block B's);
- ``score``: place gems on an area at the stage-end scoring ("Activate the red area at 4,2 (3 icons) with 1
  red gem: 3 points", "Double ..." with 3 gems' worth);
- ``end``: finish placing gems: the stage score is written;
- ``discard``: after stages 1-3, give back gems down to 5;
- ``chance``: a gem drawn from the bag, a domino revealed, entered by the table or the camera (the
  Legend's turns in the solo game are automatic; only their chance is asked for).

Coordinates are the engine's (:mod:`engine.pyramido.geometry`): a block of the current stage's grid for
placing, an area's anchor quarter cell for scoring; the page draws them. Labels of the actions legal in
one state are distinct: each names the space, gem, pile, cells or area and mix that tell them apart.
"""

from __future__ import annotations

from engine.game import ChancePrompt
from engine.pyramido.activation import MIXES
from engine.pyramido.areas import areas, render
from engine.pyramido.dominoes import GEMS, MYTHICAL, Block, Colour, Domino, Gem, gems_text
from engine.pyramido.exploration import refill_count
from engine.pyramido.game import (
    GAME,
    INVENTORY_LIMIT,
    LEGEND,
    Activate,
    Discard,
    Draw,
    EndScoring,
    Flip,
    PendingKind,
    Place,
    Pyramido,
    PyramidoAction,
    PyramidoState,
    Reveal,
    Take,
    known_top,
    pile_back,
)
from engine.pyramido.geometry import Direction

GROUPS: tuple[str, ...] = Pyramido.action_groups  # named once, on the game

_FACING = {Direction.E: "east", Direction.S: "south", Direction.W: "west", Direction.N: "north"}


def domino_words(domino: Domino | None) -> str:
    """``red-blue`` (block A's colour, then block B's)."""
    if domino is None:
        return "face-down"
    return f"{domino.a.colour.value}-{domino.b.colour.value}"


def gem_words(gem: Gem, n: int = 1) -> str:
    """``a red gem``, ``2 mythical gems``."""
    if n == 1:
        return f"{'an' if gem.value[0] in 'aeiou' else 'a'} {gem.value} gem"
    return f"{n} {gem.value} gems"


def _take(state: PyramidoState, action: Take) -> str:
    space = state.spaces[action.space - 1] if 1 <= action.space <= len(state.spaces) else None
    domino = domino_words(space.face_up if space is not None else None)
    gem = f"with {gem_words(action.gem)}" if action.gem is not None else "(its gem area is empty)"
    text = f"Take the {domino} domino of space {action.space} {gem}"
    if action.refill_from is not None and 1 <= action.refill_from <= len(state.spaces):
        k = refill_count(state.spaces[action.refill_from - 1], state.options.get("pile_refill", "floor"))
        moved = f"its bottom {k} dominoes" if k != 1 else "its bottom domino"
        text += f"; pile {action.refill_from} gives {moved} to the empty pile {action.space}"
    return text


def _place(state: PyramidoState, action: Place) -> str:
    p = action.placement
    (ax, ay), (bx, by) = p.cells()
    domino = state.holding
    a = domino.a.colour.value if domino is not None else "block A"
    b = domino.b.colour.value if domino is not None else "block B"
    return f"Place the domino at {ax},{ay} facing {_FACING[p.direction]}: {a} on {ax},{ay}, {b} on {bx},{by}"


def _mix(colour: str, coloured: int, mythical: int) -> str:
    parts = []
    if coloured:
        parts.append(f"{coloured} {colour}")
    if mythical:
        parts.append(f"{mythical} mythical")
    n = coloured + mythical
    return " + ".join(parts) + (" gem" if n == 1 else " gems")


def _activate(state: PyramidoState, action: Activate) -> str:
    act = action.activation
    seat = GAME.to_move(state)
    found = {a.anchor: a for a in areas(state.explorers[seat].pyramid)} if seat is not None else {}
    area = found.get(act.anchor)
    where = f"{act.anchor[0]},{act.anchor[1]}"
    mult = MIXES.get((act.coloured, act.mythical), 1)
    verb = "Double" if mult == 2 else "Activate"
    if area is None:
        return f"{verb} the area at {where} with {_mix('coloured', act.coloured, act.mythical)}"
    icons = f"{area.icons} icon" if area.icons == 1 else f"{area.icons} icons"
    points = area.icons * mult
    return (
        f"{verb} the {area.colour.value} area at {where} ({icons}) with "
        f"{_mix(area.colour.value, act.coloured, act.mythical)}: {points} point{'s' if points != 1 else ''}"
    )


def _end(state: PyramidoState) -> str:
    seat = GAME.to_move(state)
    if seat is None:
        return "Finish placing gems"
    e = state.explorers[seat]
    found = {a.anchor: a for a in areas(e.pyramid)}
    area_points = sum(
        found[a.anchor].icons * MIXES.get((a.coloured, a.mythical), 0) for a in e.activated if a.anchor in found
    )
    mythical = e.inventory[MYTHICAL]
    total = area_points + mythical
    return (
        f"Finish placing gems: {total} point{'s' if total != 1 else ''} in stage {state.stage} "
        f"({area_points} from areas, {mythical} for mythical gems kept)"
    )


def _discard(state: PyramidoState, action: Discard) -> str:
    seat = GAME.to_move(state)
    held = sum(state.explorers[seat].inventory) if seat is not None else 0
    return f"Discard {gem_words(action.gem)} ({held} held, keep {INVENTORY_LIMIT})"


def label(state: PyramidoState, action: PyramidoAction) -> tuple[str, str]:
    """(label, group) of ``action`` in ``state``."""
    if isinstance(action, Take):
        return _take(state, action), "take"
    if isinstance(action, Flip):
        return f"Turn over the top domino of pile {action.pile}", "flip"
    if isinstance(action, Place):
        return _place(state, action), "place"
    if isinstance(action, Activate):
        return _activate(state, action), "score"
    if isinstance(action, EndScoring):
        return _end(state), "end"
    if isinstance(action, Discard):
        return _discard(state, action), "discard"
    if isinstance(action, Draw):
        return f"Drew {gem_words(action.gem)}", "chance"
    if isinstance(action, Reveal):
        return f"Revealed the {domino_words(action.domino)} domino {action.domino}", "chance"
    raise TypeError(f"{action!r} is not a Pyramido action")


def _example_domino(state: PyramidoState, kind: PendingKind, target: int) -> Domino:
    """A domino the pending reveal accepts: the known deck's top, one with the back seen, or any domino."""
    if state.unseen is not None:
        at = 0 if kind is PendingKind.DOMINO_TO_LEGEND else None
        top = state.unseen[at] if at is not None and state.unseen else known_top(state, target)
        if top is not None:
            return top
    back = pile_back(state, target) if kind is PendingKind.DOMINO_TO_PILE else None
    if back is not None:
        (ca, na), (cb, nb) = back.blocks
        return Domino(Block(ca, tuple(range(na))), Block(cb, tuple(range(nb))))
    return Domino(Block(Colour.ORANGE, (0, 3)), Block(Colour.BLUE))


def chance_prompt(state: PyramidoState) -> ChancePrompt | None:
    """What the table enters now: the gem drawn from the bag, or the domino turned face up."""
    if not state.pending:
        return None
    head = state.pending[0]
    kind = head.kind
    if kind in (PendingKind.GEM_TO_SPACE, PendingKind.GEM_TO_LEGEND):
        gem = next((g for g in GEMS if state.bag[g.index]), GEMS[0])
        if kind is PendingKind.GEM_TO_LEGEND:
            what = "Draw a random gem from the bag for the Legend and enter its colour"
        else:
            left = 0
            for p in state.pending:
                if p != head:
                    break
                left += 1
            more = f" ({left} to draw there)" if left > 1 else ""
            what = f"Draw a gem from the bag into the gem area of space {head.target} and enter its colour{more}"
        return ChancePrompt(what, f"draw {gem.letter}")
    domino = _example_domino(state, kind, head.target)
    how = "enter its block colours and gem icon quadrants"
    if kind is PendingKind.DOMINO_TO_LEGEND:
        what = f"Reveal the Legend's first domino, put it face up on his pile, and {how}"
    else:
        what = f"Reveal the top domino of pile {head.target} and {how}"
    return ChancePrompt(what, f"reveal {domino}")



# --- the table as text ----------------------------------------------------------------------------


def board_text(state: PyramidoState) -> str:
    """The exploration area (five piles and their gems), each explorer's pyramid as a top view (one letter a
    quarter cell, upper case where a gem icon shows), inventories, scores, and the Legend in solo play."""
    lines = [f"stage {state.stage}; gems in the bag: {gems_text(state.bag)}"]
    for k, space in enumerate(state.spaces, start=1):
        lines.append(f"  space {k}: {space}")
    if state.holding is not None:
        lines.append(f"in hand: {state.holding}")
    for p in state.pending:
        lines.append(f"awaited: {p}")
    for explorer in state.explorers:
        scores = "+".join(map(str, explorer.stage_scores)) or "0"
        lines.append(f"{explorer.name}: gems {gems_text(explorer.inventory)}; stage scores {scores} = {explorer.total}")
        lines.extend(f"  {row}" for row in render(explorer.pyramid).splitlines())
    if state.legend is not None:
        legend = state.legend
        scores = "+".join(map(str, legend.stage_scores)) or "0"
        lines.append(f"{LEGEND}: {len(legend.pile)} dominoes in his pile; gems {gems_text(legend.inventory)}; "
                     f"stage scores {scores} = {legend.total}")
    return "\n".join(lines)


__all__ = ["GROUPS", "board_text", "chance_prompt", "domino_words", "gem_words", "label"]
