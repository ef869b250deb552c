"""Frame sources and the camera owner.

A source is chosen by name, as gpiozero chooses pin factories, and never falls back silently:
``picamera2`` (the Pi camera; imported only when asked for; after a warm-up it locks exposure and white
balance so colours stay stable), ``opencv:N`` (USB webcam N) and ``replay:PATH`` (a recording, at its
recorded pace or as fast as possible).

:class:`Camera` is the one owner: its thread opens the source, reads frames, and keeps only the latest,
which others take through a condition variable. When the source fails it reports ``lost`` at once,
closes it and reopens it with exponential back-off; frames from a replay can carry scripted player
inputs, which are queued so that none is lost when frames are skipped. A source that is *lossless* (a
replay played as fast as possible) hands over every frame: the thread waits until the consumer took
the last one, so it cannot outrun the main loop. A driver whose ``read()`` never returns is found by
:meth:`Camera.supervise` (called from the main loop): the stuck thread is abandoned and a new one
opens the source again, at most ``max_restarts`` times in a row; after that the camera is *dead* and
the main loop stops feeding the systemd watchdog, which restarts the whole service.

Frames are refused before they are decoded when their file or their header says they are larger than
``max_frame_pixels`` / ``max_frame_bytes`` (a 20000 x 20000 frame would take gigabytes).
"""

from __future__ import annotations

import importlib
import logging
import threading
import time
from abc import ABC, abstractmethod
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import cv2
import numpy as np

from device.errors import CameraError, UsageError

log = logging.getLogger(__name__)


#: The largest frame accepted, unless the configuration says otherwise ([camera] in companion.toml).
MAX_FRAME_PIXELS = 4096 * 3072
MAX_FRAME_BYTES = 16 * 1024 * 1024


@dataclass(frozen=True)
class Frame:
    """One picture from a source. ``index`` counts frames of the source; ``truth`` and ``inputs`` come only
    from recordings (what lies on the table, and what the players did before this frame)."""

    image: np.ndarray | None
    index: int
    at: float
    truth: Any = None
    inputs: tuple[dict[str, Any], ...] = field(default_factory=tuple)


class FrameSource(ABC):
    name: str = "source"
    #: Every frame must reach the consumer (a fast replay); a live camera keeps only the latest.
    lossless: bool = False
    max_frame_pixels: int = MAX_FRAME_PIXELS
    max_frame_bytes: int = MAX_FRAME_BYTES

    @abstractmethod
    def open(self) -> None:
        """Open the device; raise CameraError when it cannot be opened."""

    @abstractmethod
    def read(self) -> Frame:
        """The next frame (blocks for it); raise CameraError when the device fails, EOFError at the end."""

    @abstractmethod
    def close(self) -> None:
        """Release the device; idempotent."""

    def __enter__(self) -> FrameSource:
        self.open()
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()


class OpenCVSource(FrameSource):
    """A camera that OpenCV can open by number (a USB webcam)."""

    def __init__(self, number: int, width: int, height: int) -> None:
        self.name = f"opencv:{number}"
        self.number, self.width, self.height = number, width, height
        self._cap: Any = None
        self._index = 0

    def open(self) -> None:
        cap = cv2.VideoCapture(self.number)
        if not cap.isOpened():
            cap.release()
            raise CameraError(f"camera {self.name} cannot be opened (unplugged or busy?)")
        cap.set(cv2.CAP_PROP_FRAME_WIDTH, self.width)
        cap.set(cv2.CAP_PROP_FRAME_HEIGHT, self.height)
        self._cap = cap

    def read(self) -> Frame:
        if self._cap is None:
            raise CameraError(f"camera {self.name} is not open")
        ok, image = self._cap.read()
        if not ok or image is None:
            raise CameraError(f"camera {self.name} gave no frame (unplugged?)")
        self._index += 1
        return Frame(image, self._index, time.monotonic())

    def close(self) -> None:
        if self._cap is not None:
            self._cap.release()
            self._cap = None


class Picamera2Source(FrameSource):
    """The Raspberry Pi camera through picamera2 (imported here, lazily, so PCs never need it)."""

    name = "picamera2"

    def __init__(self, width: int, height: int, warmup_s: float = 2.0, module: Any = None) -> None:
        self.width, self.height, self.warmup_s = width, height, warmup_s
        self._module = module
        self._cam: Any = None
        self._index = 0

    def open(self) -> None:
        module = self._module
        if module is None:
            try:
                module = importlib.import_module("picamera2")
            except ImportError as exc:
                raise CameraError(
                    f"source picamera2 needs the picamera2 package (apt install python3-picamera2): {exc}"
                ) from None
        try:
            cam = module.Picamera2()
            config = cam.create_video_configuration(main={"size": (self.width, self.height), "format": "RGB888"})
            cam.configure(config)
            cam.start()
            time.sleep(self.warmup_s)  # automatic exposure and white balance settle first
            metadata = cam.capture_metadata()
            # Lock them so that die colours read the same all game long.
            cam.set_controls({
                "AeEnable": False,
                "AwbEnable": False,
                "ExposureTime": metadata.get("ExposureTime", 10000),
                "AnalogueGain": metadata.get("AnalogueGain", 1.0),
                "ColourGains": metadata.get("ColourGains", (1.5, 1.5)),
            })
        except CameraError:
            raise
        except Exception as exc:  # picamera2 raises RuntimeError and others when no camera is attached
            raise CameraError(f"camera picamera2 cannot be opened: {exc}") from None
        self._cam = cam

    def read(self) -> Frame:
        if self._cam is None:
            raise CameraError("camera picamera2 is not open")
        try:
            image = self._cam.capture_array("main")  # "RGB888" is B, G, R in memory: what OpenCV expects
        except Exception as exc:
            raise CameraError(f"camera picamera2 gave no frame: {exc}") from None
        self._index += 1
        return Frame(np.asarray(image)[:, :, :3], self._index, time.monotonic())

    def close(self) -> None:
        cam, self._cam = self._cam, None
        if cam is not None:
            try:
                cam.stop()
            finally:
                cam.close()


class ReplaySource(FrameSource):
    """A recording played back: each frame at its recorded time (or at once with ``fast``). With ``loop``
    it starts over at the end, after showing its last frame for ``loop_pause_s`` (the demo's game over)."""

    def __init__(self, path: str | Path, *, fast: bool = False, start: int = 0, loop: bool = False,
                 sleep: Callable[[float], None] = time.sleep, loop_pause_s: float = 0.0) -> None:
        from device.recording import load_recording

        self.recording = load_recording(path)
        self.name = f"replay:{path}"
        self.fast, self.start, self.loop, self.sleep = fast, start, loop, sleep
        self._position = start
        self._t0 = 0.0
        self._cache: tuple[str, np.ndarray | None] | None = None
        self.loop_pause_s = 0.0 if fast else loop_pause_s
        self._paused_until: float | None = None
        self.lossless = fast

    def seek(self, position: int) -> None:
        """Play on from frame ``position`` (a restart resumes where the event log stands)."""
        self._position = self.start = max(0, min(position, len(self)))

    def open(self) -> None:
        self._t0 = time.monotonic() - (self.recording.frames[self._position].t if self._position < len(self) else 0)

    def __len__(self) -> int:
        return len(self.recording.frames)

    @property
    def position(self) -> int:
        return self._position

    def read(self) -> Frame:
        if self._position >= len(self):
            if not self.loop:
                raise EOFError("end of the recording")
            now = time.monotonic()
            if self._paused_until is None:
                self._paused_until = now + self.loop_pause_s
            if now < self._paused_until:
                # The last frame again, a few times a second: the table is still and the camera is not lost.
                self.sleep(min(0.2, self._paused_until - now))
                last = self.recording.frames[-1]
                return Frame(self._image(last.file), len(self) - 1, time.monotonic(), truth=last.seen, inputs=())
            self._paused_until = None
            self._position = 0
            self.open()
        info = self.recording.frames[self._position]
        if not self.fast:
            delay = self._t0 + info.t - time.monotonic()
            if delay > 0:
                self.sleep(delay)
        image = self._image(info.file)
        frame = Frame(image, self._position, time.monotonic(), truth=info.seen, inputs=info.inputs)
        self._position += 1
        return frame

    def _image(self, name: str) -> np.ndarray | None:
        # Still frames of a recording share one file; decode it once.
        if self._cache is not None and self._cache[0] == name:
            return self._cache[1]
        image = read_frame_file(self.recording.root / name, max_pixels=self.max_frame_pixels,
                                max_bytes=self.max_frame_bytes)
        self._cache = (name, image)
        return image

    def close(self) -> None:
        pass


def image_size(data: bytes) -> tuple[int, int] | None:
    """(width, height) from a JPEG's frame header or a PNG's IHDR, without decoding; None if not found."""
    if data[:8] == b"\x89PNG\r\n\x1a\n" and len(data) >= 24 and data[12:16] == b"IHDR":
        return int.from_bytes(data[16:20], "big"), int.from_bytes(data[20:24], "big")
    if data[:2] != b"\xff\xd8":
        return None
    i = 2
    while i + 9 <= len(data):
        if data[i] != 0xFF:
            return None
        marker = data[i + 1]
        if marker == 0xFF:  # fill byte
            i += 1
            continue
        length = int.from_bytes(data[i + 2:i + 4], "big")
        # SOF0..SOF15 except DHT (C4), JPG (C8) and DAC (CC): height, then width
        if 0xC0 <= marker <= 0xCF and marker not in (0xC4, 0xC8, 0xCC):
            return int.from_bytes(data[i + 7:i + 9], "big"), int.from_bytes(data[i + 5:i + 7], "big")
        if marker == 0xDA or length < 2:
            return None
        i += 2 + length
    return None


def frame_too_large(data: bytes, *, max_pixels: int = MAX_FRAME_PIXELS, max_bytes: int = MAX_FRAME_BYTES) -> str | None:
    """Why a frame file must not be decoded (None: it may be)."""
    if len(data) > max_bytes:
        return f"the file has {len(data)} bytes, more than {max_bytes}"
    size = image_size(data)
    if size is not None and size[0] * size[1] > max_pixels:
        return f"the frame is {size[0]} x {size[1]} pixels, more than {max_pixels}"
    return None


def read_frame_file(path: Path, *, max_pixels: int = MAX_FRAME_PIXELS,
                    max_bytes: int = MAX_FRAME_BYTES) -> np.ndarray | None:
    """A recorded frame as BGR, or None for a missing, truncated, unreadable or too large file (a bad frame,
    which the stability filter ignores and the appliance counts towards "camera lost"). The file is checked
    before the decoder sees it: libjpeg would print a warning on the console and decode a truncated JPEG
    half grey, and a frame too large would take gigabytes."""
    from vision.recognize import ImageError, load_image

    try:
        if path.stat().st_size > max_bytes:
            log.warning("frame %s refused: larger than %d bytes", path, max_bytes)
            return None
        with path.open("rb") as f:
            head = f.read(64 * 1024)
    except OSError:
        return None
    problem = frame_too_large(head, max_pixels=max_pixels, max_bytes=max_bytes)
    if problem is not None:
        log.warning("frame %s refused: %s", path, problem)
        return None
    try:
        return load_image(path)
    except ImageError:
        return None


def make_source(spec: str, *, width: int = 1280, height: int = 960, warmup_s: float = 2.0,
                fast: bool = False, start: int = 0, loop: bool = False, loop_pause_s: float = 0.0) -> FrameSource:
    """The source named by ``spec``; an unknown name is an error, never a fallback."""
    if spec == "picamera2":
        return Picamera2Source(width, height, warmup_s)
    if spec.startswith("opencv:"):
        number = spec.partition(":")[2]
        if not number.isdigit():
            raise UsageError(f"source {spec!r}: opencv:N needs a camera number, e.g. opencv:0")
        return OpenCVSource(int(number), width, height)
    if spec.startswith("replay:"):
        path = spec.partition(":")[2]
        if not path:
            raise UsageError("source 'replay:' needs a recording folder, e.g. replay:device/recordings/pasa-2p")
        return ReplaySource(path, fast=fast, start=start, loop=loop, loop_pause_s=loop_pause_s)
    raise UsageError(f"unknown frame source {spec!r}; sources: picamera2, opencv:N, replay:PATH")


class Camera:
    """The one owner of a frame source: a thread reads frames and keeps the latest for everyone else."""

    def __init__(self, source: FrameSource, *, lost_after_s: float = 1.5, reconnect_min_s: float = 0.5,
                 reconnect_max_s: float = 8.0, on_status: Callable[[str, str], None] | None = None,
                 stuck_after_s: float = 5.0, max_restarts: int = 3, max_frame_pixels: int = MAX_FRAME_PIXELS,
                 max_frame_bytes: int = MAX_FRAME_BYTES) -> None:
        self.source = source
        self.lost_after_s = lost_after_s
        self.reconnect_min_s, self.reconnect_max_s = reconnect_min_s, reconnect_max_s
        self.on_status = on_status or (lambda status, detail: None)
        self.stuck_after_s = stuck_after_s
        self.max_restarts = max_restarts
        self.max_frame_pixels = max_frame_pixels
        source.max_frame_pixels, source.max_frame_bytes = max_frame_pixels, max_frame_bytes
        self._cond = threading.Condition()
        self._latest: Frame | None = None
        self._seq = 0
        self._taken = 0
        self._inputs: list[dict[str, Any]] = []
        self._stop = threading.Event()
        self._thread: threading.Thread | None = None
        self._generation = 0
        #: When the current read() began (None: not in a read), to find a driver that never returns.
        self._reading_since: float | None = None
        self.restarts = 0  # restarts in a row without a frame since
        self.dead = False
        self.status = "starting"
        self.detail = ""
        self.ended = False
        self.frames = 0

    def start(self) -> Camera:
        with self._cond:
            self._generation += 1
            generation = self._generation
            self._reading_since = None
        self._thread = threading.Thread(target=self._run, args=(generation,), name="camera", daemon=True)
        self._thread.start()
        return self

    def _current(self, generation: int) -> bool:
        return generation == self._generation and not self._stop.is_set()

    def _set_status(self, status: str, detail: str, generation: int | None = None) -> None:
        if generation is not None and generation != self._generation:
            return  # an abandoned thread says nothing
        if (status, detail) != (self.status, self.detail):
            self.status, self.detail = status, detail
            self.on_status(status, detail)

    def _run(self, generation: int) -> None:
        backoff = self.reconnect_min_s
        while self._current(generation):
            try:
                self.source.open()
            except CameraError as exc:
                self._set_status("lost", str(exc), generation)
                self._stop.wait(backoff)
                backoff = min(backoff * 2, self.reconnect_max_s)
                continue
            self._set_status("ok", self.source.name, generation)
            backoff = self.reconnect_min_s
            try:
                while self._current(generation):
                    self._reading_since = time.monotonic()
                    frame = self.source.read()
                    if not self._current(generation):
                        return  # abandoned while stuck in read(): a newer thread owns the source now
                    self._reading_since = None
                    frame = self._checked(frame)
                    with self._cond:
                        self._seq += 1
                        self.frames += 1
                        self.restarts = 0
                        self._latest = frame
                        self._inputs.extend(frame.inputs)
                        self._cond.notify_all()
                        if self.source.lossless:  # every frame to the consumer: wait until it took this one
                            self._cond.wait_for(lambda: self._taken >= self._seq or not self._current(generation))
            except EOFError:
                self._set_status("ended", "end of the recording", generation)
                with self._cond:
                    self.ended = True
                    self._cond.notify_all()
                return
            except CameraError as exc:
                log.warning("camera failed: %s", exc)
                self._set_status("lost", str(exc), generation)
            except Exception as exc:  # a driver bug must not kill the owner thread: reconnect instead
                log.exception("camera failed")
                self._set_status("lost", f"camera error: {exc}", generation)
            finally:
                self._reading_since = None
                if generation == self._generation:
                    self.source.close()
            self._stop.wait(backoff)
            backoff = min(backoff * 2, self.reconnect_max_s)

    def _checked(self, frame: Frame) -> Frame:
        """A live frame larger than the limit is refused (as a frame with no picture)."""
        image = frame.image
        if image is not None and image.shape[0] * image.shape[1] > self.max_frame_pixels:
            log.warning("frame %s refused: %d x %d pixels", frame.index, image.shape[1], image.shape[0])
            return Frame(None, frame.index, frame.at, frame.truth, frame.inputs)
        return frame

    def supervise(self, now: float | None = None) -> bool:
        """Called from the main loop: restart a thread stuck in ``read()`` for ``stuck_after_s``; False once the
        camera is dead (restarted ``max_restarts`` times in a row without a frame), so the watchdog starves."""
        if self.dead or self._thread is None:
            return not self.dead
        since = self._reading_since
        now = time.monotonic() if now is None else now
        if since is None or now - since < self.stuck_after_s or self._stop.is_set():
            return True
        if self.restarts >= self.max_restarts:
            self.dead = True
            log.error("camera read() stuck; restarted %d times without a frame: giving up", self.restarts)
            self._set_status("lost", f"camera stuck: restarted {self.restarts} times, no frame; the service "
                                     "will be restarted")
            return False
        self.restarts += 1
        log.warning("camera read() has not returned for %.0f s: restarting the camera thread", now - since)
        self._set_status("lost", f"camera stuck (no frame for {now - since:.0f} s): restarting it")
        with self._cond:
            self._cond.notify_all()
        try:
            self.source.close()  # may unblock the driver; the old thread is abandoned either way
        except Exception as exc:
            log.warning("closing the stuck camera failed: %s", exc)
        self.start()
        return True

    def latest(self, after: int, timeout: float) -> tuple[int, Frame | None, list[dict[str, Any]]]:
        """Wait up to ``timeout`` for a frame newer than sequence ``after``; also hand over queued inputs."""
        with self._cond:
            self._cond.wait_for(lambda: self._seq > after or self.ended or self._stop.is_set(), timeout)
            inputs, self._inputs = self._inputs, []
            if self._seq > after:
                self._taken = self._seq
                self._cond.notify_all()  # a lossless source may read the next frame now
                return self._seq, self._latest, inputs
            return after, None, inputs

    def stop(self) -> None:
        self._stop.set()
        with self._cond:
            self._cond.notify_all()
        if self._thread is not None:
            self._thread.join(timeout=5)
