"""The Pyradice game: setup, turn order, legality, scoring and status, registered as ``"pyradice"``.

Turn steps (RULES.md 1.5) are separate actions: TAKE (a quarry die or the reserve) -> PLACE -> SKILL
(only after placing on level 2..6 when the level's skill has a legal use; ``Pass`` declines it). Turns
go round in seat order from the first player; the game ends when every pyramid holds 21 dice.

States read from JSON or the camera may be impossible (a die floating over an empty slot, too many
dice of a colour, a turn out of step); :meth:`PyradiceGame.status` lists such defects instead of
raising, and :meth:`PyradiceGame.apply` refuses to play on from a defective state. States reached by
``apply`` from a valid state are valid by construction, so their check is skipped (cached on the object).
"""

from __future__ import annotations

import bisect
import itertools
import random
from collections import Counter
from collections.abc import Callable, Mapping, Sequence
from typing import Any

from engine.advice import Advice
from engine.dice import Die
from engine.errors import IllegalActionError, InvalidActionError, InvalidStateError, legal_hint
from engine.game import ChancePrompt, Game, LegalAction, PlayerScore, RuleOption, Score, Status, instance, register
from engine.pyradice import pyramid as pyr
from engine.pyradice import words
from engine.pyradice.cards import CARDS, find_card
from engine.pyradice.objectives import TOKEN_POINTS, TOKENS, objective_met, outlook
from engine.pyradice.quarry import (
    COLOURS,
    DICE_PER_COLOUR,
    Position,
    Quarry,
    boxes_for,
    position_text,
    shared_die,
)
from engine.pyradice.skills import SKILLS, apply_use, legal_uses, usable_codes
from engine.pyradice.state import (
    PASS,
    PLACES,
    TAKES,
    USE_RESERVE,
    Action,
    Board,
    Card,
    Pass,
    Phase,
    Place,
    PlayerState,
    PyradiceState,
    Reveal,
    Roll,
    RollOff,
    Skill,
    Take,
    UseReserve,
    place,
    take,
)
from engine.pyradice.tablesetup import (
    SETUP_EXAMPLE,
    SETUP_RANDOM,
    SETUP_TABLE,
    is_table_setup,
    parse_setup,
    unseen_quarry,
)

# Enum member look-ups are slow in the hot loop; plain module constants are not.
_ROLL_OFF, _TAKE, _PLACE, _SKILL, _ROLL, _OVER = (
    Phase.ROLL_OFF, Phase.TAKE, Phase.PLACE, Phase.SKILL, Phase.ROLL, Phase.OVER
)

_PHASE_TEXT = {p: p.value for p in Phase}

OPTIONS: tuple[RuleOption, ...] = (
    RuleOption(
        "peak",
        ("unimodal", "palindrome"),
        "unimodal",
        "Objective D3 'peak' (PY9): 'unimodal' = values rise then fall (1 4 5 5 4 1, 2 2, also 1 2 3); "
        "'palindrome' also requires the level to read the same from both ends.",
    ),
    RuleOption(
        "first_tie",
        ("reroll_tied", "reroll_all"),
        "reroll_tied",
        "First-player roll ties (PY15): 'reroll_tied' = only the tied highest players roll again; "
        "'reroll_all' = everybody rolls again.",
    ),    RuleOption(
        "setup",
        (SETUP_RANDOM, SETUP_TABLE),
        SETUP_RANDOM,
        "How the game is set up. 'random': the device draws the board's tokens, the cards' discs and the quarry "
        "(the demo, a game entered by hand). 'table': as the players set up the real table, the quarry read by the "
        "camera; type what the board and the cards show (a skill token for each of levels 2-6, the objective "
        f"tokens of levels 1-5 in order, each card's title and its disc's colour), e.g. {SETUP_EXAMPLE}.",
        text=SETUP_EXAMPLE,
    ),
)


def _defects(state: PyradiceState) -> tuple[str, ...]:
    """The state's defects, computed once per state object (states made by ``apply`` are marked valid)."""
    found: tuple[str, ...] | None = state.__dict__.get("_defects")
    if found is None:
        found = tuple(_GAME.defects(state))
        state.__dict__["_defects"] = found
    return found


#: Statuses of valid running games by (mover, phase text): shared objects (Status is frozen), since
#: ``status`` is asked before every step of every game and only the mover and the phase vary. Keyed
#: by the phase's text because hashing an Enum member runs Python code.
_RUNNING: dict[tuple[str | None, str], Status] = {}


def _running(to_move: str | None, phase: Phase) -> Status:
    awaiting = "chance" if phase is _ROLL_OFF or phase is _ROLL else "decision"
    status = Status(to_move, phase.value, awaiting, False, (), ())
    if len(_RUNNING) < 1024:  # bounded: player names come from outside
        _RUNNING[(to_move, phase.value)] = status
    return status


def setup(
    players: Sequence[str],
    *,
    quarry: Quarry,
    board: Board,
    cards: Sequence[Card],
    first: str | None = None,
    options: Mapping[str, str] | None = None,
) -> PyradiceState:
    """A game set up as on the table (what the camera saw): if ``first`` is None the roll-off comes first."""
    game = PyradiceGame()
    names = game.check_players(players)
    opts = game.resolve_options(options)
    plist = tuple(PlayerState(n) for n in names)
    if first is None:
        seats = tuple(range(len(names)))
        state = PyradiceState(plist, quarry, board, tuple(cards), opts, _ROLL_OFF, rolling=seats)
    else:
        if first not in names:
            raise InvalidActionError(f"first player {first!r} is not one of {list(names)}")
        seat = names.index(first)
        state = PyradiceState(plist, quarry, board, tuple(cards), opts, _TAKE, turn=seat, first=seat)
    return game.check_state(state)


def random_board(rng: random.Random) -> Board:
    """Setup step 2 at random: a side for each skill token, 5 of the 7 objective numbers, sides and order."""
    skills = tuple(rng.choice("AB") + str(n) for n in range(2, 7))
    numbers = rng.sample(range(1, 8), 5)
    return Board(skills, tuple(rng.choice("CD") + str(n) for n in numbers))


def random_cards(rng: random.Random) -> tuple[Card, ...]:
    """Setup step 3 at random: 4 different known cards, one disc colour each."""
    titles = rng.sample(sorted(c.title for c in CARDS.values()), 4)
    colours = rng.sample(COLOURS, 4)
    return tuple(Card(t, c) for t, c in zip(titles, colours, strict=True))


def dice_view(pyramid: Mapping[pyr.Slot, Die]) -> dict[pyr.Slot, tuple[str, int]]:
    """A pyramid as ``card_score`` takes it: slot -> (colour, value)."""
    return {s: (d.colour or "", d.value) for s, d in pyramid.items()}


def level_results(state: PyradiceState, player: PlayerState) -> dict[int, str]:
    """For each level 1..5: "met", "possible" (could still be met with the placed dice as they are) or
    "impossible"."""
    peak = state.options.get("peak", "unimodal")
    return {
        k: outlook(state.board.objectives[k - 1], pyr.level_values(player.pyramid, k), peak=peak) for k in range(1, 6)
    }


def tokens_met(state: PyradiceState, player: PlayerState) -> int:
    return sum(r == "met" for r in level_results(state, player).values())


@register
class PyradiceGame(Game[PyradiceState, Action]):
    """Pyradice for 2 to 4 players.

    Action groups for the page (:meth:`describe`): ``take`` (a quarry die), ``reserve`` (use the reserve
    die), ``place``, ``skill``, ``pass`` (no skill) and ``chance`` (the roll-off, an A2 re-roll).
    """

    name = "pyradice"
    title = "Pyradice"
    min_players = 2
    max_players = 4
    options = OPTIONS
    state_type = PyradiceState
    action_type = Action
    action_groups = words.GROUPS
    action_grammar = (
        "take qL,R,C               take the quarry die at layer L, row R, column C",
        "reserve                   take the die held in reserve (skill B3) instead",
        "place L,I                 put the die in hand on level L, slot I (from 0 at the owner's left)",
        "SKILL [L,I] [L,I] [qL,R,C] [=V]   use the skill of the level just placed on, e.g. A4 1,0 q2,0,1, "
        "A5 1,0 2,1, B4 1,0 =3, A2 1,2 =5",
        "pass                      use no skill this turn",
        "roll V                    chance: the value of the die re-rolled by skill A2",
        "roll-off V V ...          chance: the first-player roll, one face per player rolling, in seat order",
    )

    # --- setup --------------------------------------------------------------------------------
    def resolve_options(self, given: Mapping[str, str] | None = None) -> dict[str, str]:
        """As every game's, and ``setup`` may also be a real table's words (:mod:`engine.pyradice.tablesetup`):
        every problem of what they describe is named."""
        given = dict(given or {})
        value = given.get("setup", SETUP_RANDOM)
        if value == SETUP_RANDOM:
            return super().resolve_options(given)
        board, cards = parse_setup(value)
        problems = _board_defects(board) + _card_defects(cards)
        if problems:
            raise InvalidActionError(f"setup {value.strip()!r}: {'; '.join(problems)}")
        return {**super().resolve_options({k: v for k, v in given.items() if k != "setup"}), "setup": value.strip()}

    def initial_state(
        self, players: Sequence[str], options: Mapping[str, str] | None = None, *, seed: int | None = None
    ) -> PyradiceState:
        """A random setup from ``seed`` (None means seed 0): quarry, board tokens, cards and discs; or, with a
        table's ``setup`` words, that board and those cards and a quarry whose dice the camera has not seen yet
        (``seed`` unused). The first-player roll-off is the first (chance) step."""
        names = self.check_players(players)
        words = (options or {}).get("setup", SETUP_RANDOM)
        if is_table_setup(words):
            # A real table: what the players typed, and a quarry the camera has not looked at yet (setup() checks
            # every option).
            board, cards = parse_setup(words)
            return setup(names, quarry=unseen_quarry(len(names)), board=board, cards=cards, options=options)
        rng = random.Random(0 if seed is None else seed)
        quarry = Quarry.random(len(names), rng)
        return setup(names, quarry=quarry, board=random_board(rng), cards=random_cards(rng), options=options)

    # --- legality -----------------------------------------------------------------------------
    def legal_actions(self, state: PyradiceState) -> list[Action]:
        defects = state.__dict__.get("_defects")  # inline of _defects(): this runs before every decision
        if defects is None:
            defects = _defects(state)
        if defects:
            return []
        phase = state.phase
        if phase is _TAKE:
            quarry = state.quarry
            # all positions interned; a die not seen yet (camera set-up) cannot be taken
            out: list[Action] = list(map(TAKES.__getitem__, quarry.known_available() if quarry.unknown
                                         else quarry.available()))
            if state.players[state.turn].reserve is not None:
                out.append(USE_RESERVE)
            return out
        if phase is _PLACE:
            return list(map(PLACES.__getitem__, _open_slots(state.players[state.turn])))
        if phase is _SKILL:
            return [*self._skill_uses(state), PASS]
        return []

    def _skill_uses(self, state: PyradiceState) -> list[Skill]:
        placed = state.placed
        assert placed is not None
        me = state.players[state.turn]
        uses: list[Skill] = []
        filled = _filled_slots(me)
        for code in usable_codes(state.board.skills, placed[0]):
            uses.extend(legal_uses(code, me.pyramid, placed, me.reserve, state.quarry, filled))
        return uses

    def _has_skill_use(self, state: PyradiceState, level: int, reserve: Die | None) -> bool:
        # Cheaper than listing: every skill but B3 has targets (a die on level >= 2 has two dice under it),
        # and the quarry never runs out of available dice (RULES.md 1.2 invariant, PY8 supply).
        for code in usable_codes(state.board.skills, level):
            if code != "B3" or (reserve is None and (state.quarry.known_available() if state.quarry.unknown
                                                      else state.quarry._available_mask)):
                return True
        return False

    def legal_slots(self, state: PyradiceState) -> list[pyr.Slot]:
        """Where the die in hand (or, before taking, a die) may go in the mover's pyramid."""
        return list(_open_slots(state.mover))

    # --- applying actions ---------------------------------------------------------------------
    def apply(self, state: PyradiceState, action: Action) -> PyradiceState:
        defects = state.__dict__.get("_defects")
        if defects is None:
            defects = _defects(state)
        if defects:
            raise InvalidStateError(f"cannot play on from an inconsistent state: {'; '.join(defects)}")
        phase = state.phase
        if phase is _OVER:
            raise IllegalActionError(f"{action} is not possible: the game is over")
        # One dictionary look-up instead of a chain of isinstance tests (this runs for every step);
        # subclasses of the action types fall back to the isinstance test.
        step = _STEPS.get(type(action))
        if step is None:
            step = next((s for kind, s in _STEPS.items() if isinstance(action, kind)), None)
        if (phase is _ROLL_OFF or phase is _ROLL) and step not in _CHANCE_STEPS:
            raise IllegalActionError(f"{action} is not possible: a {phase.value} is awaited")
        if step is None:
            raise InvalidActionError(f"{action!r} is not a Pyradice action")
        return step(self, state, action)

    def _with(self, state: PyradiceState, changes: dict[str, object]) -> PyradiceState:
        # The hot path of every action: copy the fields without re-running the frozen __init__. Only
        # ``apply`` calls this, on a valid state and with changes the rules allow, so the new state is
        # valid by construction and is marked so (its defect check is never run).
        fields = state.__dict__.copy()
        fields.update(changes)
        fields["_defects"] = ()
        new = object.__new__(PyradiceState)
        object.__setattr__(new, "__dict__", fields)  # a whole new __dict__ is cheaper than filling one
        return new

    def _roll_off(self, state: PyradiceState, action: RollOff) -> PyradiceState:
        if state.phase is not _ROLL_OFF:
            raise IllegalActionError(f"{action} is not possible: the first player is already known")
        values = tuple(action.values)
        if len(values) != len(state.rolling):
            names = [state.players[i].name for i in state.rolling]
            raise InvalidActionError(f"{action}: expected one roll for each of {names}, got {len(values)}")
        for v in values:
            if isinstance(v, bool) or not isinstance(v, int) or not 1 <= v <= 6:
                raise InvalidActionError(f"{action}: {v!r} is not a face 1..6")
        top = max(values)
        best = tuple(seat for seat, v in zip(state.rolling, values, strict=True) if v == top)
        if len(best) == 1:
            return self._with(state, {"phase": _TAKE, "turn": best[0], "first": best[0], "rolling": ()})
        again = best if state.options.get("first_tie", "reroll_tied") == "reroll_tied" else state.rolling
        return self._with(state, {"rolling": again})

    def _take(self, state: PyradiceState, action: Take | UseReserve) -> PyradiceState:
        if state.phase is not _TAKE:
            raise IllegalActionError(f"{action} is not possible now: {state.mover.name} must {state.phase.value}")
        me = state.players[state.turn]
        if isinstance(action, UseReserve):
            if me.reserve is None:
                raise IllegalActionError(f"{me.name} has no reserve die to use")
            player = _player(me.name, me.pyramid, None, _open_slots(me), _filled_slots(me))
            players = _replace_player(state.players, state.turn, player)
            return self._with(state, {"players": players, "phase": _PLACE, "hand": me.reserve})
        pos = action.position
        die = state.quarry.dice.get(pos)
        try:
            quarry = state.quarry.remove(pos)
        except IllegalActionError as exc:
            raise IllegalActionError(
                f"{exc}; {legal_hint(take(p) for p in state.quarry.available())}"
            ) from None
        return self._with(state, {"quarry": quarry, "phase": _PLACE, "hand": die})

    def _place(self, state: PyradiceState, action: Place) -> PyradiceState:
        if state.phase is not _PLACE:
            raise IllegalActionError(f"{action} is not possible now: {state.mover.name} must {state.phase.value}")
        me = state.players[state.turn]
        slot = action.slot
        open_slots = _open_slots(me)
        if slot not in open_slots:
            problem = pyr.slot_problem(me.pyramid, slot)
            hint = legal_hint(place(s) for s in open_slots)
            raise IllegalActionError(f"cannot place {state.hand} on {slot!r}: {problem}; {hint}")
        assert state.hand is not None
        pyramid = dict(me.pyramid)
        pyramid[slot] = state.hand
        # The open slots change only here: the slot is filled, and the slots resting on it open when
        # their other support is filled too. Tuples sort as (level, index), which is the SLOTS order.
        now_open = list(open_slots)
        now_open.remove(slot)
        for above in pyr.RESTING_ON[slot]:
            left, right = pyr.SUPPORTS[above]
            if left in pyramid and right in pyramid:
                now_open.append(above)
                now_open.sort()
        filled = _filled_slots(me)
        at = bisect.bisect(filled, slot)  # tuples order as SLOTS do
        player = _player(me.name, pyramid, me.reserve, tuple(now_open), (*filled[:at], slot, *filled[at:]))
        players = _replace_player(state.players, state.turn, player)
        if slot[0] >= 2 and self._has_skill_use(state, slot[0], me.reserve):
            return self._with(state, {"players": players, "phase": _SKILL, "hand": None, "placed": slot})
        return self._end_turn(state, {"players": players, "hand": None})

    def _skill(self, state: PyradiceState, action: Skill | Pass) -> PyradiceState:
        if state.phase is not _SKILL:
            raise IllegalActionError(f"{action} is not possible now: {state.mover.name} must {state.phase.value}")
        if isinstance(action, Pass):
            return self._end_turn(state, {})
        placed = state.placed
        assert placed is not None
        codes = usable_codes(state.board.skills, placed[0])
        if action.code not in SKILLS:
            raise InvalidActionError(f"skill {action.code!r} is not one of {', '.join(SKILLS)}")
        if action.code not in codes:
            raise IllegalActionError(
                f"skill {action.code} is not usable: the die went to level {placed[0]}, whose skill allows "
                f"{' or '.join(codes)}"
            )
        me = state.players[state.turn]
        effect = apply_use(action, me.pyramid, placed, me.reserve, state.quarry)
        player = _player(me.name, effect.pyramid, effect.reserve, _open_slots(me), _filled_slots(me))  # same shape
        players = _replace_player(state.players, state.turn, player)
        if effect.pending is not None:
            changes = {"players": players, "quarry": effect.quarry, "phase": _ROLL, "pending": effect.pending}
            return self._with(state, changes)
        return self._end_turn(state, {"players": players, "quarry": effect.quarry})

    def _reveal(self, state: PyradiceState, action: Reveal) -> PyradiceState:
        """A quarry die seen for the first time: its value enters the game (chance observed, not a step)."""
        die = action.die
        if not isinstance(die, Die) or die.colour not in COLOURS:
            raise InvalidActionError(f"{action}: a quarry die is one of {', '.join(COLOURS)} with a face 1..6")
        quarry = state.quarry.reveal(action.position, die)
        limit = DICE_PER_COLOUR * state.quarry.boxes
        if _colour_count(state, die.colour) + 1 > limit:
            raise IllegalActionError(f"{action}: that would be {_colour_count(state, die.colour) + 1} {die.colour} "
                                     f"dice on the table; the box{'es have' if limit > 12 else ' has'} {limit}")
        return self._with(state, {"quarry": quarry})

    def reveals_needed(self, state: PyradiceState) -> list[Position]:
        """Quarry dice whose top is uncovered but whose value the game does not know yet (a camera table)."""
        return state.quarry.to_reveal() if state.quarry.unknown else []

    def _roll(self, state: PyradiceState, action: Roll) -> PyradiceState:
        if state.phase is not _ROLL:
            raise IllegalActionError(f"{action} is not possible: no re-roll is awaited")
        v = action.value
        if isinstance(v, bool) or not isinstance(v, int) or not 1 <= v <= 6:
            raise InvalidActionError(f"{action}: {v!r} is not a face 1..6")
        me = state.players[state.turn]
        assert state.pending is not None
        pyramid = dict(me.pyramid)
        pyramid[state.pending] = shared_die(v, pyramid[state.pending].colour)
        player = _player(me.name, pyramid, me.reserve, _open_slots(me), _filled_slots(me))  # same shape
        players = _replace_player(state.players, state.turn, player)
        return self._end_turn(state, {"players": players})

    def _end_turn(self, state: PyradiceState, changes: dict[str, object]) -> PyradiceState:
        """``state`` with ``changes`` (the turn's last step) and the turn passed on: one new state.

        Changes go as a dict rather than keyword arguments: this runs at the end of every turn, and a
        dict literal is cheaper than packing keywords twice."""
        players = changes.get("players", state.players)
        assert isinstance(players, tuple)
        n = len(players)
        nxt = (state.turn + 1) % n
        if nxt == state.first and len(players[state.turn].pyramid) >= pyr.FULL:
            changes.update(phase=_OVER, placed=None, pending=None)
        else:
            changes.update(phase=_TAKE, turn=nxt, placed=None, pending=None)
        return self._with(state, changes)

    # --- chance -------------------------------------------------------------------------------
    def random_chance(self, state: PyradiceState, rng: random.Random) -> Action:
        if state.phase is _ROLL_OFF:
            return RollOff(tuple(rng.randint(1, 6) for _ in state.rolling))
        if state.phase is _ROLL:
            return Roll(rng.randint(1, 6))
        raise IllegalActionError(f"no chance is awaited in phase {state.phase.value}")

    # --- scoring ------------------------------------------------------------------------------
    def player_score(self, state: PyradiceState, player: PlayerState) -> PlayerScore:
        """Objective tokens (5 VP each, complete levels only) and the four cards, with a breakdown."""
        breakdown: dict[str, int] = {}
        peak = state.options.get("peak", "unimodal")
        for k in range(1, 6):
            token = state.board.objectives[k - 1]
            values = pyr.level_values(player.pyramid, k)
            met = all(v is not None for v in values) and objective_met(
                token, [v for v in values if v is not None], peak=peak
            )
            breakdown[f"level {k} {token}"] = TOKEN_POINTS if met else 0
        view = dice_view(player.pyramid)
        for card in state.cards:
            breakdown[f"card {card.title} ({card.colour})"] = find_card(card.title).score(view, card.colour)
        return PlayerScore(sum(breakdown.values()), breakdown)

    def score(self, state: PyradiceState) -> Score:
        return Score({p.name: self.player_score(state, p) for p in state.players})

    def winners(self, state: PyradiceState) -> tuple[str, ...]:
        """Most VP; ties go to more objective tokens met; a tie after that is shared."""
        scores = self.score(state).players
        key = {
            name: (s.total, sum(1 for part, points in s.breakdown.items() if part.startswith("level") and points))
            for name, s in scores.items()
        }
        best = max(key.values())
        return tuple(n for n, k in key.items() if k == best)

    # --- status and consistency ---------------------------------------------------------------
    def status(self, state: PyradiceState) -> Status:
        defects = state.__dict__.get("_defects")  # inline of _defects(): this runs before every step
        if defects is None:
            defects = _defects(state)
        phase = state.phase
        if phase is _OVER:
            winners = () if defects else self.winners(state)
            return Status(None, "over", "nothing", True, winners, defects)
        to_move = state.players[state.turn].name if 0 <= state.turn < len(state.players) else None
        if phase is _ROLL_OFF:
            to_move = None
        if not defects:
            return _RUNNING.get((to_move, phase._value_)) or _running(to_move, phase)
        awaiting = "chance" if phase in (_ROLL_OFF, _ROLL) else "decision"
        return Status(to_move, _PHASE_TEXT[phase], awaiting, False, (), defects)

    def defects(self, state: PyradiceState) -> list[str]:
        """Everything that makes ``state`` impossible under the rules (empty for a reachable state)."""
        out: list[str] = []
        n = len(state.players)
        if not 2 <= n <= 4:
            return [f"Pyradice takes 2 to 4 players, the state has {n}"]
        names = [p.name for p in state.players]
        if len(set(names)) != n:
            out.append(f"player names repeat: {names}")
        boxes = boxes_for(n)
        if state.quarry.boxes != boxes:
            out.append(f"{n} players use the {'2' if boxes == 1 else '3-4'}-player quarry side (boxes={boxes})")
        else:
            out.extend(state.quarry.defects())
        out.extend(_board_defects(state.board))
        out.extend(_card_defects(state.cards))
        for name, opt in ((o.name, o) for o in OPTIONS):
            value = state.options.get(name, opt.default)
            if name == "setup" and is_table_setup(value):
                continue  # a table's words, checked when the game was set up (resolve_options)
            if value not in opt.choices:
                out.append(f"rule option {name}={value!r} is not one of {', '.join(opt.choices)}")
        # every die on the table, by colour
        dice: list[tuple[str, Die]] = [(position_text(p), d) for p, d in state.quarry.dice.items()]
        for p in state.players:
            out.extend(pyr.defects(p.pyramid, p.name))
            dice.extend((f"{p.name}'s {pyr.slot_text(s)}", d) for s, d in p.pyramid.items())
            if p.reserve is not None:
                dice.append((f"{p.name}'s reserve", p.reserve))
        if state.hand is not None:
            dice.append(("the hand", state.hand))
        counts: Counter[str] = Counter()
        for where, d in dice:
            if d.colour not in COLOURS:
                out.append(f"die at {where} has colour {d.colour!r}, not one of {', '.join(COLOURS)}")
            else:
                counts[d.colour] += 1
        limit = DICE_PER_COLOUR * boxes
        for colour in COLOURS:
            if counts[colour] > limit:
                boxes_text = "one box has" if boxes == 1 else "two boxes have"
                out.append(f"{counts[colour]} {colour} dice on the table; {boxes_text} {limit}")
        out.extend(self._turn_defects(state))
        return out

    def _turn_defects(self, state: PyradiceState) -> list[str]:
        out: list[str] = []
        n = len(state.players)
        phase = state.phase
        if not (0 <= state.turn < n and 0 <= state.first < n):
            return [f"turn={state.turn} / first={state.first} is not a seat 0..{n - 1}"]
        if (state.hand is not None) != (phase is _PLACE):
            out.append(f"a die in hand ({state.hand}) goes with phase place, not {phase.value}")
        if (state.placed is not None) != (phase in (_SKILL, _ROLL)):
            out.append(f"a placed slot ({state.placed}) goes with phase skill or roll, not {phase.value}")
        elif state.placed is not None and state.placed not in state.mover.pyramid:
            out.append(f"the slot just placed ({pyr.slot_text(state.placed)}) holds no die")
        if (state.pending is not None) != (phase is _ROLL):
            out.append(f"an A2 re-roll target ({state.pending}) goes with phase roll, not {phase.value}")
        elif state.pending is not None and state.pending not in state.mover.pyramid:
            out.append(f"the re-roll target {pyr.slot_text(state.pending)} holds no die")
        if phase is _ROLL_OFF:
            if any(p.pyramid for p in state.players):
                out.append("pyramids hold dice before the first player is known")
            if not state.rolling or any(not 0 <= s < n for s in state.rolling):
                out.append(f"roll-off seats {state.rolling} are not seats 0..{n - 1}")
            return out
        if state.rolling:
            out.append(f"roll-off seats {state.rolling} left over in phase {phase.value}")
        # Seats from the first player up to (not including) the mover have placed one die more this round.
        sizes = [len(p.pyramid) for p in state.players]
        order = [(state.first + j) % n for j in range(n)]
        done = order.index(state.turn)
        mover_size = sizes[state.turn] - (1 if phase in (_SKILL, _ROLL) else 0)
        if phase is _OVER:
            expected = dict.fromkeys(range(n), pyr.FULL)
        else:
            expected = {seat: mover_size + (1 if j < done else 0) for j, seat in enumerate(order)}
            expected[state.turn] = sizes[state.turn]
            if mover_size >= pyr.FULL:
                out.append(f"{state.mover.name} is to {phase.value} with a full pyramid")
        for seat, size in enumerate(sizes):
            if size != expected[seat]:
                out.append(
                    f"{state.players[seat].name} has {size} dice but {expected[seat]} are expected when it is "
                    f"{state.mover.name}'s turn to {phase.value} (first player {state.players[state.first].name})"
                )
        return out

    # --- text ---------------------------------------------------------------------------------
    def parse_action(self, text: str, state: PyradiceState | None = None) -> Action:
        return parse_action(text)

    # --- what the players read (engine.pyradice.words) ------------------------------------------
    def describe(self, state: PyradiceState, action: Action) -> LegalAction:
        """``action`` in words; groups: take, reserve, place, skill, pass, chance (see :mod:`engine.pyradice.words`)."""
        label, group = words.label(state, action)
        return LegalAction(self.action_text(action), label, group)

    def chance_prompt(self, state: PyradiceState) -> ChancePrompt | None:
        return words.chance_prompt(state)

    def chance_outcomes(self, state: PyradiceState) -> list[Action] | None:
        """Every roll-off result (each rolling player's face, in seat order) or every value of an A2 re-roll."""
        if state.phase is Phase.ROLL_OFF:
            return [RollOff(v) for v in itertools.product(range(1, 7), repeat=len(state.rolling))]
        if state.phase is Phase.ROLL:
            return [Roll(v) for v in range(1, 7)]
        return None

    def advise(
        self, state: PyradiceState, *, seed: int = 0, budget_s: float = 0.3, playouts: int | None = None
    ) -> Advice | None:
        """The hint for the decision now, ranked by seeded playouts (:mod:`engine.pyradice.advice`)."""
        from engine.pyradice import advice  # advice plays the game: imported when asked

        return advice.advise(state, seed=seed, budget_s=budget_s, playouts=playouts)

    def board_text(self, state: PyradiceState) -> str:
        return words.board_text(state)


_GAME = instance(PyradiceGame)

#: The step each action type makes (see ``apply``); only the chance steps may answer a roll awaited.
_STEPS: dict[type, Callable[[PyradiceGame, PyradiceState, Any], PyradiceState]] = {
    Take: PyradiceGame._take,
    UseReserve: PyradiceGame._take,
    Place: PyradiceGame._place,
    Skill: PyradiceGame._skill,
    Pass: PyradiceGame._skill,
    RollOff: PyradiceGame._roll_off,
    Roll: PyradiceGame._roll,
    Reveal: PyradiceGame._reveal,
}
#: Steps that chance takes (a reveal is an observation, possible while a roll is awaited too).
_CHANCE_STEPS = (PyradiceGame._roll_off, PyradiceGame._roll, PyradiceGame._reveal)


def _colour_count(state: PyradiceState, colour: str | None) -> int:
    """Known dice of ``colour`` on the table: quarry, pyramids, reserves and the hand."""
    n = sum(d.colour == colour for d in state.quarry.dice.values())
    for p in state.players:
        n += sum(d.colour == colour for d in p.pyramid.values())
        n += p.reserve is not None and p.reserve.colour == colour
    return n + (state.hand is not None and state.hand.colour == colour)


def _player(
    name: str,
    pyramid: dict[pyr.Slot, Die],
    reserve: Die | None,
    open_slots: tuple[pyr.Slot, ...],
    filled: tuple[pyr.Slot, ...],
) -> PlayerState:
    # Hot path: build without re-running the frozen __init__ (the fields are known to be right), with
    # the pyramid's open and filled slots already known (see _open_slots and _filled_slots).
    new = object.__new__(PlayerState)
    new.__dict__.update(name=name, pyramid=pyramid, reserve=reserve, _open=open_slots, _filled=filled)
    return new


def _filled_slots(player: PlayerState) -> tuple[pyr.Slot, ...]:
    """The slots of ``player``'s pyramid that hold a die, in SLOTS order; cached like _open_slots."""
    found: tuple[pyr.Slot, ...] | None = player.__dict__.get("_filled")
    if found is None:
        found = player.__dict__["_filled"] = tuple(s for s in pyr.SLOTS if s in player.pyramid)
    return found


def _open_slots(player: PlayerState) -> tuple[pyr.Slot, ...]:
    """Where a die may go in ``player``'s pyramid (pyramid.legal_slots), cached on the player object.

    Players made by ``apply`` carry it, updated incrementally when a die is placed (see _place); a player
    read from JSON or the camera gets it computed once here.
    """
    found: tuple[pyr.Slot, ...] | None = player.__dict__.get("_open")
    if found is None:
        found = player.__dict__["_open"] = tuple(pyr.legal_slots(player.pyramid))
    return found


def _replace_player(players: tuple[PlayerState, ...], seat: int, player: PlayerState) -> tuple[PlayerState, ...]:
    return (*players[:seat], player, *players[seat + 1 :])


def _board_defects(board: Board) -> list[str]:
    out = []
    if len(board.skills) != 5:
        out.append(f"the board needs 5 skill tokens (levels 2-6), got {len(board.skills)}")
    else:
        for level, code in enumerate(board.skills, start=2):
            if code not in SKILLS or int(code[1]) != level:
                out.append(f"skill token {code!r} cannot lie on level {level} (A{level} or B{level})")
    if len(board.objectives) != 5:
        out.append(f"the board needs 5 objective tokens (levels 1-5), got {len(board.objectives)}")
    else:
        bad = [t for t in board.objectives if t not in TOKENS]
        if bad:
            out.append(f"objective tokens {bad} are not among {', '.join(TOKENS)}")
        numbers = [t[1:] for t in board.objectives]
        if len(set(numbers)) != 5:
            out.append(f"objective tokens {list(board.objectives)} use a token number twice")
    return out


def _card_defects(cards: tuple[Card, ...]) -> list[str]:
    out = []
    if len(cards) != 4:
        out.append(f"a game uses 4 objective cards, got {len(cards)}")
    titles = [c.title.lower() for c in cards]
    if len(set(titles)) != len(titles):
        out.append(f"objective cards repeat: {[c.title for c in cards]}")
    for c in cards:
        if c.title.lower() not in CARDS:
            out.append(f"objective card {c.title!r} is not known")
        if c.colour not in COLOURS:
            out.append(f"disc colour {c.colour!r} on {c.title} is not one of {', '.join(COLOURS)}")
    colours = [c.colour for c in cards]
    if len(set(colours)) != len(colours):
        out.append(f"disc colours repeat: {colours}")
    return out


# --- action text ----------------------------------------------------------------------------------
def _parse_slot(text: str, whole: str) -> pyr.Slot:
    try:
        k, i = (int(x) for x in text.split(","))
    except ValueError:
        raise InvalidActionError(f"{whole!r}: {text!r} is not a pyramid slot LEVEL,INDEX (e.g. 2,1)") from None
    return (k, i)


def _parse_position(text: str, whole: str) -> Position:
    try:
        layer, r, c = (int(x) for x in text.removeprefix("q").split(","))
    except ValueError:
        raise InvalidActionError(f"{whole!r}: {text!r} is not a quarry position qLAYER,ROW,COL (e.g. q2,0,0)") from None
    return (layer, r, c)


def _parse_value(text: str, whole: str) -> int:
    try:
        return int(text.removeprefix("="))
    except ValueError:
        raise InvalidActionError(f"{whole!r}: {text!r} is not a value =N") from None


def parse_action(text: str) -> Action:
    """Rebuild an action from the text ``str(action)`` prints, e.g. "take q2,0,0", "place 1,3", "pass",
    "A4 1,0 q2,0,1", "A5 1,0 2,1", "B4 1,0 =3", "A2 1,2" or "A2 1,2 =5", "roll 4", "roll-off 3 5"."""
    words = text.strip().split()
    if not words:
        raise InvalidActionError("empty action text")
    head, rest = words[0], words[1:]
    low = head.lower()
    try:
        if low == "roll-off":
            return RollOff(tuple(int(w) for w in rest))
        if low == "roll" and len(rest) == 1:
            return Roll(int(rest[0]))
    except ValueError:
        raise InvalidActionError(f"{text!r}: roll values must be numbers") from None
    if low == "take" and len(rest) == 1:
        return take(_parse_position(rest[0], text))
    if low == "reserve" and not rest:
        return USE_RESERVE
    if low == "place" and len(rest) == 1:
        return place(_parse_slot(rest[0], text))
    if low == "pass" and not rest:
        return PASS
    if low == "reveal" and len(rest) == 2:
        return Reveal(_parse_position(rest[0], text), Die.parse(rest[1]))
    code = head.upper()
    if code in SKILLS and code != "B6":
        slots: list[pyr.Slot] = []
        quarry: Position | None = None
        value: int | None = None
        for w in rest:
            if w.startswith("q"):
                quarry = _parse_position(w, text)
            elif w.startswith("="):
                value = _parse_value(w, text)
            else:
                slots.append(_parse_slot(w, text))
        if len(slots) > 2:
            raise InvalidActionError(f"{text!r}: a skill names at most two pyramid dice")
        return Skill(code, slots[0] if slots else None, slots[1] if len(slots) > 1 else None, quarry, value)
    raise InvalidActionError(
        f"{text!r} is not a Pyradice action (take qL,R,C | reserve | place L,I | pass | SKILL args | roll N | "
        "roll-off N...)"
    )


__all__ = [
    "OPTIONS",
    "PyradiceGame",
    "dice_view",
    "level_results",
    "parse_action",
    "random_board",
    "random_cards",
    "setup",
    "tokens_met",
]
