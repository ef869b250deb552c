"""Mats (vision/mats.py, vision/matprint.py, ``companion mat``): the ID codec, the layout, and the printed sheet
true to scale (the SVG rasterised by CairoSVG and its markers found where the layout says)."""

from __future__ import annotations

import io
import json
import re
import xml.etree.ElementTree as ET
from pathlib import Path

import cv2
import numpy as np
import pytest

from device.cli import main
from vision.matprint import mat_drawing, mat_pdf, mat_svg, sheet_index, svg_to_pdf, write_mat
from vision.mats import (
    GAMES,
    INSET_MM,
    PAPERS,
    QUIET_MM,
    SCALE_BAR_MM,
    MatError,
    all_mats,
    band_mm,
    decode_marker,
    encode_marker,
    marker_bits,
    marker_owner,
    mats,
    page_for,
    sheet,
)

SVG_NS = "{http://www.w3.org/2000/svg}"


def _cairo_available() -> bool:
    try:
        import cairosvg  # noqa: F401
    except (ImportError, OSError):
        return False
    return True


needs_cairo = pytest.mark.skipif(not _cairo_available(), reason="CairoSVG or the Cairo library is not installed")


def test_every_marker_id_is_unique_decodes_back_and_names_its_mat() -> None:
    seen: dict[int, str] = {}
    for game in GAMES:
        for mat in all_mats(game):
            assert 8 <= len(mat.markers) <= 12
            for place in mat.markers:
                assert place.id not in seen, f"{place.id} on {seen.get(place.id)} and {mat.key}"
                seen[place.id] = f"{game}/{mat.key}"
                assert 0 <= place.id < 587  # DICT_APRILTAG_36h11 has 587 codes
                code = decode_marker(place.id)
                assert code is not None and (code.game, code.slot, code.position) == (game, mat.slot, place.position)
                assert encode_marker(game, mat.slot, place.position) == place.id
                owner = marker_owner(place.id)
                assert owner is not None and owner[0] is mat and owner[1] is place
    # Two players' mats are told apart by their IDs alone.
    assert {m.id for m in sheet("pyradice", 1).markers}.isdisjoint({m.id for m in sheet("pyradice", 2).markers})
    assert marker_owner(580) is None  # past the scheme
    assert marker_owner(11) is None  # a position no Pyradice board prints (8 markers)


def test_markers_sit_on_corners_and_edges_with_their_quiet_zone_on_the_mat() -> None:
    for game in GAMES:
        for mat in all_mats(game):
            wheres = [m.where for m in mat.markers]
            for corner in ("top-left corner", "top-right corner", "bottom-right corner", "bottom-left corner"):
                assert wheres.count(corner) == 1
            assert sum("edge" in w for w in wheres) >= 4
            for m in mat.markers:
                xs = [c[0] for c in m.corners]
                ys = [c[1] for c in m.corners]
                assert max(xs) - min(xs) == pytest.approx(mat.marker_mm)
                assert min(xs) - QUIET_MM >= 0 and max(xs) + QUIET_MM <= mat.size[0]
                assert min(ys) - QUIET_MM >= 0 and max(ys) + QUIET_MM <= mat.size[1]
                assert min(min(xs), min(ys)) >= INSET_MM - 1e-9


def test_zones_and_outlines_lie_inside_the_marker_band() -> None:
    for game in GAMES:
        for mat in all_mats(game):
            band = band_mm(mat.size)
            for zone in mat.zones:
                for r in (zone.rect, *(o.rect for o in zone.outlines)):
                    assert r.x >= band - 1e-9 and r.y >= band - 1e-9
                    assert r.x + r.w <= mat.size[0] - band + 1e-9 and r.y + r.h <= mat.size[1] - band + 1e-9


def test_each_game_has_the_zones_its_readers_need() -> None:
    keys = {game: {z.key for m in mats(game, 2) for z in m.zones} for game in GAMES}
    assert keys["pyradice"] == {"board-1", "reserve-1", "board-2", "reserve-2", "quarry"}
    assert keys["pyramido"] == {"pyramid-1", "gems-1", "pyramid-2", "gems-2", "exploration"}
    assert keys["dicetreasure"] == {"motif-cards-1", "reserve-1", "motif-cards-2", "reserve-2", "tray",
                                    "common-reserve", "middle"}
    assert [m.key for m in mats("pyradice", 4)] == ["board-1", "board-2", "board-3", "board-4", "quarry"]
    assert len(mats("dicetreasure", 1)) == 3


def test_paper_choice_and_errors_say_what_to_do() -> None:
    assert page_for(sheet("pyradice", 1)) == ("a4", 297.0, 210.0)
    assert page_for(sheet("pyradice", 1), "letter")[0] == "letter"
    assert page_for(sheet("pyramido", 1)) == ("a3", 420.0, 297.0)
    assert page_for(sheet("pyramido", 1), "tabloid")[1:] == (431.8, 279.4)
    with pytest.raises(MatError, match="does not fit a4; print it on a3 or tabloid"):
        page_for(sheet("pyramido", 1), "a4")
    with pytest.raises(MatError, match="sheets 1 to 3"):
        sheet("pyradice", 4, 2)
    with pytest.raises(MatError, match="1 to 4 players"):
        mats("pyradice", 5)
    with pytest.raises(MatError, match="no mats for game"):
        mats("pasa")
    assert set(PAPERS) == {"a4", "a3", "letter", "tabloid"}


def test_svg_is_sized_in_millimetres_with_the_mats_own_coordinates() -> None:
    svg = mat_svg("pyradice", 2, 2, "a4")
    root = ET.fromstring(svg)
    assert root.get("width") == "297mm" and root.get("height") == "210mm"
    vx, vy, vw, vh = (float(v) for v in (root.get("viewBox") or "").split())
    mat = sheet("pyradice", 2)
    # The viewBox spans the page in mm and puts (0, 0) on the mat's top-left corner, the mat centred.
    assert (vw, vh) == (297.0, 210.0)
    assert (-vx, -vy) == pytest.approx(((297 - mat.size[0]) / 2, (210 - mat.size[1]) / 2))
    texts = " ".join(t.text or "" for t in root.iter(f"{SVG_NS}text"))
    assert "player 2's pyramid board" in texts and "sheet 2 of 3" in texts and "80 mm" in texts
    # One path per marker (all its black cells), 8 markers, each named by its ID.
    markers = [e for e in root.iter(f"{SVG_NS}path") if e.get("class") == "marker"]
    assert [e.get("id") for e in markers] == [f"marker-{m.id}" for m in mat.markers]
    # The scale bar is SCALE_BAR_MM long in user units (mm).
    bar = next(e for e in root.iter(f"{SVG_NS}path") if e.get("id") == "scale-bar")
    x1, _, x2, _ = (float(v) for v in re.findall(r"[-\d.]+", bar.get("d", "")))
    assert x2 - x1 == pytest.approx(SCALE_BAR_MM)


def test_marker_cells_in_the_svg_are_opencvs_bits() -> None:
    mat = sheet("dicetreasure", 1)
    d = mat_drawing(mat)
    svg = d.as_svg()
    first = mat.markers[0]
    bits = marker_bits(first.id)
    # The marker's path holds one rectangle per run of black cells, row by row.
    path = next(e for e in ET.fromstring(svg).iter(f"{SVG_NS}path") if e.get("id") == f"marker-{first.id}")
    runs = len(re.findall("M", path.get("d", "")))
    expected = sum(int(np.count_nonzero(np.diff(np.r_[0, row.astype(int), 0]) == 1)) for row in bits)
    assert runs == expected
    assert bits[0].all() and bits[-1].all() and bits[:, 0].all() and bits[:, -1].all()  # the black border


@needs_cairo
@pytest.mark.parametrize(("game", "number"), [("pyradice", 3), ("pyramido", 1)])
def test_printed_sheet_is_true_to_scale(game: str, number: int) -> None:
    """Rasterise the SVG at 150 dpi and find every marker where the layout puts it, to 0.3 mm."""
    import cairosvg

    mat = sheet(game, number)
    _, page_w, page_h = page_for(mat)
    dpi = 150.0
    png = cairosvg.svg2png(bytestring=mat_svg(game, number).encode(), dpi=dpi)
    image = cv2.imdecode(np.frombuffer(png, np.uint8), cv2.IMREAD_COLOR)
    px_per_mm = dpi / 25.4
    assert image.shape[1] == pytest.approx(page_w * px_per_mm, abs=1.5)
    assert image.shape[0] == pytest.approx(page_h * px_per_mm, abs=1.5)
    detector = cv2.aruco.ArucoDetector(cv2.aruco.getPredefinedDictionary(cv2.aruco.DICT_APRILTAG_36h11),
                                       cv2.aruco.DetectorParameters())
    corners, ids, _ = detector.detectMarkers(cv2.cvtColor(image, cv2.COLOR_BGR2GRAY))
    assert ids is not None and sorted(ids.ravel()) == [m.id for m in mat.markers]
    ox, oy = (page_w - mat.size[0]) / 2, (page_h - mat.size[1]) / 2
    for c, i in zip(corners, ids.ravel(), strict=True):
        # Pixel centres are at (i + 0.5) / px_per_mm; a corner at pixel x lies at x + 0.5 px from the edge.
        found_mm = (c.reshape(4, 2) + 0.5) / px_per_mm - np.array([ox, oy])
        assert np.abs(found_mm - np.array(mat.marker(int(i)).corners)).max() < 0.3


@needs_cairo
def test_pdf_has_the_paper_size_in_points(tmp_path: Path) -> None:
    out = write_mat(tmp_path / "quarry.pdf", "pyradice", 3, 2, "a4")
    data = out.read_bytes()
    assert data.startswith(b"%PDF")
    box = re.search(rb"/MediaBox \[ ?([\d.]+) ([\d.]+) ([\d.]+) ([\d.]+) ?\]", data)
    assert box is not None
    assert float(box.group(3)) == pytest.approx(297 / 25.4 * 72, abs=1)
    assert float(box.group(4)) == pytest.approx(210 / 25.4 * 72, abs=1)


def test_pdf_without_cairo_is_one_clear_error(monkeypatch: pytest.MonkeyPatch) -> None:
    import builtins

    real_import = builtins.__import__

    def no_cairo(name: str, *args: object, **kwargs: object) -> object:
        if name == "cairosvg":
            raise OSError("no library called \"cairo-2\" was found")
        return real_import(name, *args, **kwargs)  # type: ignore[arg-type]

    monkeypatch.setattr(builtins, "__import__", no_cairo)
    with pytest.raises(MatError, match="PDF needs CairoSVG and the Cairo library"):
        svg_to_pdf("<svg/>")


def test_companion_mat_writes_svg_and_says_bad_input_in_one_line(tmp_path: Path,
                                                                 capsys: pytest.CaptureFixture[str]) -> None:
    out = tmp_path / "board.svg"
    assert main(["mat", "pyradice", "--sheet", "2", "--out", str(out)]) == 0
    assert 'width="297mm"' in out.read_text(encoding="utf-8")
    assert "sheet 2 of 3" in capsys.readouterr().out
    for argv, message in (
        (["mat", "pyramido", "--paper", "a4", "--out", str(tmp_path / "p.svg")], "print it on a3 or tabloid"),
        (["mat", "pyradice", "--sheet", "7", "--out", str(tmp_path / "p.svg")], "sheets 1 to 3"),
        (["mat", "pyradice", "--out", str(tmp_path / "p.png")], "must end in .svg or .pdf"),
        (["mat", "pyradice", "--players", "9", "--out", str(tmp_path / "p.svg")], "--players 9"),
    ):
        assert main(argv) == 2
        err = capsys.readouterr().err
        assert message in err and err.count("\n") == 1


def test_sheet_index_lists_what_the_page_offers_to_print() -> None:
    index = sheet_index("dicetreasure", 3)
    json.dumps(index)
    assert [s["key"] for s in index] == ["player-1", "player-2", "player-3", "tray", "middle"]
    assert index[0]["sheet"] == 1 and index[0]["paper"] == "a3" and index[0]["page_mm"] == [420.0, 297.0]
    assert index[3]["zones"][1] == {"zone": "common-reserve", "label": "the common reserve",
                                    "rect_mm": sheet("dicetreasure", 4, 3).zone("common-reserve").rect.to_json()}


@needs_cairo
def test_companion_mat_writes_a_pdf_beside_the_svg(tmp_path: Path) -> None:
    out = tmp_path / "sheets" / "quarry.svg"
    assert main(["mat", "pyradice", "--sheet", "3", "--out", str(out), "--pdf"]) == 0
    assert out.read_text(encoding="utf-8").startswith("<?xml")
    assert out.with_suffix(".pdf").read_bytes().startswith(b"%PDF")


@needs_cairo
def test_mat_pdf_is_the_svg_as_pdf() -> None:
    data = mat_pdf("pyramido", 3, 2)
    assert data.startswith(b"%PDF") and b"/MediaBox" in data


def test_svg_text_is_parseable_and_small() -> None:
    for game in GAMES:
        for n in range(1, len(mats(game, 2)) + 1):
            svg = mat_svg(game, n, 2)
            ET.parse(io.StringIO(svg))
            assert len(svg) < 40_000
