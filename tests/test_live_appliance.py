"""The appliance end to end in one process: main loop, camera loss reported on page and ATTENTION within 2 s,
reconnection, the mock panel's LEDs; and the ``companion`` commands (demo start-up, errors as one line)."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import threading
import time
import urllib.request
from pathlib import Path
from typing import Any

import numpy as np
import pytest

from device.appliance import Appliance, truth_reader
from device.config import Config
from device.errors import CameraError
from device.sources import Frame, FrameSource

pytest.importorskip("engine.pasa", reason="engine.pasa (the Paša game) is not in this build yet")
REPO = Path(__file__).resolve().parents[1]


class UnpluggedSource(FrameSource):
    """Frames for a while, then unplugged (reads and opens fail) until ``plug_in`` is set."""

    name = "test-camera"

    def __init__(self) -> None:
        self.unplug = threading.Event()
        self.plug_in = threading.Event()
        self.index = 0

    def open(self) -> None:
        if self.unplug.is_set() and not self.plug_in.is_set():
            raise CameraError("test-camera cannot be opened (unplugged)")

    def read(self) -> Frame:
        time.sleep(0.02)
        if self.unplug.is_set() and not self.plug_in.is_set():
            raise CameraError("test-camera gave no frame (unplugged)")
        self.index += 1
        image = np.full((120, 160, 3), 90, np.uint8)
        image[40:60, 40:60] = 230
        return Frame(image, self.index, time.monotonic())

    def close(self) -> None:
        pass


def test_camera_loss_shows_within_two_seconds_and_recovers(tmp_path: Path) -> None:
    config = Config().replace(panel={"mode": "mock"}, camera={"reconnect_min_s": 0.1, "reconnect_max_s": 0.4})
    source = UnpluggedSource()
    with Appliance(config, source, truth_reader, state_dir=tmp_path) as app:
        app.start_panel()
        loop = threading.Thread(target=app.run, daemon=True)
        loop.start()

        def wait(check: object, timeout: float) -> float:
            start = time.monotonic()
            while not check():  # type: ignore[operator]
                assert time.monotonic() - start < timeout
                time.sleep(0.02)
            return time.monotonic() - start

        wait(lambda: app.session.camera["status"] == "ok", 5)
        assert not app.panel.attention_led.is_lit
        source.unplug.set()
        took = wait(lambda: app.session.camera["status"] == "lost" and app.panel.attention_led.is_lit, 2.0)
        assert took < 2.0
        assert "unplugged" in app.session.snapshot()["camera"]["detail"]
        source.plug_in.set()
        wait(lambda: app.session.camera["status"] == "ok" and not app.panel.attention_led.is_lit, 5)
        app.stop()
        loop.join(5)


def run_cli(*args: str, timeout: float = 60) -> subprocess.CompletedProcess[str]:
    env = {**os.environ, "PYTHONPATH": str(REPO)}
    return subprocess.run([sys.executable, "-m", "device.cli", *args], capture_output=True, text=True,
                          timeout=timeout, env=env, cwd=str(REPO))


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (("replay", "/nonexistent/recording"), "recording.json is missing"),
        (("run", "--source", "webcam", "--state-dir", "/tmp"), "unknown frame source 'webcam'"),
        (("run", "--config", "/nonexistent.toml"), "does not exist"),
    ],
)
def test_cli_errors_are_one_line(args: tuple[str, ...], message: str) -> None:
    done = run_cli(*args)
    assert done.returncode == 2
    assert message in done.stderr and "Traceback" not in done.stderr and len(done.stderr.splitlines()) == 1


def test_run_help_says_where_the_config_is_read_from() -> None:
    done = run_cli("run", "--help")
    assert done.returncode == 0 and "/etc/companion/companion.toml" in done.stdout


def fetch(url: str) -> Any:
    with urllib.request.urlopen(url, timeout=5) as response:
        return json.load(response)


@pytest.mark.slow
def test_demo_starts_serves_and_stops(tmp_path: Path) -> None:
    env = {**os.environ, "PYTHONPATH": str(REPO)}
    proc = subprocess.Popen([sys.executable, "-m", "device.cli", "run", "--demo", "--port", "0", "--state-dir",
                             str(tmp_path)], stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, env=env)
    try:
        assert proc.stdout is not None
        address = ""
        deadline = time.monotonic() + 30
        while time.monotonic() < deadline and "http://" not in address:
            address = proc.stdout.readline()
        url = address[address.index("http://"):].split()[0]
        for _ in range(100):
            state = fetch(url + "api/state")
            if state["game"]["action_count"] > 0:
                break
            time.sleep(0.1)
        assert state["game"]["action_count"] > 0 and state["panel_mode"] == "mock"
        health = fetch(url + "healthz")
        assert health["ok"] and health["camera"]["status"] == "ok"
    finally:
        proc.send_signal(signal.SIGTERM)
        _, err = proc.communicate(timeout=20)
    assert proc.returncode == 0, err


def test_games_lists_and_exports(tmp_path: Path) -> None:
    from device.commands import replay

    replay(REPO / "device" / "recordings" / "pasa-2p", reader_name="truth", state_dir=tmp_path)
    listed = run_cli("games", "--state-dir", str(tmp_path))
    assert listed.returncode == 0 and "Anna, Ben" in listed.stdout and "finished" in listed.stdout
    exported = run_cli("games", "1", "--state-dir", str(tmp_path))
    assert json.loads(exported.stdout)["sheet"]["Anna"]["total"] == 83
    missing = run_cli("games", "7", "--state-dir", str(tmp_path))
    assert missing.returncode == 2 and "no game 7" in missing.stderr


def test_no_pin_factory_is_a_clear_error_not_a_mock(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("GPIOZERO_PIN_FACTORY", raising=False)
    done = run_cli("run", "--state-dir", str(tmp_path), "--source", "replay:device/recordings/pasa-2p",
                   "--reader", "truth", "--port", "0")
    if done.returncode == 0:  # pragma: no cover - only on a Pi with a real pin factory
        pytest.skip("this machine has a GPIO pin factory")
    assert done.returncode == 2 and "no GPIO pin factory" in done.stderr and "mode = \"mock\"" in done.stderr
    assert len(done.stderr.strip().splitlines()) == 1
