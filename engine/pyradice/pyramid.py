"""A player's pyramid board: 21 slots in 6 levels, laid like a brick wall (RULES.md 1.3).

A slot is ``(level, index)``: level 1 (bottom, 6 slots) to 6 (apex, 1 slot), index 0 at the owner's
left. ``(k, i)`` rests on ``(k-1, i)`` and ``(k-1, i+1)``. A pyramid is a plain mapping slot -> die.
"""

from __future__ import annotations

from collections.abc import Mapping

from engine.dice import Die

Slot = tuple[int, int]

LEVELS: tuple[int, ...] = (1, 2, 3, 4, 5, 6)
SLOTS: tuple[Slot, ...] = tuple((k, i) for k in LEVELS for i in range(7 - k))
SLOT_SET: frozenset[Slot] = frozenset(SLOTS)
FULL = len(SLOTS)  # 21
SUPPORTS: dict[Slot, tuple[Slot, ...]] = {(k, i): ((k - 1, i), (k - 1, i + 1)) if k > 1 else () for k, i in SLOTS}
#: The slots that rest on a slot (at most two): the ones a die placed there can open.
RESTING_ON: dict[Slot, tuple[Slot, ...]] = {s: tuple(t for t in SLOTS if s in SUPPORTS[t]) for s in SLOTS}


def _neighbours(slot: Slot) -> tuple[Slot, ...]:
    k, i = slot
    around = ((k, i - 1), (k, i + 1), (k - 1, i), (k - 1, i + 1), (k + 1, i - 1), (k + 1, i))
    return tuple(s for s in around if s in SLOT_SET)


#: Brick adjacency (up to six neighbours), used by the Pairs card.
NEIGHBOURS: dict[Slot, tuple[Slot, ...]] = {s: _neighbours(s) for s in SLOTS}


def level_size(level: int) -> int:
    return 7 - level


def slot_text(slot: Slot) -> str:
    return f"{slot[0]},{slot[1]}"


def legal_slots(pyramid: Mapping[Slot, object]) -> list[Slot]:
    """Where a die may go: any empty level-1 slot, or an empty slot above two placed dice."""
    out = []
    for s in SLOTS:
        if s in pyramid:
            continue
        sup = SUPPORTS[s]
        if not sup or (sup[0] in pyramid and sup[1] in pyramid):
            out.append(s)
    return out


def slot_problem(pyramid: Mapping[Slot, object], slot: object) -> str | None:
    """Why a die cannot go to ``slot`` (None when it can)."""
    if slot not in SLOT_SET:
        return f"{slot!r} is not a slot of the pyramid (level 1-6, index 0..6-level)"
    assert isinstance(slot, tuple)
    if slot in pyramid:
        return f"slot {slot_text(slot)} already holds a die"
    missing = [s for s in SUPPORTS[slot] if s not in pyramid]
    if missing:
        return f"slot {slot_text(slot)} needs dice under it at {' and '.join(slot_text(s) for s in missing)}"
    return None


def level_values(pyramid: Mapping[Slot, Die], level: int) -> list[int | None]:
    """The values of one level from left to right, None where a slot is empty."""
    return [d.value if (d := pyramid.get((level, i))) is not None else None for i in range(level_size(level))]


def defects(pyramid: Mapping[Slot, object], owner: str) -> list[str]:
    """Slots off the board and dice floating over an empty slot."""
    out = []
    for s in pyramid:
        if s not in SLOT_SET:
            out.append(f"{owner}'s pyramid has a die at {s!r}, which is not a slot")
            continue
        missing = [t for t in SUPPORTS[s] if t not in pyramid]
        if missing:
            out.append(
                f"{owner}'s die at {slot_text(s)} floats: nothing under it at "
                + " and ".join(slot_text(t) for t in missing)
            )
    return out
