"""The camera model behind the built-in palettes (vision.colour.CAMERA_MATRIX) and colour names on real photos."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest

from vision.colour import (
    CAMERA_MATRIX,
    DICE_KINDS,
    DICE_PALETTE,
    NOMINAL_RGB,
    Palette,
    as_seen,
    bgr_to_lab,
    distance,
    lab_of_linear,
    linear_of_srgb,
    linear_rgb,
    nominal_palette,
    with_kinds,
)
from vision.lab.colour_fit import (
    BYLER_COLOURS,
    LabelledDie,
    calibrated_right,
    colour_medians,
    fit_camera,
    fit_kinds,
    kind_of,
    main,
    named_right,
    read_colour_labels,
    taught_right,
)


def test_linear_light_round_trips_and_agrees_with_8_bit_lab() -> None:
    for rgb in [(255, 255, 255), (120, 28, 40), (240, 210, 40), (30, 70, 170), (0, 0, 0)]:
        lab = as_seen(rgb, np.eye(3))
        assert distance(lab, bgr_to_lab(rgb[::-1])) < 0.8  # 8-bit Lab rounds
        assert np.allclose(linear_rgb(lab), linear_of_srgb(rgb), rtol=0.01, atol=1e-3)  # OpenCV float Lab: ~0.5%
        assert distance(lab_of_linear(linear_rgb(lab)), lab) < 0.1


def test_the_camera_model_darkens_and_the_palettes_use_it() -> None:
    white = dict(nominal_palette("pyradice").colours)["white"]
    assert 65 < white[0] < 80  # an ideal white is L 93: the camera exposes for the table, not for the die
    assert dict(nominal_palette("dice").colours)["red"] == as_seen(NOMINAL_RGB["red"], CAMERA_MATRIX)


def test_fit_recovers_a_known_camera() -> None:
    camera = np.array([[0.5, 0.05, 0.0], [0.02, 0.4, 0.03], [0.0, 0.1, 0.45]])
    medians = {name: as_seen(NOMINAL_RGB[name], camera) for name in ("white", "red", "green", "blue", "yellow")}
    assert np.allclose(fit_camera(medians), camera, atol=2e-3)
    with pytest.raises(ValueError, match="at least 3 colours"):
        fit_camera({"red": (50.0, 60.0, 40.0)})


def die(lab: tuple[float, float, float], *colours: str) -> LabelledDie:
    return LabelledDie("images/x.jpg", (0.0, 0.0, 10.0, 10.0), colours, lab)


def test_medians_use_dice_of_one_name_and_naming_accepts_any_listed_name() -> None:
    dice = [die((70.0, 0.0, 0.0), "white"), die((74.0, 0.0, 2.0), "white"), die((72.0, 0.0, 8.0), "white", "ivory"),
            die((30.0, 40.0, 25.0), "red"), die((20.0, 30.0, 12.0), "maroon", "red")]  # fmt: skip
    assert colour_medians(dice) == {"white": (72.0, 0.0, 1.0), "red": (30.0, 40.0, 25.0)}
    palette = Palette("p", (("white", (72.0, 0.0, 1.0)), ("red", (30.0, 40.0, 25.0))), True)
    assert named_right(palette, dice) == 5  # the dark red is named red, which its label accepts
    mean, worst, names = calibrated_right(dice, dice, draws=20)
    assert names == ["red", "white"] and worst <= mean <= 5


def test_bad_colour_labels_are_refused_naming_the_line(tmp_path: Path) -> None:
    path = tmp_path / "labels.jsonl"
    good = {"image": "images/a.jpg", "box": [1, 2, 3, 4], "colours": ["red"]}
    for bad, message in [
        ("{not json", "not valid JSON"),
        (json.dumps({**good, "colours": []}), "needs 'image'"),
        (json.dumps({**good, "box": [1, 2]}), "needs 'image'"),
        (json.dumps({**good, "colours": ["teal"]}), "'teal' is not a colour"),
    ]:
        path.write_text(json.dumps(good) + "\n" + bad + "\n")
        with pytest.raises(ValueError, match=f"labels.jsonl:2: .*{message}"):
            read_colour_labels(path)


def test_committed_colour_labels_are_well_formed() -> None:
    labels = read_colour_labels(BYLER_COLOURS)
    assert len(labels) == 440 and {c for label in labels for c in label["colours"]} <= set(DICE_PALETTE)


def test_committed_camera_matrix_is_the_fit_and_names_real_dice_better(
    shared_dir: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    assert main(["--shared", str(shared_dir), "--check"]) == 0
    table = capsys.readouterr().out
    rows = {line.split(" | ")[0].strip("| "): line for line in table.splitlines() if line.startswith("| ")}

    def right(row: str, column: int) -> int:
        return int(rows[row].split(" | ")[column].split(" of ")[0])

    # The ideal colours named about half the train dice and two thirds of val; the camera model over 80% of both;
    # with the kinds of real dice (issue 25) at least 95% of val (213 of 220 on the machine it was measured on;
    # a margin of four dice for another CPU's 8-bit kernels, which move a die's box and so its crop's colour).
    one = "the camera model, one reference per name (until issue 25)"
    assert right("nominal colours, no camera model", 1) < 130 and right("nominal colours, no camera model", 2) < 150
    assert right(one, 1) >= 180 and right(one, 2) >= 175
    committed = "the committed camera model and kinds (CAMERA_MATRIX, DICE_KINDS)"
    assert right(committed, 1) >= 210
    assert right(committed, 2) >= 209  # 95% of 220


def test_kinds_are_fitted_per_best_name_and_are_the_same_every_run() -> None:
    teal = [die((35.0 + i * 0.1, -17.0, 9.0), "green") for i in range(6)]
    plain = [die((44.0 - i * 0.1, -39.0, 25.0), "green", "blue") for i in range(6)]  # best name green
    few = [die((70.0, 0.0, 8.0), "ivory"), die((72.0, 0.0, 6.0), "ivory", "white")]
    kinds = fit_kinds(teal + plain + few)
    assert sorted(kinds) == ["green", "ivory"] and len(kinds["ivory"]) == 1  # under 8 dice: one kind
    assert sorted(round(k[1]) for k in kinds["green"]) == [-39, -17]
    assert fit_kinds(teal + plain + few) == kinds


def test_a_taught_palette_with_kinds_names_a_die_of_the_other_kind_by_its_name() -> None:
    # One taught green die is a plain green; a swirled teal green (the other kind of DICE_KINDS["green"]) is
    # nearer the taught blue alone, and named green once the kinds join the taught colours.
    plain, teal = DICE_KINDS["green"]
    taught = Palette("taught", (("green", plain), ("blue", (24.0, -5.0, -10.0))), True)
    assert taught.nearest(teal)[0] == "blue"
    joined = with_kinds(taught)
    assert joined.nearest(teal)[0] == "green" and joined.nearest((24.0, -5.0, -10.0))[0] == "blue"
    assert joined.names == taught.names and joined.calibrated
    assert with_kinds(joined).references() == joined.references()  # adding them twice adds nothing


def test_teaching_is_measured_on_every_die_of_a_name_or_on_the_taught_kind() -> None:
    plain, teal = DICE_KINDS["green"]
    greens = [die(plain, "green") for _ in range(3)] + [die(teal, "green") for _ in range(3)]
    blues = [die((24.0, -5.0, -10.0), "blue") for _ in range(3)]
    assert kind_of(greens[0]) != kind_of(greens[-1]) and kind_of(blues[0]) == 1  # a navy blue
    names = ("green", "blue")
    _, worst, measured = taught_right(greens + blues, names, draws=30)
    assert measured == 7 and worst < 1.0  # a taught plain green leaves the teal dice to the blue
    assert taught_right(greens + blues, names, draws=30, join_kinds=True)[:2] == (1.0, 1.0)
    share, _, measured = taught_right(greens + blues, names, draws=30, one_kind=True)
    assert share == 1.0 and measured == 4  # the taught die's kind: two more greens and two blues
