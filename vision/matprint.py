"""Drawing a mat as a printable sheet: SVG sized in millimetres, and PDF from it.

This module owns what is printed: the page (A4, A3, letter or tabloid, landscape for a wide mat), the mat
centred on it with a light trim line, its markers drawn cell by cell from OpenCV's own AprilTag 36h11
bits (so the printed codes are exactly what :class:`cv2.aruco.ArucoDetector` reads), the outlines where the
pieces go, each zone's name, the mat's title and a scale bar to check the print with a ruler.

The SVG's user unit is the millimetre and its user coordinates are the mat's (:mod:`vision.mats`): the
viewBox starts at minus the page margin, so (0, 0) is the mat's top-left corner wherever the paper puts it.
PDF goes through CairoSVG, which needs the Cairo library (Debian: libcairo2); without it writing a PDF is
a :class:`MatError` that says so, and SVG still works.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import drawsvg as draw

from vision.mats import (
    GAME_TITLES,
    INSET_MM,
    MARKER_CELLS,
    QUIET_MM,
    SCALE_BAR_MM,
    Mat,
    MatError,
    marker_bits,
    mats,
    page_for,
    sheet,
)

_INK = "#000000"
_LINE = "#555555"
_FAINT = "#9a9a9a"
_FONT = "DejaVu Sans, Arial, Helvetica, sans-serif"  # local fonts only: the page works offline


def _marker_path(marker_id: int, x0: float, y0: float, side: float) -> draw.Path:
    """One path of all black cells: a single filled path shows no hairline seams between cells."""
    cell = side / MARKER_CELLS
    path = draw.Path(fill=_INK, stroke="none", class_="marker", id=f"marker-{marker_id}")
    bits = marker_bits(marker_id)
    for row in range(MARKER_CELLS):
        col = 0
        while col < MARKER_CELLS:
            if not bits[row, col]:
                col += 1
                continue
            start = col
            while col < MARKER_CELLS and bits[row, col]:
                col += 1
            x, y = x0 + start * cell, y0 + row * cell
            path.M(x, y).h((col - start) * cell).v(cell).h(-(col - start) * cell).Z()
    return path


def _text(d: draw.Drawing, text: str, x: float, y: float, size: float, fill: str = _INK, anchor: str = "start") -> None:
    d.append(draw.Text(text, size, x, y, fill=fill, font_family=_FONT, text_anchor=anchor))


def _scale_bar(d: draw.Drawing, x: float, y: float) -> None:
    """SCALE_BAR_MM long with ticks every 10 mm; the label says what a ruler should read."""
    d.append(draw.Line(x, y, x + SCALE_BAR_MM, y, stroke=_INK, stroke_width=0.4, id="scale-bar"))
    for i in range(int(SCALE_BAR_MM // 10) + 1):
        tick = 3.0 if i % 5 == 0 else 1.8
        d.append(draw.Line(x + 10 * i, y, x + 10 * i, y - tick, stroke=_INK, stroke_width=0.3))
    _text(d, f"{SCALE_BAR_MM:g} mm: check with a ruler (print at 100 %, no fit to page)", x, y + 4.2, 2.6)


def mat_drawing(mat: Mat, paper: str | None = None, number: int | None = None, of: int | None = None) -> draw.Drawing:
    """The sheet of ``mat`` as a drawsvg drawing (user units = mm, user coordinates = the mat's)."""
    paper, page_w, page_h = page_for(mat, paper)
    w, h = mat.size
    ox, oy = (page_w - w) / 2, (page_h - h) / 2
    d = draw.Drawing(page_w, page_h, origin=(-ox, -oy))
    d.set_render_size(f"{page_w:g}mm", f"{page_h:g}mm")
    d.append(draw.Rectangle(-ox, -oy, page_w, page_h, fill="#ffffff"))
    # Trim line: the mat may be cut out; the markers' quiet zones lie inside it.
    d.append(draw.Rectangle(0, 0, w, h, fill="none", stroke=_FAINT, stroke_width=0.2, stroke_dasharray="2,2"))
    for zone in mat.zones:
        r = zone.rect
        d.append(draw.Rectangle(r.x, r.y, r.w, r.h, fill="none", stroke=_LINE, stroke_width=0.35,
                                stroke_dasharray="4,2"))
        _text(d, zone.label, r.x + 1.5, r.y + r.h - 2.0, 3.2, fill=_LINE)
        for outline in zone.outlines:
            o = outline.rect
            if outline.round:
                d.append(draw.Ellipse(o.x + o.w / 2, o.y + o.h / 2, o.w / 2, o.h / 2, fill="none",
                                      stroke=_FAINT, stroke_width=0.3))
            else:
                d.append(draw.Rectangle(o.x, o.y, o.w, o.h, rx=1.5, fill="none", stroke=_FAINT, stroke_width=0.3))
            if outline.label:
                _text(d, outline.label, o.x + o.w / 2, o.y + o.h / 2 + 1.0, 2.6, fill=_FAINT, anchor="middle")
    for marker in mat.markers:
        x0, y0 = marker.corners[0]
        d.append(_marker_path(marker.id, x0, y0, mat.marker_mm))
        # The ID under the marker's quiet zone, small: what `companion calibrate` names when one is missing.
        # Above the bottom row's markers, below the others, so the ID stays on the mat.
        label_y = y0 + mat.marker_mm + QUIET_MM + 0.8 if y0 < h / 2 else y0 - QUIET_MM - 0.3
        _text(d, str(marker.id), x0 + mat.marker_mm / 2, label_y, 1.8, fill=_FAINT, anchor="middle")
    left = INSET_MM + mat.marker_mm + QUIET_MM + 1.0
    sheet_text = f" · sheet {number} of {of}" if number and of else ""
    _text(d, f"{GAME_TITLES[mat.game]} · {mat.key}{sheet_text}", left, INSET_MM + 4.0, 3.6)
    _text(d, ", ".join(z.label for z in mat.zones), left, INSET_MM + 8.6, 3.0, fill=_LINE)
    _text(d, f"markers {mat.markers[0].id}-{mat.markers[-1].id} (AprilTag 36h11, {mat.marker_mm:g} mm) · {paper}",
          left, INSET_MM + 12.6, 2.4, fill=_FAINT)
    _scale_bar(d, left, h - INSET_MM - 9.0)
    return d


def mat_svg(game: str, sheet_number: int = 1, players: int = 2, paper: str | None = None) -> str:
    """The SVG text of one sheet of a game's mats (what ``companion mat`` writes and the page serves)."""
    mat = sheet(game, sheet_number, players)
    return str(mat_drawing(mat, paper, sheet_number, len(mats(game, players))).as_svg())


def mat_pdf(game: str, sheet_number: int = 1, players: int = 2, paper: str | None = None) -> bytes:
    """The PDF of one sheet (needs the Cairo library; without it a one-line :class:`MatError`)."""
    return svg_to_pdf(mat_svg(game, sheet_number, players, paper))


def sheet_index(game: str, players: int = 2) -> list[dict[str, Any]]:
    """Every sheet of a game for ``players``, JSON-ready, for a page that lists the mats to print."""
    out: list[dict[str, Any]] = []
    for number, mat in enumerate(mats(game, players), 1):
        paper, page_w, page_h = page_for(mat)
        out.append({
            "sheet": number, "key": mat.key, "title": mat.title, "size_mm": list(mat.size), "paper": paper,
            "page_mm": [page_w, page_h], "markers": [m.id for m in mat.markers],
            "zones": [{"zone": z.key, "label": z.label, "rect_mm": z.rect.to_json()} for z in mat.zones],
        })
    return out


def svg_to_pdf(svg: str) -> bytes:
    """PDF bytes of an SVG, through CairoSVG; a missing Cairo library is a one-line :class:`MatError`."""
    try:
        import cairosvg
    except (ImportError, OSError) as exc:  # cairocffi raises OSError when libcairo is not installed
        raise MatError(f"PDF needs CairoSVG and the Cairo library (Debian: apt install libcairo2): {exc}") from exc
    data = cairosvg.svg2pdf(bytestring=svg.encode("utf-8"))
    if not isinstance(data, bytes):
        raise MatError("CairoSVG gave no PDF")
    return data


def write_mat(path: Path, game: str, sheet_number: int = 1, players: int = 2, paper: str | None = None) -> Path:
    """Write a sheet as ``.svg`` or ``.pdf`` (chosen by the suffix)."""
    suffix = path.suffix.lower()
    if suffix not in (".svg", ".pdf"):
        raise MatError(f"--out {path}: the file must end in .svg or .pdf")
    svg = mat_svg(game, sheet_number, players, paper)
    path.parent.mkdir(parents=True, exist_ok=True)
    if suffix == ".svg":
        path.write_text(svg, encoding="utf-8")
    else:
        path.write_bytes(svg_to_pdf(svg))
    return path
