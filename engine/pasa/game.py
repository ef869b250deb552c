"""Paša-řada-pyramida as a game under the engine contract: the legality of actions, scores and status.

The state and actions are in :mod:`engine.pasa.state` (importable from here too), the points of the dice in
:mod:`engine.pasa.scoring`, the words in :mod:`engine.pasa.words`, the optimal advisor in :mod:`engine.pasa.advice`.

A turn (RULES.md 4.1): roll 1 throws all six dice; the player then *chooses* a category at once (binding);
up to two re-rolls of any subset follow; the player may stop after any roll and the dice are scored in
the chosen category. Every player fills all nine categories once; the highest total wins, ties share.

Chance is an action: a :class:`Roll` carries all six dice that lie on the table after the throw (a re-roll's
outcome includes the kept dice). At the table the camera sends a ``Roll`` also in the hold phase without a
:class:`Reroll` first, since it cannot tell which dice were held: that counts as the next roll.
The offline scorekeeper records a turn in one :class:`Enter` (category and points, validated against the
points some roll can give) instead of rolls; it is accepted whenever a turn has not started.
"""

from __future__ import annotations

import itertools
import random
from collections import Counter
from collections.abc import Mapping, Sequence
from dataclasses import replace
from functools import cache

from engine.advice import Advice
from engine.dice import check_face
from engine.errors import IllegalActionError, InvalidActionError, legal_hint
from engine.game import ChancePrompt, Game, LegalAction, PlayerScore, RuleOption, Score, Status, register
from engine.pasa.scoring import (
    CATEGORIES,
    DEFAULT_RULE,
    RULES,
    TITLES,
    _score_sorted,
    _valid,
    check_category,
    check_dice,
    check_entry,
    check_rule,
)
from engine.pasa.state import (
    ACTION_FORMS,
    MAX_ROLLS,
    Choose,
    Enter,
    PasaAction,
    PasaState,
    Phase,
    Reroll,
    Roll,
    Stop,
    _dice_text,
    parse_action,
)

RULE_OPTION = RuleOption(
    name="pasa",
    choices=RULES,
    default=DEFAULT_RULE,
    doc=(
        "what makes a Paša (RULES.md 4.3): even-pairs = every die even and every value an even count "
        "(the category's name and all three worked examples; valid 0,12,16,...,36); distinct-pairs = three "
        "pairs of three different values, any parity (the published 12-30 validator and 209 maximum); "
        "strict-246 = exactly 2 2 4 4 6 6"
    ),
)


def is_submultiset(part: Sequence[int], whole: Sequence[int]) -> bool:
    return not Counter(part) - Counter(whole)


def sub_multisets(dice: Sequence[int]) -> list[tuple[int, ...]]:
    """Every distinct sub-multiset of ``dice`` as a sorted tuple (the empty one first, all of them last)."""
    return list(_sub_multisets(tuple(sorted(dice))))


@cache  # at most 462 six-dice rolls (plus a few partial ones), asked for at every hold decision
def _sub_multisets(dice: tuple[int, ...]) -> tuple[tuple[int, ...], ...]:
    counts = sorted(Counter(dice).items())
    result = []
    for takes in itertools.product(*(range(n + 1) for _, n in counts)):
        result.append(tuple(face for (face, _), k in zip(counts, takes, strict=True) for _ in range(k)))
    result.sort(key=lambda t: (len(t), t))
    return tuple(result)


@cache
def _throws(n: int) -> tuple[tuple[int, ...], ...]:
    """Every multiset of ``n`` faces, sorted."""
    return tuple(itertools.combinations_with_replacement(range(1, 7), n))


# --- the game -------------------------------------------------------------------------------------


@register
class PasaGame(Game[PasaState, PasaAction]):
    """Paša-řada-pyramida: 1 to 8 players, 6 dice, 9 categories each used once, up to 3 rolls a turn.

    Action groups for the page (:meth:`describe`): ``category`` (choose after roll 1), ``hold`` (keep some
    dice, re-roll the rest), ``stop`` (end the turn), ``enter`` (offline entry), ``chance`` (a roll).
    """

    name = "pasa"
    title = "Paša-řada-pyramida"
    aliases = ("paša-řada-pyramida", "pasa-rada-pyramida")
    min_players = 1
    max_players = 8
    options = (RULE_OPTION,)
    state_type = PasaState
    action_type = PasaAction
    action_groups = ("category", "hold", "stop", "enter", "chance")
    action_grammar = (
        "roll D D D D D D          chance: the six dice on the table after a throw (kept dice included)",
        "choose CATEGORY           right after roll 1: this turn's category (binding)",
        "reroll keep D ... | -     keep these dice and throw the rest again",
        "stop                      score the dice on the table in the chosen category",
        "enter CATEGORY POINTS     offline scorekeeping: a whole turn's score, written by hand",
        "CATEGORY: " + ", ".join(CATEGORIES),
    )

    def initial_state(
        self, players: Sequence[str], options: Mapping[str, str] | None = None, *, seed: int | None = None
    ) -> PasaState:
        names = self.check_players(players)
        rule = self.resolve_options(options)["pasa"]
        return PasaState(players=names, rule=rule, sheets={p: {} for p in names})

    # --- legality ---------------------------------------------------------------------------------
    def legal_actions(self, state: PasaState) -> list[PasaAction]:
        phase = state.phase
        if phase == "choose":
            return [Choose(c) for c in state.open_categories()]
        if phase == "hold":
            keeps = sub_multisets(state.dice)[:-1]  # keeping all six re-rolls nothing: that is Stop
            return [Stop(), *(Reroll(k) for k in keeps)]
        if phase == "stop":
            return [Stop()]
        return []  # roll / reroll await chance (or an offline Enter); finished awaits nothing

    def legal_entries(self, state: PasaState) -> list[Enter]:
        """Every offline entry the player to move could make now (empty once a turn has started)."""
        if state.phase != "roll":
            return []
        return [Enter(c, p) for c in state.open_categories() for p in _valid(c, state.rule)]

    def apply(self, state: PasaState, action: PasaAction) -> PasaState:
        if state.finished:
            raise IllegalActionError(f"{action} refused: the game is over, every sheet is complete")
        if isinstance(action, Roll):
            return self._roll(state, action)
        if isinstance(action, Choose):
            return self._choose(state, action)
        if isinstance(action, Reroll):
            return self._reroll(state, action)
        if isinstance(action, Stop):
            return self._stop(state)
        if isinstance(action, Enter):
            return self._enter(state, action)
        raise InvalidActionError(f"{action!r} is not a Paša-řada-pyramida action ({ACTION_FORMS})")

    def _roll(self, state: PasaState, action: Roll) -> PasaState:
        dice = check_dice(action.dice)
        phase = state.phase
        if phase == "choose":
            raise IllegalActionError(
                f"{action} refused: {state.player} must choose a category after roll 1 before rolling again; "
                f"{legal_hint(self.legal_actions(state))}"
            )
        if state.rolls >= MAX_ROLLS:
            raise IllegalActionError(
                f"{action} refused: {state.player} has made {MAX_ROLLS} rolls this turn, a 4th is not allowed; "
                "legal: stop"
            )
        if phase == "reroll":
            assert state.keep is not None
            if not is_submultiset(state.keep, dice):
                raise IllegalActionError(
                    f"{action} refused: the kept dice {_dice_text(state.keep)} must still be on the table"
                )
        # phase "hold" without a Reroll is the camera's re-roll of an unknown subset: any six dice fit.
        return replace(state, dice=dice, rolls=state.rolls + 1, keep=None)

    def _choose(self, state: PasaState, action: Choose) -> PasaState:
        category = check_category(action.category)
        if state.phase != "choose":
            why = (
                "roll 1 comes first"
                if state.rolls == 0
                else f"the category is chosen once, right after roll 1, and is {state.category}"
            )
            raise IllegalActionError(f"{action} refused: {why}")
        if category in state.used():
            raise IllegalActionError(
                f"{action} refused: {TITLES[category]} is already used on {state.player}'s sheet; "
                f"{legal_hint(self.legal_actions(state))}"
            )
        return replace(state, category=category)

    def _reroll(self, state: PasaState, action: Reroll) -> PasaState:
        keep = tuple(sorted(check_face(v, "kept die") for v in action.keep))
        phase = state.phase
        if phase == "stop":
            raise IllegalActionError(
                f"{action} refused: {state.player} has made {MAX_ROLLS} rolls this turn, a 4th is not allowed; "
                "legal: stop"
            )
        if phase != "hold":
            why = {
                "roll": "roll 1 comes first",
                "choose": "choose a category first",
                "reroll": f"a re-roll keeping {_dice_text(state.keep or ())} is already waiting for its throw",
            }[phase]
            raise IllegalActionError(f"{action} refused: {why}")
        if not is_submultiset(keep, state.dice):
            raise IllegalActionError(
                f"{action} refused: cannot hold {_dice_text(keep)}, the dice on the table are "
                f"{_dice_text(state.dice)}"
            )
        if len(keep) == len(state.dice):
            raise IllegalActionError(f"{action} refused: keeping all six dice re-rolls nothing; say stop instead")
        return replace(state, keep=keep)

    def _stop(self, state: PasaState) -> PasaState:
        phase = state.phase
        if phase not in ("hold", "stop"):
            why = {
                "roll": "no dice have been rolled this turn",
                "choose": "choose a category first",
                "reroll": f"a re-roll keeping {_dice_text(state.keep or ())} is waiting for its throw",
            }[phase]
            raise IllegalActionError(f"stop refused: {why}")
        assert state.category is not None
        points = _score_sorted(state.category, state.dice, state.rule)
        return self._record(state, state.category, points)

    def _enter(self, state: PasaState, action: Enter) -> PasaState:
        category = check_category(action.category)
        points = check_entry(category, action.points, state.rule)
        if state.phase != "roll":
            raise IllegalActionError(
                f"{action} refused: {state.player}'s turn is being played with dice; finish it (stop)"
            )
        if category in state.used():
            open_ = ", ".join(state.open_categories())
            raise IllegalActionError(
                f"{action} refused: {TITLES[category]} is already used on {state.player}'s sheet; open: {open_}"
            )
        return self._record(state, category, points)

    @staticmethod
    def _record(state: PasaState, category: str, points: int) -> PasaState:
        sheets = {p: dict(s) for p, s in state.sheets.items()}
        sheets[state.player][category] = points
        return PasaState(
            players=state.players,
            rule=state.rule,
            sheets=sheets,
            to_move=(state.to_move + 1) % len(state.players),
        )

    # --- scores and status ------------------------------------------------------------------------
    def score(self, state: PasaState) -> Score:
        players = {}
        for p in state.players:
            sheet = state.sheets.get(p, {})
            breakdown = {c: sheet[c] for c in CATEGORIES if c in sheet}
            players[p] = PlayerScore(total=sum(breakdown.values()), breakdown=breakdown)
        return Score(players)

    def status(self, state: PasaState) -> Status:
        defects = tuple(self._defects(state))
        if defects:
            return Status(to_move=None, phase="invalid", awaiting="nothing", defects=defects)
        phase = state.phase
        if phase == "finished":
            totals = self.score(state).totals()
            best = max(totals.values())
            winners = tuple(p for p in state.players if totals[p] == best)
            return Status(to_move=None, phase=phase, awaiting="nothing", finished=True, winners=winners)
        awaiting = "chance" if phase in ("roll", "reroll") else "decision"
        return Status(to_move=state.player, phase=phase, awaiting=awaiting)

    def _defects(self, state: PasaState) -> list[str]:
        out: list[str] = []
        if state.rule not in RULES:
            out.append(f"unknown Paša rule {state.rule!r}")
            return out
        if not state.players or len(state.players) > self.max_players or len(set(state.players)) != len(
            state.players
        ):
            out.append(f"players must be 1 to {self.max_players} distinct names, got {list(state.players)}")
            return out
        if set(state.sheets) != set(state.players):
            out.append(f"sheets are for {sorted(state.sheets)}, players are {sorted(state.players)}")
            return out
        for p, sheet in state.sheets.items():
            for c, pts in sheet.items():
                if c not in CATEGORIES:
                    out.append(f"{p}'s sheet has unknown category {c!r}")
                elif pts not in _valid(c, state.rule):
                    out.append(f"{p}'s sheet has impossible {pts} in {TITLES[c]}")
        if not 0 <= state.to_move < len(state.players):
            out.append(f"player to move {state.to_move} is not a seat 0..{len(state.players) - 1}")
            return out
        # Turns go round the table: players before the one to move have made one more entry.
        filled = [len(state.sheets[p]) for p in state.players]
        base = filled[state.to_move]
        expected = [base + 1 if i < state.to_move else base for i in range(len(state.players))]
        if filled != expected and not (state.to_move == 0 and all(n == len(CATEGORIES) for n in filled)):
            out.append(f"entries per player {filled} do not fit {state.player} being to move")
        if any(not 1 <= d <= 6 for d in state.dice) or len(state.dice) not in (0, 6):
            out.append(f"dice on the table {list(state.dice)} are not six faces 1..6")
        if not 0 <= state.rolls <= MAX_ROLLS or (state.rolls == 0) != (not state.dice):
            out.append(f"{state.rolls} rolls made does not fit dice {list(state.dice)}")
        if state.category is not None:
            if state.category not in CATEGORIES:
                out.append(f"chosen category {state.category!r} is unknown")
            elif state.category in state.sheets[state.player]:
                out.append(f"chosen category {state.category} is already used")
            if state.rolls == 0:
                out.append("a category is chosen before roll 1")
        if state.keep is not None and (
            state.category is None or state.rolls >= MAX_ROLLS or not is_submultiset(state.keep, state.dice)
        ):
            out.append(f"pending re-roll keeping {list(state.keep)} does not fit the turn")
        if state.finished and (state.rolls or state.dice):
            out.append("dice are on the table after the game ended")
        return out

    # --- chance -----------------------------------------------------------------------------------
    def random_chance(self, state: PasaState, rng: random.Random) -> Roll:
        phase = state.phase
        if phase == "roll":
            return Roll(tuple(sorted(rng.randint(1, 6) for _ in range(6))))
        if phase == "reroll":
            assert state.keep is not None
            thrown = [rng.randint(1, 6) for _ in range(6 - len(state.keep))]
            return Roll(tuple(sorted([*state.keep, *thrown])))
        raise IllegalActionError(f"no roll is awaited in phase {phase}")

    # --- text -------------------------------------------------------------------------------------
    def parse_action(self, text: str, state: PasaState | None = None) -> PasaAction:
        return parse_action(text)

    # --- what the players read (engine.pasa.words) -------------------------------------------------
    def describe(self, state: PasaState, action: PasaAction) -> LegalAction:
        """``action`` in words; groups: category, hold, stop, enter, chance (see :mod:`engine.pasa.words`)."""
        from engine.pasa import words  # words reads this module's actions

        label, group = words.label(state, action)
        return LegalAction(self.action_text(action), label, group)

    def chance_prompt(self, state: PasaState) -> ChancePrompt | None:
        from engine.pasa import words

        return words.chance_prompt(state)

    def entries(self, state: PasaState) -> list[PasaAction]:
        return list(self.legal_entries(state))

    def part_title(self, part: str) -> str:
        return TITLES.get(part, part)

    def chance_outcomes(self, state: PasaState) -> list[PasaAction] | None:
        """Every distinct throw: the six dice as a multiset (462 at roll 1), the kept dice included."""
        if self.status(state).awaiting != "chance":
            return None
        kept = tuple(state.keep or ()) if state.phase == "reroll" else ()
        return [Roll(tuple(sorted(kept + rest))) for rest in _throws(6 - len(kept))]

    def advise(
        self, state: PasaState, *, seed: int = 0, budget_s: float = 0.3, playouts: int | None = None
    ) -> Advice | None:
        """The exact optimal advisor's ranking (:mod:`engine.pasa.advice`: dynamic programming, no playouts, so
        ``seed``, ``budget_s`` and ``playouts`` change nothing) as a hint: categories to choose, or dice to hold."""
        from engine.advice import RankedOption
        from engine.pasa.advice import get_advisor  # the advisor plays this game: imported when asked

        if state.phase not in ("choose", "hold"):
            return None
        got = get_advisor(state.rule).advise(state)
        sheet = float(got["sheet_total"])
        if state.phase == "choose":
            ranked = [(f"choose {c['category']}", sheet + c["expected_rest"]) for c in got["categories"]]
        else:
            ranked = [("stop" if h["stop"] else "reroll keep " + (" ".join(map(str, h["keep"])) or "-"),
                       sheet + h["expected_rest"]) for h in got["holds"]]
        options = []
        for text, value in ranked:
            d = self.describe(state, self.parse_action(text, state))
            options.append(RankedOption(d.text, d.label, d.group, value, value, 0.0, 0, exact=True))
        return Advice(game=self.name, player=state.player, decision="which category" if state.phase == "choose"
                      else "which dice to hold", measure="expected total", options=tuple(options), rounds=0,
                      elapsed_ms=0.0, seed=seed, budget_s=budget_s, horizon="game end (exact)",
                      policy="the exact optimal advisor (engine.pasa.advice)",
                      note="exact expected final total for a player who plays on optimally")

    def board_text(self, state: PasaState) -> str:
        from engine.pasa import words

        return words.board_text(state)


__all__ = [
    "ACTION_FORMS",
    "MAX_ROLLS",
    "RULE_OPTION",
    "Choose",
    "Enter",
    "PasaAction",
    "PasaGame",
    "PasaState",
    "Phase",
    "Reroll",
    "Roll",
    "Stop",
    "check_rule",
    "parse_action",
    "sub_multisets",
]
