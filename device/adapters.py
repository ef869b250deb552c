"""What the session needs to know about one game at the table: how a settled reading of the dice becomes
an action, what the buttons mean in each phase, and what the live page shows.

Only Paša-řada-pyramida is wired up so far (:class:`PasaAdapter`); the other games plug in here with
their own adapter. Legality, scores and advice still come only from the engine: the adapter asks it.
"""

from __future__ import annotations

import importlib
import logging
from abc import ABC, abstractmethod
from collections import Counter
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from engine.game import Game
from vision.types import DieReading

log = logging.getLogger(__name__)


@dataclass(frozen=True)
class ButtonChoice:
    """What a button press means now: select a category, take an action, or start the next game."""

    action: Any = None
    select: str | None = None
    new_game: bool = False
    hint: str | None = None


class TableAdapter(ABC):
    """One game's table logic for the session."""

    #: Dice the game expects on the table at once.
    dice_count: int = 6

    def __init__(self, game: Game[Any, Any]) -> None:
        self.game = game

    def table_problems(
        self, dice: Sequence[DieReading], corrections: Mapping[int, int], *, confirmed: bool
    ) -> list[str]:
        """Why the reading cannot be accepted as it is (empty: it can)."""
        problems = []
        if len(dice) != self.dice_count:
            problems.append(f"{self.dice_count} dice expected on the table, {len(dice)} seen")
            return problems
        if confirmed:
            return problems
        for i, d in enumerate(dice):
            if i in corrections:
                continue
            if d.cocked:
                problems.append(f"die {i + 1} is cocked (leaning): lay it flat, correct it, or press CONFIRM")
            elif d.unsure:
                problems.append(f"die {i + 1} is hard to read (looks like {d.value}): correct it or press CONFIRM")
        return problems

    @abstractmethod
    def action_for_table(self, state: Any, values: tuple[int, ...], *, moved: bool) -> Any:
        """The action that explains a settled table, or None when nothing changed."""

    @abstractmethod
    def is_table_action(self, action: Any) -> bool:
        """Whether ``action`` came from what lies on the table (so a correction can replace it)."""

    @abstractmethod
    def button(self, state: Any, button: str, *, long: bool, selection: str | None) -> ButtonChoice:
        """What CONFIRM, NEXT (UNDO is the session's) mean now."""

    @abstractmethod
    def view(self, state: Any, *, selection: str | None) -> dict[str, Any]:
        """The game-specific part of the live page."""


class PasaAdapter(TableAdapter):
    """Paša-řada-pyramida: six dice in a tray, a binding category after roll 1, up to two re-rolls."""

    dice_count = 6

    def __init__(self, game: Game[Any, Any]) -> None:
        super().__init__(game)
        self.rules = importlib.import_module("engine.pasa")
        self._advisors: dict[str, Any] = {}

    def advisor(self, rule: str) -> Any:
        if rule not in self._advisors:
            try:
                module = importlib.import_module("engine.pasa.advisor")
                self._advisors[rule] = module.Advisor(rule)
            except ImportError:  # the advisor is optional for keeping score
                self._advisors[rule] = None
        return self._advisors[rule]

    def action_for_table(self, state: Any, values: tuple[int, ...], *, moved: bool) -> Any:
        phase = state.phase
        dice = tuple(sorted(values))
        if phase == "roll":
            # A new turn starts when the dice were thrown; the last player's dice lying still are not a roll.
            return self.rules.Roll(dice) if moved else None
        if dice == tuple(state.dice):
            return None
        if phase in ("hold", "reroll", "stop", "choose"):
            return self.rules.Roll(dice)  # the engine refuses a re-roll before the choice or after roll 3
        return None

    def is_table_action(self, action: Any) -> bool:
        return isinstance(action, self.rules.Roll)

    def best_category(self, state: Any) -> str | None:
        ranking = self.ranking(state)
        if ranking:
            return str(ranking[0]["category"])
        open_ = state.open_categories()
        return open_[0] if open_ else None

    def button(self, state: Any, button: str, *, long: bool, selection: str | None) -> ButtonChoice:
        phase = state.phase
        if phase == "finished":
            return ButtonChoice(new_game=True) if button == "confirm" and long else ButtonChoice()
        if phase == "choose":
            open_ = state.open_categories()
            current = selection if selection in open_ else self.best_category(state)
            if button == "next":
                if current not in open_:
                    return ButtonChoice(select=open_[0])
                return ButtonChoice(select=open_[(open_.index(current) + 1) % len(open_)])
            if button == "confirm" and current is not None:
                return ButtonChoice(action=self.rules.Choose(current))
        if phase in ("hold", "stop") and button == "confirm" and long:
            return ButtonChoice(action=self.rules.Stop())
        return ButtonChoice()

    def ranking(self, state: Any) -> list[dict[str, Any]]:
        if state.phase != "choose":
            return []
        advisor = self.advisor(state.rule)
        if advisor is None:
            return []
        try:
            ranked = advisor.rank_categories(state.used(), state.dice)
        except Exception as exc:  # advice is a help, never a reason to stop keeping score
            log.warning("advisor failed: %s", exc)
            return []
        return [_ranked(item, "category") for item in ranked]

    def holds(self, state: Any) -> list[dict[str, Any]]:
        if state.phase != "hold" or state.category is None:
            return []
        advisor = self.advisor(state.rule)
        if advisor is None:
            return []
        try:
            ranked = advisor.rank_holds(state.used(), state.category, state.dice, state.rolls_left)
        except Exception as exc:
            log.warning("advisor failed: %s", exc)
            return []
        return [_ranked(item, "keep") for item in ranked]

    def view(self, state: Any, *, selection: str | None) -> dict[str, Any]:
        rules = self.rules
        dice = tuple(state.dice)
        ranking = self.ranking(state)
        holds = self.holds(state)
        best_keep: tuple[int, ...] | None = tuple(holds[0]["keep"]) if holds else None
        hold_mask = _mask(dice, best_keep) if best_keep is not None else [False] * len(dice)
        open_ = state.open_categories() if state.phase != "finished" else []
        if state.phase == "choose":
            selected = selection if selection in open_ else (ranking[0]["category"] if ranking else None)
        else:
            selected = None
        categories = []
        for c in rules.CATEGORIES:
            categories.append({
                "name": c,
                "title": rules.TITLES[c],
                "open": c in open_,
                "now": rules.score(c, dice, state.rule) if dice and c in open_ else None,
            })
        sheets = {
            p: {c: state.sheets[p].get(c) for c in rules.CATEGORIES} for p in state.players
        }
        return {
            "kind": "pasa",
            "phase": state.phase,
            "player": state.player if state.phase != "finished" else None,
            "dice": list(dice),
            "roll": state.rolls,
            "max_rolls": rules.MAX_ROLLS,
            "category": state.category,
            "category_title": rules.TITLES[state.category] if state.category else None,
            "categories": categories,
            "ranking": ranking[:9],
            "holds": holds[:5],
            "hold_mask": hold_mask,
            "selection": selected,
            "sheets": sheets,
            "totals": {p: sum(v for v in state.sheets[p].values()) for p in state.players},
            "rule": state.rule,
            "hint": _hint(state.phase),
        }


def _hint(phase: str) -> str:
    return {
        "roll": "Roll all six dice.",
        "choose": "Choose this turn's category (NEXT cycles, CONFIRM chooses).",
        "hold": "Re-roll any dice, or hold CONFIRM to end the turn.",
        "reroll": "Throw the dice you are not keeping.",
        "stop": "Three rolls made: hold CONFIRM to write the score.",
        "finished": "Game over. Hold CONFIRM for a new game.",
    }.get(phase, "")


def _ranked(item: Any, key: str) -> dict[str, Any]:
    """Normalise one advisor entry (a mapping, a dataclass or a (thing, value) pair) for the page."""
    if isinstance(item, Mapping):
        thing, value = item.get(key), item.get("value", item.get("expected"))
    elif hasattr(item, key):
        thing = getattr(item, key)
        value = next((getattr(item, a) for a in ("value", "expected", "ev") if hasattr(item, a)), None)
    else:
        thing, value = item[0], item[1]
    if isinstance(thing, (tuple, list)):
        thing = [int(v) for v in thing]
    return {key: thing, "value": round(float(value), 2) if value is not None else None}


def _mask(dice: Sequence[int], keep: Sequence[int]) -> list[bool]:
    """Which dice (in table order) to hold for the multiset ``keep``."""
    left = Counter(keep)
    mask = []
    for d in dice:
        mask.append(left[d] > 0)
        if left[d] > 0:
            left[d] -= 1
    return mask


ADAPTERS: dict[str, type[TableAdapter]] = {"pasa": PasaAdapter}


def adapter_for(game: Game[Any, Any]) -> TableAdapter:
    try:
        return ADAPTERS[game.name](game)
    except KeyError:
        raise ValueError(
            f"{game.title} cannot be played at the table yet; live games: {', '.join(sorted(ADAPTERS))}"
        ) from None
