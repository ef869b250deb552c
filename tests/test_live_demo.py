"""The demo as a new user meets it: its recording's script drives only its own game, and it shows the
finished game for a while before it plays again."""

from __future__ import annotations

import json
import time
from pathlib import Path

import cv2
import numpy as np

from device.appliance import Appliance, truth_reader
from device.config import Config
from device.sources import Frame, make_source


def recording(folder: Path, frames: int = 2) -> Path:
    (folder / "frames").mkdir(parents=True)
    cv2.imwrite(str(folder / "frames" / "a.png"), np.full((48, 64, 3), 80, np.uint8))
    data = {"format": 1, "game": "pasa", "players": ["A", "B"], "size": [64, 48], "frames": [
        {"file": "frames/a.png", "t": 0.01 * i, "dice": [], "inputs": []} for i in range(frames)]}
    (folder / "recording.json").write_text(json.dumps(data))
    return folder


def test_a_looping_replay_shows_its_last_frame_before_it_starts_over(tmp_path: Path) -> None:
    source = make_source(f"replay:{recording(tmp_path)}", loop=True, loop_pause_s=0.4)
    with source:
        assert [source.read().index for _ in range(2)] == [0, 1]
        started = time.monotonic()
        held = []
        while (frame := source.read()).index != 0:
            held.append(frame.index)
        waited = time.monotonic() - started
    assert held and set(held) == {1} and 0.35 <= waited < 2.0


def test_the_demo_script_drives_only_the_demo_game(tmp_path: Path) -> None:
    config = Config().replace(game={"players": ["Anna", "Ben"], "name": "pasa"})
    with Appliance(config, None, truth_reader, state_dir=tmp_path) as app:
        demo = app.session.record
        assert demo is not None
        app.pipeline.script_game = demo.id
        still = np.full((48, 64, 3), 80, np.uint8)
        app.pipeline.process(Frame(still, 0, 0.0), [{"kind": "action", "text": "enter ones 3"}])
        assert len(app.session.actions) == 1  # the demo's own game follows its script
        app.session.new_game(["Cy", "Di"], game="pasa", mode="offline")  # players start their own game
        app.pipeline.process(Frame(still, 1, 0.1), [{"kind": "action", "text": "enter twos 4"}])
        assert app.session.record is not None and app.session.record.players == ("Cy", "Di")
        assert app.session.actions == []  # the script no longer acts on the game that runs


def test_the_appliance_starts_whatever_the_log_or_the_configuration_holds(tmp_path: Path) -> None:
    from device.eventlog import EventLog

    with EventLog(tmp_path / "events.sqlite3") as log:  # a game this build cannot rebuild
        log.new_game("pyradice", ["Anna", "Ben"], {}, "offline")
        log.append(1, '{"not": "an action"}', "page")
    config = Config().replace(game={"players": ["Anna", "Ben"], "name": "pyradice"})
    source = make_source(f"replay:{recording(tmp_path / 'rec')}", fast=True)
    with Appliance(config, source, truth_reader, state_dir=tmp_path) as app:
        snap = app.session.snapshot()
        # The broken game is skipped; the configured board game starts (offline if the camera cannot read it).
        from device.tables import adapter_class

        mode = "camera" if adapter_class("pyradice").live == "camera" else "offline"
        assert snap["game"]["name"] == "pyradice" and snap["game"]["mode"] == mode and snap["game"]["id"] == 2
    config = Config().replace(game={"players": ["Anna"], "name": "pyradice"})  # too few players
    with Appliance(config, None, truth_reader, state_dir=tmp_path / "other") as app:
        snap = app.session.snapshot()
        assert snap["game"] is None and "takes 2 to 4 players" in snap["setup_problem"]
        assert app.session.health()["storage"]["status"] == "ok"


def test_record_refuses_what_it_cannot_render_before_writing(tmp_path: Path) -> None:
    import subprocess
    import sys

    keep = tmp_path / "keep"
    keep.mkdir()
    (keep / "notes.txt").write_text("mine")
    for args, said in ((["chess", "--out", str(tmp_path / "a")], "unknown game 'chess'"),
                       (["pasa", "--out", str(tmp_path / "a"), "--condition", "blur:99"], "blur takes"),
                       (["pasa", "--out", str(tmp_path / "a"), "--players", "9"], "1 to 8 players"),
                       (["pasa", "--out", str(keep)], "is not a recording")):
        run = subprocess.run([sys.executable, "-m", "device.cli", "record", *args], capture_output=True, text=True)
        assert run.returncode == 2 and said in run.stderr and len(run.stderr.strip().splitlines()) == 1, run.stderr
    assert not (tmp_path / "a").exists() and (keep / "notes.txt").read_text() == "mine"
