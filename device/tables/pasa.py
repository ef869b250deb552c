"""Paša-řada-pyramida at the table: six dice in a tray, a binding category after roll 1, up to two re-rolls.

The observation is the :class:`Tray`: the dice read (with their confidences), the players' corrections and
whether the dice were seen moving. :mod:`engine.pasa.observe` says which roll explains it. NEXT cycles the
open categories after roll 1 and CONFIRM chooses the one pointed at; a long CONFIRM ends the turn (or, after
the game, starts the next one).
"""

from __future__ import annotations

import importlib
import logging
from collections import Counter
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, replace
from typing import Any

from device.errors import SessionError
from device.stability import agrees, arrange_dice
from device.tables import ButtonChoice, Explained, TableAdapter, explained_by
from engine.errors import GameError
from engine.game import Game
from engine.pasa import CATEGORIES, MAX_ROLLS, TITLES, Choose, PasaState, Stop, score
from engine.pasa.observe import SeenDie, TrayView, doubts, explain_tray, is_tray_action
from vision.types import DieReading

log = logging.getLogger(__name__)


@dataclass(frozen=True)
class Tray:
    """The dice lying still in the tray as read (table order), the players' corrections (index -> face),
    whether the dice were seen moving since the last accepted reading, and whether a player accepted the
    doubtful dice as read."""

    dice: tuple[DieReading, ...]
    moved: bool = False
    corrections: tuple[tuple[int, int], ...] = ()
    confirmed: bool = False

    def corrected(self) -> dict[int, int]:
        return dict(self.corrections)

    def view(self) -> TrayView:
        fixed = self.corrected()
        return TrayView(
            tuple(
                SeenDie(fixed.get(i, d.value), sure=not d.unsure or self.confirmed,
                        cocked=d.cocked and not self.confirmed, corrected=i in fixed)
                for i, d in enumerate(self.dice)
            ),
            moved=self.moved,
        )


class PasaTable(TableAdapter):
    """Paša's table logic and live view (with the exact advisor's ranking of categories and holds)."""

    name = "pasa"
    live = "camera"
    reads_dice_tray = True

    def __init__(self, game: Game[Any, Any]) -> None:
        super().__init__(game)
        self.selection: str | None = None  # the category NEXT points at after roll 1
        self._advisors: dict[str, Any] = {}

    # --- reading the table ----------------------------------------------------------------------
    def frame_reader(self, table: Mapping[str, Any]) -> Callable[[Any], Sequence[Any]]:
        """The dice recogniser (the tray needs no mats); ``table["palette"]`` names its colours."""
        try:
            from vision.recognize import DiceRecognizer  # type: ignore[import-not-found,unused-ignore]

            recognizer = DiceRecognizer(palette=str(table.get("palette", "dice")), threads=1)
        except (ImportError, ValueError, OSError) as exc:
            raise SessionError(f"the dice recogniser cannot be loaded ({exc})") from None
        return lambda image: list(recognizer.read(image))

    def truth_readings(self, truth: Any) -> Sequence[Any]:
        return tuple(truth or ())

    def readings_agree(self, a: Sequence[Any], b: Sequence[Any]) -> bool:
        return agrees(a, b)

    def arrange(self, readings: Sequence[Any]) -> Sequence[Any]:
        return arrange_dice(readings)

    def annotate(self, image: Any, readings: Sequence[Any]) -> Any:
        from vision.recognize import annotate  # the page's camera view only

        return annotate(image, list(readings))

    # --- what the camera saw -------------------------------------------------------------------
    def observe(self, readings: Sequence[Any], *, moved: bool) -> Tray:
        return Tray(tuple(readings), moved=moved)

    def correct(self, seen: Any, index: int, value: Any) -> Tray:
        tray = _tray(seen)
        if not 0 <= index < len(tray.dice):
            raise SessionError(f"there is no die {index + 1} on the table ({len(tray.dice)} read)")
        if isinstance(value, bool) or not isinstance(value, int) or not 1 <= value <= 6:
            raise SessionError(f"die value {value!r} is not a face of a six-sided die (1..6)")
        fixed = tray.corrected()
        fixed[index] = value
        return replace(tray, corrections=tuple(sorted(fixed.items())))

    def confirm(self, seen: Any) -> Tray:
        return replace(_tray(seen), confirmed=True)

    def explain(self, state: Any, seen: Any) -> Explained:
        view = _tray(seen).view()
        problems = doubts(view)
        if problems:
            return Explained(problems=tuple(problems))
        try:
            roll = explain_tray(state, view)
        except GameError as exc:
            return Explained(problems=(str(exc),))
        return explained_by(self.game, state, [roll]) if roll is not None else Explained()

    def is_table_action(self, action: Any) -> bool:
        return is_tray_action(action)

    def seen_json(self, seen: Any) -> dict[str, Any]:
        tray = _tray(seen)
        fixed = tray.corrected()
        return {"dice": [
            {"value": fixed.get(i, d.value), "colour": d.colour, "centre": [round(v, 1) for v in d.centre],
             "unsure": d.unsure and i not in fixed and not tray.confirmed,
             "cocked": d.cocked and not tray.confirmed, "confidence": round(d.confidence, 3),
             "corrected": i in fixed}
            for i, d in enumerate(tray.dice)
        ]}

    def reading_at(self, seen: Any, x: float, y: float) -> int:
        dice = _tray(seen).dice
        if not dice:
            raise SessionError("there are no dice on the table to correct")
        distances = [(d.centre[0] - x) ** 2 + (d.centre[1] - y) ** 2 for d in dice]
        return distances.index(min(distances))

    # --- buttons -------------------------------------------------------------------------------
    def button(self, state: Any, button: str, *, long: bool) -> ButtonChoice:
        phase = state.phase
        if phase == "finished":
            return ButtonChoice(new_game=True) if button == "confirm" and long else ButtonChoice()
        if phase == "choose":
            open_ = state.open_categories()
            current = self.selection if self.selection in open_ else self.best_category(state)
            if button == "next":
                if current not in open_:
                    self.selection = open_[0]
                else:
                    self.selection = open_[(open_.index(current) + 1) % len(open_)]
                return ButtonChoice(said=f"selected {self.selection}")
            if button == "confirm" and current is not None:
                return ButtonChoice(action=Choose(current))
        if phase in ("hold", "stop") and button == "confirm" and long:
            return ButtonChoice(action=Stop())
        return ButtonChoice()

    def reset_cursor(self) -> None:
        super().reset_cursor()
        self.selection = None

    def view_key(self) -> tuple[Any, ...]:
        return (self.cursor, self.selection)

    def button_meanings(self, state: Any) -> dict[str, str]:
        phase = state.phase
        if phase == "finished":
            return {"confirm_long": "start a new game with the same players", "undo": "take back the last action"}
        out = {"undo": "take back the last action"}
        if phase == "choose":
            current = self.selection if self.selection in state.open_categories() else self.best_category(state)
            if current is not None:
                out["confirm"] = f"choose {TITLES[current]}"
            out["next"] = "point at the next open category"
        if phase in ("hold", "stop"):
            out["confirm_long"] = "end the turn and write the score"
        return out

    # --- advice --------------------------------------------------------------------------------
    def advisor(self, rule: str) -> Any:
        if rule not in self._advisors:
            try:
                module = importlib.import_module("engine.pasa.advisor")
                self._advisors[rule] = module.Advisor(rule)
            except ImportError:  # the advisor is optional for keeping score
                self._advisors[rule] = None
        return self._advisors[rule]

    def best_category(self, state: PasaState) -> str | None:
        ranking = self.ranking(state)
        if ranking:
            return str(ranking[0]["category"])
        open_ = state.open_categories()
        return open_[0] if open_ else None

    def ranking(self, state: PasaState) -> list[dict[str, Any]]:
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
        return [_ranked(item, "category", _sheet_total(state)) for item in ranked]

    def holds(self, state: PasaState) -> list[dict[str, Any]]:
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
        return [_ranked(item, "keep", _sheet_total(state)) for item in ranked]

    # --- the page ------------------------------------------------------------------------------
    def view(self, state: Any) -> dict[str, Any]:
        dice = tuple(state.dice)
        ranking = self.ranking(state)
        holds = self.holds(state)
        best_keep: tuple[int, ...] | None = tuple(holds[0]["keep"]) if holds else None
        hold_mask = _mask(dice, best_keep) if best_keep is not None else [False] * len(dice)
        open_ = state.open_categories() if state.phase != "finished" else []
        if state.phase == "choose":
            selected = self.selection if self.selection in open_ else (ranking[0]["category"] if ranking else None)
        else:
            selected = None
        categories = [
            {"name": c, "title": TITLES[c], "open": c in open_,
             "now": score(c, dice, state.rule) if dice and c in open_ else None}
            for c in CATEGORIES
        ]
        return {
            "kind": "pasa",
            "phase": state.phase,
            "player": state.player if state.phase != "finished" else None,
            "dice": list(dice),
            "roll": state.rolls,
            "max_rolls": MAX_ROLLS,
            "category": state.category,
            "category_title": TITLES[state.category] if state.category else None,
            "categories": categories,
            "ranking": ranking[:9],
            "holds": holds[:5],
            "hold_mask": hold_mask,
            "selection": selected,
            "sheets": {p: {c: state.sheets[p].get(c) for c in CATEGORIES} for p in state.players},
            "totals": {p: sum(v for v in state.sheets[p].values()) for p in state.players},
            "rule": state.rule,
            "hint": _hint(state.phase),
        }


def _tray(seen: Any) -> Tray:
    if not isinstance(seen, Tray):
        raise SessionError("there are no dice on the table to correct")
    return seen


def _sheet_total(state: PasaState) -> int:
    return sum(state.sheets[state.player].values()) if state.phase != "finished" else 0


def _hint(phase: str) -> str:
    return {
        "roll": "Roll all six dice.",
        "choose": "Choose this turn's category (NEXT cycles, CONFIRM chooses).",
        "hold": "Re-roll any dice, or hold CONFIRM to end the turn.",
        "reroll": "Throw the dice you are not keeping.",
        "stop": "Three rolls made: hold CONFIRM to write the score.",
        "finished": "Game over. Hold CONFIRM for a new game.",
    }.get(phase, "")


def _ranked(item: Any, key: str, sheet: int) -> dict[str, Any]:
    """One advisor entry (a mapping, a dataclass or a (thing, value) pair) for the page: ``value`` is the
    expected rest of the game, ``final`` the expected final total (the points on the sheet plus that)."""
    if isinstance(item, Mapping):
        thing, value = item.get(key), item.get("value", item.get("expected"))
    elif hasattr(item, key):
        thing = getattr(item, key)
        value = next((getattr(item, a) for a in ("value", "expected", "ev") if hasattr(item, a)), None)
    else:
        thing, value = item[0], item[1]
    if isinstance(thing, (tuple, list)):
        thing = [int(v) for v in thing]
    rest = round(float(value), 2) if value is not None else None
    return {key: thing, "value": rest, "final": round(sheet + rest, 2) if rest is not None else None}


def _mask(dice: Sequence[int], keep: Sequence[int]) -> list[bool]:
    """Which dice (in table order) to hold for the multiset ``keep``."""
    left = Counter(keep)
    mask = []
    for d in dice:
        mask.append(left[d] > 0)
        if left[d] > 0:
            left[d] -= 1
    return mask


ADAPTER = PasaTable
