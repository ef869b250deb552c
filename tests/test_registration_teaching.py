"""Colours taught at the table (device/teaching.py): stored per game in the state directory, read back as the
readers' palettes, bad input said in one line."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest

from device.errors import StorageError, UsageError
from device.teaching import KEEP, PIECE_COLOURS, TeachingStore


def test_lessons_are_kept_per_game_and_averaged(tmp_path: Path) -> None:
    store = TeachingStore(tmp_path)
    store.teach("pyradice", "die", "maroon", (30.0, 40.0, 20.0))
    store.teach("pyradice", "die", "maroon", (32.0, 42.0, 22.0))
    store.teach("pyramido", "gem", "mythical", (80.0, 0.0, -5.0))
    assert store.taught("pyradice", "die") == {"maroon": (31.0, 41.0, 21.0)}
    assert store.path("pyradice") == tmp_path / "teaching" / "pyradice.json"
    data = json.loads(store.path("pyradice").read_text(encoding="utf-8"))
    assert data["game"] == "pyradice" and len(data["pieces"]["die"]["maroon"]) == 2
    # A fresh store on the same folder (a restart) reads the same lessons.
    assert TeachingStore(tmp_path).taught("pyramido", "gem") == {"mythical": (80.0, 0.0, -5.0)}
    # Only the last KEEP lessons count: an old bad one does not stick.
    for _ in range(KEEP):
        store.teach("pyradice", "die", "maroon", (40.0, 40.0, 20.0))
    assert store.taught("pyradice", "die")["maroon"] == (40.0, 40.0, 20.0)


def test_palette_mixes_taught_and_nominal_colours(tmp_path: Path) -> None:
    store = TeachingStore(tmp_path)
    nominal = store.palette("pyradice", "die")
    assert nominal.names == PIECE_COLOURS["pyradice"]["die"] and not nominal.calibrated
    store.teach("pyradice", "die", "orange", (60.0, 30.0, 60.0))
    palette = store.palette("pyradice", "die")
    assert dict(palette.colours)["orange"] == (60.0, 30.0, 60.0)
    assert dict(palette.colours)["white"] == dict(nominal.colours)["white"]
    assert palette.nearest((59.0, 31.0, 58.0))[0] == "orange"
    for name in ("white", "gray", "maroon"):
        store.teach("pyradice", "die", name, dict(nominal.colours)[name])
    assert store.palette("pyradice", "die").calibrated
    # A mythical gem has no nominal colour: it joins the palette once taught.
    assert "mythical" not in store.palette("pyramido", "gem").names
    store.teach("pyramido", "gem", "mythical", (85.0, 2.0, 3.0))
    assert "mythical" in store.palette("pyramido", "gem").names


def test_report_and_forget(tmp_path: Path) -> None:
    store = TeachingStore(tmp_path)
    store.teach("pyramido", "block", "red", (45.0, 60.0, 40.0))
    report = store.report("pyramido")
    assert report["pieces"]["block"] == {"taught": ["red"], "missing": ["orange", "blue", "purple", "green"]}
    assert report["pieces"]["gem"]["taught"] == [] and not report["complete"]
    json.dumps(report)
    store.forget("pyramido", "block", "red")
    assert store.missing("pyramido")["block"] == list(PIECE_COLOURS["pyramido"]["block"])
    store.teach("pyramido", "block", "red", (45.0, 60.0, 40.0))
    store.forget("pyramido")
    assert store.taught("pyramido", "block") == {}


def test_a_die_calibration_file_becomes_lessons(tmp_path: Path) -> None:
    calibration = tmp_path / "palette.json"
    calibration.write_text(json.dumps({"palette": "pyradice", "calibrated": True,
                                       "colours": {"white": [90, 0, 2], "gray": [50, 0, 0], "pink": [70, 30, 0]}}))
    store = TeachingStore(tmp_path / "state")
    assert store.import_calibration("pyradice", calibration) == ["white", "gray"]
    assert set(store.taught("pyradice", "die")) == {"white", "gray"}
    other = tmp_path / "other.json"
    other.write_text(json.dumps({"palette": "x", "colours": {"pink": [70, 30, 0]}}))
    with pytest.raises(UsageError, match="none of its colours"):
        store.import_calibration("pyradice", other)


def test_bad_input_is_refused_with_what_is_allowed(tmp_path: Path) -> None:
    store = TeachingStore(tmp_path)
    with pytest.raises(UsageError, match="white, gray, maroon, orange, not 'purple'"):
        store.teach("pyradice", "die", "purple", (50, 0, 0))
    with pytest.raises(UsageError, match="no piece 'gem'"):
        store.teach("pyradice", "gem", "white", (50, 0, 0))
    with pytest.raises(UsageError, match="no colours to teach"):
        store.teach("pasa", "die", "white", (50, 0, 0))
    with pytest.raises(UsageError, match=r"\[L, a, b\]"):
        store.teach("pyradice", "die", "white", (150, 0, 0))
    store.path("dicetreasure").parent.mkdir(parents=True, exist_ok=True)
    store.path("dicetreasure").write_text("{not json", encoding="utf-8")
    with pytest.raises(StorageError, match="not a teaching file"):
        store.taught("dicetreasure", "die")


def test_companion_teach_learns_the_dice_of_a_photo(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    import cv2
    import numpy as np

    from device.cli import main
    from vision.lab.render import DIE_COLOURS, DieSpec, render_scene

    specs = [DieSpec(v, body=DIE_COLOURS[c], centre=(120 + 130 * i, 200), side=70, angle=10 * i, colour_name=c)
             for i, (v, c) in enumerate(zip((3, 5, 2, 6), ("orange", "white", "maroon", "gray"), strict=True))]
    image, truth = render_scene(np.random.default_rng(2), (640, 400), dice=specs)
    photo = tmp_path / "dice.png"
    cv2.imwrite(str(photo), image)
    state = tmp_path / "state"
    assert main(["teach", "--game", "pyradice", "--image", str(photo), "--state-dir", str(state)]) == 0
    out = capsys.readouterr().out
    assert "pyradice die: taught gray, maroon, orange, white; still to teach: nothing" in out
    taught = TeachingStore(state).taught("pyradice", "die")
    # Each die is given its own colour's name (laid out orange, white, maroon, gray from the left).
    named = sorted((int(x), name) for x, name in re.findall(r"die at \((\d+), \d+\): (\w+)", out))
    assert [name for _, name in named] == ["orange", "white", "maroon", "gray"]
    assert taught["white"][0] > taught["gray"][0] > taught["maroon"][0]
    assert TeachingStore(state).palette("pyradice", "die").calibrated
    assert len(truth) == 4
    # Pyramido's blocks are taught from player 1's pyramid mat, which a photo of dice does not show; a photo of the
    # wrong count is refused in one line.
    assert main(["teach", "--game", "pyramido", "--image", str(photo), "--state-dir", str(state)]) == 2
    assert "player 1's pyramid mat is not in view" in capsys.readouterr().err
    assert main(["teach", "--game", "dicetreasure", "--image", str(photo), "--state-dir", str(state)]) == 2
    err = capsys.readouterr().err
    assert "shows 4 dice" in err and err.count("\n") == 1
