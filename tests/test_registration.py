"""Registration (vision/registration.py) on frames rendered by the lab (vision/lab/mat_render.py): zones mapped to
millimetres, covered markers, the tracker, rectified zones, bad input said plainly, and ``companion locate``."""

from __future__ import annotations

import json
from dataclasses import replace
from pathlib import Path

import cv2
import numpy as np
import pytest

from device.cli import main
from device.teaching import TeachingStore
from vision.lab.mat_render import (
    MatScene,
    PlacedMat,
    ViewStyle,
    evaluate,
    mapping_errors,
    random_view,
    render_mats,
    table_layout,
    zone_points,
)
from vision.mats import mats, sheet
from vision.registration import (
    MarkerFinder,
    ZoneTracker,
    annotate,
    calibration_report,
    default_px_per_mm,
    locate,
    mat_to_frame,
    rectify,
    zone_to_frame,
)

SIZE = (800, 600)
FINDER = MarkerFinder()
BOARD1, BOARD2, QUARRY = mats("pyradice", 2)
VIEW = ViewStyle(tilt=22.0, azimuth=40.0, roll=12.0, fill=0.85, light=0.3, light_direction=60.0, blur=0.6,
                 noise=3.0, jpeg=85)


def _scene(placed: list[PlacedMat], view: ViewStyle = VIEW, seed: int = 0, covered: list[int] | None = None,
           size: tuple[int, int] = SIZE, camera: np.ndarray | None = None) -> MatScene:
    return render_mats(np.random.default_rng(seed), placed, size, view, covered or [], camera)


def test_a_tilted_noisy_board_maps_every_zone_within_half_a_millimetre() -> None:
    scene = _scene([PlacedMat(BOARD1, (0, 0), 0)])
    reg = locate(scene.image, "pyradice", finder=FINDER)
    assert reg.game == "pyradice" and not reg.problems
    assert [z.zone.key for z in reg.zones] == ["board-1", "reserve-1"]
    assert all(z.complete for z in reg.zones)
    fit = reg.fits[0]
    assert fit.markers == tuple(m.id for m in BOARD1.markers)
    errors = mapping_errors(scene, reg)["board-1"]
    assert np.median(errors) < 0.3 and errors.max() < 0.6
    assert fit.error_mm < 0.5  # the reprojection error is reported in mm on the sheet


def test_covered_markers_leave_the_zone_located_but_not_complete() -> None:
    covered = [BOARD1.markers[0].id, BOARD1.markers[5].id]
    scene = _scene([PlacedMat(BOARD1, (0, 0), 0)], covered=covered)
    reg = locate(scene.image, "pyradice", finder=FINDER)
    fit = reg.fit("board-1")
    assert fit is not None
    assert set(fit.missing) == set(covered) and len(fit.markers) == 6
    assert not any(z.complete for z in reg.zones)
    assert any("6 of 8 markers seen" in p for p in reg.problems)
    assert np.median(mapping_errors(scene, reg)["board-1"]) < 0.5


def test_json_line_maps_image_pixels_to_sheet_millimetres() -> None:
    scene = _scene([PlacedMat(BOARD2, (0, 0), 170)])  # upside down on the table: the other side's player
    record = locate(scene.image, finder=FINDER).to_json("frame.png")
    assert record["image"] == "frame.png" and record["game"] == "pyradice"
    assert (record["width"], record["height"]) == SIZE
    zone = next(z for z in record["zones"] if z["zone"] == "board-2")
    assert zone["sheet"] == "board-2" and zone["complete"] is True
    assert zone["markers"] == [m.id for m in BOARD2.markers]
    assert zone["rect_mm"] == BOARD2.zone("board").rect.to_json()
    assert zone["error_mm"] < 0.5
    h = np.array(zone["image_to_mat"])
    assert h.shape == (3, 3)
    pts = zone_points(BOARD2)
    image_pts = cv2.perspectiveTransform(pts.reshape(-1, 1, 2), scene.truth["board-2"]).reshape(-1, 2)
    back = cv2.perspectiveTransform(image_pts.reshape(-1, 1, 2), h).reshape(-1, 2)
    assert np.median(np.linalg.norm(back - pts, axis=1)) < 0.3
    json.dumps(record)  # JSON-ready as it is


def test_mapping_error_over_seeded_frames_with_a_marker_covered_is_under_a_millimetre() -> None:
    """The issue's bar, measured small: 3 frames of tilt up to 30 degrees, light, blur, noise, JPEG, one marker
    covered (companion eval-zones measures more)."""
    from vision.lab.mat_render import Condition

    result = evaluate("pyradice", frames=3, seed=5, size=(960, 720), condition=Condition("one covered", cover=1),
                      sheets=2)
    assert result["mats_located"] == result["mats_total"] == 6
    assert result["median_mm"] < 0.5 and result["p95_mm"] < 1.0


def test_tracker_keeps_the_fit_while_markers_agree_and_refits_when_the_mat_moves() -> None:
    placed = [PlacedMat(BOARD1, (0, 0), 5), PlacedMat(QUARRY, (300, 0), -3)]
    first = _scene(placed, seed=1)
    again = _scene(placed, replace(VIEW, noise=5.0, light=0.45, jpeg=70, blur=1.0), seed=2, camera=first.camera)
    tracker = ZoneTracker("pyradice", refit_every=100, finder=FINDER)
    reg = tracker.update(first.image)
    assert not reg.kept and len(reg.fits) == 2
    kept = tracker.update(again.image)
    assert kept.kept and tracker.refits == 1
    assert np.array_equal(kept.fit("board-1").image_to_mat, reg.fit("board-1").image_to_mat)  # type: ignore[union-attr]
    # A hand over two markers: still kept, those two read as not seen.
    hand = [BOARD1.markers[2].id, BOARD1.markers[3].id]
    covered = tracker.update(_scene(placed, seed=3, covered=hand, camera=first.camera).image)
    assert covered.kept
    board = covered.fit("board-1")
    assert board is not None and set(board.missing) == set(hand)
    assert not covered.zone("board-1").complete and covered.zone("quarry").complete  # type: ignore[union-attr]
    # The board slides 1 mm under the same camera: its markers no longer agree, so the frame is located again.
    moved = [replace(placed[0], centre=(1.0, 0.0)), placed[1]]
    scene = _scene(moved, seed=4, camera=first.camera)
    refit = tracker.update(scene.image)
    assert not refit.kept and tracker.refits == 2
    assert np.median(mapping_errors(scene, refit)["board-1"]) < 0.3


def test_tracker_says_when_a_mat_is_lost_and_keeps_the_last_good_fit() -> None:
    placed = [PlacedMat(BOARD1, (0, 0), 0), PlacedMat(QUARRY, (290, 0), 0)]
    first = _scene(placed)
    tracker = ZoneTracker("pyradice", refit_every=100, finder=FINDER)
    good = tracker.update(first.image)
    # A box over the whole board: all its markers covered, the quarry's in place; not kept, located again.
    boxed = _scene(placed, covered=[m.id for m in BOARD1.markers], camera=first.camera)
    reg = tracker.update(boxed.image)
    assert not reg.kept and [f.mat.key for f in reg.fits] == ["quarry"]
    assert "player 1's board mat is lost: it was located before, now it is not" in reg.problems
    # Nothing at all in view (the camera covered): nothing located, and the last good fit is still there.
    dark = tracker.update(np.zeros_like(first.image))
    assert not dark.fits and tracker.last is not None and tracker.last.fit("quarry") is not None
    assert good.fit("board-1") is not None


def test_tracker_refits_every_n_frames() -> None:
    scene = _scene([PlacedMat(BOARD1, (0, 0), 0)])
    tracker = ZoneTracker("pyradice", refit_every=2, finder=FINDER)
    kinds = [tracker.update(scene.image).kept for _ in range(5)]
    assert kinds == [False, True, True, False, True]


def test_rectified_zone_is_at_the_asked_scale_and_maps_back_to_the_frame() -> None:
    scene = _scene([PlacedMat(BOARD1, (0, 0), 0)])
    reg = locate(scene.image, "pyradice", finder=FINDER)
    view = reg.zone("board-1")
    assert view is not None
    flat = rectify(scene.image, view, 3.0)
    assert flat.shape[:2] == (round(view.zone.rect.h * 3), round(view.zone.rect.w * 3))
    # Each rectified pixel is the frame's pixel where zone_to_frame puts it.
    rng = np.random.default_rng(0)
    pts = rng.uniform([5, 5], [flat.shape[1] - 5, flat.shape[0] - 5], size=(20, 2)).round()
    frame_pts = zone_to_frame(view, pts, 3.0)
    got = flat[pts[:, 1].astype(int), pts[:, 0].astype(int)].astype(float)
    want = np.array([cv2.getRectSubPix(scene.image, (1, 1), (float(x), float(y)))[0, 0] for x, y in frame_pts], float)
    assert np.abs(got - want).max() <= 2
    # A mat point goes to the frame where the truth puts it.
    corner = np.array([view.zone.rect.corners()[2]])
    truth = cv2.perspectiveTransform(corner.reshape(-1, 1, 2), scene.truth["board-1"]).reshape(-1, 2)
    assert np.linalg.norm(mat_to_frame(view, corner) - truth) < 1.0
    assert rectify(scene.image, view).shape[1] == round(view.zone.rect.w * default_px_per_mm(SIZE[0]))


def test_a_mirrored_print_is_said_and_not_mapped() -> None:
    scene = _scene([PlacedMat(BOARD1, (0, 0), 0, mirrored=True)])
    reg = locate(scene.image, "pyradice", finder=FINDER)
    assert not reg.fits and not reg.zones
    assert any("mirror image" in p and "player 1's pyramid board" in p for p in reg.problems)


def test_two_copies_of_one_mat_are_said_and_not_mapped() -> None:
    scene = _scene([PlacedMat(BOARD1, (0, 0), 0), PlacedMat(BOARD1, (290, 0), 0), PlacedMat(QUARRY, (0, 220), 0)])
    reg = locate(scene.image, "pyradice", 2, FINDER)
    assert [f.mat.key for f in reg.fits] == ["quarry"]
    assert any("player 1's board mat is on the table twice" in p for p in reg.problems)


def test_markers_of_another_game_or_seat_are_said() -> None:
    pyramido = mats("pyramido", 2)[0]
    scene = _scene([PlacedMat(BOARD1, (0, 0), 0), PlacedMat(pyramido, (350, 0), 0)], size=(960, 600))
    reg = locate(scene.image, "pyradice", 2, FINDER)
    assert {f.mat.game for f in reg.fits} == {"pyradice"}
    assert any("of Pyramido's mats are on the table, not Pyradice's" in p for p in reg.problems)
    board3 = mats("pyradice", 3)[2]
    reg = locate(_scene([PlacedMat(board3, (0, 0), 0)]).image, "pyradice", 2, FINDER)
    assert any("player 3's board mat is on the table but the game has 2 players" in p for p in reg.problems)


@pytest.mark.parametrize("scale", [0.96, 1.0])
def test_a_sheet_printed_at_the_wrong_scale_disagrees_with_the_others(scale: float) -> None:
    placed = [PlacedMat(BOARD1, (0, 0), 0, scale=scale), PlacedMat(BOARD2, (290, 0), 4),
              PlacedMat(QUARRY, (140, 220), -3)]
    reg = locate(_scene(placed, size=(960, 720)).image, "pyradice", 2, FINDER)
    assert len(reg.fits) == 3
    said = [p for p in reg.problems if "scale" in p]
    if scale == 1.0:
        assert said == []
    else:
        assert len(said) == 1 and "player 1's board mat is printed at 96%" in said[0]


def test_a_zone_half_outside_the_frame_is_said() -> None:
    scene = _scene([PlacedMat(BOARD1, (0, 0), 0)], ViewStyle(fill=0.9))
    crop = np.ascontiguousarray(scene.image[:, : SIZE[0] * 6 // 10])
    reg = locate(crop, "pyradice", finder=FINDER)
    board, reserve = reg.zone("board-1"), reg.zone("reserve-1")
    assert board is not None and reserve is not None
    assert 0.5 < board.inside < 0.95 and not board.complete
    assert reserve.inside == 0.0
    assert any("player 1's pyramid board is partly outside the frame" in p for p in reg.problems)
    assert any("player 1's reserve die is outside the frame" in p for p in reg.problems)


def test_one_marker_alone_does_not_locate_a_mat() -> None:
    scene = _scene([PlacedMat(BOARD1, (0, 0), 0)], covered=[m.id for m in BOARD1.markers[1:]])
    reg = locate(scene.image, "pyradice", finder=FINDER)
    assert not reg.fits
    assert any("1 of 8 markers seen, not located" in p for p in reg.problems)


def test_grey_and_bgra_frames_locate_the_same() -> None:
    scene = _scene([PlacedMat(BOARD1, (0, 0), 0)])
    bgr = locate(scene.image, "pyradice", finder=FINDER).fit("board-1")
    grey = locate(cv2.cvtColor(scene.image, cv2.COLOR_BGR2GRAY), "pyradice", finder=FINDER).fit("board-1")
    bgra = locate(cv2.cvtColor(scene.image, cv2.COLOR_BGR2BGRA), "pyradice", finder=FINDER).fit("board-1")
    assert bgr is not None and grey is not None and bgra is not None
    assert np.allclose(bgr.image_to_mat, bgra.image_to_mat)
    assert np.abs(bgr.image_to_mat - grey.image_to_mat).max() < 1e-2
    with pytest.raises(ValueError, match="8-bit"):
        locate(scene.image.astype(np.float32), "pyradice", finder=FINDER)


def test_an_empty_table_says_no_markers() -> None:
    reg = locate(np.full((240, 320, 3), 120, np.uint8), finder=FINDER)
    assert reg.game is None and not reg.zones
    assert reg.problems == ["no mat markers seen: is a mat on the table and in the frame?"]


def test_calibration_report_names_what_is_missing_and_warns_about_resolution() -> None:
    scene = _scene([PlacedMat(BOARD1, (0, 0), 0), PlacedMat(QUARRY, (290, 0), 0)], size=(960, 600))
    report = calibration_report(locate(scene.image, "pyradice", 2, FINDER), "pyradice", 2)
    json.dumps(report)
    assert not report["ready"]
    by_sheet = {s["sheet"]: s for s in report["sheets"]}
    assert by_sheet["board-1"]["located"]
    assert by_sheet["board-1"]["message"] == "player 1's board mat: 8 of 8 markers seen"
    assert by_sheet["board-2"] == {"sheet": "board-2", "title": BOARD2.title, "markers_total": 8, "located": False,
                                   "markers_seen": [], "message": "player 2's board mat: 0 of 8 markers seen"}
    assert any(a.startswith("player 2's board mat: 0 of 8 markers seen") for a in report["advice"])
    ppm = by_sheet["quarry"]["px_per_mm"]
    assert by_sheet["quarry"]["smallest_piece_px"] == pytest.approx(16 * ppm, abs=0.1)
    # Far away (a small frame): a die is under 16 px and the report says so.
    small = _scene([PlacedMat(BOARD1, (0, 0), 0), PlacedMat(BOARD2, (290, 0), 0), PlacedMat(QUARRY, (0, 220), 0)],
                   ViewStyle(fill=0.9), size=(560, 420))
    report = calibration_report(locate(small.image, "pyradice", 2, MarkerFinder(thorough=True)), "pyradice", 2)
    assert all(s["located"] for s in report["sheets"])
    assert not report["ready"] and any("px across, the readers need 16" in a for a in report["advice"])
    # The size is said to a tenth, as measured: a die of 15.6 px must not read "16 px, the readers need 16".
    sizes = [float(a.split(" is ")[1].split(" px")[0]) for a in report["advice"] if "px across" in a]
    assert sizes and sizes == [s["smallest_piece_px"] for s in report["sheets"] if s["smallest_piece_px"] < 16]


def test_annotate_draws_on_a_copy() -> None:
    scene = _scene([PlacedMat(BOARD1, (0, 0), 0)])
    reg = locate(scene.image, finder=FINDER)
    before = scene.image.copy()
    drawn = annotate(scene.image, reg)
    assert np.array_equal(scene.image, before) and drawn.shape == before.shape
    assert np.count_nonzero(np.any(drawn != before, axis=2)) > 1000


def test_rendering_is_reproducible_from_its_seed() -> None:
    rng_view = np.random.default_rng(3)
    view = random_view(rng_view, 30, cover=1)
    placed = table_layout([BOARD1], np.random.default_rng(3))
    a = render_mats(np.random.default_rng(9), placed, (320, 240), view)
    b = render_mats(np.random.default_rng(9), placed, (320, 240), view)
    assert np.array_equal(a.image, b.image) and a.covered == b.covered and len(a.covered) == 1


def test_companion_locate_json_and_annotate(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    scene = _scene([PlacedMat(sheet("dicetreasure", 1), (0, 0), 0)], size=(960, 640))
    frame = tmp_path / "table.png"
    cv2.imwrite(str(frame), scene.image)
    out = tmp_path / "seen.png"
    assert main(["locate", str(frame), "--json", "--annotate", str(out)]) == 0
    lines = capsys.readouterr().out.strip().splitlines()
    assert len(lines) == 1
    record = json.loads(lines[0])
    assert record["image"] == str(frame) and record["game"] == "dicetreasure"
    assert [z["zone"] for z in record["zones"]] == ["motif-cards-1", "reserve-1"]
    assert set(record["zones"][0]) >= {"zone", "sheet", "markers", "image_to_mat", "rect_mm", "error_mm", "complete"}
    assert cv2.imread(str(out)).shape == scene.image.shape
    # Plain text, and bad input in one line with exit status 2.
    assert main(["locate", str(frame)]) == 0
    assert "motif-cards-1" in capsys.readouterr().out
    assert main(["locate", str(tmp_path / "missing.png")]) == 2
    err = capsys.readouterr().err
    assert "no such file" in err and err.count("\n") == 1
    blank = tmp_path / "blank.png"
    cv2.imwrite(str(blank), np.full((100, 100, 3), 200, np.uint8))
    assert main(["locate", str(blank), "--json"]) == 1  # nothing located
    assert json.loads(capsys.readouterr().out)["zones"] == []


def test_companion_calibrate_on_an_image(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    scene = _scene([PlacedMat(BOARD1, (0, 0), 0), PlacedMat(QUARRY, (290, 0), 0)], size=(960, 600))
    frame = tmp_path / "table.jpg"
    cv2.imwrite(str(frame), scene.image)
    state = tmp_path / "state"
    TeachingStore(state).teach("pyradice", "die", "white", (90.0, 0.0, 2.0))
    argv = ["calibrate", "--game", "pyradice", "--image", str(frame), "--state-dir", str(state)]
    assert main(argv) == 1  # player 2's mat is missing
    out = capsys.readouterr().out
    assert "player 2's board mat: 0 of 8 markers seen" in out and "player 1's board mat: 8 of 8 markers seen" in out
    assert "px/mm" in out
    assert "colours of a die taught: white; still to teach: gray, maroon, orange" in out
    assert main([*argv, "--json"]) == 1
    report = json.loads(capsys.readouterr().out)
    assert report["colours"]["pieces"]["die"]["taught"] == ["white"] and not report["ready"]


def test_camera_advice_measures_each_tables_scale() -> None:
    from vision.lab.mat_render import camera_advice

    rows = camera_advice(((640, 480),))
    assert [r["game"] for r in rows] == ["pyradice", "pyramido", "dicetreasure"]
    assert all(r["located"] == r["sheets"] for r in rows)
    pyradice, pyramido, _ = rows
    # Half the 1280-wide frame's pixels per mm (2.06 there); the larger Pyramido table is seen smaller.
    assert 0.9 < pyradice["px_per_mm"] < 1.1 and pyramido["px_per_mm"] < pyradice["px_per_mm"]
    assert pyradice["smallest_piece_px"] == pytest.approx(16 * pyradice["px_per_mm"], abs=0.1)


def test_zone_scale_comes_from_the_configuration_or_the_camera() -> None:
    from device.config import CameraConfig, load_config
    from device.zones import zone_px_per_mm

    assert load_config(None, search=False).camera.zone_px_per_mm == 0.0  # the documented default
    assert zone_px_per_mm(CameraConfig(width=1280)) == 1.6
    assert zone_px_per_mm(CameraConfig(width=2304)) == pytest.approx(2.88)
    assert zone_px_per_mm(CameraConfig(zone_px_per_mm=4.0)) == 4.0


def test_the_printed_svg_itself_photographed_maps_back_to_its_sheet() -> None:
    """End to end from what is printed: the SVG rasterised by CairoSVG, seen through a tilted camera, located."""
    cairosvg = pytest.importorskip("cairosvg")
    from vision.matprint import mat_svg
    from vision.mats import page_for

    mat = sheet("pyradice", 3)
    _, page_w, page_h = page_for(mat)
    dpi = 150.0
    ppm = dpi / 25.4
    png = cairosvg.svg2png(bytestring=mat_svg("pyradice", 3).encode(), dpi=dpi)
    page = cv2.imdecode(np.frombuffer(png, np.uint8), cv2.IMREAD_COLOR)
    ox, oy = (page_w - mat.size[0]) / 2, (page_h - mat.size[1]) / 2
    # Sheet mm -> page pixel (centres at (i + 0.5) / ppm) -> frame: a tilted view of the page.
    sheet_to_page = np.array([[ppm, 0, ppm * ox - 0.5], [0, ppm, ppm * oy - 0.5], [0, 0, 1]])
    src = np.array([[0, 0], [page.shape[1], 0], [page.shape[1], page.shape[0]], [0, page.shape[0]]], np.float32)
    dst = np.array([[110, 80], [700, 120], [760, 540], [60, 500]], np.float32)
    page_to_frame = cv2.getPerspectiveTransform(src, dst)
    frame = cv2.warpPerspective(page, page_to_frame, (800, 600), flags=cv2.INTER_AREA, borderValue=(60, 90, 130))
    reg = locate(frame, "pyradice", finder=FINDER)
    fit = reg.fit("quarry")
    assert fit is not None and len(fit.markers) == 8 and not reg.problems
    truth = page_to_frame @ sheet_to_page
    pts = zone_points(mat)
    image_pts = cv2.perspectiveTransform(pts.reshape(-1, 1, 2), truth).reshape(-1, 2)
    assert np.median(np.linalg.norm(fit.frame_to_mat(image_pts) - pts, axis=1)) < 0.3


def test_lens_distortion_in_the_lab_moves_markers_where_the_model_says() -> None:
    from vision.lab.mat_render import distort_points

    placed = [PlacedMat(BOARD1, (0, 0), 0)]
    ideal = _scene(placed, ViewStyle(fill=0.95))
    barrel = _scene(placed, ViewStyle(fill=0.95, k1=-0.1), camera=ideal.camera)
    corners = np.array(BOARD1.markers[2].corners)  # the top-right corner marker, far from the centre
    true = cv2.perspectiveTransform(corners.reshape(-1, 1, 2), barrel.truth["board-1"]).reshape(-1, 2)
    moved = distort_points(true, -0.1, *SIZE)
    found = {s.id: s.corners for s in FINDER.find(barrel.image)}[BOARD1.markers[2].id]
    assert np.linalg.norm(found - moved, axis=1).max() < 1.0  # where the lens puts it
    assert np.linalg.norm(moved - true, axis=1).min() > 5.0  # and that is well away from the pinhole's place
    # A homography cannot follow a bent image: a sheet filling the frame maps about 1 mm off, and its markers'
    # disagreement, which grows with it, is said; with no lens distortion it is not.
    reg = locate(barrel.image, "pyradice", finder=FINDER)
    errors = mapping_errors(barrel, reg)["board-1"]
    assert 0.8 < np.median(errors) < 1.5
    assert any("its markers disagree by 0.9 mm" in p and "lens" in p for p in reg.problems)
    straight = locate(ideal.image, "pyradice", finder=FINDER)
    assert np.median(mapping_errors(ideal, straight)["board-1"]) < 0.1 and not straight.problems


def test_kept_warps_give_the_warps_pixels() -> None:
    """KeptWarps (its sample maps made once, cv2.remap after) gives cv2.warpPerspective's picture, value for value,
    for homographies of a tilted camera, pictures larger and smaller than the frame, the border replicated, with
    its maps kept or (past ``kept``) without; a sweep drops the maps the frame before did not use."""
    from vision.registration import KeptWarps

    rng = np.random.default_rng(3)
    frame = cv2.GaussianBlur((rng.random((480, 640, 3)) * 255).astype(np.uint8), (0, 0), 1.5)
    warps = KeptWarps(kept=3)
    for n in range(12):
        tilt = rng.normal(0, 2e-4, 2)
        h = np.array([[rng.uniform(0.3, 2.5), rng.normal(0, 0.1), rng.uniform(-300, 50)],
                      [rng.normal(0, 0.1), rng.uniform(0.3, 2.5), rng.uniform(-200, 50)],
                      [tilt[0], tilt[1], 1.0]])
        size = (int(rng.integers(20, 700)), int(rng.integers(20, 500)))
        plain = cv2.warpPerspective(frame, h, size, flags=cv2.INTER_LINEAR, borderMode=cv2.BORDER_REPLICATE)
        assert np.array_equal(warps(frame, h, size), plain), n
        assert np.array_equal(warps(frame[::-1].copy(), h, size),  # the same maps on the next frame
                              cv2.warpPerspective(frame[::-1].copy(), h, size, flags=cv2.INTER_LINEAR,
                                                  borderMode=cv2.BORDER_REPLICATE)), n
        assert len(warps._maps) <= 3
    assert len(warps._maps) == 3
    warps.sweep()  # a new frame: the three were used in the last one
    assert len(warps._maps) == 3
    warps.sweep()  # none was used since
    assert not warps._maps
