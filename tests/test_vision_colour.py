"""Die colours (vision.colour): palettes, measuring the body without its pips, calibration from a photo."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest

from device.cli import main as companion
from engine.dice import PALETTES
from vision import recognize
from vision.colour import (
    DICE_KINDS,
    DICE_PALETTE,
    Palette,
    PaletteError,
    bgr_to_lab,
    calibrate,
    distance,
    load_palette,
    measure_body,
    nominal_palette,
)
from vision.lab.render import DIE_COLOURS, PIP_COLOURS, DieSpec, SceneStyle, render_scene
from vision.recognize import DiceRecognizer, FixedDetector
from vision.types import DieCandidate

PYRADICE = PALETTES["pyradice"]


def pyradice_scene(seed: int, tint: tuple[float, float, float]) -> tuple[np.ndarray, list[DieCandidate], list[str]]:
    """One die of each Pyradice colour, in random order, under light tinted by ``tint`` (B, G, R gains)."""
    rng = np.random.default_rng(seed)
    names = list(rng.permutation(PYRADICE))
    specs = [
        DieSpec(
            value=int(rng.integers(1, 7)),
            body=DIE_COLOURS[name],
            pips=PIP_COLOURS["black"] if name in ("white", "orange") else PIP_COLOURS["white"],
            centre=(70.0 + 120 * i, 90.0),
            side=56.0,
            angle=float(rng.uniform(0, 90)),
            colour_name=name,
        )
        for i, name in enumerate(names)
    ]
    style = SceneStyle(surface=(150, 160, 150), camera_height=40, blur=0.5, noise=2.0, jpeg_quality=85)
    image, truth = render_scene(rng, (500, 180), dice=specs, style=style)
    tinted = np.clip(image.astype(np.float32) * np.array(tint, np.float32), 0, 255).astype(np.uint8)
    return tinted, [DieCandidate(d.centre, d.side, d.angle, 1.0) for d in truth], [d.colour_name or "" for d in truth]


def test_builtin_palettes_cover_the_games_and_a_general_one() -> None:
    for game, names in PALETTES.items():
        assert nominal_palette(game).names == names
    assert nominal_palette("dice").names == DICE_PALETTE
    with pytest.raises(PaletteError, match="unknown"):
        nominal_palette("tartan")


def test_lab_and_distance() -> None:
    white = bgr_to_lab((255, 255, 255))
    assert white[0] == pytest.approx(100, abs=0.5) and abs(white[1]) < 1 and abs(white[2]) < 1
    assert distance((50, 0, 0), (70, 0, 0)) == pytest.approx(10)  # lightness counts half
    assert distance((50, 0, 0), (50, 20, 0)) == pytest.approx(20)


def test_body_colour_leaves_pips_out() -> None:
    crop = np.zeros((48, 48, 3), np.uint8)
    crop[:] = (40, 30, 120)  # maroon
    crop[16:32, 16:32] = (10, 10, 10)  # a large black "pip" patch in the middle
    mask = np.zeros((48, 48), bool)
    mask[16:32, 16:32] = True
    with_mask = measure_body(crop, mask)
    assert distance(with_mask, bgr_to_lab((40, 30, 120))) < 3
    assert distance(measure_body(crop), bgr_to_lab((40, 30, 120))) > 10  # without the mask the pips leak in


def test_nominal_pyradice_colours_read_right_in_neutral_light() -> None:
    reader = DiceRecognizer(detector=FixedDetector(), palette="pyradice")
    image, candidates, names = pyradice_scene(1, (1.0, 1.0, 1.0))
    readings = reader.read_candidates(image, candidates)
    assert [r.colour for r in readings] == names


def test_calibration_fixes_a_tinted_light_and_unknown_colours_are_kept() -> None:
    tint = (0.72, 0.9, 1.2)  # warm lamp: nominal references misname dice
    image, candidates, names = pyradice_scene(2, tint)
    reader = DiceRecognizer(detector=FixedDetector(), palette="pyradice")
    measured = [(r.centre, r.lab) for r in reader.read_candidates(image, candidates)]
    result = calibrate(measured, nominal_palette("pyradice"))
    assert [name for _, _, name in result.dice] == names
    assert result.palette.calibrated and result.palette.names == PYRADICE

    reader.palette = result.palette
    for seed in (3, 4):  # new photos under the same lamp
        image, candidates, names = pyradice_scene(seed, tint)
        readings = reader.read_candidates(image, candidates)
        assert [r.colour for r in readings] == names
        assert all(r.colour_distance < 12 for r in readings)

    # A green die is not in the Pyradice palette: still reported, as the nearest name, far away.
    spec = DieSpec(value=3, body=DIE_COLOURS["green"], pips=PIP_COLOURS["white"], centre=(60.0, 60.0), side=50.0,
                   angle=10.0)  # fmt: skip
    image, truth = render_scene(np.random.default_rng(5), (120, 120), dice=[spec], style=SceneStyle(camera_height=40))
    green = reader.read_candidates(image, [DieCandidate(truth[0].centre, truth[0].side, truth[0].angle, 1.0)])[0]
    assert green.colour in PYRADICE and green.colour_distance > 30
    assert green.lab[1] < -20  # the measured value says green


def test_calibration_refuses_the_wrong_number_of_dice() -> None:
    with pytest.raises(PaletteError, match=r"3 dice.*4 colours"):
        calibrate([((0.0, 0.0), (50.0, 0.0, 0.0))] * 3, nominal_palette("pyradice"))


def test_calibration_command_writes_a_palette_the_reader_loads(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    import cv2

    tint = (0.72, 0.9, 1.2)
    image, candidates, _ = pyradice_scene(2, tint)
    photo = tmp_path / "calibration.png"
    cv2.imwrite(str(photo), image)
    monkeypatch.setattr(recognize, "default_detector", lambda threads=1: FixedDetector(candidates))
    out = tmp_path / "lamp.json"
    assert companion(["recognize", "--calibrate", str(photo), "--palette", "pyradice", "--out", str(out)]) == 0
    printed = capsys.readouterr().out
    assert all(name in printed for name in PYRADICE) and "wrote" in printed
    palette = load_palette(str(out))
    assert palette.names == PYRADICE and palette.calibrated
    # The measured colours are kept beside the kinds of real dice (as the device's teaching names dice).
    assert set(palette.colours) <= set(palette.kinds) | {c for c in palette.colours if c[0] not in DICE_KINDS}
    assert {n for n, _ in palette.kinds} == {n for n in PYRADICE if n in DICE_KINDS}

    image2, candidates2, names2 = pyradice_scene(3, tint)
    photo2 = tmp_path / "roll.png"
    cv2.imwrite(str(photo2), image2)
    monkeypatch.setattr(recognize, "default_detector", lambda threads=1: FixedDetector(candidates2))
    assert companion(["recognize", "--json", "--palette", str(out), str(photo2)]) == 0
    record = json.loads(capsys.readouterr().out)
    assert [d["colour"] for d in record["dice"]] == names2


def test_bad_calibration_files_are_refused(tmp_path: Path) -> None:
    with pytest.raises(PaletteError, match="does not exist"):
        load_palette(str(tmp_path / "none.json"))
    bad = tmp_path / "bad.json"
    bad.write_text("{not json")
    with pytest.raises(PaletteError, match="not valid JSON"):
        load_palette(str(bad))
    bad.write_text(json.dumps({"palette": "x", "colours": {"red": [1, 2]}}))
    with pytest.raises(PaletteError, match="not a palette"):
        load_palette(str(bad))


def _rendered_colours_named_wrong(palette: Palette, colours: list[str]) -> list[tuple[str, str]]:
    reader = DiceRecognizer(detector=FixedDetector(), palette=palette)
    rng = np.random.default_rng(0)
    wrong = []
    for _ in range(12):
        names = [str(n) for n in rng.permutation(colours)[:5]]
        specs = [
            DieSpec(
                value=int(rng.integers(1, 7)),
                body=DIE_COLOURS[name],
                pips=PIP_COLOURS["black" if name in ("white", "ivory", "yellow", "orange") else "white"],
                centre=(60.0 + 110 * i, 80.0),
                side=float(rng.uniform(30, 56)),
                angle=float(rng.uniform(0, 90)),
                colour_name=name,
            )
            for i, name in enumerate(names)
        ]
        surface = (int(rng.integers(60, 230)), int(rng.integers(60, 230)), int(rng.integers(60, 230)))
        style = SceneStyle(surface=surface, camera_height=40, blur=0.5, noise=2.0, jpeg_quality=85)
        image, truth = render_scene(rng, (600, 160), dice=specs, style=style)
        readings = reader.read_candidates(image, [DieCandidate(d.centre, d.side, d.angle, 1.0) for d in truth])
        wrong += [(d.colour_name, r.colour) for d, r in zip(truth, readings, strict=True) if r.colour != d.colour_name]
    return wrong


def test_the_general_palette_names_rendered_dice_of_every_colour_on_any_table() -> None:
    """The camera model (fitted on real photos) must not spoil the rendered dice, lit as the renderer lights them."""
    assert _rendered_colours_named_wrong(nominal_palette("dice", use_kinds=False), list(DIE_COLOURS)) == []


@pytest.mark.parametrize("game", sorted(PALETTES))
def test_each_games_palette_with_the_kinds_of_real_dice_names_rendered_dice_right(game: str) -> None:
    # The kinds of real dice (DICE_KINDS) put the real red dice's darker kind next to the renderer's maroon and the
    # real white dice (cream, as the photos show them) next to its ivory: the general palette with kinds names those
    # rendered dice by the other name. No game has both names of such a pair, and each game's palette with its
    # kinds still names every rendered die of its colours right.
    colours = [c for c in PALETTES[game] if c in DIE_COLOURS]
    assert len(colours) >= 4
    assert _rendered_colours_named_wrong(nominal_palette(game), colours) == []


def test_kinds_name_a_die_by_its_nearest_kind_and_survive_a_palette_file(tmp_path: Path) -> None:
    palette = Palette(
        "p", (("green", (40.0, -40.0, 25.0)), ("gray", (40.0, 0.0, 0.0))), kinds=(("green", (35.0, -17.0, 9.0)),)
    )
    # A swirled teal die: nearer gray than the one green reference, nearest of all to green's second kind; a
    # name with kinds is matched by its kinds only (the plain green reference is not among them here).
    assert [n for n, _ in palette.references()] == ["gray", "green"]
    assert palette.nearest((35.0, -15.0, 8.0))[0] == "green"
    assert Palette("p", palette.colours).nearest((35.0, -15.0, 8.0))[0] == "gray"
    path = tmp_path / "palette.json"
    path.write_text(json.dumps(palette.to_json()), encoding="utf-8")
    assert load_palette(str(path)).kinds == palette.kinds
    bad = {**palette.to_json(), "kinds": [["blue", [1, 2, 3]]]}
    path.write_text(json.dumps(bad), encoding="utf-8")
    with pytest.raises(PaletteError, match="not among its colours"):
        load_palette(str(path))


def test_nearest_each_names_every_colour_as_nearest_does() -> None:
    # The reader names a frame's dice in one call (session 18); it must give each die what nearest gives it.
    rng = np.random.default_rng(3)
    labs = [(float(rng.uniform(0, 100)), float(rng.uniform(-60, 60)), float(rng.uniform(-60, 60))) for _ in range(40)]
    for palette in (load_palette("dice"), load_palette("pyradice")):
        assert palette.nearest_each(labs) == [palette.nearest(lab) for lab in labs]
        assert palette.nearest_each([]) == []
