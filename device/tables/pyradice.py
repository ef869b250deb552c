"""Pyradice at the table: each player's pyramid board, the quarry and the reserve die.

The camera's reading (:class:`vision.pyradice_read.PyradiceReading`, with a confidence and an *unsure* flag on
every slot, quarry position and reserve) becomes a :class:`TableSeen`: the reading, the players' corrections
and whether they accepted the doubtful readings (CONFIRM). :meth:`PyradiceTable.explain` turns it into the
engine's :class:`engine.pyradice.Observation` for the player to move (readings in doubt named, not guessed;
covered quarry dice present with no value) and asks :func:`engine.pyradice.observe.explain` which legal take,
placement and skill produce it. It asks rather than guesses:

- a turn that only fits with a doubtful reading one way or another (two turns fit) is asked about, naming the
  doubtful readings ("level 3, slot 2 is hard to read: correct it or press CONFIRM");
- a skill outcome seen only as one die showing another value (a misread would look the same) is shown and
  waits for the player's CONFIRM (the skill step's end: NEXT declines it, CONFIRM with nothing seen is "no
  skill"); a sure swap (A4, A5) or reserve (B3) that is the only explanation is taken as seen;
- a change on another player's board is a problem ("Ben's 2,1 changed: bumped?");
- a take is never made on readings in doubt alone (the die only in hand: the placement will say which it was),
  and at a skill step where a hand moved dice (or begun from a picture in doubt) CONFIRM with no skill seen is
  not "no skill" (NEXT is): a skill read in doubt is never recorded as none.

The reader of a table (:meth:`PyradiceTable.frame_reader`) is made from a recording's "table" section or the
device's own (player count, colours taught); it reads each still frame with the game's belief of the quarry
(the state last explained). Measured on rendered tables only (docs/pyradice-table.md).
"""

from __future__ import annotations

from collections.abc import Callable, Iterator, Mapping, Sequence
from dataclasses import dataclass, replace
from typing import Any

from device.errors import SessionError
from device.tables import ButtonChoice, Explained, TableAdapter, explained_by, mark_reading
from engine.dice import Die
from engine.errors import AmbiguousActionError, GameError, InvalidActionError
from engine.pyradice import Observation
from engine.pyradice import pyramid as pyr
from engine.pyradice.game import dice_view, level_results
from engine.pyradice.observe import alike, board_changes, explain, outcomes, unchanged
from engine.pyradice.pyramid import Slot, slot_text
from engine.pyradice.quarry import COLOURS, Position, position_text
from engine.pyradice.skills import SKILL_TEXT, describe_use, usable_codes
from engine.pyradice.state import Pass, Phase, Place, PyradiceState, Reveal, Skill, Take, UseReserve
from engine.pyradice.tablesetup import SETUP_RANDOM, is_table_setup, setup_words

#: A quarry position read empty, sure or in doubt (the reader's state "empty", or in doubt its reason "looks
#: empty, the game has ... there": vision.pyradice_read keeps a position in doubt present), and read with a die on
#: top. Not imported: device imports vision lazily.
LOOKS_EMPTY, LOOKS_PRESENT = "empty", "die"

#: A correction: what a player says lies at a place (a die, or None for nothing there).
Fix = Die | None
#: What the camera needs to see before a still table's skill proposal may be confirmed: (state, actions, words).
Proposal = tuple[PyradiceState, tuple[Any, ...], tuple[str, ...]]


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


def _in_hand_question(die: Die | None, slot: Slot) -> str:
    """The question where the die in hand may lie in a slot read in doubt (its own words: see
    ``PyradiceTable._slot_asked``)."""
    return f"the die taken ({die}) may lie at {_slot_words(slot)}, read in doubt: correct it or press CONFIRM"


#: The four Pyradice colours as the page's camera view draws them (BGR).
_BGR = {"white": (234, 241, 244), "gray": (155, 155, 155), "maroon": (48, 36, 122), "orange": (46, 138, 232)}


class PyradiceTable(TableAdapter):
    name = "pyradice"
    #: Camera games replay from frames to the true record (docs/pyradice-table.md says how often the players
    #: are asked with the learned reader, and on which seeds and conditions).
    live = "camera"

    def __init__(self, game: Any) -> None:
        super().__init__(game)
        #: The game's state when the table was last explained: the quarry the reader expects to see.
        self._belief: PyradiceState | None = None
        #: A skill outcome seen but only inferred, waiting for the player's CONFIRM.
        self._proposal: Proposal | None = None
        #: A skill the camera took as seen ended the turn: the CONFIRM that ends the skill step is spent.
        self._skill_taken = False
        #: The table is read from the camera (a reading was explained): takes and placements come from it, so
        #: the buttons never make one (a CONFIRM meant for the skill step must not take a die).
        self._camera = False
        #: Readings the players overrode: the game was moved on (an answer, a page action) while a reading that
        #: contradicted it was pending, so (seat, slot) -> what was read there is in doubt from then on.
        self._overridden: dict[tuple[int, Slot], Die | None] = {}
        self._pending: tuple[Any, Any] | None = None  # (the reading, the state) of the last question asked
        #: The players moved the game on past a question (their answer, a correction, a page action) since the
        #: last reading: the belief now describes the table they looked at, doubtful places included.
        self._answered = False
        self._watch: ChangeWatch | None = None
        #: The last explanation was a die only in hand on readings in doubt: nothing taken, nothing asked.
        self._waiting = False
        #: The last explanation asked where the die in hand may lie, read in doubt (a question of its own).
        self._slot_asked = False
        #: The table as seen when the skill step began, and whether it was seen to move since (a hand changed
        #: dice at the skill step): a CONFIRM with no skill seen is then no "no skill".
        self._before_skill: Any = None
        self._skill_moved = False
        #: Later players' dice the last observation saw already placed (the table ahead of the game), in words.
        self._ahead: tuple[str, ...] = ()
        #: The last observation's quarry as read, sure or in doubt: position -> "empty", "present" or "covered".
        self._quarry_read: dict[Position, str] = {}
        self._reserve_read = False
        self._reading: Any = None  # the last observation's reading

    def loaded(self, state: Any) -> None:
        """The first frame is read against the game's belief too (a quarry set up at the table: which dice are
        there, none known, from the start)."""
        self._belief = state

    # --- a recording replayed as a real table -------------------------------------------------------
    def at_table(self, players: Sequence[str], options: Mapping[str, str],
                 seed: int | None) -> tuple[dict[str, str], tuple[str, ...]]:
        """At a real table the players type the board's tokens and the cards' discs (the ``setup`` option's words)
        and the quarry is read by the camera: a seeded recording's set-up, said so."""
        if seed is None or is_table_setup(options.get("setup", SETUP_RANDOM)):
            return dict(options), ()
        dealt = self.game.initial_state(players, options, seed=seed)
        return {**options, "setup": setup_words(dealt.board, dealt.cards)}, ()

    def told(self, state: Any, truths: Sequence[Any], asked: Sequence[str]) -> tuple[Any, ...]:
        """The uncovered quarry dice the game does not know yet that the device asks about, or that a question
        says a turn cannot be explained without (a die taken before it was read): the players say what lay there
        (the page's chance box), as the recording's truth first showed it uncovered."""
        if not isinstance(state, PyradiceState) or not state.quarry.unknown or not truths:
            return ()
        words = " ".join(asked)
        stuck = "no legal turn" in words or "table is ahead" in words
        out = []
        for pos in state.quarry.to_reveal():
            text = position_text(pos)
            if f"quarry {text} " not in words and not stuck:
                continue
            # The die as the truth first showed it uncovered: a reveal is the die first seen there, and a skill (A4)
            # may have swapped another into its place since (tuning 5911 at the table: the white 3 swapped for a
            # gray 1 told as the gray 1, and the game never explained that A4).
            shown = [t for t in truths if isinstance(t, Mapping) and isinstance(t.get("quarry"), Mapping)
                     and isinstance(t["quarry"].get(text), str)]
            first = next((t for t in shown if text not in (t.get("covered") or ())), None)
            die = (first if first is not None else shown[-1])["quarry"][text] if shown else None
            if die is not None:
                out.append(Reveal(pos, Die.parse(die)))
        return tuple(out)

    def seen_only(self, action: Any) -> bool:
        """A quarry die seen for the first time records what the camera saw, no step of the game."""
        return isinstance(action, Reveal)

    # --- reading the table ----------------------------------------------------------------------
    def frame_reader(self, table: Mapping[str, Any]) -> Callable[[Any], Sequence[Any]]:
        from vision.pyradice_read import PyradiceReader
        from vision.registration import ZoneTracker

        try:
            players = int(table.get("players") or len(self._belief.players if self._belief else ()))
        except (TypeError, ValueError):
            players = 0
        if not 2 <= players <= 4:
            raise SessionError("the Pyradice table names no player count (2 to 4): the mats printed depend on it")
        reader = PyradiceReader(players)
        lessons = (table.get("lessons") or {}).get("die") or {}
        taught = [(name, (float(lab[0]), float(lab[1]), float(lab[2]))) for name, lab in lessons.items()
                  if name in COLOURS and len(lab) == 3]
        if taught:
            reader.teach(taught)
        tracker = ZoneTracker("pyradice", players)
        watch = ChangeWatch(reader)
        self._watch = watch

        def read(image: Any) -> Sequence[Any]:
            reg = tracker.update(image)
            belief = self._belief
            answered, self._answered = self._answered, False
            return [watch.read(image, reg, belief, answered=answered)]

        return read

    def truth_readings(self, truth: Any) -> Sequence[Any]:
        if not isinstance(truth, Mapping):
            return []
        return [reading_from_truth(truth, self.players_of(truth))]

    @staticmethod
    def players_of(truth: Mapping[str, Any]) -> int:
        return len(truth.get("boards") or {}) or 2

    def readings_agree(self, a: Sequence[Any], b: Sequence[Any]) -> bool:
        return [_summary(r) for r in a] == [_summary(r) for r in b]

    def annotate(self, image: Any, readings: Sequence[Any]) -> Any:
        """The frame with every slot and quarry position read marked where it lies: the die's face on a disc of
        its colour (a hollow ring: empty), ringed in red where the reader was unsure (what a player may tap)."""
        import numpy as np

        out = np.array(image, copy=True)
        radius = max(5, round(min(out.shape[:2]) / 90))
        for reading in readings:
            if not (hasattr(reading, "boards") and hasattr(reading, "quarry")):
                continue
            for item in _items(reading):
                centre = getattr(item, "centre", None)
                if centre is None:  # a reserve is read where its spot lies, not at a point
                    continue
                die = item.die
                body = None if die is None else _BGR.get(die.colour, (128, 128, 128))
                mark_reading(out, centre, body, unsure=bool(item.unsure), text=str(die.value) if die else "",
                             radius=radius)
        return out

    # --- what the camera saw -------------------------------------------------------------------
    def observe(self, readings: Sequence[Any], *, moved: bool) -> TableSeen:
        found = [r for r in readings if hasattr(r, "boards") and hasattr(r, "quarry")]
        if not found:
            raise SessionError(f"{self.game.title}: nothing of the table was read (no boards, no quarry)")
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
        self._belief = state
        if state.phase is Phase.ROLL_OFF and isinstance(seen, TableSeen) and state.quarry.unknown:
            return self._quarry_as_built(state, seen)
        if state.phase in (Phase.ROLL_OFF, Phase.OVER):
            return Explained()  # the roll-off is entered on the page; after the game nothing is read
        if isinstance(seen, Observation):
            self._reading, self._quarry_read, self._reserve_read, self._ahead = None, {}, False, ()
            return self._explain(state, seen, confirmed=False)
        if not isinstance(seen, TableSeen):
            return Explained(problems=("nothing read of the pyramid boards",))
        self._camera = True
        if state.phase is not Phase.SKILL:
            self._before_skill, self._skill_moved = seen, False
        elif seen is not self._before_skill and _in_doubt_anywhere(seen.reading, state.turn + 1):
            # A still table settled again at the skill step (something moved over the table since the placement:
            # the filter reads nothing more until it does), read in doubt: a hand changed dice, whether the reading
            # shows it or not (a B3 read in doubt was "not seen to move"). Read without doubt and showing no
            # change, CONFIRM is "no skill" (an A2 re-roll that came up the face it had looks so).
            self._skill_moved = True
        if self._pending is not None and self._pending[0] is seen and self._pending[1] is not state:
            self._overrule(state, seen.reading)
            self._answered = True
            if (state.turn != self._pending[1].turn and state.phase is Phase.TAKE
                    and not _sure_news(state, seen.reading, self._overrode)
                    and not _open_slot_in_doubt(state, seen.reading)):
                # The players' answer ended the turn asked about, and the same picture shows nothing sure of the
                # next one: its readings in doubt (the quarry around the die just taken, mostly) are that turn's,
                # not news of the next; asked about, each answer would run the game a turn ahead of the table
                # (tuning replay 5502: up to 8 placements ahead, 51 of its 66 answers). The next still table says.
                # Not so when the next mover's own board reads in doubt where the game has no die: their die may
                # lie there already, and it is looked at now (the replay's players answer only what the table
                # shows since session 17, so a question no longer runs the game ahead of it). Left to the next
                # still table, the game's last turn waited for ever: 5802, Cleo's apex read in doubt.
                self._pending = None
                return Explained()
        result = self._explain_seen(state, seen)
        if self._ahead and not result.actions:
            # A later turn is on the table and the mover's is not seen through: never a silent wait (nothing else
            # would move the game on), and never that later turn taken for the mover's.
            mover, placed = state.mover.name, ", ".join(self._ahead)
            result = Explained(problems=(
                f"the table is ahead of the game ({placed} already placed): end {mover}'s skill step (NEXT for no "
                "skill, or correct the die the skill changed)" if state.phase is Phase.SKILL else
                f"the table is ahead of the game ({placed} already placed), but {mover}'s turn is not seen: "
                f"correct the die {mover} placed", *result.problems))
        end = self._after(state, result.actions) if result.actions and not result.problems else state
        ahead = self._ahead
        for _ in range(2 * len(state.players)):
            # The table is ahead of the game (a later player's die already placed): once the mover's turn is seen
            # through, the next turn is explained from the same picture, so that the page's inputs (a "pass"
            # tapped, a CONFIRM) land on the turn they are meant for. What the next turn cannot explain waits for
            # the next still table; the turns explained so far stand. A skill step the picture cannot close is
            # asked about before anything is taken: a "pass" tapped for a later turn would land on it (tuning
            # replay 5504: a B3 read in doubt recorded as no skill so).
            if not ahead or not result.actions or result.problems or end.phase is Phase.OVER:
                break
            if end.phase is Phase.SKILL:
                more = self._explain_seen(end, seen)
                if more.actions and not more.problems and self._after(end, more.actions).phase is not Phase.SKILL:
                    result = Explained(actions=(*result.actions, *more.actions))
                    end = self._after(end, more.actions)
                    continue
                self._belief, self._proposal = state, None
                result = Explained(problems=(
                    f"the table is ahead of the game ({', '.join(ahead)} already placed): {end.mover.name}'s skill "
                    "step is not over (NEXT for no skill, or correct the die the skill changed)",
                    *more.problems))
                break
            if end.phase is not Phase.TAKE or end.turn == state.turn:
                break
            self._before_skill, self._skill_moved = seen, False
            more = self._explain_seen(end, seen)
            if more.problems or not more.actions:
                self._belief = end
                break
            result = Explained(actions=(*result.actions, *more.actions))
            end = self._after(end, more.actions)
            ahead = self._ahead
        self._pending = (seen, state) if result.problems else None
        if (result.actions and not result.problems and end.phase is Phase.SKILL
                and _in_doubt_anywhere(seen.reading, end.turn + 1)):
            # The skill step begins on a picture read in doubt: it may already show what the skill did (the game a
            # turn behind the table: a B3 seen with the placement was left to the CONFIRM, as "no skill").
            self._skill_moved = True
        return result

    def _quarry_as_built(self, state: PyradiceState, seen: TableSeen) -> Explained:
        """A table set up by its players (the ``setup`` option's words): while the roll-off is entered the quarry's
        uncovered dice are read, each read sure (or corrected) is seen for the first time (a reveal); each in doubt
        is asked, so that no take has to wait on a die the game does not know."""
        need = set(self.game.reveals_needed(state))  # type: ignore[attr-defined]
        fixed = seen.fixed()
        reveals: list[Reveal] = []
        doubts: list[str] = []
        for k, (place, item) in enumerate(zip(_places(seen.reading), _items(seen.reading), strict=True)):
            pos = place.position
            if place.kind != "quarry" or pos is None or pos not in need:
                continue
            value, sure = (fixed[k], True) if k in fixed else _read_value(item)
            if isinstance(value, Die) and (sure or seen.confirmed):
                reveals.append(Reveal(pos, value))
            else:
                why = getattr(item, "reason", "") or "not read"
                doubts.append(f"quarry {position_text(pos)} is hard to read ({why}): correct it")
        if reveals:
            return explained_by(self.game, state, reveals)
        return Explained(problems=tuple(doubts))

    def _after(self, state: PyradiceState, actions: Sequence[Any]) -> PyradiceState:
        end = state
        try:
            for a in actions:
                end = self.game.apply(end, a)
        except GameError:
            return state
        return end

    def _overrule(self, state: PyradiceState, reading: Any) -> None:
        """The players moved the game on past a question about ``reading``: every slot it read sure that the game
        now has another die on (or a die where it read none) is a reading they overrode."""
        for seat, slot, read, game_die in _sure_differences(state, reading):
            # Only where the game has a die: a die read where the game has none yet may be the one in hand.
            if game_die is not None:
                self._overridden[(seat, slot)] = read

    def _overrode(self, seat: int, slot: Slot, read: Die | None) -> bool:
        key = (seat, slot)
        return key in self._overridden and self._overridden[key] == read

    def _explain_seen(self, state: PyradiceState, seen: TableSeen) -> Explained:
        built = self.observation(state, seen)
        if isinstance(built, Explained):
            return built
        observation, doubts = built
        if unchanged(state, observation):
            # Nothing changed that was read sure. A doubtful reading that differs from the game may be the
            # change: asked; doubtful readings that agree with the game are no news.
            if doubts and _doubt_differs(state, seen.reading, observation):
                self._waiting = self._slot_asked = False
                tried = self._explain(state, observation, confirmed=seen.confirmed, doubts=doubts)
                if self._waiting:  # only a take in doubt would explain it: the placement will say
                    return Explained(waiting=IN_HAND_WAIT)
                # Where the die in hand may lie is asked in words of its own: the same words as before the players
                # answered the take would read as the same question again, and the players' answer would stop.
                return tried if tried.actions or self._slot_asked else Explained(problems=tuple(doubts))
            return Explained()
        return self._explain(state, observation, confirmed=seen.confirmed, doubts=doubts)

    def _explain(self, state: PyradiceState, seen: Observation, *, confirmed: bool,
                 doubts: Sequence[str] = ()) -> Explained:
        try:
            try:
                found = explain(state, seen, partial=True)
                if seen.as_read and not confirmed and any(isinstance(a, (Take, UseReserve)) for a in found.actions):
                    # Which die was taken is never decided by readings in doubt taken at face value (a placed die's
                    # colour read in doubt chose the wrong one of two quarry dice so): without them, every turn
                    # that fits must take the same die. They may say where it went (the slot read as a die, the
                    # others as empty), the quarry having said which die it was.
                    fits = outcomes(state, replace(seen, as_read={}), partial=True)
                    if len({_take_of(path) for path in fits}) > 1:
                        explain(state, replace(seen, as_read={}), partial=True)  # raises: the turns that fit, named
            except AmbiguousActionError:
                narrowed = None if confirmed else self._doubts_agree_on_take(state, seen)
                if narrowed is None:
                    raise
                seen = narrowed
                found = explain(state, seen, partial=True)
        except AmbiguousActionError as exc:
            return Explained(problems=(*doubts, str(exc)) if doubts else (str(exc),))
        except GameError as exc:
            return Explained(problems=(str(exc),))
        actions = found.actions
        # No skill is a player's decision (NEXT, CONFIRM or the page), never read from the table: a skill whose
        # change was missed would look the same as none.
        while actions and isinstance(actions[-1], Pass):
            actions = actions[:-1]
        if not confirmed and seen.unsure_slots:
            # The turn seen stops with the die in hand while a slot it may lie in reads in doubt: nothing else
            # would move the game on (the table stays as it is), so it is asked, not waited for in silence; once
            # the die is known to be in hand the question names the slot, so that an answer is news.
            held = state
            try:
                for a in actions:
                    held = self.game.apply(held, a)
            except GameError:
                held = state
            if held.phase is Phase.PLACE and held.hand is not None:
                rules: Any = self.game
                legal = set(rules.legal_slots(held))
                maybe = [slot for slot in sorted(seen.unsure_slots) if slot in legal]
                if maybe:
                    if actions:
                        return Explained(problems=tuple(doubts))
                    self._slot_asked = True
                    return Explained(problems=tuple(_in_hand_question(held.hand, slot) for slot in maybe))
        twin = None if confirmed else self._twin_in_doubt(state, actions)
        if twin is not None:
            return Explained(problems=(*doubts, twin))
        unfitted = None if confirmed else self._placed_on_no_lattice(state, actions, seen)
        if unfitted is not None:
            return Explained(problems=(*doubts, unfitted))
        moves = [a for a in actions if not isinstance(a, Reveal)]
        if not confirmed and moves and isinstance(moves[-1], (Take, UseReserve)) and not _take_seen(moves[-1], seen):
            # The die is only in hand, and only readings in doubt say so (from above a die gone leaves a lower die's
            # top almost where it was, and one of two identical dice may read in doubt while the other was taken):
            # nothing is taken on them. The die shows in its slot at the next still table, and that is read.
            self._waiting = True
            return Explained(waiting=IN_HAND_WAIT)
        if not actions:
            return Explained(problems=tuple(doubts)) if doubts and not confirmed else Explained()
        if not confirmed and seen.unsure_slots and not _as_read_agrees(self.game, state, actions, seen):
            # A doubtful slot reads otherwise than the turn found: something else may have happened there (a
            # skill on that die, with another die misread): asked, not guessed.
            place = next((a for a in actions if isinstance(a, Place)), None)
            if state.phase is Phase.PLACE and state.hand is not None and place is not None \
                    and place.slot in seen.unsure_slots:
                # The die in hand (the take known, answered perhaps) would lie in a slot read in doubt: asked in
                # words naming it, news after the take's answer (in the take's own words the replay's players took
                # it for the same question again and stopped: tuning 5802, Cleo's apex read "cannot tell").
                self._slot_asked = True
                return Explained(problems=(*doubts, _in_hand_question(state.hand, place.slot)))
            return Explained(problems=tuple(doubts) or ("a doubtful reading does not fit the turn seen",))
        if found.inferred and not confirmed:
            cut = next(i for i, a in enumerate(actions) if isinstance(a, Skill))
            before = state
            try:
                for a in actions[:cut]:
                    before = self.game.apply(before, a)
            except GameError as exc:
                return Explained(problems=(str(exc),))
            self._proposal = (before, tuple(actions[cut:]), found.inferred)
            actions = actions[:cut]
        elif any(isinstance(a, Skill) for a in actions):
            self._proposal = None
            self._skill_taken = True
        explained = explained_by(self.game, state, actions)
        if not explained.problems:
            end = state
            for a in explained.actions:
                end = self.game.apply(end, a)
            self._belief = end
        return explained

    def _twin_in_doubt(self, state: PyradiceState, actions: Sequence[Any]) -> str | None:
        """A take and placement leading to a skill step whose skill can move a quarry die (A4, B3), while the
        picture may already show that skill done (the game a turn behind the table): a die on the mover's reserve
        spot (B3; tuning replay 5504: the placement taken, then a "pass" tapped for the next turn landed on the
        skill step and the B3 was recorded as none), or a die like the one taken read empty, in doubt, elsewhere
        in the quarry (the die taken may be that other one: "take q0,2,5" for "take q0,0,3; place; B3 q0,2,5",
        the shorter turn). Asked, in words; None otherwise."""
        take = _take_of(actions)
        if not any(isinstance(a, Place) for a in actions):
            return None
        end = self._after(state, actions)
        if end.phase is not Phase.SKILL or end.placed is None:
            return None
        if not {"A4", "B3"} & set(usable_codes(state.board.skills, end.placed[0])):
            return None
        codes = set(usable_codes(state.board.skills, end.placed[0]))
        if "B3" in codes and self._reserve_read and end.mover.reserve is None:
            return (f"{end.mover.name}'s reserve spot may hold a die already (level {end.placed[0]}'s skill B3 done "
                    "too?): correct it or press CONFIRM")
        board = self._reading.board(end.turn + 1) if self._reading is not None else None
        if codes - {"B3"} and board is not None:
            mine = end.mover.pyramid
            for s in board.slots:
                # Another die of the mover's read in doubt otherwise than the game has it (or its picture changed):
                # the skill (a swap, a new value) may be done already; a "pass" tapped for the next turn would land
                # on this skill step (tuning replay 5504: an A4 recorded as none so).
                read = s.die.die if s.occupied and s.die is not None else None
                if (s.unsure and s.slot != end.placed and s.slot in mine
                        and (read != mine[s.slot] or s.reason in (PICTURE_CHANGED, SWAPPED))):
                    return (f"{_slot_words(s.slot)} reads otherwise than the game has it, in doubt: level "
                            f"{end.placed[0]}'s skill may be done already: correct it or press CONFIRM")
        if not isinstance(take, Take) or take.position not in state.quarry.dice:
            return None
        die = state.quarry.dice[take.position]
        twins = [p for p, read in self._quarry_read.items() if read == LOOKS_EMPTY and p != take.position
                 and end.quarry.dice.get(p) == die]
        if not twins:
            return None
        return (f"the die taken ({die}) may have come from quarry {position_text(take.position)} or "
                f"{position_text(twins[0])} (read in doubt), the other moved by the skill: correct it or press CONFIRM")

    def _placed_on_no_lattice(self, state: PyradiceState, actions: Sequence[Any], seen: Observation) -> str | None:
        """A placement found only in a slot read in doubt, on a board whose lattice is fitted on no die read sure
        (an empty board's slots come from the printed outline alone, which can put them a cell off: measured once
        on seed 6404, Anna's first die at 1,2 read at 1,1 in doubt and taken as placed there, the rest of the game
        lost): asked, in words; None otherwise."""
        place = next((a for a in actions if isinstance(a, Place)), None)
        if place is None or place.slot not in seen.unsure_slots or self._reading is None:
            return None
        board = self._reading.board(state.turn + 1)
        lattice = getattr(board, "lattice", None) if board is not None else None
        if lattice is None or getattr(lattice, "dice", 1) > 0:
            return None
        return (f"{state.mover.name}'s die may lie at {_slot_words(place.slot)}, read in doubt on a board whose slots "
                "are not fitted on any die yet: correct it or press CONFIRM")

    def _doubts_agree_on_take(self, state: PyradiceState, seen: Observation) -> Observation | None:
        """Two readings in doubt that agree on which die was taken, each from its own place: the die placed read
        (in doubt, or sure) as exactly that die, colour and face, and its quarry position read empty, while
        every other die that might have been taken is still read there (sure or in doubt). Then the observation
        with that quarry position empty and the others' dice present, sure; None when they do not agree so.
        (A placed die's colour read in doubt alone once chose the wrong one of two quarry dice: not enough.)"""
        fits = outcomes(state, replace(seen, as_read={}), partial=True)
        if len(fits) < 2 or seen.quarry is None:
            return None
        reads = self._quarry_read
        q = state.quarry
        takes: dict[Position, bool] = {}  # position -> the die placed read as exactly its die, and it reads empty
        unlike: dict[Position, bool] = {}  # position -> the die placed read (in doubt) unlike its die in every way
        for path in fits:
            take = _take_of(path)
            place = next((a for a in path if isinstance(a, Place)), None)
            if not isinstance(take, Take) or place is None or take.position not in q.dice:
                return None  # a die only in hand, the reserve, or an unknown die: asked
            die, pos = q.dice[take.position], take.position
            doubtful = place.slot in seen.unsure_slots
            as_placed = not doubtful or seen.as_read.get(place.slot) == die
            takes[pos] = takes.get(pos, False) or (as_placed and reads.get(pos) == LOOKS_EMPTY)
            unlike[pos] = unlike.get(pos, True) and doubtful and not alike(die, seen.as_read.get(place.slot))
        agreed = [pos for pos, ok in takes.items() if ok]
        if len(agreed) != 1 or len({q.dice[pos] for pos in takes}) != len(takes):
            return None  # no agreement, or two identical dice (the placed die cannot say which: asked)
        for pos in takes:
            # Every other die is still seen on top there (sure or in doubt; no die like it under it: a twin under a
            # die gone is seen where it was), or the die placed reads unlike it in colour and face alike.
            still = reads.get(pos) == LOOKS_PRESENT and not any(q.dice.get(u) == q.dice[pos]
                                                                for u in q.geometry.supports[pos])
            if pos != agreed[0] and not (still or unlike[pos]):
                return None
        quarry = dict(seen.quarry)
        quarry.pop(agreed[0], None)
        for pos in takes:
            if pos != agreed[0] and pos not in quarry:
                quarry[pos] = None  # a die there, its value not read
        return replace(seen, quarry=quarry, quarry_unsure=seen.quarry_unsure - set(takes))

    def observation(self, state: PyradiceState, seen: TableSeen) -> tuple[Observation, list[str]] | Explained:
        """The engine's observation for the player to move (readings in doubt named in it, unless the players
        confirmed them) with those doubts in words, or the problems that keep the reading from being one."""
        reading = seen.reading
        fixed = seen.fixed()
        index = {_key(p): k for k, p in enumerate(_places(reading))}
        seat = state.turn + 1
        self._ahead = ()
        self._reading = reading
        problems: list[str] = []
        doubts: list[str] = []
        board = reading.board(seat)
        if board is None or not board.seen:
            return Explained(problems=(f"{state.mover.name}'s board is not seen: "
                                       + "; ".join(board.problems if board is not None else ()),))
        pyramid: dict[Slot, Die] = {}
        unsure: set[Slot] = set()
        as_read: dict[object, object] = {}
        for s in board.slots:
            k = index[("slot", seat, s.slot)]
            if k in fixed:
                if fixed[k] is not None:
                    pyramid[s.slot] = fixed[k]  # type: ignore[assignment]
                continue
            read_here = s.die.die if s.occupied and s.die is not None else None
            if (s.unsure or self._overrode(seat, s.slot, read_here)) and not seen.confirmed:
                unsure.add(s.slot)
                as_read[s.slot] = read_here
                doubts.append(f"{_slot_words(s.slot)} is hard to read: correct it or press CONFIRM")
                continue
            if s.occupied and s.die is not None:
                pyramid[s.slot] = s.die.die
        # Another player's board: a change there is no part of this turn. Only new dice, on slots they may go to,
        # are a later turn already played (the table ahead of the game: hands move faster than answers at 3-4
        # players); any other change is a problem ("bumped?").
        ahead: list[str] = []
        for other in reading.boards:
            if other.seat == seat or not other.seen or other.seat > len(state.players) or seen.confirmed:
                continue
            read: dict[Slot, Die | None] = {}
            for s in other.slots:
                k = index[("slot", other.seat, s.slot)]
                if k in fixed:
                    read[s.slot] = fixed[k]
                elif not s.unsure:
                    now = s.die.die if s.occupied and s.die is not None else None
                    if not self._overrode(other.seat, s.slot, now):
                        read[s.slot] = now
            player = state.players[other.seat - 1]
            changes = board_changes(player, read)
            added = [s for s, d in read.items() if d != player.pyramid.get(s)]
            if changes and _later_turns(player.pyramid, {s: read[s] for s in added}):
                ahead.extend(f"{player.name}'s {slot_text(s)}" for s in added)
            else:
                problems.extend(changes)
        self._ahead = tuple(ahead)
        quarry, quarry_unsure, quarry_doubts = self._quarry(reading, fixed, index, seen.confirmed)
        self._quarry_read = {}
        for p in reading.quarry.positions:
            k = index[("quarry", None, p.position)]
            empty = fixed[k] is None if k in fixed else (
                p.state == LOOKS_EMPTY or (p.unsure and p.reason.startswith("looks empty")))
            self._quarry_read[p.position] = LOOKS_EMPTY if empty else p.state
        if ahead and quarry is not None:
            # Later turns took dice from the quarry too: every quarry position that differs from the game is left
            # out of the match (the mover's take then rests on the die placed, read sure, or is asked about).
            news = _quarry_news(state, quarry) - quarry_unsure
            quarry_unsure = quarry_unsure | news
            quarry_doubts = quarry_doubts + [f"quarry {position_text(p)} changed, and the table is ahead of the game "
                                             f"({', '.join(ahead)} already placed)" for p in sorted(news)]
        # Doubtful quarry tops are left out of ``as_read``: whether a die is there is what the view cannot tell
        # (a lower die is seen almost where a taken one was), so their face value is no evidence.
        reserve_seen, reserve = False, None
        r = reading.reserve(seat)
        # A die seen on the mover's reserve spot, sure or in doubt (a B3 may already be done: see _twin_in_doubt).
        self._reserve_read = r is not None and r.seen and r.occupied and (
            ("reserve", seat, None) not in index or index[("reserve", seat, None)] not in fixed
            or fixed[index[("reserve", seat, None)]] is not None)
        if r is not None and r.seen:
            k = index[("reserve", seat, None)]
            if k in fixed:
                reserve_seen, reserve = True, fixed[k]
            elif not r.unsure or seen.confirmed:
                reserve_seen, reserve = True, (r.die.die if r.occupied and r.die is not None else None)
        if problems:
            return Explained(problems=tuple(problems))
        observation = Observation(pyramid, quarry, reserve, reserve_seen, frozenset(unsure), quarry_unsure,
                                  as_read=as_read)
        return observation, doubts + quarry_doubts

    @staticmethod
    def _quarry(reading: Any, fixed: Mapping[int, Fix], index: Mapping[Any, int], confirmed: bool
                ) -> tuple[dict[Position, Die | None] | None, frozenset[Position], list[str]]:
        if not reading.quarry.seen:
            return None, frozenset(), []
        out: dict[Position, Die | None] = {}
        unsure: set[Position] = set()
        doubts: list[str] = []
        for p in reading.quarry.positions:
            pos = p.position
            k = index[("quarry", None, pos)]
            if k in fixed:
                if fixed[k] is not None:
                    out[pos] = fixed[k]
                continue
            if p.unsure and p.state == "covered" and not confirmed:
                out[pos] = None  # a die lies there whatever is in doubt above it (one die is taken a turn)
                continue
            if p.unsure and not confirmed:
                unsure.add(pos)
                doubts.append(f"quarry {position_text(pos)} is hard to read ({p.reason or 'unsure'}): correct it "
                              "or press CONFIRM")
                continue
            if not p.present:
                continue
            out[pos] = p.die.die if p.state != "covered" and p.die is not None else None
        return out, frozenset(unsure), doubts

    def is_table_action(self, action: Any) -> bool:
        return isinstance(action, (Take, UseReserve, Place, Skill, Reveal))

    # --- buttons -------------------------------------------------------------------------------
    def button(self, state: Any, button: str, *, long: bool) -> ButtonChoice:
        """At the skill step CONFIRM takes the skill the camera saw (or, nothing seen, no skill) and NEXT
        declines it (no skill). At a table read by the camera the buttons make no take or placement (a
        CONFIRM meant for a skill step that is already over does nothing); on the panel of a game played on
        the page they point at and take legal actions as for every board game."""
        if state.phase is Phase.OVER or state.phase is Phase.ROLL_OFF:
            self._skill_taken = False
            return super().button(state, button, long=long)
        if state.phase is Phase.SKILL and not long:
            self._skill_taken = False
            proposal = self._proposal
            if button == "confirm" and proposal is not None and proposal[0] == state:
                self._proposal = None
                return ButtonChoice(action=proposal[1][0], said="took the skill seen on the table")
            if button == "confirm" and self._camera and self._skill_moved:
                # Dice were moved by hand at the skill step and the camera saw no skill it can tell: CONFIRM
                # ("the skill is done") is not taken as "no skill" (tuning replays 5501, 5503, 5504: a B2, an A5
                # and a B3 read in doubt were recorded as no skill so); NEXT is "no skill".
                return ButtonChoice(said="the dice were moved but the camera cannot tell what the skill did: "
                                         "correct the die, or press NEXT for no skill")
            self._proposal = None
            return ButtonChoice(action=Pass(), said="no skill this turn")
        if self._skill_taken and button == "confirm":
            self._skill_taken = False
            return ButtonChoice(said="the skill seen on the table was taken: the next player's turn")
        self._skill_taken = False
        if self._camera and not long:
            return ButtonChoice(said="take a die from the quarry and place it: the camera reads it")
        return super().button(state, button, long=long)

    def button_meanings(self, state: Any) -> dict[str, str]:
        if state.phase in (Phase.TAKE, Phase.PLACE) and self._camera:
            return {"undo": "take back the last action"}
        if state.phase is not Phase.SKILL:
            return super().button_meanings(state)
        out = {"undo": "take back the last action"}
        if state.phase is Phase.SKILL:
            proposal = self._proposal
            if proposal is not None and proposal[0] == state:
                out["confirm"] = f"take the skill seen: {describe_use(proposal[1][0])}"
                out["next"] = "no skill (the die was misread)"
            else:
                out["confirm"] = "no skill this turn"
                out["next"] = "no skill this turn"
        return out

    def view_key(self) -> tuple[Any, ...]:
        proposal = self._proposal
        return (self.cursor, None if proposal is None else proposal[1])

    # --- the page ------------------------------------------------------------------------------
    def view(self, state: Any) -> dict[str, Any]:
        out = super().view(state)
        out.update(pyradice_view(self.game, state, self._proposal))
        out["buttons"] = self.button_meanings(state)
        return out

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


def _mean_colour(patch: Any) -> Any:
    """A patch's mean per channel (as float64 levels; OpenCV's mean: a tenth of NumPy's time on small patches)."""
    import cv2
    import numpy as np

    channels = patch.shape[2] if patch.ndim == 3 else 1
    return np.array(cv2.mean(patch)[:channels], np.float64)


#: A zone whose corners moved by more than this in the frame (px) was moved or bumped: its places are compared
#: afresh (the registration's own jitter is well under it).
ZONE_MOVED_PX = 3.0
#: A place whose patch the reader's refitted lattice or grid moves by more than this (px of the rectified zone)
#: takes its reference from the current frame (when unchanged there), by more than REFERENCE_LOST_PX none.
REBASE_PX = 1.0
REFERENCE_LOST_PX = 8.0
#: A place whose mean colour moved by more than this (levels, any channel, after the table's common change of
#: light) changed, whatever the gate's local score: the gate forgives a change of light over one place, and a
#: hand (or a box) laid flat over an empty slot of a flat board is such a change to it.
MEAN_MOVED = 16.0
#: The change score given to such a place (finite: it has a reference; inf is for a place with none).
MEAN_MOVED_SCORE = 1e6
#: A die read in doubt only for its colour (its face and that a die is there read sure) whose body colour is within
#: this of the body colour measured at the same slot when the game's die there was last read (CIE76) is the game's
#: colour there. On three tuning replays (5704, 5801, 5911) a die of the same colour measured within 2.5 of its
#: slot's reference (median), 16.5 at the 95th percentile (a white die's chroma moves with its face), 22 at most
#: (318 reads); another colour 29.9 at the least (69 reads: white and gray, the nearest pair). See ChangeWatch.read.
COLOUR_KEPT = 16.0
#: A die's body within this (CIE76) of a body measured on one board's die of one colour, and farther than
#: BOARD_BODY_FAR from every body measured there on another colour, is of that colour (ChangeWatch._board_colour).
#: Measured on three 2-player tuning replays (5701, 5911, 6001; 211 reads of a die whose colour alone was in doubt,
#: each against the bodies then measured on its board): the nearest body of its own colour 5.8 away at the median,
#: 12.0 at the 90th percentile; of another colour 14.8 at the least, 28.0 at the 10th percentile. With 8 and 24,
#: 132 of the 211 reads settle, none wrongly (12 and 24: 163; 16 and 24: 3 wrong); with the reader's nearest colour
#: required to be that colour, 129. On 4-player tuning 5803 one settle of 22 was wrong without that requirement,
#: none with it.
BOARD_BODY_NEAR = 8.0
BOARD_BODY_FAR = 24.0
#: How many body colours of each colour the palette learns from (the last measured), and how many it needs first.
LEARNED_SAMPLES = 9
LEARN_FROM = 3
#: The doubt of a die whose picture changed while it reads as the die the game has there.
PICTURE_CHANGED = "the picture changed here but it reads as before: a die turned, or put there?"
#: The doubt of a slot read empty where the game has a die.
EMPTY_UNDER_BELIEF = "reads empty, but the game has a die here (dice never leave a pyramid)"
#: The same where the picture changed since the game agreed with it.
SWAPPED = "the picture changed here and it reads empty, but the game has a die here: a die swapped?"


def belief_values(state: PyradiceState | None) -> dict[tuple[Any, ...], Any]:
    """What the game's belief has at every place the reader names (see :data:`vision.pyradice_read.Place`): a
    slot's or a reserve's die or None, a quarry position's die, "covered" (a die under another) or "empty". A
    quarry die the game does not know whose top is uncovered is left out: it must be read (a reveal)."""
    if state is None:
        return {}
    out: dict[tuple[Any, ...], Any] = {}
    for seat, player in enumerate(state.players, start=1):
        for slot in pyr.SLOTS:
            out[("slot", seat, slot)] = player.pyramid.get(slot)
        out[("reserve", seat)] = player.reserve
    q = state.quarry
    for pos in q.geometry.positions:
        if not q.present(pos):
            out[("quarry", pos)] = "empty"
        elif q.covered(pos):
            out[("quarry", pos)] = "covered"
        elif pos in q.dice:
            out[("quarry", pos)] = q.dice[pos]
    return out


def _read_value(item: Any) -> tuple[Any, bool]:
    """A reading's value at its place, as :func:`belief_values` names it, and whether it was read sure."""
    if hasattr(item, "slot") or hasattr(item, "seat"):  # a slot or a reserve
        return (item.die.die if item.occupied and item.die is not None else None), not item.unsure
    if item.state == "empty":
        return "empty", not item.unsure
    if item.state == "covered" or item.die is None:
        return "covered", not item.unsure
    return item.die.die, not item.unsure


def _present(value: Any) -> bool:
    return value is not None and value != "empty"


class ChangeWatch:
    """The change gate (:class:`vision.change.ChangeGate`) at one Pyradice table: which slots, quarry positions
    and reserves look as they did in the frame the game's belief describes; those carry the belief, sure, and
    only the rest is read.

    The reference of a place is only ever the patch of a frame in which the game's belief agreed with it: when
    the belief changes (a turn explained, the players' answer), each place read in the last frame becomes
    reference if the belief now has there what was read sure, or, read in doubt, if the belief changed there
    and a die is there as read (or not), or the players answered about that frame and the die read is the die the
    belief has. A place the belief changed at is
    read again whatever its picture (the players' answer or an undo moved a die the camera never saw move). A
    die whose picture changed while it reads as the die the belief has is in doubt (turned, or swapped for a
    look-alike: a one-pip misread would look so), and so is a slot read empty whose picture changed (a die put
    there and missed). A zone whose corners move (a mat bumped, re-registered)
    forgets its references; a lattice or grid the reader refits a little takes its references anew from the
    current frame where nothing changed."""

    def __init__(self, reader: Any, threshold: float | None = None, learn_palette: bool = False) -> None:
        from vision.change import ChangeGate

        self.reader = reader
        self.gate = ChangeGate() if threshold is None else ChangeGate(threshold=threshold)
        self.values: dict[tuple[Any, ...], Any] = {}  # the belief's value when the place's reference was taken
        self.means: dict[tuple[Any, ...], Any] = {}  # the reference patch's mean colour
        #: place -> (patch, value read, sure, the die's body colour as measured there or None)
        self.pending: dict[tuple[Any, ...], tuple[Any, Any, bool, Any]] = {}
        #: slot -> the body colour (CIELAB) measured on the game's die there when the slot's reference was taken
        self.labs: dict[tuple[Any, ...], Any] = {}
        #: colour -> the body colours last measured on the game's dice of that colour in the pyramids (the reader's
        #: palette learns them: see _learn)
        self.samples: dict[str, list[Any]] = {}
        self.belief: Any = None
        self.quads: dict[str, Any] = {}
        #: Whether the reader's palette learns the game's dice (:meth:`_learn`). Off: measured once (seed 6004, 4
        #: players, blur 1.2) it made a gray 6 on a reserve spot read white, sure, and a B3 was recorded with the
        #: wrong die (the same replay with it off took the right one); kept for a safer form (docs/pyradice-table.md).
        self.learn_palette = learn_palette
        self._learned: list[Any] = []
        self._taught: Any = None  # the reader's palette before it learned
        #: Per read: places carried and places read (for the measurements).
        self.carried = 0
        self.read_places = 0

    def _take(self, key: tuple[Any, ...], patch: Any, value: Any, lab: Any = None) -> None:
        """The patch becomes the place's reference, for the belief's ``value`` there (``lab``: the body colour
        measured on that die, kept with it; None keeps the one kept, if the value is the same)."""

        self.gate.propose({key: patch})
        self.gate.accept()
        if lab is not None and isinstance(value, Die):
            self.labs[key] = lab
            if value.colour:
                kept = self.samples.setdefault(value.colour, [])
                kept.append(tuple(float(v) for v in lab))
                del kept[:-LEARNED_SAMPLES]
        elif not (isinstance(value, Die) and self.values.get(key) == value):
            self.labs.pop(key, None)
        self.values[key] = value
        self.means[key] = _mean_colour(patch)

    def _settled(self, key: tuple[Any, ...], item: Any, have: Die) -> Die | None:
        """A slot where the game has a die (``have``), read in doubt only where the game settles the doubt: the die
        read sure as a die, but whether a die is there in doubt (dice never leave a pyramid: one is), or read in
        doubt for its colour alone while its body is the colour the game's die here was measured at when its
        reference was taken (:data:`COLOUR_KEPT`: a skill that changes a die's number keeps its body; a swap
        brings another, of another colour or within the same). The die so read, sure; None when the doubt stays
        (a face in doubt is never settled so)."""
        die = item.die
        if not item.occupied or die is None:
            return None
        if item.reason not in (OCCUPANCY_UNCLEAR, NO_MEASURE, COLOUR_UNCLEAR):
            return None
        if not die.unsure or die.reason == NO_MEASURE:
            return Die(die.value, die.colour)
        if (die.reason == COLOUR_UNCLEAR and key in self.labs and self.values.get(key) == have
                and _lab_distance(die.lab, self.labs[key]) <= COLOUR_KEPT):
            return Die(die.value, have.colour)
        return None

    def _board_colour(self, key: tuple[Any, ...], item: Any) -> Die | None:
        """A die on a board read with its face sure and only its colour in doubt, whose body is within
        BOARD_BODY_NEAR of the body measured on a game's die of one colour on the same board, and farther than
        BOARD_BODY_FAR from every body measured there on a die of another colour, and that colour the reader's own
        nearest: that colour, sure (the dice of one board lie in one light; a swap, A5, moves a die whose body was
        measured at its old slot). None when
        no such colour: the doubt stays. The palette's own learning (rule 4) made a silent misread on a reserve
        spot, where no die of the board had been measured; this is the board's own measure only."""
        die = item.die
        if not item.occupied or die is None or item.reason != COLOUR_UNCLEAR or die.reason != COLOUR_UNCLEAR:
            return None
        near: set[str] = set()
        least: dict[str, float] = {}
        for other, lab in self.labs.items():
            have = self.values.get(other)
            if other[0] != "slot" or other[1] != key[1] or not isinstance(have, Die) or not have.colour:
                continue
            d = _lab_distance(die.lab, lab)
            least[have.colour] = min(least.get(have.colour, float("inf")), d)
            if d <= BOARD_BODY_NEAR:
                near.add(have.colour)
        if len(near) != 1:
            return None
        colour = next(iter(near))
        if colour != die.colour or any(d <= BOARD_BODY_FAR for c, d in least.items() if c != colour):
            # Only the reader's own nearest colour is confirmed so, never overruled: tuning 5803 (4 players) had a
            # maroon 4 read nearest maroon 2.9 from a body measured on an orange die of its board.
            return None
        return Die(die.value, colour)

    @staticmethod
    def _twin_under(belief: PyradiceState, key: tuple[Any, ...]) -> bool:
        """Whether a die like the one at a quarry place lies under it (seen where it was once it is gone)."""
        q = belief.quarry
        die = q.dice.get(key[1])
        return die is not None and any(q.dice.get(u) == die for u in q.geometry.supports[key[1]])

    def _mean_moved(self, patches: Mapping[tuple[Any, ...], Any]) -> set[tuple[Any, ...]]:
        """Places whose mean colour moved beyond MEAN_MOVED after the common gain (median over places)."""
        import numpy as np

        now = {k: _mean_colour(p) for k, p in patches.items() if k in self.means}
        if not now:
            return set()
        ratios = np.array([now[k] / np.maximum(self.means[k], 8.0) for k in now])
        gain = np.clip(np.median(ratios, axis=0), 0.5, 2.0) if len(now) >= 4 else np.ones(ratios.shape[1])
        return {k for k in now if float(np.abs(now[k] - gain * self.means[k]).max()) > MEAN_MOVED}

    def reset(self) -> None:
        self.gate.reset()
        self.values.clear()
        self.means.clear()
        self.labs.clear()
        self.pending.clear()
        self.quads.clear()

    def _forget_zone(self, name: str) -> None:
        keys = [k for k in self.values if _zone_of(k) == name]
        keys += [k for k in self.pending if _zone_of(k) == name]
        self.gate.reset(keys)
        for k in keys:
            self.values.pop(k, None)
            self.means.pop(k, None)
            self.labs.pop(k, None)
            self.pending.pop(k, None)

    def _accept(self, belief: Any, answered: bool, ended: int | None = None) -> None:
        """The pending patches become references where the belief now agrees with them (see the class). ``ended``:
        the seat whose turn the new belief closed (its skill step over, the players' word on it taken): its
        dice read in doubt are carried as the belief has them from then on (only that player's skill changes
        them, and that changes their picture first)."""
        now = belief_values(belief)
        for key, (patch, value, sure, lab) in self.pending.items():
            if key not in now:
                continue
            have = now[key]
            if ended is not None and (
                    (not sure and key[0] == "slot" and key[1] == ended and isinstance(have, Die))
                    or (key[0] == "quarry" and (have == "empty" or (not sure and value == have
                                                                     and not self._twin_under(belief, key))))):
                # A turn is over: the dice of its player read in doubt are carried as the game has them (only that
                # player's skill changes them, and it changes their picture first; the picture may show a later
                # turn, the table being ahead of the game, but no later turn touches that board). So are the
                # quarry's empty places (dice never come back) and its dice read in doubt as exactly the game's
                # die (never one read otherwise: the picture may show it taken already by a later turn, tuning
                # replay 5504). Read in doubt turn after turn they made later takes and skills questions.
                self._take(key, patch, have, lab if _alike_die(value, have) else None)
                continue
            changed_here = key not in self.values or self.values[key] != have
            # Read in doubt: taken when the belief changed there and agrees on whether a die is there; after the
            # players' answer also where it did not change, but only for a die read as the die it has (never an
            # "empty" read in doubt: their answer may describe less than the table shows, a die already placed).
            # An empty slot or reserve read in doubt never becomes a reference: the game may be behind the table,
            # and a later turn's die read in doubt as none there was then carried, sure, as empty (tuning replay
            # 5703: Ben's white 6 at 1,3, the game then placing the next dice a slot off). The quarry's empty
            # places may: dice never come back.
            if (sure and value == have) or (not sure and _present(value) == _present(have) and changed_here
                                            and (_present(have) or key[0] == "quarry")) or (
                    not sure and answered and _present(have) and value == have):
                self._take(key, patch, have, lab if _alike_die(value, have) else None)
        self.pending.clear()
        if self.learn_palette:
            self._learn()

    def _learn(self) -> None:
        """The reader's palette takes, for each colour with LEARN_FROM samples or more, the median body colour of
        the game's dice of that colour last measured in the pyramids (the game's colour there: a reading sure, or
        in doubt and settled by the turn's explanation or the players' answer): this camera's light, not the
        teaching's (a colour the teaching missed kept its nominal reference, some 20 levels darker than a white
        die is seen, and every white die read "colour unclear": most questions of tuning replays 5701, 5911).
        Colours with fewer keep the taught (or nominal) reference."""
        teach = getattr(self.reader, "teach", None)
        learned = [(name, lab) for name, labs in self.samples.items() if len(labs) >= LEARN_FROM for lab in labs]
        if teach is None or not learned or learned == self._learned:
            return
        self._learned = learned
        if self._taught is None:
            self._taught = self.reader.palette
        self.reader.palette = self._taught
        teach(learned)

    def read(self, image: Any, reg: Any, belief: PyradiceState | None, *, answered: bool = False) -> Any:
        import numpy as np

        for view in reg.zones:
            quad = view.quad()
            old = self.quads.get(view.zone.key)
            if old is not None and float(np.abs(quad - old).max()) > ZONE_MOVED_PX:
                self._forget_zone(view.zone.key)
            self.quads[view.zone.key] = quad
        if belief is not self.belief:
            if belief is not None:
                old = self.belief
                # A turn ended: the mover changed and the game went on (an undo goes back: fewer dice placed).
                ended = old.turn + 1 if (old is not None and old.turn != belief.turn and belief.phase is Phase.TAKE
                                         and _placed(belief) >= _placed(old)) else None
                self._accept(belief, answered, ended)
            self.belief = belief
        elif answered and belief is not None:
            self._accept(belief, True)
        now = belief_values(belief)
        before = self.reader.places(image, reg)
        # A place whose mean colour moved is changed: the gate need not try its shifts (its costly case).
        moved_mean = self._mean_moved({k: v[0] for k, v in before.items()})
        scores = self.gate.compare({k: v[0] for k, v in before.items() if k not in moved_mean})
        scores.update({k: MEAN_MOVED_SCORE for k in moved_mean})
        known = {k: now[k] for k, score in scores.items()
                 if score <= self.gate.threshold and k in now and k in self.values and self.values[k] == now[k]}
        prior: Any = None
        if belief is not None:
            q = belief.quarry
            # Where the game knows the dice, those dice; at a table set up by its players, also the dice there whose
            # face it has not seen yet (None).
            prior = dict(q.dice) if not q.unknown else {p: q.dice.get(p) for p in q.geometry.positions if q.present(p)}
        geometry = self.reader.geometry()
        reading = self.reader.read(image, reg, prior, known)
        after = before if self.reader.geometry() == geometry else self.reader.places(image, reg)
        doubt: dict[tuple[Any, ...], str] = {}
        fixed_colour: dict[tuple[Any, ...], Die] = {}
        items = dict(zip((_reading_key(p) for p in _places(reading)), _items(reading), strict=True))
        self.pending = {}
        for key, (patch, point) in after.items():
            was = before.get(key)
            moved = float(np.hypot(point[0] - was[1][0], point[1] - was[1][1])) if was is not None else 0.0
            if key in known:
                if moved > REFERENCE_LOST_PX:
                    self.gate.reset([key])
                    self.values.pop(key, None)
                    self.means.pop(key, None)
                    self.labs.pop(key, None)
                elif moved > REBASE_PX:  # the same place, cut where the refitted lattice puts it now
                    self._take(key, patch, known[key])
                continue
            item = items.get(key)
            if item is None:
                continue
            value, sure = _read_value(item)
            # The die's body as measured (none where nothing was measured: a reading carried, or the truth's).
            lab = item.die.lab if key[0] == "slot" and item.occupied and item.die is not None and any(
                item.die.lab) else None
            if not sure and key[0] == "slot" and isinstance(now.get(key), Die):
                settled = self._settled(key, item, now[key])
                if settled is not None:
                    value, sure = settled, True
                    fixed_colour[key] = settled
            if not sure and key[0] == "slot":
                known_body = self._board_colour(key, item)
                if known_body is not None:
                    value, sure = known_body, True
                    fixed_colour[key] = known_body
            # The picture changed, the place reads as the belief has it: a die turned to a look-alike face, or a
            # slot read empty that a die arrived in (the quarry's empty places change with their neighbours). Not
            # a die whose face two measures read alike, the face model all but certain and the pips counted the
            # same: the gate's score of a still die wanders about its threshold (a bright die's most of all), and
            # on the tuning replays every such doubt was a die unchanged (222 of 222, docs/pyradice-table.md),
            # read again in every picture and asked about at its owner's skill step.
            if (sure and (isinstance(value, Die) or key[0] == "slot") and key in self.values
                    and self.values[key] == now.get(key) == value and np.isfinite(scores.get(key, np.inf))
                    and not _face_read_twice(item)):
                doubt[key] = PICTURE_CHANGED
                sure = False
            elif key[0] == "slot" and value is None and isinstance(now.get(key), Die):
                # Dice never leave a pyramid: one look that finds none where the game has one (a white die on a
                # light board seen at a 4-player table's scale reads so) is a misread, never a sure "empty"; but
                # where the picture changed since the game agreed with it, a die may have been swapped (A4).
                doubt[key] = SWAPPED if key in self.values and np.isfinite(scores.get(key, np.inf)) \
                    else EMPTY_UNDER_BELIEF
                sure = False
            self.pending[key] = (patch, value, sure, lab)
        self.carried, self.read_places = len(known), len(after) - len(known)
        if fixed_colour:
            reading = _colour_kept(reading, {k: v for k, v in fixed_colour.items() if k not in doubt})
        return _in_doubt(reading, doubt) if doubt else reading


#: The reader's reasons (vision.pyradice_read, not imported: device imports vision lazily): a die read in doubt
#: for its colour alone (its face sure); a slot where whether a die is there is in doubt; a die read sure by the
#: face model alone (no detector find near it, no pips counted).
COLOUR_UNCLEAR = "colour unclear"
OCCUPANCY_UNCLEAR = "cannot tell whether a die is there"
NO_MEASURE = "found by no measure but the face model"


#: A face model's confidence above which a face the pip count agrees with is read twice (see ChangeWatch.read).
FACE_READ_TWICE = 0.99


def _face_read_twice(item: Any) -> bool:
    """Whether a die's face was read alike by the face model, all but certain, and by the pips counted."""
    die = getattr(item, "die", None)
    return die is not None and die.face_confidence >= FACE_READ_TWICE and die.pips == die.value


def _alike_die(read: Any, have: Any) -> bool:
    """Whether a die read is the game's die there in face (its colour may have been read in doubt)."""
    return isinstance(read, Die) and isinstance(have, Die) and read.value == have.value


def _lab_distance(a: Any, b: Any) -> float:
    if a is None or b is None:
        return float("inf")
    return float(sum((float(x) - float(y)) ** 2 for x, y in zip(a, b, strict=True)) ** 0.5)


def _colour_kept(reading: Any, keys: Mapping[tuple[Any, ...], Die]) -> Any:
    """The reading with the slots ``keys`` read sure as the die given (its colour the game's, kept)."""
    def kept(seat: int, s: Any) -> Any:
        die = keys.get(("slot", seat, s.slot))
        if die is None or s.die is None:
            return s
        return replace(s, unsure=False, reason="", die=replace(s.die, colour=die.colour, unsure=False, reason=""))

    boards = tuple(replace(b, slots=tuple(kept(b.seat, s) for s in b.slots)) for b in reading.boards)
    return replace(reading, boards=boards)


def _placed(state: PyradiceState) -> int:
    return sum(len(p.pyramid) for p in state.players)


def _zone_of(key: tuple[Any, ...]) -> str:
    return "quarry" if key[0] == "quarry" else f"board-{key[1]}" if key[0] == "slot" else f"reserve-{key[1]}"


def _reading_key(p: _Place) -> tuple[Any, ...]:
    if p.kind == "slot":
        return ("slot", p.seat, p.slot)
    if p.kind == "quarry":
        return ("quarry", p.position)
    return ("reserve", p.seat)


def _in_doubt(reading: Any, keys: Mapping[tuple[Any, ...], str]) -> Any:
    """The reading with the places ``keys`` made unsure, each with its reason."""
    boards = tuple(replace(b, slots=tuple(replace(s, unsure=True, reason=keys[("slot", b.seat, s.slot)])
                                          if ("slot", b.seat, s.slot) in keys else s for s in b.slots))
                   for b in reading.boards)
    quarry = replace(reading.quarry, positions=tuple(
        replace(p, unsure=True, reason=keys[("quarry", p.position)]) if ("quarry", p.position) in keys else p
        for p in reading.quarry.positions))
    reserves = tuple(replace(r, unsure=True, reason=keys[("reserve", r.seat)]) if ("reserve", r.seat) in keys else r
                     for r in reading.reserves)
    return replace(reading, boards=boards, quarry=quarry, reserves=reserves)


def reading_from_truth(truth: Mapping[str, Any], players: int) -> Any:
    """What a perfect reader makes of a recorded frame's truth (``--reader truth``): every slot, quarry top
    and reserve read sure, a covered quarry die present with no value, whatever a hand hides in doubt."""
    from engine.pyradice.quarry import boxes_for, geometry
    from vision.pyradice_read import (
        COVERED,
        EMPTY,
        PRESENT,
        BoardReading,
        DieRead,
        PositionReading,
        PyradiceReading,
        QuarryReading,
        ReserveReading,
        SlotReading,
    )

    def read(text: str | None) -> Any:
        if text is None:
            return None
        die = Die.parse(text)
        return DieRead(die.value, die.colour or "", 1.0, 1.0, (0.0, 0.0, 0.0), False)

    hidden = truth.get("hidden") or {}
    hidden_slots = set(hidden.get("slots") or ())
    hidden_positions = set(hidden.get("positions") or ())
    hidden_reserves = {int(x) for x in hidden.get("reserves") or ()}
    boards = []
    for seat in range(1, players + 1):
        dice = (truth.get("boards") or {}).get(str(seat)) or {}
        slots = []
        for s in pyr.SLOTS:
            text = slot_text(s)
            doubt = f"{seat}:{text}" in hidden_slots
            slots.append(SlotReading(s, text in dice, 1.0 if text in dice else 0.0, read(dice.get(text)), doubt,
                                     "under a hand" if doubt else "", (0.0, 0.0)))
        boards.append(BoardReading(seat, tuple(slots)))
    quarry = truth.get("quarry") or {}
    covered = set(truth.get("covered") or ())
    positions = []
    for pos in geometry(boxes_for(players)).positions:
        text = position_text(pos)
        state = EMPTY if text not in quarry else COVERED if text in covered else PRESENT
        doubt = text in hidden_positions
        positions.append(PositionReading(pos, state, 0.0 if state == EMPTY else 1.0,
                                         read(quarry[text]) if state == PRESENT else None, doubt,
                                         "under a hand" if doubt else "", (0.0, 0.0)))
    reserves = []
    for seat in range(1, players + 1):
        held = (truth.get("reserves") or {}).get(str(seat))
        doubt = seat in hidden_reserves
        reserves.append(ReserveReading(seat, held is not None, read(held), doubt, True,
                                       "under a hand" if doubt else ""))
    return PyradiceReading(players, tuple(boards), QuarryReading(tuple(positions)), tuple(reserves))


def _as_read_agrees(game: Any, state: PyradiceState, actions: Sequence[Any], seen: Observation) -> bool:
    """Whether the mover's doubtful slots, taken as read, agree with the pyramid after ``actions``. A slot read
    empty in doubt where the game has a die, in a turn with no skill, says nothing either way: dice never leave a
    pyramid and no take or placement empties one (a white die on a light board under blur reads so in picture
    after picture: tuning replay 5804, Anna's 1,5, asked about at each of her next turns)."""
    end = state
    for a in actions:
        end = game.apply(end, a)
    mine = end.players[state.turn].pyramid
    before = state.mover.pyramid
    skill = any(isinstance(a, Skill) for a in actions) or state.phase is Phase.SKILL
    return all(alike(mine.get(slot), seen.as_read.get(slot)) or (
        not skill and seen.as_read.get(slot) is None and slot in before and slot in mine) for slot in seen.unsure_slots)


def _in_doubt_anywhere(reading: Any, seat: int) -> bool:
    """Whether anything of ``seat``'s board, its reserve or the quarry is read in doubt."""
    board = reading.board(seat)
    reserve = reading.reserve(seat)
    return (board is not None and any(s.unsure for s in board.slots)) or any(
        p.unsure for p in reading.quarry.positions) or (reserve is not None and reserve.unsure)


#: What the page says while a die taken shows only on readings in doubt (nothing is taken on them).
IN_HAND_WAIT = "the die taken is seen only in doubt; the camera reads it when it lies in its slot"


def _open_slot_in_doubt(state: PyradiceState, reading: Any) -> bool:
    """Whether the mover's board reads in doubt at a slot where the game has no die (their die may lie there)."""
    board = reading.board(state.turn + 1)
    pyramid = state.mover.pyramid
    return board is not None and any(s.unsure and s.slot not in pyramid for s in board.slots)


def _sure_differences(state: PyradiceState, reading: Any) -> Iterator[tuple[int, Slot, Die | None, Die | None]]:
    """Every slot of a board seen that ``reading`` reads sure and otherwise than the game: (seat, slot, the die
    read or None, the game's die or None)."""
    for board in reading.boards:
        if not board.seen or board.seat > len(state.players):
            continue
        pyramid = state.players[board.seat - 1].pyramid
        for s in board.slots:
            read = s.die.die if s.occupied and s.die is not None else None
            if not s.unsure and read != pyramid.get(s.slot):
                yield board.seat, s.slot, read, pyramid.get(s.slot)


def _sure_news(state: PyradiceState, reading: Any, overrode: Callable[[int, Slot, Die | None], bool]) -> bool:
    """Whether ``reading`` shows, read sure, anything the game does not have: a slot of any board (not a reading
    the players overrode), a quarry position's die gone or there, or a reserve."""
    if any(not overrode(seat, slot, read) for seat, slot, read, _ in _sure_differences(state, reading)):
        return True
    q = state.quarry
    if reading.quarry.seen and any(not p.unsure and p.present != q.present(p.position)
                                   for p in reading.quarry.positions):
        return True
    return any(r.seen and not r.unsure and r.occupied != (state.players[r.seat - 1].reserve is not None)
               for r in reading.reserves if r.seat <= len(state.players))


def _later_turns(pyramid: Mapping[Slot, Die], added: Mapping[Slot, Die | None]) -> bool:
    """Whether ``added`` (another player's board as read, where it differs from the game) is only dice put on
    empty slots where they may go (a later turn already played), not a die gone or changed (bumped)."""
    if not added or any(d is None or s in pyramid for s, d in added.items()):
        return False
    grown = {**pyramid, **added}
    return not pyr.defects(grown, "")


def _quarry_news(state: PyradiceState, quarry: Mapping[Position, Die | None]) -> set[Position]:
    """The quarry positions read otherwise than the game has them: a die gone, a die where none was, another
    top, or a top seen where the game has it covered or unknown."""
    q = state.quarry
    out = set()
    for pos in q.geometry.positions:
        seen = quarry.get(pos)
        if q.present(pos) != (pos in quarry) or (seen is not None and (q.covered(pos) or q.dice.get(pos) != seen)):
            out.add(pos)
    return out


def _take_of(actions: Sequence[Any]) -> Any:
    """A turn's take (the position, or the reserve) and the die it took: what readings in doubt never decide."""
    return next((a for a in actions if isinstance(a, (Take, UseReserve))), None)


def _take_seen(action: Take | UseReserve, seen: Observation) -> bool:
    """Whether a take (or the reserve's use) that leaves the die in hand rests on readings not in doubt: the
    quarry position seen empty, or the reserve spot seen bare."""
    if isinstance(action, Take):
        return seen.quarry is not None and action.position not in seen.quarry_unsure
    return seen.reserve_seen and seen.reserve is None


def _doubt_differs(state: PyradiceState, reading: Any, seen: Observation) -> bool:
    """Whether a reading in doubt (of the mover's board, reserve or the quarry) could be news: a die where the game
    has none or another die than it has, a quarry die gone, a reserve die put down or used, or a place in doubt
    because its picture changed although it reads as the game has it (a die turned to a face misread as the old
    one would look so). Between turns a slot read empty under a die the game has, or a quarry die where the game
    has none, is no news: dice never leave a pyramid nor come back to the quarry; at the skill step every slot
    read in doubt otherwise than the game is (a swap read empty so was recorded as "no skill" when it was not)."""
    board = reading.board(state.turn + 1)
    mine = state.mover.pyramid
    skill_step = state.phase is Phase.SKILL
    # The die taken is in hand: a slot it may go to, read in doubt, may hold it already. Left to a later still
    # table, a placement read in doubt waits for ever when the table does not change again (tuning 5802, 3
    # players: Cleo's apex, the game's last placement, read "cannot tell whether a die is there" after the take
    # was answered; the game never ended).
    open_slots = set(pyr.legal_slots(mine)) if state.phase is Phase.PLACE and state.hand is not None else set()
    if board is not None:
        for s in board.slots:
            if s.slot in seen.unsure_slots:
                if s.reason == PICTURE_CHANGED or (skill_step and s.reason == SWAPPED) or s.slot in open_slots:
                    return True
                # Between turns only a die read where the game has none, or another die than it has, can be news:
                # dice never leave a pyramid, so a slot read empty in doubt where the game has a die is a misread.
                # At the skill step dice change by hand, and one read empty in doubt may be one a skill changed.
                read = s.die.die if s.occupied and s.die is not None else None
                if (read is not None or skill_step) and read != mine.get(s.slot):
                    return True
    r = reading.reserve(state.turn + 1)
    if r is not None and r.seen and r.unsure and not seen.reserve_seen:
        read = r.die.die if r.occupied and r.die is not None else None
        if (read is None) != (state.mover.reserve is None):  # a die on the reserve spot, or gone from it (B3)
            return True
    q = state.quarry
    for p in reading.quarry.positions:
        if p.position in seen.quarry_unsure:
            # Dice never come back to the quarry (a swap leaves a die where one was): only one gone is news.
            if q.present(p.position) and not p.present:
                return True
            if p.state != "covered" and p.die is not None and p.position in q.dice and p.die.die != q.dice[p.position]:
                return True
    return False


def _die_key(d: Any) -> Any:
    return None if d is None else (d.value, d.colour, d.unsure)


def _summary(reading: Any) -> Any:
    """What two still frames must read alike: every slot, position and reserve (confidences aside)."""
    if not hasattr(reading, "boards"):
        return reading
    return (
        tuple((b.seat, tuple((s.occupied, s.unsure, _die_key(s.die)) for s in b.slots)) for b in reading.boards),
        tuple((p.state, p.unsure, _die_key(p.die)) for p in reading.quarry.positions),
        tuple((r.occupied, r.unsure, r.seen, _die_key(r.die)) for r in reading.reserves),
    )


def pyradice_view(game: Any, state: PyradiceState, proposal: Proposal | None = None) -> dict[str, Any]:
    """The Pyradice page's data: the quarry by layer (available dice marked), each pyramid with its objective
    token per level (met / possible / impossible) and skill per level, the die in hand and its legal slots, the
    skill step's options (and a skill seen that waits for CONFIRM), the cards with each player's points, the
    live totals and, at the end, the winners (most points, then most objective tokens met)."""
    from engine.pyradice.cards import find_card
    from engine.pyradice.objectives import TOKEN_TEXT

    q = state.quarry
    geo = q.geometry
    available = set(q.available())
    quarry = [{"position": position_text(p), "layer": p[0], "row": p[1], "col": p[2],
               "die": str(q.dice[p]) if p in q.dice else None, "known": p in q.dice,
               "available": p in available, "covered": q.covered(p)}
              for p in geo.positions if q.present(p)]
    score = game.score(state).players
    players = []
    for seat, player in enumerate(state.players):
        results = level_results(state, player)
        view = dice_view(player.pyramid)
        levels = []
        for k in pyr.LEVELS:
            token = state.board.objective_on(k)
            skill = state.board.skill_on(k)
            levels.append({"level": k, "objective": token, "objective_text": TOKEN_TEXT.get(token or "", ""),
                           "result": results.get(k), "skill": skill, "skill_text": SKILL_TEXT.get(skill or "", "")})
        players.append({
            "name": player.name, "seat": seat + 1,
            "to_move": seat == state.turn and state.phase not in (Phase.ROLL_OFF, Phase.OVER),
            "pyramid": {slot_text(s): str(d) for s, d in sorted(player.pyramid.items())},
            "reserve": None if player.reserve is None else str(player.reserve),
            "levels": levels,
            "cards": {c.title: find_card(c.title).score(view, c.colour) for c in state.cards},
            "tokens_met": sum(r == "met" for r in results.values()),
            "total": score[player.name].total,
        })
    legal_slots: list[str] = []
    if state.phase in (Phase.TAKE, Phase.PLACE):
        legal_slots = [slot_text(s) for s in game.legal_slots(state)]
    skill_step = None
    if state.phase is Phase.SKILL and state.placed is not None:
        uses = [a for a in game.legal_actions(state) if isinstance(a, Skill)]
        seen = proposal[1][0] if proposal is not None and proposal[0] == state else None
        skill_step = {"level": state.placed[0], "codes": list(usable_codes(state.board.skills, state.placed[0])),
                      "uses": len(uses), "examples": [describe_use(u) for u in uses[:6]],
                      "seen": None if seen is None else {"action": str(seen), "words": describe_use(seen),
                                                         "why": list(proposal[2]) if proposal else []}}
    status = game.status(state)
    return {
        "kind": "pyradice",
        "layers": [list(dims) for dims in _layouts(q.boxes)],
        "quarry": quarry,
        "available": sorted(position_text(p) for p in available),
        "unknown": len(q.unknown),
        "players": players,
        "hand": None if state.hand is None else str(state.hand),
        "legal_slots": legal_slots,
        "placed": None if state.placed is None else slot_text(state.placed),
        "skill_step": skill_step,
        "cards": [{"title": c.title, "colour": c.colour, "text": find_card(c.title).text} for c in state.cards],
        "winners": list(status.winners) if status.finished else [],
    }


def _layouts(boxes: int) -> tuple[tuple[int, int], ...]:
    from engine.pyradice.quarry import LAYOUTS

    return LAYOUTS[boxes]


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


ADAPTER = PyradiceTable
