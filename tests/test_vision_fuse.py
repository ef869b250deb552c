"""Fusing several still frames of the same settled dice (vision.fuse, issue 25): doubts for lack of confidence
can be settled by agreeing frames, no other doubt is, and dice that come and go stay unsure."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest

from device.cli import main as companion
from vision.faces import SURE_FLOOR
from vision.fuse import fuse_frames, match_frames
from vision.lab.evaluate import still_frames
from vision.types import DieReading


def die(
    x: float, value: int, confidence: float, doubts: tuple[str, ...] = (), pips: int | None = None, **kw: object
) -> DieReading:
    p = np.full(6, (1.0 - confidence) / 5.0)
    p[value - 1] = confidence
    unsure = bool(doubts) or confidence < SURE_FLOOR
    if confidence < SURE_FLOOR and "low confidence" not in doubts:
        doubts = ("low confidence", *doubts)
    return DieReading(
        box=(x - 20, 80.0, x + 20, 120.0), centre=(x, 100.0), angle=0.0, value=value, colour="red",
        confidence=confidence, unsure=unsure, pips=pips, probabilities=tuple(float(v) for v in p), doubts=doubts,
        **kw,  # type: ignore[arg-type]
    )  # fmt: skip


def test_agreeing_frames_settle_a_die_doubtful_for_confidence_alone() -> None:
    frames = [[die(100, 3, 0.78), die(200, 5, 1.0)], [die(101, 3, 0.86), die(199, 5, 1.0)], [die(100, 3, 0.84)]]
    frames[-1].append(die(201, 5, 0.99))
    fused = fuse_frames(frames)
    assert [(d.value, d.unsure) for d in fused] == [(3, False), (5, False)]
    assert fused[0].confidence == pytest.approx((0.78 + 0.86 + 0.84) / 3)
    assert fused[0].centre == (100, 100.0)  # where the latest frame saw it


def test_frames_that_disagree_or_a_doubt_of_another_kind_keep_a_die_unsure() -> None:
    # Two frames sure of different faces: the table changed, or the reader cannot tell; never averaged away.
    assert fuse_frames([[die(100, 3, 0.99)], [die(100, 3, 0.99)], [die(100, 5, 0.99)]])[0].unsure
    # A pip count that disagrees in one frame, or a die cocked in one frame, keeps its doubt.
    pip_doubt = [[die(100, 4, 0.97, ("pip count says 5",), pips=5)], [die(100, 4, 0.99)], [die(100, 4, 0.99)]]
    assert fuse_frames(pip_doubt)[0].unsure
    twin = [[die(100, 2, 0.9)], [die(100, 2, 0.99, ("a second box read another face",))]]
    assert fuse_frames(twin)[0].unsure
    # Low confidence that the frames do not lift stays unsure.
    assert fuse_frames([[die(100, 6, 0.6)], [die(100, 6, 0.7)], [die(100, 6, 0.75)]])[0].unsure


def test_a_pip_count_is_heard_in_fused_frames_as_in_one_frame() -> None:
    # Three doubtful frames (0.78) whose mean lifts the die to 0.86: a lone pip counted in one of them is the
    # counter's miss against such a model (vision.faces.LONE_PIP_HEARD_BELOW), as the die reader decides one frame;
    # a count of two or more still keeps the die unsure below PIPS_HEARD_BELOW.
    def frames(pips: int) -> list[list[DieReading]]:
        return [[die(100, 4, 0.78, pips=pips)], [die(100, 4, 0.9)], [die(100, 4, 0.9)]]

    assert not fuse_frames(frames(1))[0].unsure
    assert fuse_frames(frames(5))[0].unsure


def test_a_die_seen_in_half_the_frames_or_fewer_is_unsure_and_one_frame_is_given_back() -> None:
    frames = [[die(100, 1, 1.0)], [die(300, 2, 1.0)], [die(100, 1, 1.0), die(300, 2, 1.0)], [die(500, 6, 1.0)]]
    fused = fuse_frames(frames)
    assert [(d.value, d.unsure) for d in fused] == [(6, True)]  # only in the latest of four frames
    assert fuse_frames(frames[2:3]) == frames[2]
    assert fuse_frames([]) == []


def test_each_reading_of_a_frame_pairs_with_one_die_the_nearest() -> None:
    latest = [die(100, 1, 1.0), die(130, 2, 1.0)]
    older = [die(128, 2, 1.0), die(104, 1, 1.0), die(400, 3, 1.0)]
    tracks = match_frames([older, latest])
    assert [t[0].value if t[0] else None for t in tracks] == [1, 2]


def test_readings_without_probabilities_fuse_by_value_and_confidence() -> None:
    plain = DieReading(box=(0, 0, 40, 40), centre=(20.0, 20.0), angle=0.0, value=4, colour="red", confidence=0.9)
    fused = fuse_frames([[plain], [plain]])
    assert fused[0].value == 4 and fused[0].confidence == pytest.approx(0.9) and not fused[0].unsure


def test_proxy_still_frames_are_the_photo_then_shifted_noisy_copies() -> None:
    image = np.tile(np.arange(64, dtype=np.uint8)[None, :, None] * 3, (48, 1, 3))
    frames = still_frames(image, 3)
    assert len(frames) == 3 and frames[0] is image
    assert all(f.shape == image.shape and f.dtype == np.uint8 for f in frames)
    assert 0.5 < float(np.abs(frames[1].astype(int) - image.astype(int)).mean()) < 4.0
    assert not np.array_equal(frames[1], frames[2])
    with pytest.raises(ValueError, match="--frames 9"):
        still_frames(image, 9)


def test_eval_dice_refuses_bad_frames_and_colour_labels_clearly(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    manifest = Path(__file__).resolve().parent / "data" / "photos" / "manifest.jsonl"
    assert companion(["eval-dice", str(manifest), "--truth-boxes", "--frames", "9"]) == 2
    assert "--frames 9 must be 1 to 5" in capsys.readouterr().err
    assert companion(["eval-dice", str(manifest), "--truth-boxes", "--colours", str(tmp_path / "none.jsonl")]) == 2
    assert "no such colour labels file" in capsys.readouterr().err
    assert companion(["eval-dice", str(manifest), "--truth-boxes", "--tilt", "--update-card"]) == 2
    assert "not with --tilt" in capsys.readouterr().err


def test_fused_frames_in_eval_dice_keep_every_wrong_value_unsure(tmp_path: Path) -> None:
    manifest = Path(__file__).resolve().parent / "data" / "photos" / "manifest.jsonl"
    out = tmp_path / "fused"
    assert companion(["eval-dice", str(manifest), "--truth-boxes", "--frames", "2", "--out", str(out)]) == 0
    summary = json.loads((out / "summary.json").read_text())
    assert summary["frames"] == 2 and summary["dice"] == 55
    assert summary["wrong_values_not_unsure"] == 0 and summary["duplicates"] == 0
    assert summary["unsure"] <= 7  # one frame: 5 of 55
    assert (out / "tradeoff.csv").is_file() and (out / "reliability.csv").is_file()


def test_the_rendered_measures_run_and_write_their_tables(tmp_path: Path) -> None:
    from vision.lab.evaluate import LEANS, cocked_recall, rendered_decisions
    from vision.recognize import DiceRecognizer, FixedDetector

    reader = DiceRecognizer(detector=FixedDetector())
    evaluation = rendered_decisions(reader, 7, dice=12)  # small: one or two scenes (the leans grew in session 15)
    curve = evaluation.tradeoff()
    assert len(evaluation.decided) >= 10 and curve[0]["floor"] < curve[-1]["floor"]
    assert [row["unsure"] for row in curve] == sorted(row["unsure"] for row in curve)
    rows = cocked_recall(reader, 7, per_lean=4, leaning=4)  # one scene a lean: 4 tipped dice, 4 flat beside them
    assert [row["lean"] for row in rows] == list(LEANS) and all(row["dice"] >= 4 for row in rows)
    assert all(row["flat_beside"] >= 1 for row in rows[1:])
