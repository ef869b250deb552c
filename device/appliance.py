"""The appliance: wires camera, stability filter, game session, event log, panel and web server into one
process with one main loop (``companion run``), and the same pipeline without threads for replays.

The main loop takes the latest frame from the camera owner, applies any scripted inputs a recording
carries, runs the stability filter (which reads dice only while the table is still), and hands settled
readings to the session. It feeds the systemd watchdog on every pass and reports a camera that gives
no frame for ``lost_after_s`` as lost (page and ATTENTION LED) while the owner thread reconnects.
"""

from __future__ import annotations

import logging
import secrets
import socket
import threading
import time
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from device.config import Config
from device.errors import SessionError, UsageError
from device.eventlog import EventLog
from device.hub import Hub
from device.notify import Notifier
from device.session import GameSession, SetupError
from device.sources import Camera, Frame, FrameSource, ReplaySource
from device.stability import StabilityFilter, StepResult, agrees, arrange_dice, table_order
from device.tables import TableAdapter, live_table
from engine.errors import GameError
from vision.fuse import fuse_frames
from vision.types import DieReading

log = logging.getLogger(__name__)

Reader = Callable[[Frame], Sequence[DieReading]]
READERS = ("model", "truth")


def truth_reader(frame: Frame) -> Sequence[DieReading]:
    """Read a recorded frame from its JSON truth (tests and demos without the vision models)."""
    return tuple(frame.truth or ())


def model_reader(palette: str = "dice") -> Reader:
    """The vision recogniser, loaded once; UsageError when this build cannot read dice from pixels."""
    try:
        from vision.recognize import DiceRecognizer  # type: ignore[import-not-found,unused-ignore]

        recognizer = DiceRecognizer(palette=palette, threads=1)
    except (ImportError, ValueError, OSError) as exc:
        raise UsageError(f"the dice recogniser cannot be loaded ({exc}); use --reader truth") from None

    def read(frame: Frame) -> Sequence[DieReading]:
        return list(recognizer.read(frame.image)) if frame.image is not None else []

    return read


def make_reader(name: str) -> Reader:
    if name == "truth":
        return truth_reader
    if name == "model":
        return model_reader()
    raise UsageError(f"unknown reader {name!r}; readers: {', '.join(READERS)}")


def choose_reader(name: str | None, *, say: Callable[[str], None]) -> tuple[Reader, str]:
    """The reader asked for; with none asked for, the model, else (said out loud) the recording's truth."""
    if name is not None:
        return make_reader(name), name
    try:
        return model_reader(), "model"
    except UsageError as exc:
        say(f"{exc}; reading the recording's truth instead")
        return truth_reader, "truth"


def secret_key(state_dir: Path) -> bytes:
    """The key that signs pairing cookies: made once, kept in the state directory, readable by us only."""
    path = state_dir / "secret_key"
    if path.is_file():
        return path.read_bytes()
    state_dir.mkdir(parents=True, exist_ok=True)
    key = secrets.token_bytes(32)
    path.touch(mode=0o600)
    path.write_bytes(key)
    return key


@dataclass
class Pipeline:
    """Frame -> (inputs) -> stability filter -> session, without threads (the main loop and replays).

    Paša's dice are read by ``reader``; a board game's pieces by the reader its table adapter makes
    (``reader_for``), with the adapter's own test of two readings agreeing, made again for each new game."""

    session: GameSession
    filter: StabilityFilter
    reader: Reader
    hub: Hub
    #: Replays only: when the device asks about what it read, the "players" answer from the recording's
    #: truth, as people at the table would on the page: a die the truth shows plainly (flat, sure) is
    #: entered as it lies; a board game's question is answered by taking the recording's next true action
    #: (``expected_actions``). Counted in ``answers``; a question that is the players' own part (a choice the rules
    #: leave to them, pieces the camera does not read: ``TableAdapter.players_decide``) in ``decided`` instead.
    players_answer: bool = False
    answers: int = 0
    decided: int = 0
    expected_actions: Sequence[str] = ()
    #: Replays at the table (``companion replay --at-table``): how many set-up steps the true record begins with
    #: that the recording's numbering (its inputs' ``at``, its truth's ``done``) does not count.
    steps_before: int = 0
    #: Replays: true steps the device took as fewer actions reaching the same state (a Dice Treasure exchange and
    #: end seen as one end), counted as done so that the players' next answer is the record's next step.
    merged: int = 0
    _true_states: tuple[int, list[Any]] | None = None
    #: Replays: the truth of every frame read so far (what the players can tell of what lay where, asked).
    truths: list[Any] = field(default_factory=list)
    #: The game a recording's scripted inputs (presses, corrections) belong to; None: whatever game runs.
    #: The demo sets it, so that a game the players start while it runs is theirs alone.
    script_game: int | None = None
    #: A board game's reader, from its adapter (``TableAdapter.frame_reader`` on the table's section, or
    #: the truth). None: every game is read by ``reader``.
    reader_for: Callable[[TableAdapter], Reader] | None = None
    #: How the still frames of a settled tray are fused into one reading of the dice (None: the latest frame).
    dice_fuse: Callable[[Sequence[Sequence[Any]]], Sequence[Any]] | None = fuse_frames
    _adapter: TableAdapter | None = None
    _board_reader: Reader | None = None
    #: Scripted page inputs whose ``at`` (the action count the page showed when they were tapped) the game has
    #: not reached yet (it is behind the table): a person taps when the page shows their step, so each waits
    #: until the game gets there, and is refused once the game is past it (as a stale /api/action is).
    waiting: list[dict[str, Any]] = field(default_factory=list)

    def scripted(self) -> bool:
        record = self.session.record
        return self.script_game is None or (record is not None and record.id == self.script_game)

    def true_steps(self) -> int:
        """The steps of the game's true record taken so far: the actions, less those that only record what the
        camera saw (a die first seen), which a recording's numbering does not count."""
        adapter = self.session.adapter
        if adapter is None:
            return len(self.session.history) + self.merged
        return sum(1 for h in self.session.history if not adapter.seen_only(h.action)) + self.merged

    def _caught_up(self, done: int) -> int | None:
        """Where the true record, from the game's set-up, reaches the state the game is in a few steps past
        ``done`` (the device took them as fewer actions): that step count, else None."""
        game, record = self.session.game, self.session.record
        if game is None or record is None:
            return None
        if self._true_states is None or self._true_states[0] != record.id:
            self._true_states = (record.id, [game.initial_state(record.players, record.options, seed=record.seed)])
        states = self._true_states[1]
        adapter = self.session.adapter
        same = adapter.same_state if adapter is not None else (lambda a, b: bool(a == b))
        for k in range(done + 1, min(done + 4, len(self.expected_actions)) + 1):
            while len(states) <= k:
                try:
                    states.append(game.apply(states[-1], game.parse_action(self.expected_actions[len(states) - 1],
                                                                           states[-1])))
                except GameError:
                    return None  # the record cannot be walked from here (a table the seed did not set up)
            if same(states[k], self.session.state):
                return k
        return None

    def apply_input(self, item: dict[str, Any]) -> None:
        kind = item.get("kind")
        at = item.get("at")
        if isinstance(at, int) and kind in ("press", "action"):
            # The step the input was tapped at, in the game's own count: now (taken), later (waits) or past (refused).
            want, steps = at + self.steps_before, self.true_steps()
            if want > steps:
                self.waiting.append(item)
                return
            at = len(self.session.history) if want == steps else want  # (want < steps <= the actions: stale)
        try:
            if kind == "press":
                self.session.press(str(item["button"]), long=bool(item.get("long", False)), origin="replay",
                                   at=at if isinstance(at, int) else None)
            elif kind == "action":
                self.session.apply_text(str(item["text"]), "replay", at=at if isinstance(at, int) else None)
            elif kind == "correct":
                # A die is named by where it lies ("at": [x, y], as a player points at it) or by its index.
                at = item.get("at")
                index = self.session.reading_at(float(at[0]), float(at[1])) if at is not None else int(item["index"])
                self.session.correct(index, int(item["value"]))
            elif kind == "confirm":
                self.session.confirm_table()
        except (GameError, SessionError) as exc:
            self.session.warn(str(exc))

    def _apply_waiting(self) -> None:
        """The waiting inputs whose step the game has reached (or passed: refused) are taken now."""
        while self.waiting:
            steps = self.true_steps()
            ready = [item for item in self.waiting if item["at"] + self.steps_before <= steps]
            if not ready:
                return
            self.waiting = [item for item in self.waiting if item["at"] + self.steps_before > steps]
            for item in ready:
                self.apply_input(item)

    def current_reader(self) -> Reader:
        """The reader of the running game's pieces (made, with the filter's agreement test, per new game)."""
        adapter = self.session.adapter
        if self.reader_for is None or adapter is None or adapter.reads_dice_tray:
            self.filter.fuse = self.dice_fuse
            if self._adapter is not None:  # back to dice after a board game
                self._adapter = self._board_reader = None
                self.filter.same, self.filter.arrange = agrees, arrange_dice
            return self.reader
        if adapter is not self._adapter:
            self._adapter = adapter
            self.filter.same, self.filter.arrange = adapter.readings_agree, adapter.arrange
            self.filter.fuse = None
            try:
                self._board_reader = self.reader_for(adapter)
            except SessionError as exc:  # the game cannot be read here: said once, played on the page
                self.session.warn(str(exc))
                self._board_reader = _read_nothing
        assert self._board_reader is not None
        return self._board_reader

    def process(self, frame: Frame, inputs: Sequence[dict[str, Any]] = ()) -> StepResult:
        self.session.frame_ref = frame.index
        if self.players_answer and frame.truth is not None:
            self.truths.append(frame.truth)
        self._apply_waiting()
        for item in inputs if self.scripted() else ():
            self.apply_input(item)
        reader = self.current_reader()
        result = self.filter.step(frame.image, read=lambda: reader(frame))
        if result.tracking != "bad":
            self.session.set_tracking(result.tracking)
            if frame.image is not None:  # the game's adapter draws the readings on the page's camera view
                self.hub.put_frame(frame.image, result.readings or ())
        if result.settled is not None:
            self.session.on_settled(result.settled.dice, result.settled.moved)
            if self.players_answer and self.session.table.pending:
                self._players_answer(frame)
            self._apply_waiting()
        return result

    def _players_answer(self, frame: Frame) -> None:
        adapter = self.session.adapter
        if adapter is not None and adapter.reads_dice_tray:
            truth = tuple(frame.truth or ())
            if truth and not any(d.unsure or d.cocked for d in truth):  # doubts the recording scripts answers for
                self.answers += 1
                self.session.on_settled(table_order(truth), self.session.table.moved, origin="players")
            return
        # A turn is several actions (take, gems drawn, a flip, a reveal, the placement, a skill); the players
        # answer again only while each answer leads the device to a new question (the same question again: the
        # reading itself is wrong, and the next still table is read afresh). A recording whose truth says how
        # many of the true actions the table shows (``done``) is answered with none beyond them: players answer
        # for what they have done, never for a turn not yet played (it would run the game ahead of the table).
        shown = frame.truth.get("done") if isinstance(frame.truth, Mapping) else None
        told = False  # the players said what lay where the device asked: the same question's answer is no new one
        pressed = False  # CONFIRM pressed once already on this table
        for _ in range(8):
            self._apply_waiting()  # a step the players tap on the page anyway is no answer
            if not self.session.table.pending:
                return
            said = adapter.told(self.session.state, self.truths, self.session.table.problems) \
                if adapter is not None else ()
            if said:  # the players say what lies where the device asked (a die it could not read): one answer
                self.answers += 0 if told else 1
                told = True
                try:
                    self.session.tell(said)
                except (GameError, SessionError) as exc:
                    self.session.warn(str(exc))
                    return
                continue
            if not pressed and adapter is not None and adapter.confirmable(
                    self.session.state, self.truths, self.session.table.problems):
                # Every question is a reading in doubt that is right: the players press CONFIRM, as asked.
                self.answers += 0 if told else 1
                told = pressed = True
                self.session.confirm_table()
                continue
            done = self.true_steps()
            if done >= len(self.expected_actions) or not self.session.table.pending:
                return
            if isinstance(shown, int) and done >= shown + self.steps_before:
                return
            asked = list(self.session.table.problems)
            if not told and adapter is not None and adapter.players_decide(self.session.state, asked):
                self.decided += 1  # the players' own choice or entry, no doubt of what the camera saw
            elif not told:
                self.answers += 1  # one question on the page, answered whole
            told = False
            try:
                if not self.session.answer(self.expected_actions[done]):
                    return
            except (GameError, SessionError) as exc:
                caught = self._caught_up(done) if isinstance(exc, GameError) else None
                if caught is not None:  # done already, as fewer actions: the players answer the next step
                    self.merged += caught - done
                    continue
                self.session.warn(str(exc))  # the record drifted: the replay will not match
                return
            if self.session.table.problems == asked and not (isinstance(shown, int) and self.true_steps() > done):
                return  # the same question again: the reading itself is wrong, and the next still table is read afresh
            # A step taken and the same question again (a board read in doubt throughout), on a table whose truth says
            # how many steps it shows: the players go on with those steps, never beyond them; the last table of a
            # game is read only once (Pyradice 6605: the apex placed and the game's last two steps never answered).


def true_actions(expected: Mapping[str, Any]) -> tuple[str, ...]:
    """A recording's true actions, as texts (what its "players" answer the device's questions with)."""
    actions = expected.get("actions", ())
    return tuple(str(a) for a in actions) if isinstance(actions, list) else ()


def _read_nothing(frame: Frame) -> Sequence[Any]:
    return ()


def _recorded_seed(source: FrameSource | None) -> tuple[str, int] | None:
    """A recording's game and the seed its game was set up with (None: a camera, or a recording without one)."""
    if isinstance(source, ReplaySource) and source.recording.seed is not None:
        return source.recording.game, int(source.recording.seed)
    return None


def board_reader_for(table: Mapping[str, Any], *, truth: bool) -> Callable[[TableAdapter], Reader]:
    """How a pipeline reads a board game: the adapter's reader of the camera frame for ``table``, or (``truth``)
    its readings of a recorded frame's truth."""

    def make(adapter: TableAdapter) -> Reader:
        if truth:
            return lambda frame: adapter.truth_readings(frame.truth)
        read = adapter.frame_reader(table)
        return lambda frame: read(frame.image) if frame.image is not None else ()

    return make


class Appliance:
    """Everything ``companion run`` runs, built from the configuration. Close it (or use ``with``)."""

    def __init__(self, config: Config, source: FrameSource | None, reader: Reader, *,
                 state_dir: Path | None = None, notifier: Notifier | None = None,
                 start_game: bool = True) -> None:
        self.config = config
        self.state_dir = state_dir or config.storage.path()
        self.state_dir.mkdir(parents=True, exist_ok=True)
        self.log = EventLog(self.state_dir / "events.sqlite3")
        self.hub = Hub()
        self.session = GameSession(self.log, self.hub)
        self.session.pairing_timeout_s = config.web.pairing_timeout_s
        self.notifier = notifier or Notifier()
        self.panel: Any = None
        self.server: Any = None
        self._server_thread: threading.Thread | None = None
        self._stop = threading.Event()
        self._web_stop = threading.Event()
        #: Start a new game with the same players when a looping replay starts over (the demo).
        self.restart_on_loop = False
        resumed = self.session.resume()
        if start_game and (not resumed or self._finished()):
            self._start_configured_game("camera" if source is not None else "offline", _recorded_seed(source))
        self.pipeline = Pipeline(
            self.session,
            StabilityFilter(lambda image: [], motion_threshold=config.stability.motion_threshold,
                            motion_delta=config.stability.motion_delta,
                            agree_frames=config.stability.agree_frames,
                            motion_frames=config.stability.motion_frames, cover_share=config.stability.cover_share),
            reader,
            self.hub,
            players_answer=isinstance(source, ReplaySource),  # the demo: nobody at the table to answer
            reader_for=self._board_reader(source, truth=reader is truth_reader),
            expected_actions=true_actions(source.recording.expected) if isinstance(source, ReplaySource) else (),
        )
        self.camera: Camera | None = None
        if source is not None:
            self.camera = Camera(source, lost_after_s=config.camera.lost_after_s,
                                 reconnect_min_s=config.camera.reconnect_min_s,
                                 reconnect_max_s=config.camera.reconnect_max_s,
                                 on_status=self._camera_status, stuck_after_s=config.camera.stuck_after_s,
                                 max_frame_pixels=config.camera.max_frame_pixels,
                                 max_frame_bytes=config.camera.max_frame_bytes)
            if resumed and isinstance(source, ReplaySource):
                self._resume_recording(source)
            self.session.set_camera("starting", f"opening {source.name}", source=source.name)
        else:
            self.session.set_camera("none", "no camera: offline scorekeeper", source=None)

    def _board_reader(self, source: FrameSource | None, *, truth: bool) -> Callable[[TableAdapter], Reader]:
        """A board game's reader: for a recording, the table it recorded; at a live table, this device's
        taught colours and the mats printed for the players at the table."""
        if isinstance(source, ReplaySource):
            return board_reader_for(source.recording.table, truth=truth)

        def make(adapter: TableAdapter) -> Reader:
            record = self.session.record
            players, options = (len(record.players), record.options) if record is not None else (2, {})
            return board_reader_for(live_table(self.state_dir, adapter.name, players, options), truth=truth)(adapter)

        return make

    def _start_configured_game(self, mode: str, recorded: tuple[str, int] | None = None) -> None:
        """The configuration's game; one the camera cannot read yet starts offline, and one that cannot be
        set up at all is reported on the page (the appliance still starts: the players set up another).
        ``recorded``: a recording's game and set-up seed; its game is set up as it was recorded (the quarry,
        the deck, the piles are the seed's), as ``companion replay`` does."""
        game = self.config.game
        seed = recorded[1] if recorded is not None and recorded[0] == game.name else None
        try:
            self.session.new_game(game.players, game.options, game=game.name, mode=mode, seed=seed)
        except SetupError as exc:
            if exc.field == "mode" and mode != "offline":
                log.warning("%s; starting it offline", exc)
                self._start_configured_game("offline", recorded)
                return
            log.error("the configured game cannot be set up: %s", exc)
            self.session.setup_problem = f"the configured game cannot be set up: {exc}; set up a game on the page"
            self.session.publish()

    def _resume_recording(self, source: ReplaySource) -> None:
        """A restart on the recording of the running game plays on after the last frame the log holds."""
        record, recording = self.session.record, source.recording
        if record is None or record.finished is not None or record.game != recording.game \
                or tuple(record.players) != tuple(recording.players):
            return
        last = self.log.last_frame(record.id)
        if last is not None:
            source.seek(last + 1)
            log.info("resuming game %s at frame %d of %s", record.id, last + 1, source.name)

    def _finished(self) -> bool:
        snap = self.session.snapshot()
        return bool(snap["game"] and snap["game"]["status"]["finished"])

    def _camera_status(self, status: str, detail: str) -> None:
        self.session.set_camera(status, detail)

    # --- parts ------------------------------------------------------------------------------
    def start_panel(self) -> None:
        mode = self.config.panel.mode
        self.session.set_panel({"mode": mode})
        if mode == "none":
            return
        from device.panel import Panel

        self.panel = Panel(self.config.panel, self._press)
        self.session.listeners.append(lambda snap: self.panel.show(snap["leds"]) if self.panel else None)
        self.panel.show(self.session.leds())

    def _press(self, button: str, long: bool) -> None:
        try:
            self.session.press(button, long=long, origin="panel")
        except (GameError, SessionError) as exc:
            self.session.warn(str(exc))

    def start_web(self, host: str | None = None, port: int | None = None) -> str:
        """Serve the page with waitress in a thread of this process; returns the page address."""
        from device.config import web_host
        from device.webserver import make_server
        from web import create_app

        web = self.config.web
        app = create_app(
            {"SECRET_KEY": secret_key(self.state_dir), "PANEL_MODE": self.config.panel.mode,
             "SSE_MAX_STREAMS": max(1, web.threads - 4), "ALLOWED_HOSTS": web.allowed_hosts},
            session=self.session,
        )
        host, warning = web_host(self.config, host)  # the mock panel: loopback unless configured otherwise
        if warning:
            log.warning("%s", warning)
        self.server = make_server(app, host=host, port=web.port if port is None else port, threads=web.threads,
                                  connection_limit=web.connection_limit, idle_timeout_s=web.idle_timeout_s)
        self._server_thread = threading.Thread(target=self._serve, name="web", daemon=True)
        self._server_thread.start()
        shown_host = host
        port = self.server.effective_port
        if shown_host in ("0.0.0.0", "", "::"):
            return f"http://127.0.0.1:{port}/ (on the network: http://{socket.gethostname()}.local:{port}/)"
        return f"http://{shown_host}:{port}/"

    def _serve(self) -> None:
        """waitress's loop, one poll at a time, so that it stops and closes its sockets in its own thread
        (closing them from another thread under a running select() fails with EBADF)."""
        server = self.server
        while not self._web_stop.is_set():
            server.asyncore.loop(timeout=0.2, map=server._map, count=1)
        # server.close() closes only the listening socket and the trigger; close the clients' channels
        # (an SSE page still connected) here too, rather than leave their sockets to the garbage collector.
        for channel in list(server._map.values()):
            if channel is not server:
                channel.close()
        server.close()

    # --- the main loop ----------------------------------------------------------------------
    def run(self, *, until_ended: bool = False) -> None:
        """The main loop; returns after :meth:`stop` (or when a replay ends, with ``until_ended``)."""
        assert self.camera is not None or not until_ended
        if self.camera is not None:
            self.camera.start()
        self.notifier.ready("running")
        if self.restart_on_loop and self.session.record is not None:
            self.pipeline.script_game = self.session.record.id  # the demo's own game
        seq = 0
        last_frame = last_usable = time.monotonic()
        lost_after = self.config.camera.lost_after_s
        last_index = -1
        fps_count, fps_since = 0, time.monotonic()
        while not self._stop.is_set():
            # A camera thread that is stuck and cannot be restarted starves the watchdog: systemd restarts us.
            if self.camera is None or self.camera.supervise():
                self.notifier.watchdog()
            if self.camera is None:
                self._stop.wait(0.5)
                continue
            seq, frame, inputs = self.camera.latest(seq, timeout=0.2)
            for item in inputs if frame is None and self.pipeline.scripted() else ():
                self.pipeline.apply_input(item)
            if frame is None:
                if self.camera.ended:
                    if until_ended:
                        break
                    self._stop.wait(0.2)
                elif time.monotonic() - last_frame > lost_after and self.session.camera["status"] == "ok":
                    self.session.set_camera("lost", f"no frame for {lost_after:g} s")
                continue
            last_frame = time.monotonic()
            fps_count += 1
            if last_frame - fps_since >= 2.0:
                self.session.camera["fps"] = round(fps_count / (last_frame - fps_since), 1)
                fps_count, fps_since = 0, last_frame
            if frame.index < last_index and self.restart_on_loop and self.session.record is not None \
                    and self.pipeline.scripted():
                record = self.session.record
                self.session.new_game(record.players, record.options, game=record.game, mode=record.mode,
                                      seed=record.seed)
                self.pipeline.script_game = self.session.record.id
            last_index = frame.index
            try:
                result = self.pipeline.process(frame, inputs)
            except Exception:  # one bad frame or reading must not stop the appliance
                log.exception("frame %s could not be processed", frame.index)
                continue
            # Frames with no usable picture (lens cap, lights out, noise, corrupt files) are a lost camera too.
            if result.tracking != "bad":
                last_usable = last_frame
                if self.session.camera["status"] != "ok" and not self.camera.ended:
                    self.session.set_camera("ok", self.camera.source.name)
            elif last_frame - last_usable > lost_after and self.session.camera["status"] in ("ok", "starting"):
                self.session.set_camera("lost", f"no usable frame for {lost_after:g} s ({result.problem})")
        self.notifier.stopping()

    def stop(self) -> None:
        self._stop.set()

    def close(self) -> None:
        self._stop.set()
        if self.camera is not None:
            self.camera.stop()
        self.hub.close()  # ends the SSE streams
        if self.server is not None:
            self.server.task_dispatcher.shutdown(timeout=5)  # let the streams' threads finish first
            self._web_stop.set()
        if self._server_thread is not None:
            self._server_thread.join(timeout=5)
        if self.panel is not None:
            self.panel.close()
            self.panel = None
        self.log.close()
        self.notifier.close()

    def __enter__(self) -> Appliance:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()
