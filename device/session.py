"""The game session: turns settled camera readings, button presses and page requests into engine actions.

The engine decides everything (legality, scores, advice); the session only asks it, through the running
game's table adapter (:mod:`device.tables`), and is the same for every game. Every accepted action goes
to the event log first, then into the in-memory state, then out to the hub (page, LEDs). At start the
state is rebuilt from the log, so a restart resumes the same game; a logged game that cannot be rebuilt is
reported and skipped, never a reason not to start. Undo is an event in the log. What the camera saw but
could not accept (a doubtful reading, an illegal change) stays *pending* with the adapter's problems until
the table is fixed, a reading is corrected on the page, or someone presses CONFIRM. A correction of a reading
that was already accepted replaces the action it explained (and keeps the decisions taken since, where they
are still legal) until the table explains a newer action.
"""

from __future__ import annotations

import json
import threading
import time
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field, replace
from typing import Any

from device.errors import SessionError
from device.eventlog import EventLog, GameRecord
from device.hub import Hub
from device.pairing import Pairings
from device.tables import TableAdapter, adapter_for, catalog
from engine.errors import GameError
from engine.game import Game, find_game
from vision.types import DieReading

MODES = ("camera", "offline")
#: Player names: what fits on the page and the panel's log lines.
NAME_MAX = 24
SEED_MAX = 2**63 - 1
#: Where an action came from when it was explained by the table (a correction may replace it).
TABLE_ORIGINS = ("camera", "players")


class Button:
    CONFIRM = "confirm"
    UNDO = "undo"
    NEXT = "next"
    ALL = ("confirm", "undo", "next")


class SetupError(SessionError):
    """A set-up request the session refuses; ``field`` names the part of the request that is wrong."""

    def __init__(self, field: str | None, message: str) -> None:
        super().__init__(message)
        self.field = field


class NotPairedError(SessionError):
    """A change asked for by a browser that is not paired (HTTP 403)."""

    http_status = 403


class NoSuchGameError(SessionError):
    """A logged game asked for by id that the log does not hold (HTTP 404)."""

    http_status = 404


class GameMovedOnError(SessionError):
    """A change asked for from a page that showed an older state of the game (HTTP 409): another player, the
    camera or a button acted in between, so the tap would land on another decision than the one it was for."""

    http_status = 409


@dataclass
class Table:
    """What lies on the table as last read (the adapter's observation), whether it is accepted or waits
    for the players, and which logged action it explained (so that a correction can replace it)."""

    seen: Any = None
    readings: tuple[Any, ...] = ()
    pending: bool = False
    problems: list[str] = field(default_factory=list)
    moved: bool = False
    explained: int | None = None  # index in the game's actions of the first action this reading explained
    waiting: str = ""  # why the camera's table is not taken yet, asking nothing (the adapter's words)


@dataclass(frozen=True)
class Logged:
    """One accepted action, as the session keeps it: the action, where it came from, and in words."""

    action: Any
    origin: str
    words: str


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
        self.history: list[Logged] = []
        self.table = Table()
        self.warnings: list[str] = []
        #: Why the latest logged game could not be resumed (shown on the page until a game is set up).
        self.setup_problem: str | None = None
        self.camera: dict[str, Any] = {"status": "none", "detail": "no camera", "fps": 0.0, "source": None}
        self.panel: dict[str, Any] = {"mode": "none", "leds": {"ready": "off", "attention": "off"}}
        self.tracking = "idle"  # "moving", "still", "idle"
        #: Pairing requests and paired browsers (kept beside the event log): :mod:`device.pairing`.
        self.pairing = Pairings(log.path.parent / "paired_browsers.json", clock=lambda: self.clock())
        self.listeners: list[Callable[[dict[str, Any]], None]] = []
        #: The frame being processed when an action is accepted (logged with it; lets a replay resume).
        self.frame_ref: int | None = None
        self._catalog: list[dict[str, Any]] | None = None
        self._game_cache: tuple[Any, tuple[Any, ...], dict[str, Any]] | None = None
        self._table_setup: Any = None

    @property
    def actions(self) -> list[Any]:
        return [h.action for h in self.history]

    @property
    def origins(self) -> list[str]:
        return [h.origin for h in self.history]

    # --- games ------------------------------------------------------------------------------
    def catalog(self) -> list[dict[str, Any]]:
        """Every game on offer (:func:`device.tables.catalog`), computed once."""
        if self._catalog is None:
            self._catalog = catalog()
        return self._catalog

    def resume(self) -> bool:
        """Rebuild the latest game from the log; False when the log has none or it cannot be rebuilt
        (then :attr:`setup_problem` says why, and the page asks for a new game)."""
        with self._lock:
            game_id = self.log.latest_game_id()
            if game_id is None:
                self.publish()
                return False
            record = self.log.game(game_id)
            try:
                self._load(record)
            except (GameError, SessionError, ValueError, KeyError, TypeError) as exc:
                self._unload()
                self.setup_problem = (f"game {record.id} ({record.game}) in the event log cannot be resumed: {exc}; "
                                      "set up a new game")
                self.publish()
                return False
            self.publish()
            return True

    def _unload(self) -> None:
        self.game = self.adapter = self.record = self.state = None
        self.history = []
        self.table = Table()

    def _load(self, record: GameRecord) -> None:
        game = find_game(record.game)
        adapter = self._adapter_factory(game)
        state, history = replay_history(game, record)
        adapter.loaded(state)
        self.game, self.adapter, self.record, self.state, self.history = game, adapter, record, state, history
        self.table = Table()
        self.warnings = []
        self.setup_problem = None

    def check_setup(
        self, game: object, players: object, options: object = None, mode: object = "camera", seed: object = None,
    ) -> tuple[Game[Any, Any], tuple[str, ...], dict[str, str], str, int | None]:
        """Every part of a set-up request checked (SetupError naming the field), before anything is written."""
        if not isinstance(game, str) or not game.strip():
            raise SetupError("game", f"'game' must be a game's name; games: {_names(self.catalog())}")
        try:
            rules = find_game(game.strip())
        except ValueError as exc:
            raise SetupError("game", str(exc)) from None
        if not isinstance(players, (list, tuple)) or not all(isinstance(p, str) for p in players):
            raise SetupError("players", "'players' must be a list of names")
        names = tuple(p.strip() for p in players)
        for name in names:
            if not 1 <= len(name) <= NAME_MAX or not name.isprintable():
                raise SetupError("players", f"player name {name!r} must be 1 to {NAME_MAX} printable characters")
        if len(set(n.casefold() for n in names)) != len(names):
            raise SetupError("players", f"player names must be different, got {', '.join(names)}")
        if not rules.min_players <= len(names) <= rules.max_players:
            raise SetupError("players", f"{rules.title} takes {rules.min_players} to {rules.max_players} players, "
                                        f"got {len(names)}")
        if options is None:
            options = {}
        if not isinstance(options, Mapping) or not all(isinstance(v, str) for v in options.values()):
            raise SetupError("options", "'options' must map rule option names to values (text)")
        try:
            given = self._adapter_factory(rules).record_options({str(k): v for k, v in options.items()},
                                                                self.log.path.parent)
            resolved = rules.resolve_options(given)
        except GameError as exc:
            raise SetupError("options", str(exc)) from None
        if mode not in MODES:
            raise SetupError("mode", f"mode {mode!r} is not one of {', '.join(MODES)}")
        entry = next((g for g in self.catalog() if g["name"] == rules.name), None)
        if mode == "camera" and (entry is None or entry["live"] != "camera"):
            raise SetupError("mode", f"the camera cannot read {rules.title} yet: play it in offline mode")
        if seed is not None and (isinstance(seed, bool) or not isinstance(seed, int) or not 0 <= seed <= SEED_MAX):
            raise SetupError("seed", f"'seed' must be a whole number from 0 to {SEED_MAX}, got {seed!r}")
        try:
            rules.initial_state(names, resolved, seed=seed)
            self._adapter_factory(rules)
        except (GameError, SessionError) as exc:
            raise SetupError(None, f"{rules.title} cannot be set up so: {exc}") from None
        return rules, names, resolved, str(mode), seed

    def new_game(
        self, players: object, options: object = None, *, game: object, mode: object = "camera", seed: object = None,
    ) -> None:
        """Set up a game: everything is checked first (SetupError), then logged, then loaded."""
        rules, names, resolved, mode, seed = self.check_setup(game, players, options, mode, seed)
        with self._lock:
            game_id = self.log.new_game(rules.name, names, resolved, mode, seed)
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
            game, adapter = self._require_game()
            assert self.record is not None
            new_state = game.apply(self.state, action)  # raises IllegalActionError: nothing logged
            self.log.append(self.record.id, game.action_to_json(action), origin, self.frame_ref)
            self.history.append(Logged(action, origin, action_words(game, self.state, action, new_state)))
            self.state = new_state
            if game.status(new_state).finished:
                self.log.finish(self.record.id)
            adapter.reset_cursor()
            self.warnings = []
            self.publish()

    def apply_text(self, text: str, origin: str, at: int | None = None) -> None:
        """Take the action ``text``; ``at`` (from a page): the number of actions the page showed, refused when
        the game has moved on since (:class:`GameMovedOnError`)."""
        with self._lock:
            game, _ = self._require_game()
            self._check_at(at)
            self.apply(game.parse_action(text, self.state), origin)

    def _check_at(self, at: int | None) -> None:
        if at is not None and at != len(self.history):
            raise GameMovedOnError(f"the game has moved on since this page showed it ({at} actions then, "
                                   f"{len(self.history)} now): look again and choose again")

    def legal(self) -> dict[str, Any]:
        """The legal actions now (text, label, group) and, when chance is awaited, what to enter, with the
        entries a scorekeeper may make instead (:meth:`engine.game.Game.entries`)."""
        with self._lock:
            version = self.hub.latest()[0]
            if self.game is None:
                return {"legal": [], "chance": None, "entries": [], "version": version}
            game = self.game
            legal = [] if game.status(self.state).finished else game.legal(self.state)
            chance = game.chance_prompt(self.state)
            entries = [game.describe(self.state, e) for e in game.entries(self.state)] if chance else []
            return {
                "legal": [{"text": a.text, "label": a.label, "group": a.group} for a in legal],
                "chance": None if chance is None else {"what": chance.what, "example": chance.example,
                                                       "group": chance.group},
                "entries": [{"text": a.text, "label": a.label, "group": a.group} for a in entries],
                "version": version,
            }

    def hint(self, seed: int = 0, budget_s: float = 0.3) -> dict[str, Any]:
        """The engine's hint for the decision now (:meth:`engine.game.Game.advise`) as JSON: ``hint`` (the ranked
        options) or None with ``reason`` ("no hint now: ..."). Worked out outside the session's lock (states are
        immutable), so the camera and the page go on meanwhile; a hint for a state since left is still marked
        with the ``version`` it was asked at."""
        with self._lock:
            version = self.hub.latest()[0]
            game, state = self.game, self.state
        if game is None:
            return {"hint": None, "reason": "no hint now: no game is running", "version": version}
        status = game.status(state)
        if status.defects:
            return {"hint": None, "reason": f"no hint now: the game's state is inconsistent ({status.defects[0]})",
                    "version": version}
        if status.finished or status.awaiting != "decision":
            why = "the game is over" if status.finished else "chance is awaited (a roll, a draw: what the table shows)"
            return {"hint": None, "reason": f"no hint now: {why}", "version": version}
        advice = game.advise(state, seed=seed, budget_s=budget_s)
        if advice is None:
            return {"hint": None, "reason": f"no hint now: {game.title} gives none for this step ({status.phase})",
                    "version": version}
        return {"hint": advice.to_json(), "reason": None, "version": version}

    def undo(self, origin: str, at: int | None = None) -> None:
        """Take back the last action; ``at`` as for :meth:`apply_text` (an undo from a stale page would take
        back another action than the one shown)."""
        with self._lock:
            game, adapter = self._require_game()
            assert self.record is not None
            self._check_at(at)
            if not self.history:
                raise SessionError("nothing to undo: no action in this game yet")
            self.log.append_undo(self.record.id, origin, self.frame_ref)
            self.history.pop()
            self.state = self._state_after(len(self.history))
            self.log.finish(self.record.id, game.status(self.state).finished)
            self.table = replace(self.table, explained=None)
            adapter.reset_cursor()
            self.warnings = []
            self.publish()

    def _state_after(self, count: int) -> Any:
        """The state after the first ``count`` accepted actions, replayed from the set-up."""
        game, _ = self._require_game()
        assert self.record is not None
        state = game.initial_state(self.record.players, self.record.options, seed=self.record.seed)
        for logged in self.history[:count]:
            state = game.apply(state, logged.action)
        return state

    # --- the table --------------------------------------------------------------------------
    def on_settled(self, readings: Sequence[Any], moved: bool, origin: str = "camera") -> None:
        """A new stable reading of the table (from the stability filter; ``origin`` "players" when the
        players said what lies there). Ignored unless a camera game is running."""
        with self._lock:
            if self.adapter is None or self.record is None or self.record.mode != "camera":
                return
            moved = moved or (self.table.moved and self.table.pending)
            seen = self.adapter.observe(readings, moved=moved)
            self.table = Table(seen=seen, readings=tuple(readings), moved=moved, explained=self.table.explained)
            self._consider_table(origin)

    def answer(self, text: str, origin: str = "players") -> bool:
        """The players answer what the table asks by taking action ``text`` on the page; the table as last
        read is then considered again from the new state (it may now explain the rest of the turn).
        Returns whether the table still waits on the players."""
        with self._lock:
            self.apply_text(text, origin)
            if self.table.pending and self.table.seen is not None:
                self._consider_table("camera")  # what the reading then explains is the camera's, not the players'
            return self.table.pending

    def tell(self, actions: Sequence[Any], origin: str = "players") -> bool:
        """The players say what lies on the table that the camera could not read (actions that record only what is
        seen, e.g. a quarry die's face); the table as last read is then considered again. Returns whether the table
        still waits on the players."""
        with self._lock:
            for action in actions:
                self.apply(action, origin)
            if self.table.pending and self.table.seen is not None:
                self._consider_table("camera")
            return self.table.pending

    def set_tracking(self, tracking: str) -> None:
        with self._lock:
            if tracking != self.tracking:
                self.tracking = tracking
                self.publish()

    def reading_at(self, x: float, y: float) -> int:
        """The index of the reading nearest to (x, y) in the frame (a player pointing at a piece)."""
        with self._lock:
            _, adapter = self._require_game()
            return adapter.reading_at(self.table.seen, x, y)

    def correct(self, index: int, value: Any, origin: str = "page") -> None:
        """A player says reading ``index`` (in the order shown) is ``value``. A reading already accepted is
        corrected in the log: the action it explained is replaced, with the decisions taken since."""
        with self._lock:
            game, adapter = self._require_game()
            assert self.record is not None
            if self.table.seen is None:
                raise SessionError("there is nothing read on the table to correct")
            seen = adapter.correct(self.table.seen, index, value)
            if self.table.pending or self.table.explained is None:
                if not self.table.pending:
                    raise SessionError("this reading explained no action: there is nothing to correct in the game")
                self.table.seen = seen
                self._consider_table(origin)
                return
            start = self.table.explained
            later = self.history[start:]
            if any(adapter.is_table_action(h.action) for h in later[1:]):
                raise SessionError("the table has moved on since that reading: undo first")
            before = self._state_after(start)
            explained = adapter.explain(before, seen)
            if explained.problems:
                raise SessionError("; ".join(explained.problems))
            new: list[Logged] = []
            state = before
            for action in explained.actions:
                after = game.apply(state, action)
                new.append(Logged(action, origin, action_words(game, state, action, after)))
                state = after
            dropped = []
            for h in later:
                if adapter.is_table_action(h.action):
                    continue
                try:
                    after = game.apply(state, h.action)
                except GameError:
                    dropped.append(game.action_text(h.action))
                    continue
                new.append(Logged(h.action, h.origin, action_words(game, state, h.action, after)))
                state = after
            self.log.amend(self.record.id, len(later), [(game.action_to_json(h.action), h.origin) for h in new],
                           origin, self.frame_ref)
            self.history[start:] = new
            self.state = state
            self.log.finish(self.record.id, game.status(state).finished)
            self.table = replace(self.table, seen=seen, pending=False, problems=[])
            adapter.reset_cursor()
            self.warnings = [f"after the correction {', '.join(dropped)} no longer fits and was taken back"] \
                if dropped else []
            self.publish()

    def confirm_table(self) -> bool:
        """Accept the pending reading as read (doubtful readings included); False if nothing pends."""
        with self._lock:
            if not self.table.pending or self.adapter is None:
                return False
            self.table.seen = self.adapter.confirm(self.table.seen)
            self._consider_table()
            return True

    def _consider_table(self, origin: str = "camera") -> None:
        table = self.table
        problems: list[str] = []
        table.waiting = ""
        if self.game is not None and self.adapter is not None and not self.game.status(self.state).finished:
            explained = self.adapter.explain(self.state, table.seen)
            problems = list(explained.problems)
            if not problems and not explained.actions:
                table.waiting = explained.waiting
            if not problems and explained.actions:
                first = len(self.history)
                try:
                    for action in explained.actions:
                        self.apply(action, origin)
                except GameError as exc:
                    problems = [str(exc)]
                else:
                    table.explained = first
        table.problems = problems
        table.pending = bool(problems)
        if not problems:
            table.moved = False
        self.publish()

    # --- buttons ----------------------------------------------------------------------------
    def press(self, button: str, *, long: bool = False, origin: str = "panel", paired: bool = True,
              at: int | None = None) -> str:
        """A button press (physical or virtual); returns what it did, in words. ``paired=False`` (a virtual
        panel on an unpaired browser) may only approve a pairing: anything else is NotPairedError. ``at`` as for
        :meth:`apply_text` (a press meant for an earlier step is refused, never taken for the step now)."""
        with self._lock:
            if button not in Button.ALL:
                raise SessionError(f"unknown button {button!r}; buttons: {', '.join(Button.ALL)}")
            said = self.pairing.press() if button == Button.CONFIRM and not long else None
            if said is not None:  # the press was for a browser that asked to pair (or several: refused)
                if said != "paired a browser":
                    self.warnings = [said]
                self.publish()
                return said
            if not paired:
                raise NotPairedError("this browser is not paired: press Pair this browser, then CONFIRM, before "
                                     "the panel's buttons change the game")
            if self.game is None or self.adapter is None:
                return "no game"
            self._check_at(at)
            if button == Button.UNDO:
                self.undo(origin)
                return "undone"
            if button == Button.CONFIRM and not long and self.confirm_table():
                return "accepted the table as read"
            choice = self.adapter.button(self.state, button, long=long)
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
            if choice.said is not None:
                self.publish()
                return choice.said
            return "nothing to do"

    def warn(self, message: str) -> None:
        with self._lock:
            self.warnings = [message]
            self.publish()

    # --- pairing (device/pairing.py holds it) ---------------------------------------------------
    @property
    def pairing_timeout_s(self) -> float:
        return self.pairing.timeout_s

    @pairing_timeout_s.setter
    def pairing_timeout_s(self, value: float) -> None:
        self.pairing.timeout_s = value

    def ask_pairing(self, token: str, replaces: str | None = None) -> str:
        """A browser asks to pair (again: ``replaces`` its earlier request); returns the code to show on it."""
        with self._lock:
            code = self.pairing.ask(token, replaces)
            self.publish()
            return code

    def pairing_status(self, token: str) -> str:
        with self._lock:
            status = self.pairing.status(token)
            if status == "expired":
                self.publish()
            return status

    def claim_pairing(self, token: str, label: str = "") -> str | None:
        """The secret of the browser whose request was approved (once), else None."""
        with self._lock:
            return self.pairing.claim(token, label)

    def is_paired(self, browser: str) -> bool:
        return self.pairing.is_paired(browser)

    def paired_browsers(self, current: str | None = None) -> list[dict[str, Any]]:
        return self.pairing.browsers(current)

    def forget_browser(self, browser: str) -> bool:
        return self.pairing.forget(browser)

    def forget_all_browsers(self) -> int:
        return self.pairing.forget_all()

    def pairing_waiting(self) -> bool:
        return bool(self.pairing.waiting())

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
        when something needs the players (illegal, unsure, camera lost), blinking while a browser asks to pair
        (so that someone at the device sees the request even when no page is paired yet)."""
        if self.pairing_waiting():
            attention = "blink"
        elif self.table.problems or self.warnings or self.camera.get("status") == "lost":
            attention = "on"
        else:
            attention = "off"
        ready = ("on" if self.tracking == "still" else "blink") if self.camera.get("status") in ("ok",) else "off"
        return {"ready": ready, "attention": attention}

    def snapshot(self) -> dict[str, Any]:
        with self._lock:
            adapter = self.adapter
            seen = adapter.seen_json(self.table.seen) if adapter is not None and self.table.seen is not None else {}
            snap: dict[str, Any] = {
                "at": time.time(),
                "camera": dict(self.camera),
                "tracking": self.tracking,
                "leds": self.leds(),
                "panel_mode": self.panel.get("mode", "none"),
                "pairing_waiting": self.pairing_waiting(),
                "pairing_code": self.pairing.waiting_code(),
                "warnings": list(self.warnings) + list(self.table.problems),
                "table": {"seen": seen, "pending": self.table.pending, "problems": list(self.table.problems),
                          "waiting": self.table.waiting},
                "setup_problem": self.setup_problem,
                "game": None,
            }
            if self.game is not None and self.record is not None and adapter is not None:
                snap["game"] = self._game_part(self.game, self.record, adapter)
            return snap

    def _game_part(self, game: Game[Any, Any], record: GameRecord, adapter: TableAdapter) -> dict[str, Any]:
        """The game's part of the snapshot. Made again only when the game changed (an action, an undo, the
        buttons' cursor): the camera and tracking publish often, and a board game's state is large."""
        key = (record.id, len(self.history), adapter.view_key())
        cached = self._game_cache
        if cached is not None and cached[0] is self.state and cached[1] == key:
            return cached[2]
        status = game.status(self.state)
        score = game.score(self.state)
        chance = game.chance_prompt(self.state)
        part = {
            "id": record.id,
            "name": game.name,
            "title": game.title,
            "mode": record.mode,
            "players": list(record.players),
            "options": adapter.shown_options(record.options),
            "pieces": adapter.pieces(record.options),
            "seed": record.seed,
            "status": {
                "to_move": status.to_move,
                "phase": status.phase,
                "awaiting": status.awaiting,
                "finished": status.finished,
                "winners": list(status.winners),
            },
            "scores": {n: {"total": s.total, "breakdown": dict(s.breakdown)} for n, s in score.players.items()},
            "actions": [
                {"text": game.action_text(h.action), "origin": h.origin, "words": h.words}
                for h in self.history[-12:]
            ],
            "action_count": len(self.history),
            "chance": None if chance is None else {"what": chance.what, "example": chance.example,
                                                   "group": chance.group},
            "state": json.loads(game.state_to_json(self.state)),
            "live": adapter.view(self.state),
            "buttons": adapter.button_meanings(self.state),
        }
        self._game_cache = (self.state, key, part)
        return part

    def publish(self) -> None:
        snapshot = self.snapshot()
        self.hub.publish(snapshot)
        for listener in list(self.listeners):
            listener(snapshot)

    # --- records ------------------------------------------------------------------------------
    def games(self) -> list[dict[str, Any]]:
        """Every logged game, newest first, in a line each."""
        out = []
        for gid in reversed(self.log.game_ids()):
            record = self.log.game(gid)
            out.append({"id": gid, "game": record.game, "players": list(record.players), "mode": record.mode,
                        "finished": record.finished is not None, "actions": len(record.actions)})
        return out

    def export(self, game_id: int | None = None) -> dict[str, Any]:
        """A game as JSON: who played, the rules, every accepted action and the final sheet."""
        with self._lock:
            if game_id is None:
                if self.record is None:
                    raise SessionError("no game to export")
                game_id = self.record.id
            if game_id not in self.log.game_ids():
                raise NoSuchGameError(f"no game {game_id} in the event log")
            record = self.log.game(game_id)
        return game_record_json(record)

    def health(self) -> dict[str, Any]:
        """Camera, engine and storage in one JSON object (``ok`` false when something is down)."""
        try:
            storage = self.log.check()
        except OSError as exc:
            storage = str(exc)
        snapshot = self.snapshot()
        game = snapshot["game"]
        camera = snapshot["camera"]
        return {
            "ok": storage == "ok" and camera["status"] not in ("lost",),
            "camera": {"status": camera["status"], "detail": camera.get("detail", "")},
            "engine": {"status": "ok" if game is not None else "no game", "game": game["name"] if game else None,
                       "phase": game["status"]["phase"] if game else None, "problem": self.setup_problem},
            "storage": {"status": storage, "path": str(self.log.path)},
        }

    # --- the table's set-up: mats and the camera check ------------------------------------------------
    def mat_sheets(self, game: str, players: int) -> list[dict[str, Any]]:
        """The sheets of ``game``'s printable mats for ``players``."""
        return self._setup().sheets(game, players)

    def mat_sheet(self, game: str, number: int, players: int, paper: str | None, kind: str) -> bytes:
        """Sheet ``number`` of ``game``'s mats as SVG or PDF bytes."""
        return self._setup().sheet(game, number, players, paper, kind)

    def calibration(self, game: str, players: int) -> tuple[dict[str, Any], bytes | None]:
        """What the camera sees of ``game``'s mats now: the report and the annotated frame (JPEG)."""
        return self._setup().check(game, players)

    def taught_colours(self, game: str) -> dict[str, Any]:
        """Which colours of ``game``'s pieces are taught at this table and which are still missing."""
        return self._setup().taught(game)

    def teach_colours(self, game: str, players: int | None = None) -> dict[str, Any]:
        """Teach ``game``'s die colours from the dice in the latest camera frame (Pyramido: its block colours
        from player 1's pyramid mat)."""
        with self._lock:
            return self._setup().teach_colours(game, players)

    def deck(self) -> dict[str, Any]:
        """The Dice Treasure deck enrolled on this device so far."""
        return self._setup().deck()

    def read_deck_card(self) -> dict[str, Any]:
        """The card on player 1's first card spot in the latest frame, as it would be enrolled (nothing saved)."""
        with self._lock:
            return self._setup().read_card()

    def add_deck_card(self, card: Any) -> dict[str, Any]:
        """Add a card the owner checked on the page to the device's deck."""
        with self._lock:
            return self._setup().add_card(card)

    def add_deck_bonus(self, requires: Any, reward: Any) -> dict[str, Any]:
        """Add a leprechaun bonus card, typed by the owner, to the device's deck."""
        with self._lock:
            return self._setup().add_bonus(requires, reward)

    def remove_deck_card(self, card_id: str) -> dict[str, Any]:
        """Take a card enrolled by mistake out of the device's deck."""
        with self._lock:
            return self._setup().remove_card(card_id)

    def _setup(self) -> Any:
        if self._table_setup is None:
            from device.tablesetup import TableSetup  # OpenCV's marker detector only when asked for

            self._table_setup = TableSetup(self.hub, self.log.path.parent)
        return self._table_setup

    def frame_jpeg(self, width: int = 800) -> bytes | None:
        """The latest camera frame with what was read drawn on it (by the game's adapter), as a JPEG."""
        shot = self.hub.frame()
        if shot is None:
            return None
        import cv2

        adapter = self.adapter
        image = shot.image if adapter is None else adapter.annotate(shot.image, tuple(shot.readings))
        h, w = image.shape[:2]
        if w > width:
            image = cv2.resize(image, (width, round(h * width / w)), interpolation=cv2.INTER_AREA)
        ok, buf = cv2.imencode(".jpg", image, [cv2.IMWRITE_JPEG_QUALITY, 75])
        return buf.tobytes() if ok else None


def action_words(game: Game[Any, Any], before: Any, action: Any, after: Any) -> str:
    """An accepted action in words for the page's log: who did what, and what it scored."""
    who = game.status(before).to_move
    said = game.describe(before, action).label
    line = f"{who}: {said}" if who else said
    old, new = game.score(before).players, game.score(after).players
    scored = []
    for name, s in new.items():
        was = old[name].breakdown if name in old else {}
        for part, points in s.breakdown.items():
            gained = points - was.get(part, 0)
            told = f"{gained} in {game.part_title(part)}"
            if gained and not (name == who and told in said):  # the action's own words may say it already
                scored.append(f"{name}: {told}")
    return line + (" — " + ", ".join(scored) if scored else "")


def _names(entries: Sequence[Mapping[str, Any]]) -> str:
    return ", ".join(str(e["name"]) for e in entries)


def replay_history(game: Game[Any, Any], record: GameRecord) -> tuple[Any, list[Logged]]:
    """The state after every logged action and the actions in words: the log is the only truth."""
    state = game.initial_state(record.players, record.options, seed=record.seed)
    history = []
    for text, origin in zip(record.actions, record.origins, strict=True):
        action = game.action_from_json(text)
        after = game.apply(state, action)
        history.append(Logged(action, origin, action_words(game, state, action, after)))
        state = after
    return state, history


def replay_record(record: GameRecord) -> tuple[Game[Any, Any], Any, list[Any]]:
    """The game, its state after every logged action, and the actions."""
    game = find_game(record.game)
    state, history = replay_history(game, record)
    return game, state, [h.action for h in history]


def game_record_json(record: GameRecord) -> dict[str, Any]:
    game, state, replayed = replay_record(record)
    actions = [game.action_text(action) for action in replayed]
    status = game.status(state)
    return {
        "id": record.id,
        "game": record.game,
        "players": list(record.players),
        "options": dict(record.options),
        "seed": record.seed,
        "mode": record.mode,
        "actions": actions,
        "origins": list(record.origins),
        "finished": status.finished,
        "winners": list(status.winners),
        "sheet": {n: {"total": s.total, "breakdown": dict(s.breakdown)} for n, s in game.score(state).players.items()},
    }


def reading(value: int, x: float, y: float = 0.0, **kw: Any) -> DieReading:
    """A reading at (x, y) for tests and the truth reader: a 40-pixel box around the centre."""
    base = DieReading(box=(x - 20, y - 20, x + 20, y + 20), centre=(x, y), angle=0.0, value=value,
                      colour=kw.pop("colour", "white"), confidence=kw.pop("confidence", 1.0))
    return replace(base, **kw)
