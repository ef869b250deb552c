"""Frame sources, the camera owner (lost within 2 s, reconnect with back-off) and the stability filter."""

from __future__ import annotations

import time
from pathlib import Path
from typing import Any, ClassVar

import numpy as np
import pytest

from device.errors import CameraError, UsageError
from device.session import reading
from device.sources import Camera, Frame, FrameSource, Picamera2Source, make_source, read_frame_file
from device.stability import StabilityFilter


def scene(dice_at: list[tuple[int, int]]) -> np.ndarray:
    rng = np.random.default_rng(0)
    image = np.full((480, 640, 3), 80, np.uint8) + rng.integers(0, 20, (480, 640, 3), dtype=np.uint8)
    for x, y in dice_at:
        image[y - 20:y + 20, x - 20:x + 20] = 240
    return image


def test_stability_accepts_after_agreeing_still_frames() -> None:
    reads: list[int] = []

    def reader(image: np.ndarray) -> list[Any]:
        reads.append(1)
        return [reading(5, 100.0, 100.0)]

    f = StabilityFilter(reader, agree_frames=3)
    a, b, c = scene([(100, 100)]), scene([(300, 200)]), scene([(500, 300)])
    results = [f.step(x) for x in (a, b, c, b)]  # moving (once a second frame confirms it): nothing read
    assert [r.tracking for r in results] == ["still", "still", "moving", "moving"]
    assert len(reads) == 1
    results = [f.step(a) for _ in range(5)]
    # The first frame back still differs from the last moving one; then three agreeing still frames.
    assert [r.settled is not None for r in results] == [False, False, False, True, False]
    settled = results[3].settled
    assert settled is not None and settled.moved


def test_bad_frames_change_nothing() -> None:
    f = StabilityFilter(lambda image: [reading(2, 50.0, 50.0)], agree_frames=2)
    a = scene([(100, 100)])
    assert f.step(a).settled is None
    for bad in (None, np.zeros((480, 640, 3), np.uint8), np.full((480, 640, 3), 255, np.uint8),
                np.full((480, 640, 3), 128, np.uint8)):
        assert f.step(bad).tracking == "bad"
    assert f.step(a).settled is not None  # the bad frames neither moved nor broke the agreement


def test_unknown_sources_are_errors_not_fallbacks() -> None:
    for spec in ("webcam", "opencv:x", "replay:", "picam"):
        with pytest.raises(UsageError):
            make_source(spec)


class FakePicamera2:
    instances: ClassVar[list[FakePicamera2]] = []

    def __init__(self) -> None:
        self.controls: dict[str, Any] = {}
        self.started = self.closed = False
        FakePicamera2.instances.append(self)

    def create_video_configuration(self, main: dict[str, Any]) -> dict[str, Any]:
        return {"main": main}

    def configure(self, config: dict[str, Any]) -> None:
        self.config = config

    def start(self) -> None:
        self.started = True

    def capture_metadata(self) -> dict[str, Any]:
        return {"ExposureTime": 12000, "AnalogueGain": 2.0, "ColourGains": (1.8, 1.4)}

    def set_controls(self, controls: dict[str, Any]) -> None:
        self.controls.update(controls)

    def capture_array(self, name: str) -> np.ndarray:
        return np.zeros((960, 1280, 3), np.uint8)

    def stop(self) -> None:
        self.started = False

    def close(self) -> None:
        self.closed = True


class FakeModule:
    Picamera2 = FakePicamera2


def test_picamera2_locks_exposure_and_white_balance() -> None:
    source = Picamera2Source(1280, 960, warmup_s=0.0, module=FakeModule())
    with source:
        frame = source.read()
    cam = FakePicamera2.instances[-1]
    assert frame.image is not None and frame.image.shape == (960, 1280, 3)
    assert cam.controls["AeEnable"] is False and cam.controls["AwbEnable"] is False
    assert cam.controls["ExposureTime"] == 12000 and cam.controls["ColourGains"] == (1.8, 1.4)
    assert cam.closed


def test_picamera2_missing_is_a_camera_error(monkeypatch: pytest.MonkeyPatch) -> None:
    import sys

    monkeypatch.setitem(sys.modules, "picamera2", None)
    with pytest.raises(CameraError, match="picamera2"):
        Picamera2Source(1280, 960, warmup_s=0).open()


class FlakySource(FrameSource):
    """Gives frames, fails (unplugged), refuses to open twice, then works again."""

    name = "flaky"

    def __init__(self) -> None:
        self.opens = 0
        self.reads = 0

    def open(self) -> None:
        self.opens += 1
        if self.opens in (2, 3):
            raise CameraError("unplugged")

    def read(self) -> Frame:
        self.reads += 1
        time.sleep(0.01)
        if self.reads == 5:
            raise CameraError("read failed")
        return Frame(scene([]), self.reads, time.monotonic())

    def close(self) -> None:
        pass


def test_camera_reports_lost_and_reconnects_with_backoff() -> None:
    statuses: list[tuple[str, float]] = []
    t0 = time.monotonic()
    camera = Camera(FlakySource(), reconnect_min_s=0.05, reconnect_max_s=0.2,
                    on_status=lambda s, d: statuses.append((s, time.monotonic() - t0)))
    camera.start()
    try:
        deadline = time.monotonic() + 5
        while time.monotonic() < deadline and [s for s, _ in statuses].count("ok") < 2:
            time.sleep(0.02)
    finally:
        camera.stop()
    names = [s for s, _ in statuses]
    assert names[:3] == ["ok", "lost", "ok"] or names[:4] == ["ok", "lost", "lost", "ok"] or "lost" in names
    lost_at = next(t for s, t in statuses if s == "lost")
    assert lost_at < 2.0
    assert names.count("ok") >= 2
    _, frame, _ = camera.latest(0, 0.1)
    assert frame is not None


def test_replay_source_reads_a_recording(tmp_path: Path) -> None:
    import json

    import cv2

    (tmp_path / "frames").mkdir()
    cv2.imwrite(str(tmp_path / "frames" / "a.jpg"), scene([(100, 100)]))
    data = {"format": 1, "game": "pasa", "players": ["A", "B"], "size": [640, 480], "frames": [
        {"file": "frames/a.jpg", "t": 0.0, "dice": [], "inputs": []},
        {"file": "frames/missing.jpg", "t": 0.01, "dice": [], "inputs": [{"kind": "press", "button": "next"}]},
    ]}
    (tmp_path / "recording.json").write_text(json.dumps(data))
    source = make_source(f"replay:{tmp_path}", fast=True)
    with source:
        first, second = source.read(), source.read()
        with pytest.raises(EOFError):
            source.read()
    assert first.image is not None and second.image is None and second.inputs[0]["button"] == "next"
    (tmp_path / "recording.json").write_text("{}")
    with pytest.raises(UsageError):
        make_source(f"replay:{tmp_path}")


def test_detector_jitter_still_agrees() -> None:
    jitter = iter([0.0, 2.0, -1.5, 1.0, 0.5])
    f = StabilityFilter(lambda image: [reading(4, 100.0 + next(jitter), 100.0), reading(2, 23.0, 300.0)],
                        agree_frames=3)
    a = scene([(100, 100)])
    settled = [f.step(a).settled for _ in range(5)]
    assert [s is not None for s in settled] == [False, False, True, False, False]


def test_a_die_reported_twice_counts_once() -> None:
    from dataclasses import replace

    from device.stability import drop_overlaps

    die = reading(2, 660.0, 724.0, detector_score=0.65)
    ghost = replace(reading(1, 636.0, 703.0), detector_score=0.36)
    other = reading(5, 219.0, 593.0)
    assert drop_overlaps([ghost, die, other]) == [other, die]


def test_a_bad_recorded_frame_is_none_and_prints_nothing(tmp_path: Path, capfd: pytest.CaptureFixture[str]) -> None:
    import cv2

    good = tmp_path / "good.jpg"
    cv2.imwrite(str(good), np.full((48, 64, 3), 120, np.uint8))
    truncated = tmp_path / "truncated.jpg"
    truncated.write_bytes(good.read_bytes()[:-200])
    image = read_frame_file(good)
    assert image is not None and image.shape == (48, 64, 3)
    assert read_frame_file(truncated) is None
    assert read_frame_file(tmp_path / "missing.jpg") is None
    (tmp_path / "text.jpg").write_text("not a picture")
    assert read_frame_file(tmp_path / "text.jpg") is None
    captured = capfd.readouterr()
    assert captured.err == "" and captured.out == "", "libjpeg must not write on the console"


def test_a_tray_read_in_doubt_in_every_other_frame_settles_on_the_fusion_of_its_frames() -> None:
    """The settled tray is the fusion of the still frames read since the dice last moved (vision.fuse): a die
    that flickers between a sure and a doubtful 5 settles (without fusion three frames never agree) and is sure
    over the frames; one in doubt in every frame stays unsure (asked); motion starts the frames afresh."""
    from vision.fuse import fuse_frames

    doubtful = [0.02, 0.02, 0.02, 0.02, 0.6, 0.32]
    clear = [0.0, 0.0, 0.0, 0.0, 0.99, 0.01]
    frames = [clear, doubtful, clear, doubtful, clear, doubtful]
    seen: list[int] = []

    def reader_of(reads: list[list[float]]) -> Any:
        it = iter(reads)

        def reader(image: np.ndarray) -> list[Any]:
            p = next(it)
            return [reading(5, 100.0, 100.0, confidence=max(p), unsure=max(p) < 0.8, probabilities=tuple(p),
                            doubts=("low confidence",) if max(p) < 0.8 else ())]

        return reader

    def fuse(reads: Any) -> list[Any]:
        seen.append(len(reads))
        return fuse_frames(reads)

    a, b, c = scene([(100, 100)]), scene([(300, 200)]), scene([(500, 300)])
    plain = StabilityFilter(reader_of(frames), agree_frames=3)
    assert not any(plain.step(a).settled for _ in frames)
    f = StabilityFilter(reader_of(frames[:3] + [doubtful] * 8), agree_frames=3, fuse=fuse)
    settled = [r.settled for r in (f.step(a) for _ in range(3)) if r.settled is not None]
    assert len(settled) == 1 and not settled[0].dice[0].unsure and settled[0].dice[0].value == 5
    assert seen == [1, 2, 3]
    for x in (b, c, b):  # the dice move: the frames read before are forgotten
        f.step(x)
    settled = [r.settled for r in (f.step(a) for _ in range(5)) if r.settled is not None]
    assert len(settled) == 1 and settled[0].dice[0].unsure  # in doubt in every frame: the players are asked
    assert seen[3:] and seen[3] == 1
