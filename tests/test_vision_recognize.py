"""The die reader end to end (vision.recognize, vision.lab.evaluate, the recognize and eval-dice commands):
real photos, every kind of bad input, the JSON the command prints."""

from __future__ import annotations

import csv
import importlib.util
import json
from pathlib import Path

import cv2
import numpy as np
import pytest

from device.cli import main as companion
from vision import recognize
from vision.crop import CROP_SIZE, crop_die
from vision.faces import TIGHT_SIDE, square_turns
from vision.lab.evaluate import evaluate, match, truth_candidates
from vision.lab.render import render_scene
from vision.lab.splits import read_manifest
from vision.recognize import LOOSE_SIDE, DiceRecognizer, FixedDetector, ImageError, annotate, load_image
from vision.types import DieCandidate, DieReading

PHOTOS = Path(__file__).resolve().parent / "data" / "photos"
MANIFEST = PHOTOS / "manifest.jsonl"
HAVE_DETECTOR = importlib.util.find_spec("vision.detect") is not None


@pytest.fixture(scope="module")
def reader() -> DiceRecognizer:
    return DiceRecognizer(detector=FixedDetector())


@pytest.fixture
def truth_detector(monkeypatch: pytest.MonkeyPatch) -> FixedDetector:
    """The commands' default detector replaced by one returning whatever the test puts in it."""
    fixed = FixedDetector()
    monkeypatch.setattr(recognize, "default_detector", lambda threads=1: fixed)
    return fixed


def test_real_photos_every_die_right_or_unsure(reader: DiceRecognizer) -> None:
    records = list(read_manifest(MANIFEST))
    result = evaluate(records, reader, truth_boxes=True)
    summary = result.summary()
    assert summary["dice"] == 25 + 11 + 10 + 9
    assert summary["detection_recall"] == 1.0 and summary["detection_precision"] == 1.0
    # The target: no wrong value without "unsure" (the face model before the marbled bodies missed it
    # here by one die: a maroon 3 in IMG_20191208_112933 read as 5 at p = 0.97).
    assert summary["wrong_values_not_unsure"] == 0
    assert summary["face_accuracy"] >= 0.97
    # These four photos hold the hardest dice of the set (three of them are val photos with its most doubtful
    # dice): 5 of the 55 are asked about at the reader's floor (issue 25: 0.80, a pip count overruled by a model
    # sure past 0.999) on the AMD EPYC it was last measured on; one die of margin for other CPUs' 8-bit kernels.
    assert summary["unsure"] <= 6


@pytest.mark.skipif(not HAVE_DETECTOR, reason="vision.detect is not in this build yet")
def test_real_photos_with_the_detector() -> None:
    # The whole reader on four real photos: with the current models all 55 dice are found, and one is read
    # wrong, marked unsure (3 unsure in all). The accuracy bound leaves room for that one die, not for a sure one.
    result = evaluate(list(read_manifest(MANIFEST)), DiceRecognizer()).summary()
    assert result["detection_recall"] >= 0.95 and result["detection_precision"] >= 0.95
    assert result["face_accuracy"] >= 0.98
    assert result["wrong_values_not_unsure"] == 0
    # One die, one reading, and nothing that is not a die reported as sure (issue 25).
    assert result["duplicates"] == 0 and result["false_finds_sure"] == 0
    assert result["unsure"] <= 7  # 6 of the 54 found on the machine it was measured on


def test_grey_bgra_and_huge_images_are_read(reader: DiceRecognizer) -> None:
    image, truth = render_scene(np.random.default_rng(8), (320, 240), n_dice=(5, 5), side_range=(40, 50))
    candidates = [DieCandidate(d.centre, d.side, d.angle, 1.0) for d in truth]
    reader.detector = FixedDetector(candidates)
    colour = reader.read(image)
    assert len(colour) == 5
    grey = reader.read(cv2.cvtColor(image, cv2.COLOR_BGR2GRAY))
    assert len(grey) == 5 and all(r.colour in ("white", "gray", "black", "ivory") for r in grey)
    assert len(reader.read(cv2.cvtColor(image, cv2.COLOR_BGR2BGRA))) == 5

    class Shrunk:
        """A detector that checks it got a shrunk image and answers in that image's pixels."""

        seen: tuple[int, ...] = ()

        def find(self, image_bgr: np.ndarray) -> list[DieCandidate]:
            self.seen = image_bgr.shape
            s = image_bgr.shape[1] / 320
            return [DieCandidate((c.centre[0] * s, c.centre[1] * s), c.side * s, c.angle, 1.0) for c in candidates]

    huge = cv2.resize(image, (320 * 16, 240 * 16), interpolation=cv2.INTER_LINEAR)  # 5120 x 3840
    shrunk = Shrunk()
    reader.detector = shrunk
    readings = reader.read(huge)
    assert max(shrunk.seen[:2]) <= 1600
    assert len(readings) == 5
    for r, c in zip(readings, candidates, strict=True):
        assert r.centre == pytest.approx((c.centre[0] * 16, c.centre[1] * 16), abs=1)
    assert [r.value for r in readings] == [r.value for r in colour] or any(r.unsure for r in readings + colour)


@pytest.mark.parametrize("value", [0, 255, 128])
def test_flat_frames_have_no_dice(reader: DiceRecognizer, value: int) -> None:
    reader.detector = FixedDetector([DieCandidate((50.0, 50.0), 30.0, 0.0, 1.0)])
    assert reader.read(np.full((480, 640, 3), value, np.uint8)) == []
    assert reader.read(np.full((480, 640), value, np.uint8)) == []
    assert reader.read(np.zeros((4, 4, 3), np.uint8)) == []


def test_not_an_image_array_is_refused(reader: DiceRecognizer) -> None:
    with pytest.raises(ValueError, match="empty"):
        reader.read(np.zeros((0, 0, 3), np.uint8))
    with pytest.raises(ValueError, match="neither grey"):
        reader.read(np.zeros((10, 10, 5), np.uint8))


def bad_files(tmp_path: Path) -> dict[str, tuple[Path, str]]:
    photo = (PHOTOS / "IMG_20191208_112933.jpg").read_bytes()
    files = {
        "missing": (tmp_path / "nothing.jpg", "no such file"),
        "empty": (tmp_path / "empty.jpg", "empty"),
        "truncated": (tmp_path / "cut.jpg", "truncated"),
        "text": (tmp_path / "notes.jpg", "not an image"),
        "folder": (tmp_path, "folder"),
    }
    files["empty"][0].write_bytes(b"")
    files["truncated"][0].write_bytes(photo[: len(photo) // 2])
    files["text"][0].write_text("these are not the pixels you are looking for\n")
    return files


@pytest.mark.parametrize("kind", ["missing", "empty", "truncated", "text", "folder"])
def test_unusable_files_are_clear_errors(tmp_path: Path, kind: str) -> None:
    path, message = bad_files(tmp_path)[kind]
    with pytest.raises(ImageError, match=message):
        load_image(path)


@pytest.mark.parametrize("kind", ["missing", "empty", "truncated", "text", "folder"])
def test_recognize_exits_2_with_one_line_for_unusable_files(
    tmp_path: Path, kind: str, truth_detector: FixedDetector, capsys: pytest.CaptureFixture[str]
) -> None:
    path, message = bad_files(tmp_path)[kind]
    assert companion(["recognize", "--json", str(path)]) == 2
    err = capsys.readouterr().err
    assert len(err.strip().splitlines()) == 1 and message in err and "Traceback" not in err


def test_recognize_json_and_annotations(
    tmp_path: Path, truth_detector: FixedDetector, capsys: pytest.CaptureFixture[str]
) -> None:
    record = next(r for r in read_manifest(MANIFEST) if r["image"] == "IMG_20191208_112933.jpg")
    truth_detector.candidates = truth_candidates(record, load_image(record["path"]))
    out = tmp_path / "annotated"
    assert companion(["recognize", "--json", "--annotate", str(out), record["path"]]) == 0
    line = json.loads(capsys.readouterr().out)
    assert (line["image"], line["width"], line["height"]) == (record["path"], 640, 640)
    assert len(line["dice"]) == len(record["dice"])
    for die in line["dice"]:
        assert len(die["box"]) == 4 and die["box"][0] < die["box"][2] and die["box"][1] < die["box"][3]
        assert die["value"] in range(1, 7) and isinstance(die["unsure"], bool)
        assert 0 <= die["confidence"] <= 1 and isinstance(die["colour"], str)
    drawn = cv2.imread(str(out / "IMG_20191208_112933.png"))
    assert drawn is not None and drawn.shape == (640, 640, 3)
    assert companion(["recognize", record["path"]]) == 0
    assert "dice:" in capsys.readouterr().out


def test_recognize_needs_images(truth_detector: FixedDetector, capsys: pytest.CaptureFixture[str]) -> None:
    assert companion(["recognize"]) == 2
    assert "IMAGE" in capsys.readouterr().err
    assert companion(["recognize", "x.jpg", "--palette", "tartan"]) == 2
    assert "tartan" in capsys.readouterr().err


def test_eval_dice_writes_its_results(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    out = tmp_path / "eval"
    assert companion(["eval-dice", str(MANIFEST), "--truth-boxes", "--out", str(out)]) == 0
    printed = capsys.readouterr().out
    assert "face accuracy" in printed and "confusion" in printed
    summary = json.loads((out / "summary.json").read_text())
    assert summary["dice"] == 55 and summary["split"] == "all"
    with (out / "results.csv").open() as fh:
        rows = list(csv.DictReader(fh))
    assert len(rows) == 55 and {r["status"] for r in rows} == {"matched"}
    assert (out / "confusion.csv").read_text().startswith("truth\\read,1,2,3,4,5,6")
    assert cv2.imread(str(out / "errors.png")) is not None


def test_eval_dice_bad_manifest(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert companion(["eval-dice", str(tmp_path / "none.jsonl"), "--truth-boxes"]) == 2
    assert "no such manifest" in capsys.readouterr().err
    broken = tmp_path / "manifest.jsonl"
    broken.write_text('{"image": "a.jpg", "dice": []}\nnot json\n')
    assert companion(["eval-dice", str(broken), "--truth-boxes"]) == 2
    assert "not valid JSON" in capsys.readouterr().err


def test_matching_is_one_to_one_by_overlap() -> None:
    def reading(box: tuple[float, float, float, float]) -> DieReading:
        centre = ((box[0] + box[2]) / 2, (box[1] + box[3]) / 2)
        return DieReading(box=box, centre=centre, angle=0.0, value=1, colour="white", confidence=1.0)

    truth = [(0.0, 0.0, 10.0, 10.0), (20.0, 0.0, 30.0, 10.0)]
    readings = [reading((1.0, 0.0, 11.0, 10.0)), reading((0.0, 1.0, 10.0, 11.0)), reading((50.0, 50.0, 60.0, 60.0))]
    pairs = match(readings, truth)
    assert len(pairs) == 1 and pairs[0][0] == 0


def test_annotate_draws_on_a_copy() -> None:
    image = np.zeros((100, 100, 3), np.uint8)
    r = DieReading(box=(20.0, 20.0, 60.0, 60.0), centre=(40.0, 40.0), angle=0.0, value=3, colour="red",
                   confidence=0.5, unsure=True)  # fmt: skip
    drawn = annotate(image, [r])
    assert image.max() == 0 and drawn[:, :, 2].max() > 0  # unsure is drawn in red


def test_black_and_white_frames_give_an_empty_result_not_an_error(
    tmp_path: Path, truth_detector: FixedDetector, capsys: pytest.CaptureFixture[str]
) -> None:
    truth_detector.candidates = [DieCandidate((50.0, 50.0), 30.0, 0.0, 1.0)]
    for name, value in (("black.png", 0), ("white.jpg", 255)):
        cv2.imwrite(str(tmp_path / name), np.full((480, 640, 3), value, np.uint8))
    assert companion(["recognize", "--json", str(tmp_path / "black.png"), str(tmp_path / "white.jpg")]) == 0
    lines = [json.loads(line) for line in capsys.readouterr().out.splitlines()]
    assert [(line["width"], line["height"], line["dice"]) for line in lines] == [(640, 480, []), (640, 480, [])]


def test_sixteen_bit_and_grey_files_load_as_bgr(tmp_path: Path) -> None:
    deep = (np.arange(64 * 48, dtype=np.uint16).reshape(48, 64) * 20).astype(np.uint16)
    cv2.imwrite(str(tmp_path / "deep.png"), deep)
    image = load_image(tmp_path / "deep.png")
    assert image.shape == (48, 64, 3) and image.dtype == np.uint8 and int(image.max()) == int(deep.max()) >> 8
    cv2.imwrite(str(tmp_path / "grey.png"), np.full((10, 12), 77, np.uint8))
    assert load_image(tmp_path / "grey.png").shape == (10, 12, 3)


def test_the_reader_drops_what_is_not_a_die(reader: DiceRecognizer) -> None:
    # Bare table and tray edge of a real photo, where no die lies, offered as candidates beside real dice.
    record = next(r for r in read_manifest(MANIFEST) if r["image"] == "IMG_20191208_112332.jpg")
    image = load_image(record["path"])
    dice = truth_candidates(record, image)
    empty = [DieCandidate((x, y), 38.0, 0.0, 0.5) for x, y in ((560.0, 60.0), (100.0, 500.0), (420.0, 480.0))]
    reader.detector = FixedDetector(dice + empty)
    readings = reader.read(image)
    real = {c.centre for c in dice}
    assert real <= {r.centre for r in readings}  # every die is kept
    extra = [r for r in readings if r.centre not in real]
    assert len(extra) <= 1 and all(r.unsure for r in extra)  # table is dropped, or at least never read as sure


class _NeverSureFaces:
    """A stand-in face model that is never sure of any die (so every die gets its second look), keeping each
    batch of crops it is given."""

    size = CROP_SIZE
    values = (1, 2, 3, 4, 5, 6)

    def __init__(self) -> None:
        self.batches: list[np.ndarray] = []

    def probabilities(self, crops: np.ndarray) -> np.ndarray:
        self.batches.append(crops)
        return np.full((len(crops), 6), 1 / 6, np.float32)

    def read(self, crops: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        return self.probabilities(crops), np.zeros(len(crops), np.float32)


def test_the_second_look_reads_each_doubtful_die_cut_tighter_around_the_same_centre() -> None:
    image, truth = render_scene(np.random.default_rng(3), (240, 240), n_dice=(3, 3), side_range=(40, 50))
    found = [DieCandidate(d.centre, d.side, d.angle, 1.0) for d in truth]
    faces = _NeverSureFaces()
    readings = DiceRecognizer(detector=FixedDetector(found), faces=faces).read(image)  # type: ignore[arg-type]
    assert len(readings) == 3 and all(r.unsure for r in readings)
    # The first look at every die, one batch for the second look, one for the third (still under the floor).
    first, second, third = faces.batches
    assert len(first) == 3 and len(second) == 3 * (3 + 4)
    # After the other 3 turns of each crop come the 4 turns of each die cut at TIGHT_SIDE of its side.
    tighter = np.stack([crop_die(image, c.scaled(TIGHT_SIDE), CROP_SIZE) for c in found])
    assert np.array_equal(second[3 * 3 :], square_turns(tighter))
    assert found[0].scaled(TIGHT_SIDE) == DieCandidate(found[0].centre, found[0].side * TIGHT_SIDE, found[0].angle, 1.0)
    # The third look: the 4 turns of each die cut at LOOSE_SIDE of its side.
    looser = np.stack([crop_die(image, c.scaled(LOOSE_SIDE), CROP_SIZE) for c in found])
    assert np.array_equal(third, square_turns(looser))


class _SureOfThreeWhenLoose(_NeverSureFaces):
    """Never sure of a die in its first 8 views; in the third look's crops it sees a 3 for certain."""

    def probabilities(self, crops: np.ndarray) -> np.ndarray:
        uniform = super().probabilities(crops)
        if len(self.batches) < 3:
            return uniform
        return np.tile(np.eye(6, dtype=np.float32)[2], (len(crops), 1))


def test_the_third_look_averages_12_views_of_a_die_still_under_the_floor_and_only_those() -> None:
    image, truth = render_scene(np.random.default_rng(3), (240, 240), n_dice=(3, 3), side_range=(40, 50))
    found = [DieCandidate(d.centre, d.side, d.angle, 1.0) for d in truth]
    faces = _SureOfThreeWhenLoose()
    readings = DiceRecognizer(detector=FixedDetector(found), faces=faces).read(image)  # type: ignore[arg-type]
    # 8 views at 1/6 and 4 views sure of a 3: (8 / 6 + 4) / 12 = 0.444, still unsure at the floor.
    assert [r.value for r in readings] == [3, 3, 3]
    assert all(abs(r.confidence - (8 / 6 + 4) / 12) < 1e-5 and r.unsure for r in readings)
    # A reader without the third look reads two batches only; a floor every die passes after 8 views, none.
    faces = _SureOfThreeWhenLoose()
    DiceRecognizer(detector=FixedDetector(found), faces=faces, third_look=()).read(image)  # type: ignore[arg-type]
    assert len(faces.batches) == 2
    faces = _SureOfThreeWhenLoose()
    DiceRecognizer(detector=FixedDetector(found), faces=faces, floor=0.1).read(image)  # type: ignore[arg-type]
    assert len(faces.batches) == 2


class _ReadsThreeFairly(_NeverSureFaces):
    """Reads every crop as a 3 at 0.85 (the rest on a 1): at the reader's floor, under the games' 0.95."""

    def probabilities(self, crops: np.ndarray) -> np.ndarray:
        self.batches.append(crops)
        return np.tile(np.array([0.15, 0.0, 0.85, 0.0, 0.0, 0.0], np.float32), (len(crops), 1))


def test_a_lone_pip_counted_against_a_model_at_the_floor_leaves_the_die_sure_and_two_pips_do_not() -> None:
    # Session 19: the counter's lone blob was its miss against every such model on the tuning sets; two are heard.
    from vision.lab.render import DieSpec

    for value, doubt in ((1, ()), (2, ("pip count says 2",))):
        specs = [DieSpec(value, centre=(60.0 + 120 * k, 80.0), side=44.0, angle=10.0 * k) for k in range(3)]
        image, truth = render_scene(np.random.default_rng(value), (360, 160), dice=specs)
        found = [DieCandidate(d.centre, d.side, d.angle, 1.0) for d in truth]
        readings = DiceRecognizer(detector=FixedDetector(found), faces=_ReadsThreeFairly()).read(image)  # type: ignore[arg-type]
        assert [r.pips for r in readings] == [value] * 3  # the counter sees the rendered face
        assert all(r.value == 3 and abs(r.confidence - 0.85) < 1e-5 for r in readings)
        assert all(r.doubts == doubt and r.unsure == bool(doubt) for r in readings)
