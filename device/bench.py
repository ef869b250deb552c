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
from device.recording import load_recording
from device.sources import Frame, read_frame_file


def _frames(limit: int) -> Iterator[Frame]:
    """The recording's first frames, decoded one by one as a camera would hand them over (not all held)."""
    recording = load_recording(DEMO_RECORDING)
    last: tuple[str, Any] = ("", None)
    for i, info in enumerate(recording.frames[:limit]):
        if info.file != last[0]:
            last = (info.file, read_frame_file(recording.root / info.file))
        yield Frame(last[1], i, 0.0, truth=info.dice, inputs=info.inputs)


def _one_run(frames: Iterable[Frame], reader: Reader, reads: list[float]) -> tuple[float, list[float]]:
    config = Config().replace(panel={"mode": "none"})

    def timed_reader(frame: Frame) -> Any:
        start = time.perf_counter()
        try:
            return reader(frame)
        finally:
            reads.append(time.perf_counter() - start)

    with tempfile.TemporaryDirectory(prefix="companion-bench-") as tmp, \
            Appliance(config, None, timed_reader, state_dir=Path(tmp)) as app:
        app.session.new_game(["Anna", "Ben"], {}, game="pasa", mode="camera")
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
    return processed / elapsed, delays


def run(args: argparse.Namespace) -> int:
    cv2.setNumThreads(1)
    with contextlib.suppress(AttributeError, OSError):  # one core: the whole process, web threads included
        os.sched_setaffinity(0, {min(os.sched_getaffinity(0))})
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
    if delays:
        p95 = statistics.quantiles(delays, n=20)[-1] if len(delays) >= 2 else delays[0]
        print(f"  settled frame -> SSE client: median {statistics.median(delays):.1f} ms, "
              f"p95 {p95:.1f} ms over {len(delays)} events (target < 150 ms median)")
    else:
        print("  settled frame -> SSE client: no events measured")
    print(f"  peak memory {peak_mb:.0f} MB (target < 250 MB)")
    return 0
