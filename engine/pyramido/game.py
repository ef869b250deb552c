"""Pyramido: Forgotten Treasures as a :class:`engine.game.Game`: turns, stages, scoring, the end, solo.

The states and actions are in :mod:`engine.pyramido.state` (importable from here too).

A turn (RULES.md 2.3) is three decisions and some chance:

* ``take S G`` takes the face-up domino of space S and gem G from its gem area (``refill P`` names the
  pile whose bottom half refills pile S if S is now empty). An emptied gem area then awaits 3 ``draw``.
* ``flip P [BACK]`` turns the top of a face-down pile, which then awaits ``reveal DOMINO``. BACK is the
  back the device saw on that pile (each block's colour and icon count, RULES.md 2.1), if it saw it.
* ``place sK X,Y DIR`` lays the domino in the pyramid (:mod:`engine.pyramido.geometry`).

A player whose stage has no room when their turn comes loses it and their stage is complete (FT6). When
every stage is complete the stage is scored: each player in turn order places gems on areas
(``activate X,Y NcMm``), ends with ``end`` (stage score = activated icons + 1 per mythical gem left),
and after stages 1-3 discards down to 5 gems (``discard G``). The lowest stage score starts the next
stage (ties: earliest in this stage's order, FT17). After stage 4 the highest total wins; ties go to most
gems left, then the best single stage, then are shared.

Chance is always an action: ``draw G`` (a gem from the bag to wherever the next pending draw goes) and
``reveal DOMINO`` (the domino turned up). The state lists what chance is pending. The device may not
know the face-down dominoes (``unseen`` is None: any revealed domino is accepted); the simulator knows its
seeded deck: ``unseen`` holds the face-down dominoes in order (the Legend's pending first domino, then
pile 1 top to bottom, ..., pile 5), so it knows every pile's top and its back, and reveals exactly that.

Backs: a face-down top shows its back. The table game may record the backs it sees (``Space.back``, set
by ``flip P BACK`` or :meth:`Pyramido.observe_back`); a ``reveal`` whose domino does not have the back
seen on that pile is refused as a misread.

Solo (one player): the Legend (2.7) takes his turn automatically after each of the player's turns,
including the one that completes the stage (FT15), and scores coloured gems x stage + mythical x 2. The
rule option ``legend`` picks "A Legend" or "THE Legend" (a random gem at the start of a stage when he
holds 7 or more mythical gems). The Legend wins ties.
"""

from __future__ import annotations

import dataclasses
import random
from collections.abc import Mapping, Sequence
from typing import Any, ClassVar, TypeVar

from engine import serial
from engine.advice import Advice
from engine.errors import IllegalActionError, InvalidActionError, InvalidStateError, legal_hint
from engine.game import ChancePrompt, Game, LegalAction, PlayerScore, RuleOption, Score, Status, instance, register
from engine.pyramido.activation import MIXES, ActivationResult, AreaActivation, best_activation, check_mix, gems_for
from engine.pyramido.areas import areas
from engine.pyramido.dominoes import (
    GEMS,
    ICONS_PER_DOMINO,
    MYTHICAL,
    NO_GEMS,
    Back,
    Block,
    Colour,
    Domino,
    Gem,
    Gems,
    deck_problems,
    gems_add,
    gems_sub,
    gems_text,
    generate_deck,
)
from engine.pyramido.exploration import (
    FIRST_FACE_UP,
    GEMS_PER_AREA,
    PILE_SIZE,
    SPACES,
    Space,
    refill_count,
    refill_sources,
)
from engine.pyramido.geometry import (
    STAGES,
    Pyramid,
    has_room,
    legal_placements,
)
from engine.pyramido.legend import legend_search, legend_stage_score
from engine.pyramido.observe import explain_placement
from engine.pyramido.state import (
    Activate,
    Discard,
    Draw,
    EndScoring,
    Explorer,
    Flip,
    LegendState,
    Pending,
    PendingKind,
    Phase,
    Place,
    PyramidoAction,
    PyramidoState,
    Reveal,
    Take,
    parse_action,
)

LEGEND = "Legend"
INVENTORY_LIMIT = 5
DECK_SIZE = 90

OPTIONS: tuple[RuleOption, ...] = (
    RuleOption(
        "gems",
        ("without-spares", "with-spares"),
        "without-spares",
        "FT12: the box lists 45 coloured + 18 mythical gems 'including' a spare set of 6. Default: the spares "
        "are not played (8 per colour + 17 mythical); 'with-spares' plays all 9 per colour + 18 mythical.",
    ),
    RuleOption(
        "pile_refill",
        ("floor", "ceil"),
        "floor",
        "FT14: an emptied pile takes 'the bottom half' of another pile of n dominoes: floor(n/2) by default, "
        "ceil(n/2) with 'ceil'. Only face-down dominoes move.",
    ),
    RuleOption(
        "legend",
        ("a-legend", "the-legend"),
        "a-legend",
        "Solo only: 'a-legend' is Become 'A Legend'; 'the-legend' adds THE Legend's random gem at the start "
        "of each stage while he holds 7 or more mythical gems.",
    ),
)


def gem_supply(option: str) -> Gems:
    return (9, 9, 9, 9, 9, 18) if option == "with-spares" else (8, 8, 8, 8, 8, 17)


# --- helpers ------------------------------------------------------------------------------------

_T = TypeVar("_T")
_FIELDS: dict[type, tuple[frozenset[str], tuple[str, ...]]] = {}


def replace(obj: _T, **changes: Any) -> _T:
    """``dataclasses.replace`` without the re-validation: several times faster on the hot path of a game.

    Only used on this module's plain frozen dataclasses (no ``__post_init__``); cached derived data
    (keys starting with ``_``) is not carried over.
    """
    cls = type(obj)
    known = _FIELDS.get(cls)
    if known is None:
        names = tuple(f.name for f in dataclasses.fields(cls))  # type: ignore[arg-type]
        known = _FIELDS[cls] = (frozenset(names), names)
    if not changes.keys() <= known[0]:
        raise TypeError(f"{cls.__name__} has no field(s) {sorted(set(changes) - known[0])}")
    new = object.__new__(cls)
    if hasattr(obj, "__dict__"):
        values = obj.__dict__.copy()  # a C-level copy; drop the derived keys only when there are some
        if len(values) != len(known[1]):
            values.pop("_sound", None)  # the one derived key apply() sets on a state
            if len(values) != len(known[1]):
                values = {k: v for k, v in values.items() if k[0] != "_"}
        values.update(changes)
        object.__setattr__(new, "__dict__", values)
    else:
        for name in known[1]:
            object.__setattr__(new, name, changes[name] if name in changes else getattr(obj, name))
    return new


def _set(seq: tuple[Any, ...], i: int, value: Any) -> tuple[Any, ...]:
    return (*seq[:i], value, *seq[i + 1 :])


def _one(gem: Gem) -> Gems:
    return gems_for_gem(gem, 1)


def gems_for_gem(gem: Gem, n: int) -> Gems:
    counts = [0] * 6
    counts[gem.index] = n
    return tuple(counts)


def seen_dominoes(state: PyramidoState) -> list[Domino]:
    """Every domino whose face is known: face-up tops, the one in hand, pyramids, the Legend's pile."""
    seen = [s.face_up for s in state.spaces if s.face_up is not None]
    if state.holding is not None:
        seen.append(state.holding)
    for e in state.explorers:
        seen.extend(pd.domino for pd in e.pyramid.placed)
    if state.legend is not None:
        seen.extend(state.legend.pile)
    return seen


def _settle(state: PyramidoState) -> PyramidoState:
    """Refill the bag from the discards when a draw needs it, and drop chance events that cannot happen."""
    pending = state.pending
    while pending:
        head = pending[0]
        if head.kind in (PendingKind.GEM_TO_SPACE, PendingKind.GEM_TO_LEGEND):
            if sum(state.bag) == 0 and sum(state.discards) > 0:
                state = replace(state, bag=state.discards, discards=NO_GEMS)
            if sum(state.bag) > 0:
                break
        elif head.kind is PendingKind.DOMINO_TO_PILE:
            space = state.spaces[head.target - 1]
            if space.face_up is None and space.face_down > 0:
                break
        else:
            break
        pending = pending[1:]
        state = replace(state, pending=pending)
    return state


def _legend_pending(pending: tuple[Pending, ...]) -> int:
    return sum(1 for p in pending if p.kind is PendingKind.DOMINO_TO_LEGEND)


def split_unseen(
    unseen: tuple[Domino, ...], spaces: Sequence[Space], legend_pending: int
) -> tuple[tuple[Domino, ...], list[tuple[Domino, ...]]]:
    """A known deck's unseen dominoes as (the Legend's pending domino, each pile's face-down top to bottom)."""
    at = legend_pending
    piles = []
    for s in spaces:
        piles.append(unseen[at : at + s.face_down])
        at += s.face_down
    return unseen[:legend_pending], piles


def _move_bottom(
    unseen: tuple[Domino, ...] | None, spaces: Sequence[Space], legend_pending: int, src: int, dst: int, k: int
) -> tuple[Domino, ...] | None:
    """``unseen`` after the bottom ``k`` face-down dominoes of pile ``src`` (0-based) moved to empty pile
    ``dst``; ``spaces`` are those before the move."""
    if unseen is None:
        return None
    legend, piles = split_unseen(unseen, spaces, legend_pending)
    moved = piles[src][len(piles[src]) - k :]
    piles[src] = piles[src][: len(piles[src]) - k]
    piles[dst] = moved + piles[dst]
    return legend + tuple(d for pile in piles for d in pile)


def _top_index(state: PyramidoState, head: Pending) -> int:
    """Where the domino a pending reveal turns up lies in a known deck's ``unseen``."""
    if head.kind is PendingKind.DOMINO_TO_LEGEND:
        return 0
    return _legend_pending(state.pending) + sum(s.face_down for s in state.spaces[: head.target - 1])


def known_top(state: PyramidoState, pile: int) -> Domino | None:
    """With a known deck: the face-down top domino of ``pile`` (1-5), else None."""
    if state.unseen is None or not 1 <= pile <= len(state.spaces) or state.spaces[pile - 1].face_down == 0:
        return None
    at = _legend_pending(state.pending) + sum(s.face_down for s in state.spaces[: pile - 1])
    return state.unseen[at] if at < len(state.unseen) else None


def pile_back(state: PyramidoState, pile: int) -> Back | None:
    """The back showing on ``pile`` (1-5) if it shows one and it is known: from the deck, or as seen."""
    s = state.spaces[pile - 1]
    if s.face_up is not None or s.face_down == 0:
        return None
    top = known_top(state, pile)
    return top.back() if top is not None else s.back


def _face_down_piles(state: PyramidoState) -> list[int]:
    return [i + 1 for i, s in enumerate(state.spaces) if s.face_up is None and s.face_down > 0]


# --- the game -----------------------------------------------------------------------------------


@register
class Pyramido(Game[PyramidoState, PyramidoAction]):
    """Pyramido: Forgotten Treasures for 1 to 4 players (solo against the Legend).

    Action groups for the page (:meth:`describe`): ``take`` (a domino and a gem), ``flip`` (turn a pile's
    top), ``place``, ``score`` (gems on an area), ``end`` (finish placing gems), ``discard`` (down to 5)
    and ``chance`` (a gem drawn, a domino revealed).
    """

    name: ClassVar[str] = "pyramido"
    title: ClassVar[str] = "Pyramido: Forgotten Treasures"
    aliases: ClassVar[tuple[str, ...]] = ("pyramido-ft",)
    min_players: ClassVar[int] = 1
    max_players: ClassVar[int] = 4
    options: ClassVar[tuple[RuleOption, ...]] = OPTIONS
    state_type: ClassVar[type] = PyramidoState
    action_type: ClassVar[Any] = PyramidoAction
    action_groups: ClassVar[tuple[str, ...]] = ("take", "flip", "place", "score", "end", "discard", "chance")
    action_grammar: ClassVar[tuple[str, ...]] = (
        "take S G [refill P]       take the face-up domino of space S (1-5) and a gem G of its gem area "
        "(- for none); refill an emptied pile from pile P",
        "flip P [BACK]             turn over the top of pile P (BACK: the back seen, e.g. r2-b0)",
        "place sK X,Y DIR          lay the domino in hand in stage K at X,Y facing E, S, W or N",
        "activate X,Y NcMm         put N coloured and M mythical gems on the area at X,Y (stage scoring)",
        "end                       end this stage's scoring",
        "discard G                 discard a gem over the inventory limit",
        "draw G                    chance: the gem drawn from the bag (o, b, p, g, r or m for mythical)",
        "reveal DOMINO             chance: the domino turned over, e.g. r03-b (colour letters, gem icons)",
    )

    # --- set-up ---------------------------------------------------------------------------------
    def setup(
        self,
        players: Sequence[str],
        options: Mapping[str, str] | None = None,
        deck: Sequence[Domino] | None = None,
    ) -> PyramidoState:
        """The state before the set-up draws: players in seat order (the first starts), all set-up chance
        pending. ``deck`` is the deck when it is known (the simulator), else reveals are taken as seen."""
        names = self.check_players(players)
        if LEGEND in names and len(names) == 1:
            raise InvalidActionError(f"the name {LEGEND!r} is the solo opponent's; choose another")
        opts = self.resolve_options(options)
        if deck is not None:
            problems = deck_problems(deck)
            if problems:
                raise InvalidStateError("; ".join(problems))
        supply = gem_supply(opts["gems"])
        solo = len(names) == 1
        # Solo: the Legend's domino is drawn before the piles are made, so one pile has 17.
        sizes = [PILE_SIZE] * SPACES
        if solo:
            sizes[-1] -= 1
        pending: list[Pending] = []
        if solo:
            pending.append(Pending(PendingKind.DOMINO_TO_LEGEND))
        pending += [Pending(PendingKind.GEM_TO_SPACE, s + 1) for s in range(SPACES) for _ in range(GEMS_PER_AREA)]
        pending += [Pending(PendingKind.DOMINO_TO_PILE, p) for p in FIRST_FACE_UP]
        return PyramidoState(
            explorers=tuple(Explorer(n, Pyramid(1)) for n in names),
            spaces=tuple(Space(n, None, NO_GEMS) for n in sizes),
            bag=supply,
            discards=NO_GEMS,
            supply=supply,
            options=opts,
            order=tuple(range(len(names))),
            pending=tuple(pending),
            legend=LegendState() if solo else None,
            unseen=tuple(deck) if deck is not None else None,
        )

    def initial_state(
        self, players: Sequence[str], options: Mapping[str, str] | None = None, *, seed: int | None = None
    ) -> PyramidoState:
        """With a seed: a seeded deck and set-up already drawn. Without: set-up chance left pending for the table."""
        if seed is None:
            return self.setup(players, options)
        return self._seeded_setup(players, options, seed)[0]

    def seeded_setup_steps(
        self, players: Sequence[str], options: Mapping[str, str] | None, seed: int
    ) -> tuple[PyramidoAction, ...]:
        """The set-up's chance steps (dominoes turned up, gems drawn) a seeded game draws before its first
        action: what the players of a real table do, and the camera reads, when the deck is not known."""
        return self._seeded_setup(players, options, seed)[1]

    def _seeded_setup(
        self, players: Sequence[str], options: Mapping[str, str] | None, seed: int
    ) -> tuple[PyramidoState, tuple[PyramidoAction, ...]]:
        rng = random.Random(seed)
        state = self.setup(players, options, generate_deck(rng.randrange(2**32)))
        steps = []
        while state.pending:
            step = self.random_chance(state, rng)
            steps.append(step)
            state = self.apply(state, step)
        return state, tuple(steps)

    # --- queries --------------------------------------------------------------------------------
    def to_move(self, state: PyramidoState) -> int | None:
        """Seat of the player who decides next (None when chance is awaited or the game is over)."""
        if state.pending or state.phase is Phase.OVER:
            return None
        if state.phase is Phase.SCORE:
            for seat in state.order:
                e = state.explorers[seat]
                if len(e.stage_scores) < state.stage:
                    return seat
                if state.stage < STAGES and sum(e.inventory) > INVENTORY_LIMIT:
                    return seat
            return None
        return state.order[state.turn]

    def legal_actions(self, state: PyramidoState) -> list[PyramidoAction]:
        seat = self.to_move(state)
        if seat is None:
            return []
        e = state.explorers[seat]
        out: list[PyramidoAction] = []
        if state.phase is Phase.TAKE:
            rule = state.options["pile_refill"]
            for i, s in enumerate(state.spaces):
                if s.face_up is None:
                    continue
                gems: list[Gem | None] = [g for g in GEMS if s.gems[g.index]] or [None]
                refills: list[int | None] = [None]
                if s.face_down == 0:
                    after = _set(state.spaces, i, Space(0, None, s.gems))
                    refills = list(refill_sources(after, i + 1, rule)) or [None]
                out += [Take(i + 1, g, r) for g in gems for r in refills]
        elif state.phase is Phase.FLIP:
            out = [Flip(p) for p in _face_down_piles(state)]
        elif state.phase is Phase.PLACE:
            out = [Place(p) for p in legal_placements(e.pyramid, state.holding)]
        elif state.phase is Phase.SCORE:
            if len(e.stage_scores) < state.stage:
                done = {a.anchor for a in e.activated}
                inv = e.inventory
                for area in areas(e.pyramid):
                    if area.anchor in done:
                        continue
                    have_c, have_m = inv[area.colour.index], inv[MYTHICAL]
                    out += [
                        Activate(AreaActivation(area.anchor, c, m)) for c, m in MIXES if c <= have_c and m <= have_m
                    ]
                out.append(EndScoring())
            else:
                out = [Discard(g) for g in GEMS if e.inventory[g.index]]
        return out

    # --- applying actions -----------------------------------------------------------------------
    def apply(self, state: PyramidoState, action: PyramidoAction) -> PyramidoState:
        if not state.__dict__.get("_sound"):
            self.check_state(state)  # a state read from JSON or the camera must be consistent to be played on
        new = self._apply(state, action)
        # A state reached by a legal action from a sound state is sound: status() need not check it again.
        new.__dict__["_sound"] = True
        return new

    def _apply(self, state: PyramidoState, action: PyramidoAction) -> PyramidoState:
        if isinstance(action, (Draw, Reveal)):
            return _settle(self._apply_chance(state, action))
        if state.pending:
            raise IllegalActionError(
                f"action {action}: chance is awaited first ({state.pending[0]}); "
                f"{'draw G' if 'gem' in state.pending[0].kind.value else 'reveal DOMINO'} comes next"
            )
        seat = self.to_move(state)
        if seat is None:
            raise IllegalActionError(f"action {action}: the game is over")
        e = state.explorers[seat]
        phase = state.phase
        if isinstance(action, Take) and phase is Phase.TAKE:
            new = self._take(state, seat, action)
        elif isinstance(action, Flip) and phase is Phase.FLIP:
            piles = _face_down_piles(state)
            if action.pile not in piles:
                raise IllegalActionError(
                    f"action {action}: pile {action.pile} has no face-down top; {legal_hint(piles)}"
                )
            if action.back is not None:
                state = self.observe_back(state, action.pile, action.back)
            new = replace(state, phase=Phase.PLACE, pending=(Pending(PendingKind.DOMINO_TO_PILE, action.pile),))
        elif isinstance(action, Place) and phase is Phase.PLACE:
            assert state.holding is not None
            placed = replace(e, pyramid=e.pyramid.place(state.holding, action.placement))
            new = replace(state, explorers=_set(state.explorers, seat, placed), holding=None)
            new = self._end_turn(new)
        elif isinstance(action, Activate) and phase is Phase.SCORE and len(e.stage_scores) < state.stage:
            new = self._activate(state, seat, action.activation)
        elif isinstance(action, EndScoring) and phase is Phase.SCORE and len(e.stage_scores) < state.stage:
            new = self._end_scoring(state, seat)
        elif isinstance(action, Discard) and phase is Phase.SCORE and len(e.stage_scores) == state.stage:
            if not e.inventory[action.gem.index]:
                raise IllegalActionError(f"action {action}: {e.name} holds no {action.gem.value} gem")
            inv = gems_sub(e.inventory, _one(action.gem))
            new = replace(
                state,
                explorers=_set(state.explorers, seat, replace(e, inventory=inv)),
                discards=gems_add(state.discards, _one(action.gem)),
            )
            new = self._maybe_next_stage(new)
        else:
            raise IllegalActionError(
                f"action {action} is not legal now ({self.status(state).phase}, {e.name} to move); "
                f"{legal_hint(self.legal_actions(state))}"
            )
        return _settle(new)

    def _take(self, state: PyramidoState, seat: int, action: Take) -> PyramidoState:
        if not 1 <= action.space <= SPACES:
            raise InvalidActionError(f"action {action}: space {action.space} is not 1-{SPACES}")
        s = state.spaces[action.space - 1]
        if s.face_up is None:
            ups = [i + 1 for i, x in enumerate(state.spaces) if x.face_up is not None]
            raise IllegalActionError(f"action {action}: space {action.space} has no face-up domino; {legal_hint(ups)}")
        e = state.explorers[seat]
        gems = s.gems
        inv = e.inventory
        if action.gem is None:
            if sum(gems):
                raise IllegalActionError(
                    f"action {action}: take one gem of {gems_text(gems)} from space {action.space}"
                )
        else:
            if not gems[action.gem.index]:
                raise IllegalActionError(
                    f"action {action}: space {action.space} has no {action.gem.value} gem (it has {gems_text(gems)})"
                )
            gems = gems_sub(gems, _one(action.gem))
            inv = gems_add(inv, _one(action.gem))
        spaces = _set(state.spaces, action.space - 1, Space(s.face_down, None, gems))
        rule = state.options["pile_refill"]
        if s.face_down == 0:
            sources = refill_sources(spaces, action.space, rule)
            if action.refill_from is None and sources:
                raise IllegalActionError(
                    f"action {action}: pile {action.space} is now empty; say which pile refills it "
                    f"(take {action.space} {action.gem.letter if action.gem else '-'} refill P); {legal_hint(sources)}"
                )
            if action.refill_from is not None:
                if action.refill_from not in sources:
                    raise IllegalActionError(
                        f"action {action}: pile {action.refill_from} cannot refill pile {action.space}; "
                        f"{legal_hint(sources)}"
                    )
                src = spaces[action.refill_from - 1]
                k = refill_count(src, rule)
                unseen = _move_bottom(
                    state.unseen, spaces, _legend_pending(state.pending), action.refill_from - 1, action.space - 1, k
                )
                state = replace(state, unseen=unseen)
                left = src.face_down - k
                spaces = _set(
                    spaces, action.refill_from - 1, replace(src, face_down=left, back=src.back if left else None)
                )
                spaces = _set(spaces, action.space - 1, replace(spaces[action.space - 1], face_down=k))
        elif action.refill_from is not None:
            raise IllegalActionError(f"action {action}: pile {action.space} is not empty, so nothing refills it")
        pending: tuple[Pending, ...] = ()
        if not sum(gems):
            pending = (Pending(PendingKind.GEM_TO_SPACE, action.space),) * GEMS_PER_AREA
        new = replace(
            state,
            spaces=spaces,
            explorers=_set(state.explorers, seat, replace(e, inventory=inv)),
            holding=s.face_up,
            pending=pending,
        )
        # Step 3 (reveal) only when some pile shows its back; otherwise straight to placing.
        return replace(new, phase=Phase.FLIP if _face_down_piles(new) else Phase.PLACE)

    def _legend_turn(self, state: PyramidoState) -> PyramidoState:
        legend = state.legend
        assert legend is not None
        search = legend_search(state.spaces, legend.pile[-1] if legend.pile else None)
        spaces = list(state.spaces)
        unseen = state.unseen
        inv = legend.inventory
        for space, gem in search.gems:
            s = spaces[space - 1]
            spaces[space - 1] = replace(s, gems=gems_sub(s.gems, _one(gem)))
            inv = gems_add(inv, _one(gem))
        pile = legend.pile
        pending: list[Pending] = []
        if search.domino_space is not None:
            i = search.domino_space - 1
            s = spaces[i]
            assert s.face_up is not None
            pile = (*pile, s.face_up)
            spaces[i] = replace(s, face_up=None)
            if s.face_down == 0:
                # Not in the rulebook: an emptied pile is refilled as usual; the Legend takes the bottom
                # half of the largest other pile (leftmost on ties).
                sources = refill_sources(tuple(spaces), i + 1, state.options["pile_refill"])
                if sources:
                    src_i = max(sources, key=lambda p: (spaces[p - 1].size, -p)) - 1
                    k = refill_count(spaces[src_i], state.options["pile_refill"])
                    unseen = _move_bottom(unseen, spaces, _legend_pending(state.pending), src_i, i, k)
                    left = spaces[src_i].face_down - k
                    spaces[src_i] = replace(spaces[src_i], face_down=left, back=spaces[src_i].back if left else None)
                    spaces[i] = replace(spaces[i], face_down=k)
            pending.append(Pending(PendingKind.DOMINO_TO_PILE, i + 1))
        if search.draws_random_gem:
            pending.append(Pending(PendingKind.GEM_TO_LEGEND))
        for i, s in enumerate(spaces):
            if not sum(s.gems) and any(space == i + 1 for space, _ in search.gems):
                pending += [Pending(PendingKind.GEM_TO_SPACE, i + 1)] * GEMS_PER_AREA
        return replace(
            state,
            spaces=tuple(spaces),
            legend=replace(legend, pile=pile, inventory=inv, last_search=str(search)),
            pending=(*state.pending, *pending),
            unseen=unseen,
        )

    def _end_turn(self, state: PyramidoState) -> PyramidoState:
        """After a player's turn: the Legend's turn in solo, then the next player with room (or stage end)."""
        if state.solo:
            state = self._legend_turn(state)
        return self._advance(state, state.turn + 1)

    def _advance(self, state: PyramidoState, start: int) -> PyramidoState:
        """Give the turn to the first player from order position ``start`` whose stage is not complete; a
        player without room loses the turn and completes the stage. All complete: stage-end scoring."""
        n = len(state.order)
        explorers = list(state.explorers)
        for k in range(n):
            pos = (start + k) % n
            seat = state.order[pos]
            e = explorers[seat]
            if e.complete:
                continue
            if has_room(e.pyramid):
                return replace(state, explorers=tuple(explorers), turn=pos, phase=Phase.TAKE)
            explorers[seat] = replace(e, complete=True, lost_turns=e.lost_turns + 1)
        return replace(state, explorers=tuple(explorers), phase=Phase.SCORE)

    def _activate(self, state: PyramidoState, seat: int, act: AreaActivation) -> PyramidoState:
        e = state.explorers[seat]
        found = {a.anchor: a for a in areas(e.pyramid)}
        area = found.get(act.anchor)
        if area is None:
            raise IllegalActionError(
                f"action activate {act}: no area of {e.name}'s pyramid has its anchor at "
                f"{act.anchor[0]},{act.anchor[1]}; "
                f"{legal_hint(f'{x},{y}' for x, y in found)}"
            )
        if any(a.anchor == act.anchor for a in e.activated):
            raise IllegalActionError(
                f"action activate {act}: the {area.colour.value} area at {act.anchor[0]},{act.anchor[1]} "
                "is already activated in this scoring (FT7)"
            )
        check_mix(act.coloured, act.mythical)
        need = gems_for(area, act.coloured, act.mythical)
        if any(h < n for h, n in zip(e.inventory, need, strict=True)):
            raise IllegalActionError(
                f"action activate {act}: needs {gems_text(need)} for the {area.colour.value} area "
                f"but {e.name} holds {gems_text(e.inventory)}"
            )
        new_e = replace(e, inventory=gems_sub(e.inventory, need), activated=(*e.activated, act))
        return replace(state, explorers=_set(state.explorers, seat, new_e), discards=gems_add(state.discards, need))

    def _end_scoring(self, state: PyramidoState, seat: int) -> PyramidoState:
        e = state.explorers[seat]
        found = {a.anchor: a for a in areas(e.pyramid)}
        points = sum(found[a.anchor].icons * MIXES[(a.coloured, a.mythical)] for a in e.activated)
        points += e.inventory[MYTHICAL]  # FT9: leftover mythical gems score before the discard
        new_e = replace(e, stage_scores=(*e.stage_scores, points), activated=())
        return self._maybe_next_stage(replace(state, explorers=_set(state.explorers, seat, new_e)))

    def _maybe_next_stage(self, state: PyramidoState) -> PyramidoState:
        if self.to_move(replace(state, pending=())) is not None:
            return state
        legend = state.legend
        discards = state.discards
        if legend is not None and len(legend.stage_scores) < state.stage:
            pts = legend_stage_score(legend.inventory, state.stage)
            coloured = (*legend.inventory[:MYTHICAL], 0)
            discards = gems_add(discards, coloured)
            legend = replace(
                legend,
                stage_scores=(*legend.stage_scores, pts),
                inventory=gems_for_gem(Gem.MYTHICAL, legend.inventory[MYTHICAL]),
            )
        state = replace(state, legend=legend, discards=discards)
        if state.stage == STAGES:
            return replace(state, phase=Phase.OVER)
        # Lowest stage score starts; ties: earliest in this stage's order (FT17). Solo: the player.
        start = min(state.order, key=lambda seat: (state.explorers[seat].stage_scores[-1], state.order.index(seat)))
        n = len(state.explorers)
        order = tuple((start + k) % n for k in range(n))
        explorers = tuple(replace(e, pyramid=e.pyramid.next_stage(), complete=False) for e in state.explorers)
        pending = state.pending
        if legend is not None and state.options["legend"] == "the-legend" and legend.inventory[MYTHICAL] >= 7:
            pending = (*pending, Pending(PendingKind.GEM_TO_LEGEND))
        state = replace(state, stage=state.stage + 1, order=order, explorers=explorers, pending=pending)
        return self._advance(state, 0)

    def _apply_chance(self, state: PyramidoState, action: Draw | Reveal) -> PyramidoState:
        if not state.pending:
            raise IllegalActionError(f"action {action}: no chance is awaited now; {self.status(state).phase}")
        head = state.pending[0]
        rest = state.pending[1:]
        if isinstance(action, Draw):
            if head.kind not in (PendingKind.GEM_TO_SPACE, PendingKind.GEM_TO_LEGEND):
                raise IllegalActionError(f"action {action}: a domino is awaited ({head}), not a gem")
            if not state.bag[action.gem.index]:
                raise IllegalActionError(
                    f"action {action}: the bag holds no {action.gem.value} gem (it holds {gems_text(state.bag)})"
                )
            bag = gems_sub(state.bag, _one(action.gem))
            if head.kind is PendingKind.GEM_TO_LEGEND:
                assert state.legend is not None
                legend = replace(state.legend, inventory=gems_add(state.legend.inventory, _one(action.gem)))
                return replace(state, bag=bag, legend=legend, pending=rest)
            i = head.target - 1
            s = state.spaces[i]
            filled = replace(s, gems=gems_add(s.gems, _one(action.gem)))
            return replace(state, bag=bag, pending=rest, spaces=_set(state.spaces, i, filled))
        if head.kind not in (PendingKind.DOMINO_TO_PILE, PendingKind.DOMINO_TO_LEGEND):
            raise IllegalActionError(f"action {action}: a gem is awaited ({head}), not a domino")
        if action.domino.icon_count != 2:
            raise IllegalActionError(
                f"action {action}: every domino carries exactly 2 gem icons, {action.domino} shows "
                f"{action.domino.icon_count}"
            )
        unseen = state.unseen
        at = _top_index(state, head) if unseen is not None else 0
        # With a known deck the top itself is checked below; the back only matters when that check fails.
        known_ok = unseen is not None and at < len(unseen) and unseen[at] == action.domino
        if head.kind is PendingKind.DOMINO_TO_PILE and not known_ok:
            back = pile_back(state, head.target)
            if back is not None and action.domino.back() != back:
                raise IllegalActionError(
                    f"action {action}: a misread? pile {head.target}'s top showed the back {back} (colour and "
                    f"icon count per block), but {action.domino} has the back {action.domino.back()}"
                )
        if unseen is not None:
            # A known deck: the domino turned up is the one on top (the Legend's first domino leads the list).
            if not known_ok:
                where = (
                    "the Legend's domino" if head.kind is PendingKind.DOMINO_TO_LEGEND else f"pile {head.target}'s top"
                )
                raise IllegalActionError(
                    f"action {action}: {where} is {unseen[at] if at < len(unseen) else 'missing'} in the known deck, "
                    f"not {action.domino}"
                )
            state = replace(state, unseen=unseen[:at] + unseen[at + 1 :])
        if head.kind is PendingKind.DOMINO_TO_LEGEND:
            assert state.legend is not None
            return replace(state, legend=replace(state.legend, pile=(*state.legend.pile, action.domino)), pending=rest)
        i = head.target - 1
        s = state.spaces[i]
        return replace(state, pending=rest, spaces=_set(state.spaces, i, Space(s.face_down - 1, action.domino, s.gems)))

    def random_chance(self, state: PyramidoState, rng: random.Random) -> PyramidoAction:
        if not state.pending:
            raise IllegalActionError("no chance is awaited now")
        head = state.pending[0]
        if head.kind in (PendingKind.GEM_TO_SPACE, PendingKind.GEM_TO_LEGEND):
            pick = rng.randrange(sum(state.bag))
            for g in GEMS:
                pick -= state.bag[g.index]
                if pick < 0:
                    return Draw(g)
            raise AssertionError("empty bag")  # _settle never leaves a draw pending on an empty bag
        if state.unseen is not None:
            return Reveal(state.unseen[_top_index(state, head)])  # the deck is known: the top is what turns up
        back = pile_back(state, head.target) if head.kind is PendingKind.DOMINO_TO_PILE else None
        if back is not None:
            # A domino with the back that was seen, its icons in random quadrants.
            (ca, na), (cb, nb) = back.blocks
            return Reveal(
                Domino(Block(ca, tuple(rng.sample(range(4), na))), Block(cb, tuple(rng.sample(range(4), nb))))
            )
        return Reveal(rng.choice(generate_deck(rng.randrange(2**32))))

    def chance_outcomes(self, state: PyramidoState) -> list[PyramidoAction] | None:
        """For counting: a draw gives each gem colour still in the bag; a reveal from a known deck gives its
        top. A reveal from a deck the device does not know has too many outcomes to list (None)."""
        if not state.pending:
            return None
        head = state.pending[0]
        if head.kind in (PendingKind.GEM_TO_SPACE, PendingKind.GEM_TO_LEGEND):
            return [Draw(g) for g in GEMS if state.bag[g.index]]
        if state.unseen is not None:
            return [Reveal(state.unseen[_top_index(state, head)])]
        return None

    # --- helpers for the device ------------------------------------------------------------------
    def observe_back(self, state: PyramidoState, pile: int, back: Back) -> PyramidoState:
        """The state with ``back`` recorded as seen on ``pile``'s face-down top (the camera saw it).

        Refused when the pile shows no back (a face-up domino on it, or empty), and as a misread when it
        contradicts what is known: the known deck's top, or a different back already seen there."""
        if not 1 <= pile <= len(state.spaces):
            raise InvalidActionError(f"pile {pile} is not 1-{len(state.spaces)}")
        s = state.spaces[pile - 1]
        if s.face_up is not None or s.face_down == 0:
            shows = f"the face-up {s.face_up}" if s.face_up is not None else "nothing (it is empty)"
            raise IllegalActionError(f"back {back} seen on pile {pile}: that pile shows {shows}, not a back")
        known = pile_back(state, pile)
        if known is not None and known != back:
            source = "the known deck has" if known_top(state, pile) is not None else "was seen as"
            raise IllegalActionError(
                f"back {back} seen on pile {pile}: a misread? pile {pile}'s top {source} the back {known}"
            )
        if state.unseen is not None or s.back == back:
            return state  # nothing new: the deck already says it
        new = replace(state, spaces=_set(state.spaces, pile - 1, replace(s, back=back)))
        if state.__dict__.get("_sound"):
            new.__dict__["_sound"] = True
        return new

    def activation_actions(self, result: ActivationResult) -> list[PyramidoAction]:
        """The actions that place an activation's gems and end the player's scoring."""
        return [*(Activate(a) for a in result.activations), EndScoring()]

    def advice(self, state: PyramidoState, keep: Gems = NO_GEMS) -> ActivationResult:
        """The best activation for the player to score now (in the scoring phase), keeping ``keep``."""
        seat = self.to_move(state)
        if state.phase is not Phase.SCORE or seat is None:
            raise IllegalActionError(f"no player is placing gems now ({self.status(state).phase})")
        return best_activation(areas(state.explorers[seat].pyramid), state.explorers[seat].inventory, keep)

    def explain_place(
        self,
        state: PyramidoState,
        before: Mapping[tuple[int, int], tuple[Colour, bool]],
        after: Mapping[tuple[int, int], tuple[Colour, bool]],
    ) -> Place:
        """The ``place`` action that explains the camera's view of the player's pyramid before and after."""
        seat = self.to_move(state)
        if state.phase is not Phase.PLACE or seat is None or state.holding is None:
            raise IllegalActionError(f"no domino is being placed now ({self.status(state).phase})")
        return Place(explain_placement(state.explorers[seat].pyramid, state.holding, before, after))

    # --- scores and status ----------------------------------------------------------------------
    def score(self, state: PyramidoState) -> Score:
        players = {
            e.name: PlayerScore(e.total, {f"stage {k}": p for k, p in enumerate(e.stage_scores, start=1)})
            for e in state.explorers
        }
        if state.legend is not None:
            players[LEGEND] = PlayerScore(
                state.legend.total, {f"stage {k}": p for k, p in enumerate(state.legend.stage_scores, start=1)}
            )
        return Score(players)

    def winners(self, state: PyramidoState) -> tuple[str, ...]:
        """Who wins a finished game: highest total, then most gems left, then best stage, else shared."""
        if state.legend is not None:
            human = state.explorers[0]
            return (LEGEND,) if state.legend.total >= human.total else (human.name,)

        def key(e: Explorer) -> tuple[int, int, int]:
            return (e.total, sum(e.inventory), max(e.stage_scores, default=0))

        best = max(key(e) for e in state.explorers)
        return tuple(e.name for e in state.explorers if key(e) == best)

    def status(self, state: PyramidoState) -> Status:
        defects = () if state.__dict__.get("_sound") else tuple(self.defects(state))
        finished = state.phase is Phase.OVER
        seat = None if defects else self.to_move(state)
        if state.pending:
            phase = f"stage {state.stage}: chance ({state.pending[0]})"
            awaiting = "chance"
        elif finished:
            phase, awaiting = "game over", "nothing"
        else:
            label = state.phase.value
            scored = seat is not None and len(state.explorers[seat].stage_scores) == state.stage
            if state.phase is Phase.SCORE and scored:
                label = "discard"
            phase, awaiting = f"stage {state.stage}: {label}", "decision"
        return Status(
            to_move=state.explorers[seat].name if seat is not None else None,
            phase=phase,
            awaiting=awaiting,
            finished=finished,
            winners=self.winners(state) if finished and not defects else (),
            defects=defects,
        )

    def defects(self, state: PyramidoState) -> list[str]:
        """What makes a state read from JSON or the camera inconsistent with the rules."""
        out: list[str] = []
        gem_tuples = [("bag", state.bag), ("discards", state.discards), ("supply", state.supply)]
        gem_tuples += [(f"space {i + 1} gems", s.gems) for i, s in enumerate(state.spaces)]
        gem_tuples += [(f"{e.name}'s inventory", e.inventory) for e in state.explorers]
        if state.legend is not None:
            gem_tuples.append(("the Legend's inventory", state.legend.inventory))
        for what, g in gem_tuples:
            if len(g) != 6 or min(g, default=0) < 0:
                out.append(f"{what} {list(g)} is not 6 non-negative gem counts")
        if out:
            return out
        if len(state.spaces) != SPACES:
            out.append(f"the exploration area has {len(state.spaces)} spaces, not {SPACES}")
        out += [
            f"space {i + 1} has {s.face_down} face-down dominoes" for i, s in enumerate(state.spaces) if s.face_down < 0
        ]
        try:
            if dict(state.options) != self.resolve_options(state.options):
                out.append(f"rule options {dict(state.options)} leave some out")
        except InvalidActionError as exc:
            out.append(str(exc))
        if out:
            return out
        if not 1 <= state.stage <= STAGES:
            return [*out, f"stage {state.stage} is not 1-4"]
        total = NO_GEMS
        for what, g in gem_tuples:
            if what != "supply":
                total = gems_add(total, g)
        if total != state.supply:
            out.append(
                f"gems do not add up: bag, discards, gem areas and inventories hold {gems_text(total)}, "
                f"the supply is {gems_text(state.supply)}"
            )
        dominoes = sum(s.size for s in state.spaces) + (state.holding is not None)
        dominoes += sum(len(e.pyramid.placed) for e in state.explorers)
        if state.legend is not None:
            dominoes += len(state.legend.pile)
        pending_legend = sum(1 for p in state.pending if p.kind is PendingKind.DOMINO_TO_LEGEND)
        if dominoes + pending_legend != DECK_SIZE:
            out.append(f"dominoes do not add up: {dominoes} are accounted for, the game has {DECK_SIZE}")
        for i, s in enumerate(state.spaces):
            if s.back is None:
                continue
            if s.face_up is not None or s.face_down == 0:
                out.append(f"pile {i + 1} has a back {s.back} recorded but shows no back")
            elif (top := known_top(state, i + 1)) is not None and top.back() != s.back:
                out.append(f"pile {i + 1} has the back {s.back} recorded but its top in the deck is {top}")
            elif sum(n for _c, n in s.back.blocks) != ICONS_PER_DOMINO:
                out.append(f"pile {i + 1}'s back {s.back} shows {sum(n for _c, n in s.back.blocks)} gem icons")
        ups = sum(1 for s in state.spaces if s.face_up is not None)
        if ups > 3:
            out.append(f"{ups} dominoes are face up in the exploration area; there are never more than 3")
        if state.unseen is not None:
            # The dominoes seen and the unseen ones together must be a deck that meets the published totals.
            out += [f"seen and unseen dominoes: {p}" for p in deck_problems([*seen_dominoes(state), *state.unseen])]
            face_down = sum(s.face_down for s in state.spaces) + pending_legend
            if len(state.unseen) != face_down:
                out.append(f"{len(state.unseen)} dominoes are listed unseen but {face_down} lie face down")
        if sorted(state.order) != list(range(len(state.explorers))):
            out.append(f"turn order {list(state.order)} is not a permutation of the {len(state.explorers)} seats")
        elif not 0 <= state.turn < len(state.order):
            out.append(f"turn {state.turn} is outside the turn order")
        if state.phase is Phase.PLACE and state.holding is None and not state.pending:
            out.append("the player is to place a domino but holds none")
        for e in state.explorers:
            if e.pyramid.stage != state.stage:
                out.append(f"{e.name}'s pyramid is on stage {e.pyramid.stage}, the game on stage {state.stage}")
            out += [f"{e.name}'s pyramid: {d}" for d in e.pyramid.defects]
            if len(e.stage_scores) > state.stage:
                out.append(f"{e.name} has {len(e.stage_scores)} stage scores in stage {state.stage}")
        if state.solo and len(state.explorers) != 1:
            out.append("solo mode has exactly one player")
        return out

    # --- text and JSON --------------------------------------------------------------------------
    def parse_action(self, text: str, state: PyramidoState | None = None) -> PyramidoAction:
        return parse_action(text)

    # --- what the players read (engine.pyramido.words) ------------------------------------------
    def describe(self, state: PyramidoState, action: PyramidoAction) -> LegalAction:
        """``action`` in words; groups: take, flip, place, score, end, discard, chance (see
        :mod:`engine.pyramido.words`)."""
        from engine.pyramido import words  # words reads this module's actions

        label, group = words.label(state, action)
        return LegalAction(self.action_text(action), label, group)

    def chance_prompt(self, state: PyramidoState) -> ChancePrompt | None:
        from engine.pyramido import words

        return words.chance_prompt(state)

    def advise(
        self, state: PyramidoState, *, seed: int = 0, budget_s: float = 0.3, playouts: int | None = None
    ) -> Advice | None:
        """The hint for the decision now, ranked by seeded playouts (:mod:`engine.pyramido.advice`)."""
        from engine.pyramido import advice  # advice plays the game: imported when asked

        return advice.advise(state, seed=seed, budget_s=budget_s, playouts=playouts)

    def board_text(self, state: PyramidoState) -> str:
        from engine.pyramido import words

        return words.board_text(state)

    def state_from_json(self, text: str) -> PyramidoState:
        state: PyramidoState = serial.loads(PyramidoState, text)
        return state


GAME = instance(Pyramido)


__all__ = [
    "DECK_SIZE",
    "GAME",
    "INVENTORY_LIMIT",
    "LEGEND",
    "OPTIONS",
    "Activate",
    "Discard",
    "Draw",
    "EndScoring",
    "Explorer",
    "Flip",
    "LegendState",
    "Pending",
    "PendingKind",
    "Phase",
    "Place",
    "Pyramido",
    "PyramidoAction",
    "PyramidoState",
    "Reveal",
    "Take",
    "gem_supply",
    "known_top",
    "parse_action",
    "pile_back",
    "seen_dominoes",
    "split_unseen",
]
