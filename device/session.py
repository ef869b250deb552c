"""The game session: turns settled camera readings, button presses and page requests into engine actions.

The engine decides everything (legality, scores, advice); the session only asks it. Every accepted
action goes to the event log first, then into the in-memory state, then out to the hub (page, LEDs).
At start the state is rebuilt from the log, so a restart resumes the same game. Undo is an event in
the log. What the camera saw but could not accept (a cocked or unsure die, a wrong number of dice, an
illegal change) stays *pending* with a warning until the table is fixed, a die is corrected on the page,
or someone presses CONFIRM.

Game-specific knowledge (which action a new roll is, what the live view shows) lives in a
:class:`device.adapters.TableAdapter`; this module is the same for every game.
"""

from __future__ import annotations

import json
import threading
import time
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field, replace
from typing import Any

from device.adapters import TableAdapter, adapter_for
from device.errors import SessionError
from device.eventlog import EventLog, GameRecord
from device.hub import Hub
from engine.errors import GameError
from engine.game import Game, find_game
from vision.types import DieReading

MODES = ("camera", "offline")


class Button:
    CONFIRM = "confirm"
    UNDO = "undo"
    NEXT = "next"
    ALL = ("confirm", "undo", "next")


@dataclass
class Table:
    """What lies on the table as last read, and whether it is accepted or waits for the players."""

    dice: list[DieReading] = field(default_factory=list)
    corrections: dict[int, int] = field(default_factory=dict)
    confirmed: bool = False
    pending: bool = False
    problems: list[str] = field(default_factory=list)
    moved: bool = False

    def values(self) -> tuple[int, ...]:
        return tuple(self.corrections.get(i, d.value) for i, d in enumerate(self.dice))


@dataclass
class Pairing:
    token: str
    asked: float
    approved: bool = False


class GameSession:
    """One running game (or none) with its log, table, warnings and status of camera and panel."""

    def __init__(
        self,
        log: EventLog,
        hub: Hub,
        *,
        clock: Callable[[], float] = time.monotonic,
        adapter_factory: Callable[[Game[Any, Any]], TableAdapter] = adapter_for,
    ) -> None:
        self.log = log
        self.hub = hub
        self.clock = clock
        self._adapter_factory = adapter_factory
        self._lock = threading.RLock()
        self.game: Game[Any, Any] | None = None
        self.adapter: TableAdapter | None = None
        self.record: GameRecord | None = None
        self.state: Any = None
        self.actions: list[Any] = []
        self.origins: list[str] = []
        self.table = Table()
        self.warnings: list[str] = []
        self.selection: str | None = None  # the category the NEXT button points at
        self.camera: dict[str, Any] = {"status": "none", "detail": "no camera", "fps": 0.0, "source": None}
        self.panel: dict[str, Any] = {"mode": "none", "leds": {"ready": "off", "attention": "off"}}
        self.tracking = "idle"  # "moving", "still", "idle"
        self.pairings: dict[str, Pairing] = {}
        self.pairing_timeout_s = 30.0
        self.listeners: list[Callable[[dict[str, Any]], None]] = []
        #: The frame being processed when an action is accepted (logged with it; lets a replay resume).
        self.frame_ref: int | None = None

    # --- games ------------------------------------------------------------------------------
    def resume(self) -> bool:
        """Rebuild the latest game from the log; False when the log has none."""
        with self._lock:
            game_id = self.log.latest_game_id()
            if game_id is None:
                self.publish()
                return False
            self._load(self.log.game(game_id))
            self.publish()
            return True

    def _load(self, record: GameRecord) -> None:
        game, state, actions = replay_record(record)
        self.game, self.record, self.state = game, record, state
        self.adapter = self._adapter_factory(game)
        self.actions, self.origins = actions, list(record.origins)
        self.table = Table()
        self.warnings = []
        self.selection = None

    def new_game(
        self, players: Sequence[str], options: Mapping[str, str] | None = None, *, game: str = "pasa",
        mode: str = "camera",
    ) -> None:
        if mode not in MODES:
            raise SessionError(f"mode {mode!r} is not one of {', '.join(MODES)}")
        rules = find_game(game)
        names = rules.check_players([p.strip() for p in players])
        resolved = rules.resolve_options(options)
        rules.initial_state(names, resolved)  # raises on anything the game refuses, before logging
        with self._lock:
            game_id = self.log.new_game(rules.name, names, resolved, mode)
            self._load(self.log.game(game_id))
            self.publish()

    def _require_game(self) -> tuple[Game[Any, Any], TableAdapter]:
        if self.game is None or self.adapter is None or self.record is None:
            raise SessionError("no game is running; set one up first")
        return self.game, self.adapter

    # --- actions ----------------------------------------------------------------------------
    def apply(self, action: Any, origin: str) -> None:
        """Check ``action`` with the engine, append it to the log, then tell everyone."""
        with self._lock:
            game, _ = self._require_game()
            assert self.record is not None
            new_state = game.apply(self.state, action)  # raises IllegalActionError: nothing logged
            self.log.append(self.record.id, game.action_to_json(action), origin, self.frame_ref)
            self.state = new_state
            self.actions.append(action)
            self.origins.append(origin)
            if game.status(new_state).finished:
                self.log.finish(self.record.id)
            self.selection = None
            self.warnings = []
            self.publish()

    def apply_text(self, text: str, origin: str) -> None:
        game, _ = self._require_game()
        self.apply(game.parse_action(text, self.state), origin)

    def undo(self, origin: str) -> None:
        with self._lock:
            game, _ = self._require_game()
            assert self.record is not None
            if not self.actions:
                raise SessionError("nothing to undo: no action in this game yet")
            self.log.append_undo(self.record.id, origin, self.frame_ref)
            state = game.initial_state(self.record.players, self.record.options)
            for action in self.actions[:-1]:
                state = game.apply(state, action)
            self.actions.pop()
            self.origins.pop()
            self.state = state
            self.log.finish(self.record.id, game.status(state).finished)
            self.table.confirmed = False
            self.selection = None
            self.warnings = []
            self.publish()

    # --- the table --------------------------------------------------------------------------
    def on_settled(self, dice: Sequence[DieReading], moved: bool, origin: str = "camera") -> None:
        """A new stable reading of the table (from the stability filter; ``origin`` "players" when the
        players said what lies there)."""
        with self._lock:
            self.table = Table(dice=list(dice), moved=moved or (self.table.moved and self.table.pending))
            self._consider_table(origin)

    def set_tracking(self, tracking: str) -> None:
        with self._lock:
            if tracking != self.tracking:
                self.tracking = tracking
                self.publish()

    def correct(self, index: int, value: int) -> None:
        """A player says die ``index`` (in the order shown) shows ``value``."""
        with self._lock:
            if not 0 <= index < len(self.table.dice):
                raise SessionError(f"there is no die {index + 1} on the table ({len(self.table.dice)} read)")
            if isinstance(value, bool) or not isinstance(value, int) or not 1 <= value <= 6:
                raise SessionError(f"die value {value!r} is not a face of a six-sided die (1..6)")
            if not self.table.pending:
                # The reading was already accepted: take that roll back and accept the corrected dice.
                last = self.actions[-1] if self.actions else None
                if (last is None or self.adapter is None or not self.adapter.is_table_action(last)
                        or self.origins[-1] not in ("camera", "players")):
                    raise SessionError("these dice are no longer the latest roll (it was used or entered by hand); "
                                       "undo first")
                self.undo("correction")
                self.table.moved = True
            self.table.corrections[index] = value
            self._consider_table()

    def die_at(self, x: float, y: float) -> int:
        """The index of the die on the table nearest to (x, y) in the frame."""
        with self._lock:
            if not self.table.dice:
                raise SessionError("there are no dice on the table to correct")
            distances = [(d.centre[0] - x) ** 2 + (d.centre[1] - y) ** 2 for d in self.table.dice]
            return distances.index(min(distances))

    def confirm_table(self) -> bool:
        """Accept the pending reading as read (cocked or unsure dice included); False if nothing pends."""
        with self._lock:
            if not self.table.pending:
                return False
            self.table.confirmed = True
            self._consider_table()
            return True

    def _consider_table(self, origin: str = "camera") -> None:
        table = self.table
        problems: list[str] = []
        camera_mode = self.record is not None and self.record.mode == "camera"
        if camera_mode and self.game is not None and self.adapter is not None \
                and not self.game.status(self.state).finished:
            problems = self.adapter.table_problems(table.dice, table.corrections, confirmed=table.confirmed)
            if not problems:
                try:
                    action = self.adapter.action_for_table(self.state, table.values(), moved=table.moved)
                except GameError as exc:
                    problems = [str(exc)]
                else:
                    if action is not None:
                        try:
                            self.apply(action, origin)
                        except GameError as exc:
                            problems = [f"{exc}"]
        table.problems = problems
        table.pending = bool(problems)
        if not problems:
            table.moved = False
        self.publish()

    # --- buttons ----------------------------------------------------------------------------
    def press(self, button: str, *, long: bool = False, origin: str = "panel") -> str:
        """A button press (physical or virtual); returns what it did, in words."""
        with self._lock:
            if button not in Button.ALL:
                raise SessionError(f"unknown button {button!r}; buttons: {', '.join(Button.ALL)}")
            if button == Button.CONFIRM and not long and self._approve_pairing():
                self.publish()
                return "paired a browser"
            if self.game is None or self.adapter is None:
                return "no game"
            if button == Button.UNDO:
                self.undo(origin)
                return "undone"
            if button == Button.CONFIRM and not long and self.confirm_table():
                return "accepted the table as read"
            choice = self.adapter.button(self.state, button, long=long, selection=self.selection)
            if choice.select is not None:
                self.selection = choice.select
                self.publish()
                return f"selected {choice.select}"
            if choice.new_game and self.record is not None:
                self.new_game(self.record.players, self.record.options, game=self.record.game, mode=self.record.mode)
                return "new game"
            if choice.action is not None:
                try:
                    self.apply(choice.action, origin)
                except GameError as exc:
                    self.warn(str(exc))
                    return "refused"
                return f"did {self.game.action_text(choice.action)}"
            return "nothing to do"

    def warn(self, message: str) -> None:
        with self._lock:
            self.warnings = [message]
            self.publish()

    # --- pairing ----------------------------------------------------------------------------
    def ask_pairing(self, token: str) -> None:
        with self._lock:
            now = self.clock()
            self.pairings = {t: p for t, p in self.pairings.items() if now - p.asked < self.pairing_timeout_s}
            self.pairings[token] = Pairing(token, now)
            self.publish()

    def pairing_status(self, token: str) -> str:
        with self._lock:
            pairing = self.pairings.get(token)
            if pairing is None:
                return "unknown"
            if pairing.approved:
                del self.pairings[token]
                return "approved"
            if self.clock() - pairing.asked >= self.pairing_timeout_s:
                del self.pairings[token]
                self.publish()
                return "expired"
            return "waiting"

    def _approve_pairing(self) -> bool:
        now = self.clock()
        waiting = [
            p for p in self.pairings.values() if not p.approved and now - p.asked < self.pairing_timeout_s
        ]
        for p in waiting:
            p.approved = True
        return bool(waiting)

    def pairing_waiting(self) -> bool:
        now = self.clock()
        return any(not p.approved and now - p.asked < self.pairing_timeout_s for p in self.pairings.values())

    # --- status of the rest of the device -----------------------------------------------------
    def set_camera(self, status: str, detail: str = "", **extra: Any) -> None:
        with self._lock:
            changed = self.camera.get("status") != status or self.camera.get("detail") != detail
            self.camera = {**self.camera, "status": status, "detail": detail, **extra}
            if changed:
                self.publish()

    def set_panel(self, panel: dict[str, Any]) -> None:
        with self._lock:
            self.panel = panel

    # --- what everyone sees ------------------------------------------------------------------
    def leds(self) -> dict[str, str]:
        """READY: on when tracking a still table, blinking while waiting for it to be still; ATTENTION: on
        when something needs the players (illegal, unsure, camera lost, pairing asked)."""
        attention = bool(self.table.problems or self.warnings or self.camera.get("status") == "lost")
        attention = attention or self.pairing_waiting()
        ready = ("on" if self.tracking == "still" else "blink") if self.camera.get("status") in ("ok",) else "off"
        return {"ready": ready, "attention": "on" if attention else "off"}

    def snapshot(self) -> dict[str, Any]:
        with self._lock:
            snap: dict[str, Any] = {
                "at": time.time(),
                "camera": dict(self.camera),
                "tracking": self.tracking,
                "leds": self.leds(),
                "panel_mode": self.panel.get("mode", "none"),
                "pairing_waiting": self.pairing_waiting(),
                "warnings": list(self.warnings) + list(self.table.problems),
                "table": {
                    "dice": [
                        {**_die_json(d), "value": self.table.corrections.get(i, d.value),
                         "corrected": i in self.table.corrections,
                         "unsure": d.unsure and i not in self.table.corrections}
                        for i, d in enumerate(self.table.dice)
                    ],
                    "pending": self.table.pending,
                    "problems": list(self.table.problems),
                },
                "game": None,
            }
            if self.game is not None and self.record is not None and self.adapter is not None:
                status = self.game.status(self.state)
                score = self.game.score(self.state)
                snap["game"] = {
                    "id": self.record.id,
                    "name": self.game.name,
                    "title": self.game.title,
                    "mode": self.record.mode,
                    "players": list(self.record.players),
                    "options": dict(self.record.options),
                    "status": {
                        "to_move": status.to_move,
                        "phase": status.phase,
                        "awaiting": status.awaiting,
                        "finished": status.finished,
                        "winners": list(status.winners),
                    },
                    "scores": {
                        n: {"total": s.total, "breakdown": dict(s.breakdown)} for n, s in score.players.items()
                    },
                    "actions": [
                        {"text": self.game.action_text(a), "origin": o}
                        for a, o in zip(self.actions[-12:], self.origins[-12:], strict=True)
                    ],
                    "action_count": len(self.actions),
                    "state": json.loads(self.game.state_to_json(self.state)),
                    "live": self.adapter.view(self.state, selection=self.selection),
                }
            return snap

    def publish(self) -> None:
        snapshot = self.snapshot()
        self.hub.publish(snapshot)
        for listener in list(self.listeners):
            listener(snapshot)

    # --- records ------------------------------------------------------------------------------
    def export(self, game_id: int | None = None) -> dict[str, Any]:
        """A game as JSON: who played, the rules, every accepted action and the final sheet."""
        with self._lock:
            if game_id is None:
                if self.record is None:
                    raise SessionError("no game to export")
                game_id = self.record.id
            record = self.log.game(game_id)
        return game_record_json(record)


def replay_record(record: GameRecord) -> tuple[Game[Any, Any], Any, list[Any]]:
    """The game, its state after every logged action, and the actions: the log is the only truth."""
    game = find_game(record.game)
    state = game.initial_state(record.players, record.options)
    actions = []
    for text in record.actions:
        action = game.action_from_json(text)
        state = game.apply(state, action)
        actions.append(action)
    return game, state, actions


def game_record_json(record: GameRecord) -> dict[str, Any]:
    game, state, replayed = replay_record(record)
    actions = [game.action_text(action) for action in replayed]
    status = game.status(state)
    return {
        "id": record.id,
        "game": record.game,
        "players": list(record.players),
        "options": dict(record.options),
        "mode": record.mode,
        "actions": actions,
        "origins": list(record.origins),
        "finished": status.finished,
        "winners": list(status.winners),
        "sheet": {n: {"total": s.total, "breakdown": dict(s.breakdown)} for n, s in game.score(state).players.items()},
    }


def _die_json(d: DieReading) -> dict[str, Any]:
    return {
        "value": d.value,
        "colour": d.colour,
        "centre": [round(v, 1) for v in d.centre],
        "unsure": d.unsure,
        "cocked": d.cocked,
        "confidence": round(d.confidence, 3),
    }


def reading(value: int, x: float, y: float = 0.0, **kw: Any) -> DieReading:
    """A reading at (x, y) for tests and the truth reader: a 40-pixel box around the centre."""
    base = DieReading(box=(x - 20, y - 20, x + 20, y + 20), centre=(x, y), angle=0.0, value=value,
                      colour=kw.pop("colour", "white"), confidence=kw.pop("confidence", 1.0))
    return replace(base, **kw)
