"""``companion bench live``: frames per second through the live pipeline, the delay from a settled frame to
its event reaching an SSE client, and the process's peak memory.

Frames come from the bundled recording, decoded outside the timed part (a camera hands over raw frames) at
1280x960, and go through the stability filter, the dice reader (the vision model when the build has
one, else the recording's truth, and the figure says which), the game session and the event log, on
one core (OpenCV limited to one thread). The delay is measured with a real waitress server and an SSE
client on a socket: from the start of processing the frame that settled to the client reading the
event that carries the new action. Dice are read only while the table is still and not yet settled, so
the reader's own cost per frame is printed too (the rate if every frame had to be read).
Targets: >= 15 frames/s, delay < 150 ms median, < 250 MB.

``companion bench live --recording DIR`` plays a board game's recording the same way, as ``companion run
--source replay:DIR`` would (the recorded table's reader, the players answering from the recording's truth):
the delay from a settled table to its event (reading the table included) and the running companion's memory.

``python -m device.bench soak`` (``make soak``) prints the reliability figures of docs/benchmarks.md: SIGKILL
crash consistency through every game, an endpoint fuzz, the page under idle connections and held streams,
and an RSS soak (the section at the end of this module).
"""

from __future__ import annotations

import argparse
import contextlib
import http.client
import json
import os
import resource
import statistics
import tempfile
import threading
import time
from collections.abc import Iterable, Iterator
from pathlib import Path
from typing import Any

import cv2

from device.appliance import Appliance, Reader, choose_reader
from device.commands import DEMO_RECORDING
from device.config import Config
from device.errors import UsageError
from device.recording import load_recording
from device.sources import Frame, ReplaySource, read_frame_file


def _frames(limit: int) -> Iterator[Frame]:
    """The recording's first frames, decoded one by one as a camera would hand them over (not all held)."""
    recording = load_recording(DEMO_RECORDING)
    last: tuple[str, Any] = ("", None)
    for i, info in enumerate(recording.frames[:limit]):
        if info.file != last[0]:
            last = (info.file, read_frame_file(recording.root / info.file))
        yield Frame(last[1], i, 0.0, truth=info.dice, inputs=info.inputs)


def _timed(read: Reader, reads: list[float], cpu: list[float] | None = None) -> Reader:
    """``read`` timed: wall-clock seconds into ``reads``, and the reading thread's CPU seconds into ``cpu``
    (the figure to trust on a shared machine)."""

    def timed_reader(frame: Frame) -> Any:
        start, start_cpu = time.perf_counter(), time.thread_time()
        try:
            return read(frame)
        finally:
            reads.append(time.perf_counter() - start)
            if cpu is not None:
                cpu.append(time.thread_time() - start_cpu)

    return timed_reader


def _one_run(frames: Iterable[Frame], reader: Reader, reads: list[float]) -> tuple[float, list[float]]:
    """The bundled Paša recording's first frames through an appliance with the dice reader timed."""
    config = Config().replace(panel={"mode": "none"})
    with tempfile.TemporaryDirectory(prefix="companion-bench-") as tmp, \
            Appliance(config, None, _timed(reader, reads), state_dir=Path(tmp)) as app:
        app.session.new_game(["Anna", "Ben"], {}, game="pasa", mode="camera")
        return _measure(app, frames)


def _table_run(path: Path, limit: int, reader: Reader, reads: list[float],
               cpu: list[float]) -> tuple[float, list[float], int]:
    """A board game's recording through the appliance as ``companion run --source replay:DIR`` plays it: the
    recorded table's reader (timed), the players answering the device's questions from the recording's
    truth. Returns frames/s, the delays and the number of actions the game reached."""
    source = ReplaySource(path, fast=True)
    recording = source.recording
    config = Config().replace(panel={"mode": "none"}, game={
        "name": recording.game, "players": list(recording.players), "options": dict(recording.options)})
    with tempfile.TemporaryDirectory(prefix="companion-bench-") as tmp, \
            Appliance(config, source, reader, state_dir=Path(tmp)) as app:
        make = app.pipeline.reader_for
        assert make is not None  # a replay source always has a board reader
        app.pipeline.reader_for = lambda adapter: _timed(make(adapter), reads, cpu)

        def frames() -> Iterator[Frame]:
            with source:
                for _ in range(limit):
                    try:
                        yield source.read()
                    except EOFError:
                        return

        fps, delays = _measure(app, frames())
        return fps, delays, len(app.session.history)


def _measure(app: Appliance, frames: Iterable[Frame]) -> tuple[float, list[float]]:
    """Frames through ``app``'s pipeline with a real waitress server and an SSE client on a socket: frames/s,
    and for each event that carries a new action, the time from the start of processing its frame to the
    client reading it."""
    address = app.start_web("127.0.0.1", 0)
    port = int(address.rstrip("/").rsplit(":", 1)[1])
    started: dict[int, float] = {}
    received: dict[int, tuple[float, int]] = {}
    frame_start = [0.0]
    publish = app.hub.publish

    def timed_publish(snapshot: dict[str, Any]) -> int:
        version = publish(snapshot)
        started[version] = frame_start[0]
        return version

    app.hub.publish = timed_publish  # type: ignore[method-assign]
    ready = threading.Event()

    def client() -> None:
        conn = http.client.HTTPConnection("127.0.0.1", port, timeout=30)
        conn.request("GET", "/api/events")
        response = conn.getresponse()
        ready.set()
        event_id = 0
        while True:
            line = response.fp.readline()
            if not line:
                break
            if line.startswith(b"id: "):
                event_id = int(line[4:])
            elif line.startswith(b"data: "):
                data = json.loads(line[6:])
                game = data.get("game") or {}
                received[event_id] = (time.perf_counter(), int(game.get("action_count", 0)))
        conn.close()

    reader_thread = threading.Thread(target=client, daemon=True)
    reader_thread.start()
    ready.wait(10)
    time.sleep(0.2)
    elapsed = 0.0
    processed = 0
    for frame in frames:
        processed += 1
        frame_start[0] = time.perf_counter()
        app.pipeline.process(frame, frame.inputs)
        elapsed += time.perf_counter() - frame_start[0]
    time.sleep(0.3)
    delays = []
    last_count = 0
    for version in sorted(received):
        at, count = received[version]
        if count > last_count and version in started and started[version] > 0:
            delays.append((at - started[version]) * 1000)
        last_count = count
    return processed / max(elapsed, 1e-9), delays


def _pin_one_core() -> None:
    cv2.setNumThreads(1)
    with contextlib.suppress(AttributeError, OSError):  # one core: the whole process, web threads included
        os.sched_setaffinity(0, {min(os.sched_getaffinity(0))})


def _print_delays(delays: list[float], target_ms: int) -> None:
    if delays:
        p95 = statistics.quantiles(delays, n=20)[-1] if len(delays) >= 2 else delays[0]
        print(f"  settled frame -> SSE client: median {statistics.median(delays):.1f} ms, "
              f"p95 {p95:.1f} ms over {len(delays)} events (target < {target_ms} ms median)")
    else:
        print("  settled frame -> SSE client: no events measured")


def run(args: argparse.Namespace) -> int:
    recording = getattr(args, "recording", None)
    frames = getattr(args, "frames", None)
    if frames is not None and frames < 1:
        raise UsageError(f"--frames must be at least 1, got {frames}")
    if recording is not None:
        return run_table(Path(recording), frames or 400)
    _pin_one_core()
    reader, reader_name = choose_reader(getattr(args, "reader", None), say=print)
    count = 300
    fps_runs = []
    delays: list[float] = []
    reads: list[float] = []
    for _ in range(max(1, int(getattr(args, "repeat", 3)))):
        fps, run_delays = _one_run(_frames(count), reader, reads)
        fps_runs.append(fps)
        delays.extend(run_delays)
    peak_mb = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
    w, h = load_recording(DEMO_RECORDING).size
    print(f"live pipeline ({reader_name} reader, {w}x{h}, 1 core, {count} frames):")
    print(f"  frames/s median {statistics.median(fps_runs):.1f} (target >= 15)")
    if reads:
        each = statistics.median(reads) * 1000
        print(f"  dice read on {len(reads) // len(fps_runs)} of {count} frames (the rest moving or already settled), "
              f"{each:.1f} ms each: {1000 / max(each, 1e-3):.0f} frames/s if every frame had to be read")
    _print_delays(delays, 150)
    print(f"  peak memory {peak_mb:.0f} MB (target < 250 MB)")
    return 0


def run_table(path: Path, frames: int) -> int:
    """``companion bench live --recording DIR``: a board game's recording through the whole appliance, one
    run (its many settled tables are the sample): the delay from a settled table to the page's event, which
    includes reading the table, and the running companion's peak memory. Targets of issues 22 and 24: < 200 ms
    median, < 250 MB."""
    recording = load_recording(path)  # a bad path is said before anything is loaded
    _pin_one_core()
    reader, _ = choose_reader("model", say=print)  # a board game is read by its adapter's model reader
    reads: list[float] = []
    cpu: list[float] = []
    fps, delays, actions = _table_run(path, frames, reader, reads, cpu)
    peak_mb = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
    w, h = recording.size
    shown = min(frames, len(recording.frames))
    print(f"live pipeline, {recording.game} recording {path.name} ({len(recording.players)} players, model "
          f"reader, {w}x{h}, 1 core, {shown} of {len(recording.frames)} frames, {actions} actions reached):")
    print(f"  frames/s {fps:.1f}")
    if reads:
        print(f"  table read on {len(reads)} of {shown} frames (the rest moving or already settled), median "
              f"{statistics.median(reads) * 1000:.1f} ms each ({statistics.median(cpu) * 1000:.1f} ms CPU)")
    _print_delays(delays, 200)
    print(f"  peak memory {peak_mb:.0f} MB (target < 250 MB)")
    return 0


# --- the reliability figures (issue 26): ``python -m device.bench soak`` (``make soak``) ------------------
#
# Crash consistency: a companion process is killed with SIGKILL at random moments and started again on
# the same state directory, over and over. Paša plays its bundled recording (``--source replay:... --fast``,
# which resumes where the log stands); the other three games are driven through POST /api/action with the
# engine's legal actions by a paired client. After every kill the log is opened (the process is dead):
# SQLite's integrity check, and the accepted actions against what the client was told was accepted (lost:
# a 200 whose action is not in the log; duplicated: an action in the log more often than it was sent).
# Fuzz: every endpoint with malformed bodies (hypothesis), paired and not, counting 5xx. Serve: /healthz and
# the page with 100 idle connections and 20 live streams held. Soak: the demo recording looped at its
# recorded pace with one live page attached, RSS sampled. All traffic goes to 127.0.0.1 only.

LOOPBACK = "127.0.0.1"


def _free_port() -> int:
    import socket

    with socket.socket() as s:
        s.bind((LOOPBACK, 0))
        return int(s.getsockname()[1])


class _Companion:
    """``companion run`` as a child process on a state directory (killed and started again by the bench)."""

    def __init__(self, state_dir: Path, args: list[str], port: int) -> None:
        self.state_dir, self.args, self.port = state_dir, args, port
        self.proc: Any = None

    def start(self) -> None:
        import subprocess
        import sys

        self.proc = subprocess.Popen(
            [sys.executable, "-m", "device.cli", "run", "--state-dir", str(self.state_dir), "--host", LOOPBACK,
             "--port", str(self.port), *self.args],
            stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, env={**os.environ, "PYTHONUNBUFFERED": "1"})

    def kill(self) -> None:
        import signal

        if self.proc is not None and self.proc.poll() is None:
            self.proc.send_signal(signal.SIGKILL)

    def wait_dead(self) -> None:
        if self.proc is not None:
            self.proc.wait(timeout=30)

    def wait_ready(self, timeout: float = 30.0) -> bool:
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            if self.proc.poll() is not None:
                return False
            try:
                conn = http.client.HTTPConnection(LOOPBACK, self.port, timeout=2)
                conn.request("GET", "/healthz")
                conn.getresponse().read()
                conn.close()
                return True
            except OSError:
                time.sleep(0.05)
        return False


class _Browser:
    """A paired page's requests: one cookie, the CSRF token, JSON bodies (on the loopback address)."""

    def __init__(self, port: int) -> None:
        self.port = port
        self.cookie = ""
        self.csrf = ""

    def request(self, method: str, path: str, body: Any = None, timeout: float = 10.0) -> tuple[int, Any]:
        conn = http.client.HTTPConnection(LOOPBACK, self.port, timeout=timeout)
        try:
            headers = {"Host": f"{LOOPBACK}:{self.port}"}
            if self.cookie:
                headers["Cookie"] = self.cookie
            data = None
            if method == "POST":
                data = json.dumps({} if body is None else body)
                headers.update({"Content-Type": "application/json", "X-CSRF-Token": self.csrf})
            conn.request(method, path, body=data, headers=headers)
            response = conn.getresponse()
            raw = response.read()
            cookie = response.getheader("Set-Cookie")
            if cookie:
                self.cookie = cookie.split(";", 1)[0]
            return response.status, json.loads(raw) if raw[:1] in (b"{", b"[") else raw
        finally:
            conn.close()

    def pair(self) -> bool:
        _, data = self.request("GET", "/api/csrf")
        self.csrf = data["csrf"]
        if data["paired"]:
            return True
        self.request("POST", "/api/pair")
        self.request("POST", "/api/panel/press", {"button": "confirm"})  # the mock panel's CONFIRM
        return bool(self.request("GET", "/api/pair")[1].get("paired"))


def _logged(state_dir: Path) -> tuple[str, int | None, list[str], bool]:
    """With the process dead: SQLite's integrity check, and the latest game's id, actions (as text) and
    whether it is finished."""
    import sqlite3

    from device.eventlog import EventLog
    from device.session import game_record_json

    path = state_dir / "events.sqlite3"
    if not path.exists():
        return "ok", None, [], False
    db = sqlite3.connect(path)
    try:
        integrity = str(db.execute("PRAGMA integrity_check").fetchone()[0])
    finally:
        db.close()
    with EventLog(path) as log:
        game_id = log.latest_game_id()
        if game_id is None:
            return integrity, None, [], False
        record = game_record_json(log.game(game_id))
    return integrity, game_id, list(record["actions"]), bool(record["finished"])


def _crash_pasa(kills: int, rng: Any, workdir: Path, say: Any) -> dict[str, Any]:
    """SIGKILLs through the bundled Paša recording (fast replay, truth reader); each pass starts fresh."""
    recording = load_recording(DEMO_RECORDING)
    expected = list(recording.expected["actions"])
    config = workdir / "pasa.toml"
    players = json.dumps(list(recording.players))
    config.write_text(f'[panel]\nmode = "none"\n[game]\nname = "pasa"\nplayers = {players}\n')
    out: dict[str, Any] = {"game": "pasa", "kills": 0, "lost": 0, "duplicated": 0, "wrong": 0, "integrity": set(),
                           "games": 0, "actions": 0}
    passes = 0
    while out["kills"] < kills:
        passes += 1
        state = workdir / f"pasa-{passes}"
        companion = _Companion(state, ["--source", f"replay:{DEMO_RECORDING}", "--fast", "--reader", "truth",
                                       "--config", str(config)], _free_port())
        done_before: list[str] = []
        while out["kills"] < kills:
            companion.start()
            time.sleep(rng.uniform(0.3, 4.0))  # a random moment: starting, replaying, or done
            companion.kill()
            companion.wait_dead()
            out["kills"] += 1
            integrity, _, actions, _ = _logged(state)
            out["integrity"].add(integrity)
            # The log must hold a prefix of the true game (an action twice or another one: "wrong"), and
            # never fewer actions than at the previous kill (lost).
            if actions != expected[:len(actions)]:
                out["wrong"] += 1
            if actions[:len(done_before)] != done_before:
                out["lost"] += len(done_before)
            done_before = actions
            if actions == expected:
                out["games"] += 1
                out["actions"] += len(actions)
                break
        say(f"  pasa: pass {passes}, {out['kills']} kills so far, {len(done_before)}/{len(expected)} actions")
    return out


def _crash_api(name: str, kills: int, rng: Any, workdir: Path, say: Any) -> dict[str, Any]:
    """SIGKILLs while a paired client plays ``name`` through POST /api/action (engine legal actions)."""
    from device.eventlog import EventLog
    from device.session import replay_record
    from engine.game import find_game

    game = find_game(name)
    players = ["Anna", "Ben"]
    config = workdir / f"{name}.toml"
    config.write_text(f'[panel]\nmode = "mock"\n[game]\nname = "{name}"\nplayers = {json.dumps(players)}\n')
    state_dir = workdir / name
    port = _free_port()
    companion = _Companion(state_dir, ["--offline", "--config", str(config)], port)
    out: dict[str, Any] = {"game": name, "kills": 0, "lost": 0, "duplicated": 0, "wrong": 0, "integrity": set(),
                           "games": 0, "actions": 0, "acked": 0}
    acked: list[str] = []  # actions of the current game the server answered 200 for
    in_flight: str | None = None
    game_id: int | None = None
    while out["kills"] < kills:
        companion.start()
        if not companion.wait_ready():
            companion.kill()
            companion.wait_dead()
            continue
        browser = _Browser(port)
        killer = threading.Timer(rng.uniform(0.05, 1.5), companion.kill)  # a random moment of play
        killer.start()
        try:
            if not browser.pair():
                raise OSError("could not pair")
            while True:
                with EventLog(state_dir / "events.sqlite3") as log:  # read-only use: where the game stands
                    latest = log.latest_game_id()
                    record = log.game(latest) if latest is not None else None
                if record is None:
                    break
                if latest != game_id:  # a new game: the companion starts one when the last one had finished
                    game_id, acked = latest, []
                _, state, _ = replay_record(record)
                if game.status(state).finished:
                    out["games"] += 1
                    in_flight = "new game"
                    browser.request("POST", "/api/game", {"game": name, "players": players, "mode": "offline"})
                    in_flight, acked = None, []
                    continue
                if game.status(state).awaiting == "chance":
                    action = game.random_chance(state, rng)
                else:
                    texts = [a.text for a in game.legal(state)]
                    places = [t for t in texts if t.startswith(("place", "take"))] if name == "dicetreasure" else []
                    action = game.parse_action(rng.choice(places or texts), state)
                in_flight = game.action_text(action)
                status, _ = browser.request("POST", "/api/action", {"text": in_flight})
                if status == 200:
                    acked.append(in_flight)
                    out["acked"] += 1
                    in_flight = None
                elif status >= 500:
                    out["wrong"] += 1
        except (OSError, http.client.HTTPException, ValueError):
            pass  # killed under the client
        killer.join()
        companion.kill()
        companion.wait_dead()
        out["kills"] += 1
        integrity, logged_id, actions, _ = _logged(state_dir)
        out["integrity"].add(integrity)
        if logged_id != game_id:  # the kill fell into a new game's set-up: it was made, or not
            acked, in_flight = [], None
            continue
        # The log holds exactly what was answered 200, plus perhaps the action in flight at the kill.
        if actions[:len(acked)] != acked:
            out["lost"] += sum(1 for a, b in zip(acked, actions, strict=False) if a != b) + max(
                0, len(acked) - len(actions))
        extra = actions[len(acked):]
        if extra == [in_flight] and in_flight is not None:
            acked.append(in_flight)  # accepted just before the kill, the answer never came
        elif extra:
            out["duplicated"] += len(extra)
        acked = actions  # go on from what the log holds
        in_flight = None
        if out["kills"] % 25 == 0:
            say(f"  {name}: {out['kills']} kills, {out['acked']} actions answered 200, {out['games']} games done")
    out["actions"] = out["acked"]
    return out


CRASH_GAMES = ("pasa", "pyradice", "pyramido", "dicetreasure")


def crash_consistency(kills: int, seed: int, say: Any, games: Iterable[str] = CRASH_GAMES) -> list[dict[str, Any]]:
    import random

    rng = random.Random(seed)
    results = []
    with tempfile.TemporaryDirectory(prefix="companion-crash-") as tmp:
        work = Path(tmp)
        for name in games:
            results.append(_crash_pasa(kills, rng, work, say) if name == "pasa"
                           else _crash_api(name, kills, rng, work, say))
    return results


#: The endpoints the fuzz sends malformed requests to (the tests' fuzz too): every change, every query.
FUZZED_POSTS = ("/api/correct", "/api/confirm", "/api/action", "/api/undo", "/api/game", "/api/pair",
                "/api/panel/press", "/api/unpair", "/api/browsers/forget", "/api/browsers/forget-all", "/api/teach",
                "/api/deck/read", "/api/deck/cards", "/api/deck/bonus", "/api/deck/remove")
FUZZED_GETS = ("/", "/api/state", "/api/csrf", "/api/pair", "/api/legal", "/api/catalog", "/api/games",
               "/api/games/1", "/api/browsers", "/healthz", "/api/frame.jpg", "/api/deck", "/api/teach",
               "/api/calibration", "/mats/pyradice.json")


def fuzz(examples: int, say: Any) -> dict[str, int]:
    """Every endpoint with malformed bodies and hosts (hypothesis), paired and not, in-process."""
    from hypothesis import HealthCheck, given, settings
    from hypothesis import strategies as st

    from device.eventlog import EventLog
    from device.hub import Hub
    from device.session import GameSession
    from web import create_app

    posts, gets = list(FUZZED_POSTS), [*FUZZED_GETS, "/api/events"]
    values = st.recursive(st.none() | st.booleans() | st.integers() | st.text(max_size=30) | st.floats(),
                          lambda inner: st.lists(inner, max_size=4) | st.dictionaries(st.text(max_size=8), inner,
                                                                                      max_size=4), max_leaves=12)
    bodies = (st.binary(max_size=300) | values.map(lambda v: json.dumps(v).encode())
              | st.fixed_dictionaries({k: values for k in ("text", "index", "value", "game", "players", "mode",
                                                            "seed", "options", "button", "long", "id", "card",
                                                            "requires", "reward")}).map(
                  lambda v: json.dumps(v).encode())
              | st.integers(1, 20000).map(lambda n: b"[" * n))
    counts = {"requests": 0, "paired": 0, "5xx": 0}
    with tempfile.TemporaryDirectory(prefix="companion-fuzz-") as tmp:
        session = GameSession(EventLog(Path(tmp) / "events.sqlite3"), Hub())
        session.new_game(["Anna", "Ben"], game="pasa")
        app = create_app({"TESTING": True, "PANEL_MODE": "mock", "SSE_ONCE": True}, session=session)

        @settings(max_examples=examples, deadline=None, database=None,
                  suppress_health_check=list(HealthCheck))
        @given(post=st.booleans(), url=st.sampled_from(posts), get=st.sampled_from(gets), body=bodies,
               paired=st.booleans(), host=st.sampled_from(["localhost", "evil.example", "[::1]:1", "a b"]),
               ctype=st.sampled_from(["application/json", "text/plain", ""]))
        def one(post: bool, url: str, get: str, body: bytes, paired: bool, host: str, ctype: str) -> None:
            client = app.test_client()
            if paired:
                session.pairing._requests.clear()
                token = client.get("/api/csrf").get_json()["csrf"]
                client.post("/api/pair", data="{}", content_type="application/json", headers={"X-CSRF-Token": token})
                session.press("confirm")
                client.get("/api/pair")
                counts["paired"] += 1
            token = client.get("/api/csrf").get_json()["csrf"]
            headers = {"X-CSRF-Token": token, "Host": host}
            if post:
                response = client.post(url, data=body, content_type=ctype, headers=headers)
            else:
                response = client.get(get, headers=headers)
            counts["requests"] += 1
            if response.status_code >= 500:
                counts["5xx"] += 1
                say(f"  5xx: {url if post else get} {body[:80]!r} -> {response.get_data()[:120]!r}")
            response.close()

        one()
        session.log.close()
    return counts


def serve_under_load(repeat: int) -> dict[str, float]:
    """/healthz and the page with 100 idle connections and 20 live streams held (a child companion)."""
    import socket

    with tempfile.TemporaryDirectory(prefix="companion-serve-") as tmp:
        config = Path(tmp) / "c.toml"
        config.write_text('[panel]\nmode = "none"\n')
        port = _free_port()
        companion = _Companion(Path(tmp) / "state", ["--offline", "--config", str(config)], port)
        companion.start()
        held: list[socket.socket] = []
        try:
            if not companion.wait_ready():
                raise OSError("the companion did not start")
            for _ in range(100):
                held.append(socket.create_connection((LOOPBACK, port), timeout=5))
            for _ in range(20):
                s = socket.create_connection((LOOPBACK, port), timeout=5)
                s.sendall(f"GET /api/events HTTP/1.1\r\nHost: {LOOPBACK}\r\n\r\n".encode())
                held.append(s)
            time.sleep(0.5)
            figures: dict[str, list[float]] = {"/healthz": [], "/": []}
            for _ in range(repeat):
                for path in figures:
                    start = time.perf_counter()
                    conn = http.client.HTTPConnection(LOOPBACK, port, timeout=30)
                    conn.request("GET", path)
                    conn.getresponse().read()
                    conn.close()
                    figures[path].append((time.perf_counter() - start) * 1000)
                time.sleep(0.2)
        finally:
            for s in held:
                s.close()
            companion.kill()
            companion.wait_dead()
    return {f"{path} median ms": statistics.median(v) for path, v in figures.items()} | {
        f"{path} max ms": max(v) for path, v in figures.items()}


def _rss_mb(pid: int) -> float:
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith("VmRSS:"):
            return int(line.split()[1]) / 1024
    return 0.0


def soak_rss(minutes: float, reader: str, say: Any, warmup_min: float = 2.0) -> dict[str, float]:
    """The demo recording looped at its recorded pace with one live page attached; RSS every 5 s after a
    warm-up (the first loop of the recording loads the models and fills the caches)."""
    port = _free_port()
    with tempfile.TemporaryDirectory(prefix="companion-soak-") as tmp:
        companion = _Companion(Path(tmp) / "state", ["--demo", "--reader", reader], port)
        companion.start()
        samples: list[tuple[float, float]] = []
        events = [0]
        try:
            if not companion.wait_ready(60):
                raise OSError("the companion did not start")

            def page() -> None:  # one browser: a live stream read to its end
                try:
                    conn = http.client.HTTPConnection(LOOPBACK, port, timeout=60)
                    conn.request("GET", "/api/events")
                    response = conn.getresponse()
                    while line := response.fp.readline():
                        events[0] += line.startswith(b"data: ")
                except OSError:
                    pass

            threading.Thread(target=page, daemon=True).start()
            start = time.monotonic()
            peak = 0.0
            while (elapsed := time.monotonic() - start) < (warmup_min + minutes) * 60:
                rss = _rss_mb(companion.proc.pid)
                peak = max(peak, rss)
                if elapsed >= warmup_min * 60:
                    samples.append((elapsed, rss))
                time.sleep(5)
        finally:
            companion.kill()
            companion.wait_dead()
    tenth = max(1, len(samples) // 10)
    first = statistics.mean(r for _, r in samples[:tenth])
    last = statistics.mean(r for _, r in samples[-tenth:])
    say(f"  soak: {len(samples)} samples, {events[0]} snapshots received by the page")
    return {"minutes": minutes, "first tenth MB": first, "last tenth MB": last,
            "growth %": 100 * (last - first) / first, "peak MB": peak,
            "snapshots": float(events[0])}


def soak(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m device.bench soak", description=(
        "Reliability figures (issue 26): SIGKILL crash consistency for every game, an endpoint fuzz, the "
        "page under 100 idle connections and 20 streams, and an RSS soak. Loopback only."))
    parser.add_argument("--kills", type=int, default=100, help="SIGKILLs per game (default 100)")
    parser.add_argument("--fuzz", type=int, default=2000, help="fuzzed requests (default 2000)")
    parser.add_argument("--minutes", type=float, default=10.0, help="soak length after the warm-up (default 10)")
    parser.add_argument("--warmup", type=float, default=2.0, help="soak warm-up in minutes, not measured (default 2)")
    parser.add_argument("--reader", choices=("model", "truth"), default="model", help="the soak's dice reader")
    parser.add_argument("--seed", type=int, default=26)
    parser.add_argument("--game", choices=CRASH_GAMES, action="append", help="crash only these games (repeatable)")
    parser.add_argument("--only", choices=("crash", "fuzz", "serve", "soak"), action="append",
                        help="run only these parts (repeatable)")
    args = parser.parse_args(argv)
    parts = args.only or ["crash", "fuzz", "serve", "soak"]

    def say(line: str) -> None:
        print(line, flush=True)

    if "crash" in parts:
        say(f"crash consistency: {args.kills} SIGKILLs per game at random moments")
        for r in crash_consistency(args.kills, args.seed, say, args.game or CRASH_GAMES):
            say(f"  {r['game']}: {r['kills']} kills, {r['actions']} accepted actions, {r['games']} games finished, "
                f"lost {r['lost']}, duplicated {r['duplicated']}, wrong {r['wrong']}, "
                f"integrity {', '.join(sorted(r['integrity']))}")
    if "fuzz" in parts:
        counts = fuzz(args.fuzz, say)
        say(f"fuzz: {counts['requests']} requests ({counts['paired']} paired), {counts['5xx']} with a 5xx")
    if "serve" in parts:
        figures = serve_under_load(10)
        say("page with 100 idle connections and 20 live streams held: " + ", ".join(
            f"{k} {v:.0f}" for k, v in figures.items()))
    if "soak" in parts:
        result = soak_rss(args.minutes, args.reader, say, args.warmup)
        say(f"soak ({result['minutes']:g} min after {args.warmup:g} min warm-up, {args.reader} reader, one live "
            "page): RSS first tenth "
            f"{result['first tenth MB']:.0f} MB, last tenth {result['last tenth MB']:.0f} MB "
            f"(growth {result['growth %']:+.1f}%), peak {result['peak MB']:.0f} MB")
    return 0


if __name__ == "__main__":
    import sys

    if sys.argv[1:2] == ["soak"]:
        sys.exit(soak(sys.argv[2:]))
    sys.exit("usage: python -m device.bench soak [--kills N] [--fuzz N] [--minutes M] [--only PART]")
