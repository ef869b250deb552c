"""Issue 26, frames that cannot fake a move: a noise frame or a corrupted JPEG between still frames is no roll,
a roll needs the dice seen to move, unusable frames are a lost camera (page, LEDs, /healthz), a stuck camera
thread is restarted and the watchdog starves when it cannot be, a fast replay accepts every action and ends
as "ended", a restart on a recording resumes where the log stands, and oversized frames are refused before
they are decoded."""

from __future__ import annotations

import json
import threading
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import cv2
import numpy as np
import pytest

from device.appliance import Appliance, truth_reader
from device.commands import DEMO_RECORDING, replay
from device.config import Config
from device.session import reading
from device.sources import Camera, Frame, FrameSource, ReplaySource, image_size, read_frame_file
from device.stability import StabilityFilter

pytest.importorskip("engine.pasa", reason="engine.pasa (the Paša game) is not in this build yet")


def scene(dice_at: list[tuple[int, int]], level: int = 80) -> np.ndarray:
    rng = np.random.default_rng(0)
    image = np.full((480, 640, 3), level, np.uint8) + rng.integers(0, 20, (480, 640, 3), dtype=np.uint8)
    for x, y in dice_at:
        image[y - 20:y + 20, x - 20:x + 20] = 240
    return image


def noise(shape: tuple[int, ...] = (480, 640, 3), seed: int = 1) -> np.ndarray:
    return np.random.default_rng(seed).integers(0, 256, shape, dtype=np.uint8)


def wait(check: Callable[[], bool], timeout: float) -> float:
    start = time.monotonic()
    while not check():
        assert time.monotonic() - start < timeout, "timed out"
        time.sleep(0.02)
    return time.monotonic() - start


# --- the reproduction ----------------------------------------------------------------------------
def mini_recording(root: Path, frames: int, insert: list[str | None] | None = None) -> Path:
    """The bundled recording's first ``frames`` frames; ``insert``: still frames added after them (a file
    name inside ``root``, or None for the still frame itself), then the next 40 frames of the game."""
    data = json.loads((DEMO_RECORDING / "recording.json").read_text())
    root.mkdir(parents=True, exist_ok=True)
    (root / "frames").symlink_to(DEMO_RECORDING / "frames")
    head, tail = data["frames"][:frames], data["frames"][frames:frames + 40]
    still = head[-1]
    added = [{**still, "inputs": [], "file": name or still["file"]} for name in (insert or [])]
    t = still["t"]
    out = []
    for f in head + added + tail:
        t = max(t, f["t"])
        out.append({**f, "t": t})
        t += 0.2
    data["frames"] = out
    data.pop("expected", None)
    (root / "recording.json").write_text(json.dumps(data))
    return root


def corrupted_jpeg(src: Path, dst: Path) -> None:
    """The same JPEG with its compressed data scrambled in the middle, still ending with its end marker."""
    data = bytearray(src.read_bytes())
    rng = np.random.default_rng(5)
    for i in range(len(data) // 3, 2 * len(data) // 3, 41):
        data[i] = int(rng.integers(0, 255))
    assert data[-2:] == b"\xff\xd9"
    dst.write_bytes(bytes(data))


@pytest.mark.parametrize("bad", ["noise", "corrupt"])
def test_a_bad_frame_among_still_dice_is_not_a_roll(tmp_path: Path, bad: str) -> None:
    """Twelve still frames after the first "stop", the seventh of them noise (or a corrupted JPEG)."""
    plain = replay(mini_recording(tmp_path / "plain", 30, [None] * 12), reader_name="truth")
    root = tmp_path / "bad"
    root.mkdir()
    if bad == "noise":
        cv2.imwrite(str(root / "bad.jpg"), noise((960, 1280, 3)))
    else:
        corrupted_jpeg(DEMO_RECORDING / "frames" / "0008.jpg", root / "bad.jpg")
    spiked = replay(mini_recording(root, 30, [None] * 6 + ["bad.jpg"] + [None] * 5), reader_name="truth")
    assert spiked["actions"] == plain["actions"]
    assert plain["actions"][3] == "stop" and plain["actions"][4].startswith("roll")  # Ben's real roll counts


# --- the filter --------------------------------------------------------------------------------------------
def settle(f: StabilityFilter, image: np.ndarray, n: int = 4) -> Any:
    return [r.settled for r in (f.step(image) for _ in range(n)) if r.settled is not None]


def test_one_frame_spike_is_ignored_and_lasting_motion_counts() -> None:
    dice = [reading(5, 100.0, 100.0)]
    f = StabilityFilter(lambda image: dice, agree_frames=2)
    a = scene([(100, 100)])
    assert settle(f, a)
    for spike in (noise(), scene([(400, 300)])):
        assert f.step(spike).tracking != "moving"
        assert f.step(a).tracking == "still" and not settle(f, a)
    b, c = scene([(300, 300)]), scene([(500, 200)])
    assert [f.step(x).tracking for x in (b, c)] == ["still", "moving"]


def test_a_roll_needs_the_dice_seen_to_move() -> None:
    here = [reading(5, 100.0, 100.0)]
    dice = {"now": here}
    f = StabilityFilter(lambda image: dice["now"], agree_frames=2, motion_frames=2)
    a, shadow1, shadow2 = scene([(100, 100)]), scene([(100, 100), (500, 100)]), scene([(100, 100), (520, 100)])
    assert settle(f, a)
    # Something moved (a shadow), but the dice lie where they lay: no new roll.
    for x in (shadow1, shadow2):
        f.step(x)
    assert [s.moved for s in settle(f, a)] == [False]
    # The dice lie elsewhere after motion: moved.
    for x in (shadow1, shadow2):
        f.step(x)
    dice["now"] = [reading(5, 300.0, 200.0)]
    assert [s.moved for s in settle(f, a)] == [True]
    # The same dice again, but a hand covered the tray in between: moved (the same faces can come again).
    hand1, hand2 = scene([(100, 100)]), scene([(100, 100)])
    hand1[:, :300], hand2[:, :320] = 200, 210  # a hand over half of the tray
    for x in (hand1, hand2):
        f.step(x)
    assert [s.moved for s in settle(f, a)] == [True]


def test_a_whole_new_picture_counts_once_it_is_seen_twice() -> None:
    f = StabilityFilter(lambda image: [reading(2, 50.0, 50.0)], agree_frames=2)
    a = scene([(100, 100)])
    assert settle(f, a)
    assert f.step(noise(seed=3)).tracking == "bad"  # noise: no picture at all
    lights = 255 - scene([(100, 100)])
    assert f.step(lights).tracking == "bad" and f.step(lights).tracking == "moving"


# --- the camera: unusable, stuck ---------------------------------------------------------------------------
class ScriptedSource(FrameSource):
    """Good frames, then whatever ``mode`` says: "black", "noise", "none" (no picture) or "stuck" (read()
    blocks until ``release`` is set)."""

    name = "scripted"

    def __init__(self) -> None:
        self.mode = "good"
        self.release = threading.Event()
        self.index = 0
        self.opens = 0

    def open(self) -> None:
        self.opens += 1

    def read(self) -> Frame:
        time.sleep(0.02)
        if self.mode == "stuck":
            self.release.wait()
        self.index += 1
        image: np.ndarray | None = scene([(100, 100)])
        if self.mode == "black":
            image = np.zeros((480, 640, 3), np.uint8)
        elif self.mode == "noise":
            image = noise(seed=self.index)
        elif self.mode == "none":
            image = None
        return Frame(image, self.index, time.monotonic())

    def close(self) -> None:
        pass


class CountingNotifier:
    def __init__(self) -> None:
        self.watchdogs = 0

    def ready(self, status: str = "") -> bool:
        return True

    def watchdog(self) -> bool:
        self.watchdogs += 1
        return True

    def stopping(self) -> bool:
        return True

    def close(self) -> None:
        pass


@pytest.mark.parametrize("mode", ["black", "noise", "none"])
def test_unusable_frames_are_a_lost_camera(tmp_path: Path, mode: str) -> None:
    config = Config().replace(panel={"mode": "mock"})
    source = ScriptedSource()
    with Appliance(config, source, truth_reader, state_dir=tmp_path) as app:
        app.start_panel()
        loop = threading.Thread(target=app.run, daemon=True)
        loop.start()
        try:
            wait(lambda: app.session.camera["status"] == "ok", 5)
            source.mode = mode
            took = wait(lambda: app.session.camera["status"] == "lost", 3)
            assert took < 2.5
            assert "usable" in app.session.camera["detail"]
            assert app.session.health()["ok"] is False and app.panel.attention_led.is_lit
            source.mode = "good"
            wait(lambda: app.session.camera["status"] == "ok", 3)
        finally:
            app.stop()
            loop.join(5)


def test_a_stuck_camera_thread_is_restarted() -> None:
    source = ScriptedSource()
    statuses: list[str] = []
    camera = Camera(source, stuck_after_s=0.3, on_status=lambda status, detail: statuses.append(status)).start()
    try:
        seq, frame, _ = camera.latest(0, 2)
        assert frame is not None
        source.mode = "stuck"
        time.sleep(0.5)
        assert camera.supervise() and "lost" in statuses and source.opens == 2
        source.mode = "good"
        source.release.set()  # the abandoned thread returns at last and is ignored; the new one reads
        seq, frame, _ = camera.latest(seq, 2)
        assert frame is not None and camera.restarts == 0 and statuses[-1] == "ok"
    finally:
        camera.stop()


def test_the_watchdog_starves_when_the_camera_cannot_be_restarted(tmp_path: Path) -> None:
    config = Config().replace(panel={"mode": "none"}, camera={"stuck_after_s": 0.2})
    source = ScriptedSource()
    source.mode = "stuck"
    notifier = CountingNotifier()
    with Appliance(config, source, truth_reader, state_dir=tmp_path, notifier=notifier) as app:  # type: ignore[arg-type]
        assert app.camera is not None
        loop = threading.Thread(target=app.run, daemon=True)
        loop.start()
        try:
            wait(lambda: app.camera is not None and app.camera.dead, 5)
            fed = notifier.watchdogs
            time.sleep(0.6)
            assert notifier.watchdogs == fed  # not fed any more: systemd restarts the service
            assert app.session.camera["status"] == "lost" and "restarted" in app.session.camera["detail"]
        finally:
            source.release.set()
            app.stop()
            loop.join(5)


# --- replays -----------------------------------------------------------------------------------------------
class StopsAt(ReplaySource):
    """A replay that ends early, as if the process were stopped there."""

    def __init__(self, path: Path, stop: int) -> None:
        super().__init__(path, fast=True)
        self.stop_at = stop

    def read(self) -> Frame:
        if self.position >= self.stop_at:
            raise EOFError("stopped")
        return super().read()


def run_replay(tmp_path: Path, source: ReplaySource) -> Appliance:
    app = Appliance(Config().replace(panel={"mode": "none"}), source, truth_reader, state_dir=tmp_path)
    app.run(until_ended=True)
    return app


def test_a_fast_replay_accepts_every_action_and_ends(tmp_path: Path) -> None:
    rec = mini_recording(tmp_path / "rec", 100)
    expected = replay(rec, reader_name="truth")["actions"]
    app = run_replay(tmp_path / "state", ReplaySource(rec, fast=True))
    try:
        exported = app.session.export()
        assert exported["actions"] == expected and len(expected) >= 8
        assert app.session.camera["status"] == "ended" and app.session.health()["ok"] is True
    finally:
        app.close()


def test_a_restart_on_a_recording_resumes_where_the_log_stands(tmp_path: Path) -> None:
    rec = mini_recording(tmp_path / "rec", 100)
    expected = replay(rec, reader_name="truth")["actions"]
    first = run_replay(tmp_path / "state", StopsAt(rec, 60))
    part = first.session.export()["actions"]
    first.close()
    assert 0 < len(part) < len(expected)
    again = run_replay(tmp_path / "state", ReplaySource(rec, fast=True))
    try:
        assert again.session.export()["actions"] == expected
    finally:
        again.close()


# --- size ------------------------------------------------------------------------------------------------
def test_oversized_frames_are_refused_before_decoding(tmp_path: Path) -> None:
    _, small = cv2.imencode(".jpg", scene([(100, 100)]))
    data = bytearray(small.tobytes())
    assert image_size(bytes(data)) == (640, 480)
    sof = next(i for i in range(2, len(data) - 9) if data[i] == 0xFF and data[i + 1] in (0xC0, 0xC2))
    data[sof + 5:sof + 9] = (20000).to_bytes(2, "big") + (20000).to_bytes(2, "big")  # height, width
    big = tmp_path / "big.jpg"
    big.write_bytes(bytes(data))
    assert image_size(bytes(data)) == (20000, 20000)
    assert read_frame_file(big) is None
    _, png = cv2.imencode(".png", scene([]))
    assert image_size(png.tobytes()) == (640, 480)
    assert read_frame_file(tmp_path / "big.jpg", max_bytes=100) is None
    fine = tmp_path / "fine.jpg"
    fine.write_bytes(small.tobytes())
    assert read_frame_file(fine) is not None and read_frame_file(fine, max_pixels=1000) is None
