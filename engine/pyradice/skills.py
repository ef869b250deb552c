"""The ten skills (token sides A2..B6): which uses are legal now and what each does (RULES.md 1.5).

Rules common to all: a skill is used only right after placing a die on its level (2..6), at most once,
and never on the die just placed (its *targets* are the other dice of the pyramid, any level). B6 uses
the face-up skill of any recess 2..5 with that skill's own limits. A2's outcome is chance: a use with
``value=None`` leaves the roll to come; with a value it is the observed outcome.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import NamedTuple

from engine.dice import Die
from engine.errors import IllegalActionError, InvalidActionError
from engine.pyradice.pyramid import SLOT_SET, SLOTS, Slot, slot_text
from engine.pyradice.quarry import Position, Quarry, geometry, position_text, shared_die
from engine.pyradice.state import Skill

#: Every skill side, with the reference sheet's wording.
SKILL_TEXT: dict[str, str] = {
    "A2": "Roll a die from your pyramid and put it back in the same place with the new number.",
    "B2": "Change the number of a die in your pyramid to the number of the die you just placed.",
    "A3": "Rotate a die in your pyramid 180°, so that the opposite side faces up.",
    "B3": "Take an available quarry die into your reserve (limit 1); use it on a later turn instead of taking.",
    "A4": "Swap a die in your pyramid with an available die from the quarry.",
    "B4": "Change a die in your pyramid by +1 or -1 (no wrap between 6 and 1).",
    "A5": "Swap the positions of two dice in your pyramid.",
    "B5": "Copy the number of an available quarry die onto a die in your pyramid.",
    "A6": "Change the value of a die in your pyramid to a number of your choice.",
    "B6": "Use one of the skills shown on a token below this.",
}
SKILLS: tuple[str, ...] = tuple(SKILL_TEXT)


def check_skill(code: str, level: int | None = None) -> str:
    if code not in SKILL_TEXT:
        raise InvalidActionError(f"skill {code!r} is not one of {', '.join(SKILLS)}")
    if level is not None and int(code[1]) != level:
        raise InvalidActionError(f"skill {code} belongs on level {code[1]}, not level {level}")
    return code


def usable_codes(skills: tuple[str, ...], level: int) -> tuple[str, ...]:
    """The effective skills a die placed on ``level`` allows, given the face-up ``skills`` of levels 2..6."""
    if not 2 <= level <= 6:
        return ()
    code = skills[level - 2]
    if code == "B6":
        return tuple(skills[:4])  # B6 borrows the face-up skill of a recess below (2..5)
    return (code,)


class Effect(NamedTuple):
    """What a skill use leaves behind: the new pyramid, reserve and quarry, and an A2 target still to roll.

    A named tuple rather than a frozen dataclass: one is made per skill use, and a tuple is much cheaper
    to build than a frozen dataclass that sets each field through ``object.__setattr__``.
    """

    pyramid: dict[Slot, Die]
    reserve: Die | None
    quarry: Quarry
    pending: Slot | None = None


#: Which of a use's fields (target, other, quarry, value) each skill takes.
_TAKES: dict[str, tuple[bool, bool, bool, bool]] = {
    code: (code != "B3", code == "A5", code in ("B3", "A4"), code in ("A2", "B2", "B4", "B5", "A6")) for code in SKILLS
}


# Interned uses: listing legal actions hands out the same objects every time, which keeps it cheap.
# Each table is keyed by the target slot first, then by the quarry position, value or second slot, so a
# listing hashes small tuples once instead of building a cache key per use.
_PLAIN: dict[str, dict[Slot, Skill]] = {code: {t: Skill(code, t) for t in SLOTS} for code in ("A2", "B2", "A3")}
_CHOOSE: dict[Slot, tuple[Skill, ...]] = {t: tuple(Skill("A6", t, value=v) for v in range(1, 7)) for t in SLOTS}
_STEP: dict[Slot, dict[int, tuple[Skill, ...]]] = {
    t: {v: tuple(Skill("B4", t, value=n) for n in (v - 1, v + 1) if 1 <= n <= 6) for v in range(1, 7)} for t in SLOTS
}
_COPY: dict[Slot, dict[int, Skill]] = {t: {v: Skill("B5", t, value=v) for v in range(1, 7)} for t in SLOTS}
_SWAP: dict[Slot, dict[Slot, Skill]] = {a: {b: Skill("A5", a, b) for b in SLOTS} for a in SLOTS}
# The quarry tables cover every position of both board sides, so that listing is a plain look-up
# (mapped in C over the available positions) with no "create if missing" branch per use.
_QUARRY_POSITIONS: tuple[Position, ...] = tuple(dict.fromkeys(geometry(1).positions + geometry(2).positions))
_RESERVE: dict[Position, Skill] = {p: Skill("B3", quarry=p) for p in _QUARRY_POSITIONS}
_SWAP_QUARRY: dict[Slot, dict[Position, Skill]] = {
    t: {p: Skill("A4", t, quarry=p) for p in _QUARRY_POSITIONS} for t in SLOTS
}


def legal_uses(
    code: str,
    pyramid: Mapping[Slot, Die],
    placed: Slot,
    reserve: Die | None,
    quarry: Quarry,
    filled: Sequence[Slot] | None = None,
) -> list[Skill]:
    """Every legal use of skill ``code`` (A2 uses leave the value to chance).

    ``filled``: the pyramid's slots in SLOTS order, when the caller already knows them.

    Listing runs before every skill step of every game, so the loops hand the look-ups to ``map`` (a
    C loop) instead of list comprehensions.
    """
    targets = [s for s in SLOTS if s in pyramid] if filled is None else list(filled)
    if placed in targets:
        targets.remove(placed)
    if code in _PLAIN:
        return list(map(_PLAIN[code].__getitem__, targets))
    if code == "B3":
        return list(map(_RESERVE.__getitem__, quarry.known_available())) if reserve is None else []
    out: list[Skill] = []
    if code == "A4":
        avail = quarry.known_available()
        for t in targets:
            out.extend(map(_SWAP_QUARRY[t].__getitem__, avail))
        return out
    if code == "B4":
        for t in targets:
            out.extend(_STEP[t][pyramid[t].value])
        return out
    if code == "A5":
        for n, a in enumerate(targets):
            out.extend(map(_SWAP[a].__getitem__, targets[n + 1 :]))
        return out
    if code == "B5":
        values = sorted({quarry.dice[p].value for p in quarry.known_available()})
        for t in targets:
            out.extend(map(_COPY[t].__getitem__, values))
        return out
    if code == "A6":
        for t in targets:
            out.extend(_CHOOSE[t])
        return out
    raise InvalidActionError(f"skill {code!r} has no uses of its own (B6 borrows another skill)")


def _target(pyramid: Mapping[Slot, Die], placed: Slot, slot: Slot | None, code: str) -> Die:
    if slot is None:
        raise InvalidActionError(f"skill {code} needs a target die in your pyramid")
    if slot not in SLOT_SET:
        raise InvalidActionError(f"skill {code}: {slot!r} is not a pyramid slot")
    if slot == placed:
        raise IllegalActionError(f"skill {code} cannot target {slot_text(slot)}: that is the die just placed")
    die = pyramid.get(slot)
    if die is None:
        raise IllegalActionError(f"skill {code} cannot target {slot_text(slot)}: no die there")
    return die


def _value(use: Skill) -> int:
    v = use.value
    if isinstance(v, bool) or not isinstance(v, int) or not 1 <= v <= 6:
        raise InvalidActionError(f"skill {use.code} needs a new value 1..6, got {v!r}")
    return v


def apply_use(
    use: Skill, pyramid: Mapping[Slot, Die], placed: Slot, reserve: Die | None, quarry: Quarry
) -> Effect:
    """The effect of ``use`` (already checked to be a skill this turn allows); IllegalActionError if the
    target or quarry die does not qualify."""
    code = use.code
    pyr = dict(pyramid)
    takes = _TAKES[code]
    if (
        (use.target is not None and not takes[0])
        or (use.other is not None and not takes[1])
        or (use.quarry is not None and not takes[2])
        or (use.value is not None and not takes[3])
    ):
        fields = (use.target, use.other, use.quarry, use.value)
        unused = [
            name
            for name, val, needed in zip(("target", "other", "quarry", "value"), fields, takes, strict=True)
            if val is not None and not needed
        ]
        raise InvalidActionError(f"skill {code} takes no {' or '.join(unused)}: {use}")
    if code == "B3":
        if use.quarry is None:
            raise InvalidActionError("skill B3 needs a quarry die to reserve")
        if reserve is not None:
            raise IllegalActionError(f"skill B3: the reserve already holds {reserve} (limit 1)")
        die = quarry.dice.get(use.quarry)
        new_quarry = quarry.remove(use.quarry)
        assert die is not None
        return Effect(pyr, die, new_quarry)
    target = _target(pyramid, placed, use.target, code)
    assert use.target is not None
    if code == "A2":
        if use.value is None:
            return Effect(pyr, reserve, quarry, pending=use.target)
        pyr[use.target] = shared_die(_value(use), target.colour)
    elif code == "B2":
        value = pyramid[placed].value
        if use.value is not None and use.value != value:
            raise IllegalActionError(f"skill B2 copies the placed die's value {value}, not {use.value}")
        pyr[use.target] = shared_die(value, target.colour)
    elif code == "A3":
        pyr[use.target] = shared_die(7 - target.value, target.colour)
    elif code == "A4":
        if use.quarry is None:
            raise InvalidActionError("skill A4 needs a quarry die to swap with")
        incoming = quarry.dice.get(use.quarry)
        new_quarry = quarry.replace(use.quarry, target)
        assert incoming is not None
        pyr[use.target] = incoming
        return Effect(pyr, reserve, new_quarry)
    elif code == "B4":
        value = _value(use)
        if abs(value - target.value) != 1:
            raise IllegalActionError(
                f"skill B4 changes {slot_text(use.target)} ({target.value}) by 1, so to "
                f"{' or '.join(str(v) for v in (target.value - 1, target.value + 1) if 1 <= v <= 6)}, not {value}"
            )
        pyr[use.target] = shared_die(value, target.colour)
    elif code == "A5":
        other = _target(pyramid, placed, use.other, code)
        assert use.other is not None
        if use.other == use.target:
            raise IllegalActionError(f"skill A5 swaps two different dice, got {slot_text(use.target)} twice")
        pyr[use.target], pyr[use.other] = other, target
    elif code == "B5":
        value = _value(use)
        avail = quarry.known_available()
        if not any(quarry.dice[p].value == value for p in avail):
            seen = sorted({quarry.dice[p].value for p in avail})
            raise IllegalActionError(
                f"skill B5 copies a value from an available quarry die; none shows {value} "
                f"(available values: {', '.join(map(str, seen)) or 'none'})"
            )
        pyr[use.target] = shared_die(value, target.colour)
    elif code == "A6":
        pyr[use.target] = shared_die(_value(use), target.colour)
    else:  # pragma: no cover - check_skill and usable_codes keep B6 out
        raise InvalidActionError(f"skill {code} cannot be used directly")
    return Effect(pyr, reserve, quarry)


def describe_use(use: Skill) -> str:
    """Plain words for a use, for the page and messages."""
    t = slot_text(use.target) if use.target else "?"
    match use.code:
        case "A2":
            return f"re-roll the die at {t}" + (f" (came up {use.value})" if use.value else "")
        case "B2":
            return f"set the die at {t} to the placed die's value"
        case "A3":
            return f"turn the die at {t} over"
        case "B3":
            return f"reserve the quarry die at {position_text(use.quarry) if use.quarry else '?'}"
        case "A4":
            return f"swap the die at {t} with the quarry die at {position_text(use.quarry) if use.quarry else '?'}"
        case "A5":
            return f"swap the dice at {t} and {slot_text(use.other) if use.other else '?'}"
        case _:
            return f"set the die at {t} to {use.value}"
