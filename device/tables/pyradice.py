"""Pyradice at the table: each player's pyramid board, the quarry and the reserve die.

The camera's reading (:class:`vision.pyradice_read.PyradiceReading`, with a confidence and an *unsure* flag on
every slot, quarry position and reserve) becomes a :class:`TableSeen`: the reading, the players' corrections
and whether they accepted the doubtful readings (CONFIRM). :meth:`PyradiceTable.explain` turns it into the
engine's :class:`engine.pyradice.Observation` for the player to move and asks
:func:`engine.pyradice.explain_turn` which legal take, placement and skill produce it. It asks rather than
guesses: a doubtful slot of the mover's pyramid is a problem naming it ("level 3, slot 2 is hard to read:
correct it or press CONFIRM"), a change on another player's board is one too ("Ben's 2,1 changed: bumped?").

What the engine cannot take yet, the adapter bridges (docs/pyradice-table.md lists the engine changes that
would remove these): the engine's observation wants every quarry value, so covered dice (unknown to the camera)
are given the engine's own values; a doubtful quarry position is given what the game believes and the turn is
explained without it when that works, else the players are asked. The reader is measured on rendered tables
only, and a whole game has not been replayed from frames through it, so the game stays played on the page
(``live = "offline"``); observations built by hand (an ``Observation``) are still explained.
"""

from __future__ import annotations

import itertools
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, replace
from typing import Any

from device.errors import SessionError
from device.tables import Explained, TableAdapter, explained_by
from engine.dice import Die
from engine.errors import GameError, InvalidActionError
from engine.pyradice import Observation, explain_turn
from engine.pyradice.pyramid import Slot, slot_text
from engine.pyradice.quarry import Position, position_text
from engine.pyradice.state import Place, PyradiceState, Skill, Take, UseReserve

#: A correction: what a player says lies at a place (a die, or None for nothing there).
Fix = Die | None
#: A doubtful quarry position: where, what it may hold (None: nothing), and why it is doubtful.
Doubt = tuple[Position, tuple[Fix, ...], str]
#: Readings of the doubtful quarry positions tried at most (beyond, the players are asked).
MAX_TRIES = 200


@dataclass(frozen=True)
class TableSeen:
    """A still table as read, the players' corrections (reading index -> die or nothing) and whether they
    accepted every doubtful reading as read (CONFIRM). ``moved``: pieces were seen moving since the last
    accepted reading."""

    reading: Any  # vision.pyradice_read.PyradiceReading (not imported: device imports vision lazily)
    moved: bool = False
    corrections: tuple[tuple[int, Fix], ...] = ()
    confirmed: bool = False

    def fixed(self) -> dict[int, Fix]:
        return dict(self.corrections)


@dataclass(frozen=True)
class _Place:
    """One place a reading names, in reading-index order: a slot of a seat's board, a quarry position or a
    seat's reserve."""

    kind: str  # "slot", "quarry", "reserve"
    seat: int | None
    slot: Slot | None = None
    position: Position | None = None


def _places(reading: Any) -> list[_Place]:
    out = [_Place("slot", b.seat, slot=s.slot) for b in reading.boards for s in b.slots]
    out += [_Place("quarry", None, position=p.position) for p in reading.quarry.positions]
    out += [_Place("reserve", r.seat) for r in reading.reserves]
    return out


def _items(reading: Any) -> list[Any]:
    """The readings in index order (slots, quarry positions, reserves), as :func:`_places` names them."""
    return ([s for b in reading.boards for s in b.slots] + list(reading.quarry.positions) + list(reading.reserves))


def _slot_words(slot: Slot) -> str:
    return f"level {slot[0]}, slot {slot[1] + 1}"


class PyradiceTable(TableAdapter):
    name = "pyradice"

    # --- what the camera saw -------------------------------------------------------------------
    def observe(self, readings: Sequence[Any], *, moved: bool) -> TableSeen:
        found = [r for r in readings if hasattr(r, "boards") and hasattr(r, "quarry")]
        if not found:
            raise SessionError(f"{self.game.title} cannot be read from the camera yet: play it on the page "
                               "(offline), or give the Pyradice reader's reading")
        return TableSeen(found[-1], moved=moved)

    def correct(self, seen: Any, index: int, value: Any) -> TableSeen:
        table = _seen(seen)
        places = _places(table.reading)
        if not 0 <= index < len(places):
            raise SessionError(f"there is no reading {index + 1} on the table ({len(places)} read)")
        fixed = table.fixed()
        fixed[index] = _fix(value)
        return replace(table, corrections=tuple(sorted(fixed.items())))

    def confirm(self, seen: Any) -> TableSeen:
        return replace(_seen(seen), confirmed=True)

    def explain(self, state: Any, seen: Any) -> Explained:
        if isinstance(seen, Observation):
            return self._explain(state, seen)
        if not isinstance(seen, TableSeen):
            return Explained(problems=("nothing read of the pyramid boards",))
        built = self.observation(state, seen)
        if isinstance(built, Explained):
            return built
        observation, doubtful = built
        if not doubtful:
            if _unchanged(state, observation):
                return Explained()
            return self._explain(state, observation)
        # Doubtful quarry positions: each may hold what the game believes, what was read, or nothing. A turn
        # takes one die from the quarry and skill A4 may change one more, so readings where at most two of them
        # differ from the game's belief are tried. The turn is explained without asking when every one of those
        # that some legal turn explains gives the same actions (the usual case: the die taken is the doubtful
        # one); otherwise the players are asked.
        asked = tuple(f"quarry {position_text(p)} is hard to read ({why}): correct it or press CONFIRM"
                      for p, _, why in doubtful)
        believed = state.quarry.dice
        choices = _choices(doubtful, believed)
        if len(choices) > MAX_TRIES:
            return Explained(problems=asked)
        found: set[tuple[Any, ...]] = set()
        last: Explained | None = None
        for choice in choices:
            quarry = dict(observation.quarry or {})
            for (pos, _, _), die in zip(doubtful, choice, strict=True):
                if die is None:
                    quarry.pop(pos, None)
                else:
                    quarry[pos] = die
            tried = replace(observation, quarry=quarry)
            if _unchanged(state, tried):
                found.add(())
                continue
            explained = self._explain(state, tried)
            if not explained.problems:
                found.add(explained.actions)
                last = explained
        if len(found) == 1:
            actions = next(iter(found))
            return last if last is not None and last.actions == actions else Explained(actions=actions)
        return Explained(problems=asked + ((f"{len(found)} different turns fit",) if found else ()))

    def _explain(self, state: Any, seen: Observation) -> Explained:
        try:
            actions = explain_turn(state, seen, partial=True)
        except GameError as exc:
            return Explained(problems=(str(exc),))
        return explained_by(self.game, state, actions)

    def observation(self, state: PyradiceState, seen: TableSeen) -> tuple[Observation, list[Doubt]] | Explained:
        """The engine's observation for the player to move with the doubtful quarry positions left out (each
        with what it may hold), or the problems that keep the reading from being one."""
        reading = seen.reading
        fixed = seen.fixed()
        index = {_key(p): k for k, p in enumerate(_places(reading))}
        seat = state.turn + 1
        problems: list[str] = []
        board = reading.board(seat)
        if board is None or not board.seen:
            return Explained(problems=(f"{state.mover.name}'s board is not seen: "
                                       + "; ".join(board.problems if board is not None else ()),))
        pyramid: dict[Slot, Die] = {}
        for s in board.slots:
            k = index[("slot", seat, s.slot)]
            if k in fixed:
                if fixed[k] is not None:
                    pyramid[s.slot] = fixed[k]  # type: ignore[assignment]
                continue
            if s.unsure and not seen.confirmed:
                problems.append(f"{_slot_words(s.slot)} is hard to read: correct it or press CONFIRM")
            if s.occupied and s.die is not None:
                pyramid[s.slot] = s.die.die
        # Another player's board: a change there is no part of this turn.
        for other in reading.boards:
            if other.seat == seat or not other.seen or other.seat > len(state.players):
                continue
            theirs = state.players[other.seat - 1]
            for s in other.slots:
                k = index[("slot", other.seat, s.slot)]
                if k in fixed:
                    now = fixed[k]
                elif s.unsure:
                    continue
                else:
                    now = s.die.die if s.occupied and s.die is not None else None
                if now != theirs.pyramid.get(s.slot) and not seen.confirmed:
                    problems.append(f"{theirs.name}'s {slot_text(s.slot)} changed: bumped?")
        quarry, doubtful = self._quarry(state, reading, fixed, index, seen.confirmed)
        reserve_seen, reserve = False, None
        r = reading.reserve(seat)
        if r is not None and r.seen:
            k = index[("reserve", seat, None)]
            if k in fixed:
                reserve_seen, reserve = True, fixed[k]
            elif not r.unsure or seen.confirmed:
                reserve_seen, reserve = True, (r.die.die if r.occupied and r.die is not None else None)
        if problems:
            return Explained(problems=tuple(problems))
        return Observation(pyramid, quarry, reserve, reserve_seen), doubtful

    @staticmethod
    def _quarry(state: PyradiceState, reading: Any, fixed: Mapping[int, Fix], index: Mapping[Any, int],
                confirmed: bool) -> tuple[dict[Position, Die] | None, list[Doubt]]:
        if not reading.quarry.seen:
            return None, []
        believed = state.quarry.dice
        out: dict[Position, Die] = {}
        doubtful: list[Doubt] = []
        for p in reading.quarry.positions:
            pos = p.position
            k = index[("quarry", None, pos)]
            if k in fixed:
                if fixed[k] is not None:
                    out[pos] = fixed[k]  # type: ignore[assignment]
                continue
            if p.state == "covered" and pos in believed:
                # Present whether or not the die over it has gone (one die is taken a turn): the game knows it.
                out[pos] = believed[pos]
                continue
            if p.unsure and not confirmed:
                options: list[Fix] = [None]
                if pos in believed:
                    options.append(believed[pos])
                if p.die is not None and p.die.die not in options:
                    options.append(p.die.die)
                doubtful.append((pos, tuple(options), p.reason or "unsure"))
                continue
            if not p.present:
                continue
            if p.die is not None:
                out[pos] = p.die.die
            elif pos in believed:
                out[pos] = believed[pos]  # covered: the camera cannot see it; the game knows it
        return out, doubtful

    def is_table_action(self, action: Any) -> bool:
        return isinstance(action, (Take, UseReserve, Place, Skill))

    def seen_json(self, seen: Any) -> dict[str, Any]:
        if isinstance(seen, Observation):
            return {"pyramid": {slot_text(s): str(d) for s, d in seen.pyramid.items()}}
        table = _seen(seen)
        out: dict[str, Any] = table.reading.to_json()
        out["corrections"] = [{"index": k, "place": _place_text(_places(table.reading)[k]),
                               "die": None if v is None else str(v)} for k, v in table.corrections]
        out["confirmed"] = table.confirmed
        out["moved"] = table.moved
        return out

    def reading_at(self, seen: Any, x: float, y: float) -> int:
        items = _items(_seen(seen).reading)
        with_centre = [(k, it.centre) for k, it in enumerate(items) if hasattr(it, "centre")]
        if not with_centre:
            raise SessionError("there are no readings on the table to point at")
        return min(with_centre, key=lambda kc: (kc[1][0] - x) ** 2 + (kc[1][1] - y) ** 2)[0]


def _choices(doubtful: Sequence[Doubt], believed: Mapping[Position, Die]) -> list[tuple[Fix, ...]]:
    """What the doubtful positions may hold together: the game's belief everywhere but at most two of them."""
    base = tuple(believed.get(pos) for pos, _, _ in doubtful)
    out = [base]
    for changed in (1, 2):
        for where in itertools.combinations(range(len(doubtful)), changed):
            alternatives = [[o for o in doubtful[i][1] if o != base[i]] for i in where]
            for picked in itertools.product(*alternatives):
                choice = list(base)
                for i, die in zip(where, picked, strict=True):
                    choice[i] = die
                out.append(tuple(choice))
    return out


def _key(p: _Place) -> tuple[str, int | None, Any]:
    return (p.kind, p.seat, p.slot if p.kind == "slot" else p.position if p.kind == "quarry" else None)


def _place_text(p: _Place) -> str:
    if p.kind == "slot":
        assert p.slot is not None
        return f"player {p.seat}'s {_slot_words(p.slot)}"
    if p.kind == "quarry":
        assert p.position is not None
        return f"quarry {position_text(p.position)}"
    return f"player {p.seat}'s reserve"


def _fix(value: Any) -> Fix:
    """A player's correction: a die, ``"maroon:4"``, or nothing there (None, "" or "empty")."""
    if value is None or value in ("", "empty", "none"):
        return None
    if isinstance(value, Die):
        return value
    if isinstance(value, str):
        try:
            die = Die.parse(value)
        except InvalidActionError as exc:
            raise SessionError(str(exc)) from None
        if die.colour not in ("white", "gray", "maroon", "orange"):
            raise SessionError(f"die {value!r}: a Pyradice die is COLOUR:VALUE, the colour white, gray, maroon or "
                               "orange")
        return die
    raise SessionError(f"correction {value!r} is not a die (COLOUR:VALUE) or 'empty'")


def _seen(seen: Any) -> TableSeen:
    if not isinstance(seen, TableSeen):
        raise SessionError("there is no reading of the Pyradice table to correct")
    return seen


def _unchanged(state: PyradiceState, seen: Observation) -> bool:
    mine = state.mover
    if dict(mine.pyramid) != dict(seen.pyramid):
        return False
    if seen.quarry is not None and dict(state.quarry.dice) != dict(seen.quarry):
        return False
    return not (seen.reserve_seen and mine.reserve != seen.reserve)


ADAPTER = PyradiceTable
