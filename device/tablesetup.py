"""The table's set-up as the page shows it: the mats to print, and the camera check of the latest frame.

The page (web/) may not reach into vision/, so the session hands it these through the protocol: the sheets of a
game's mats (:func:`vision.matprint.sheet_index`), one sheet as SVG or PDF, what the camera sees of the mats
now (:func:`device.zones.calibrate_frame`: markers seen per sheet, the mapping error, pixels per millimetre and
the smallest piece's size, what to fix in words) with the frame annotated by the registration stage, and the
colours taught at the table (:class:`device.teaching.TeachingStore`): one die of each colour laid in view and
taught from the latest frame.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import cv2

from device.hub import Hub
from vision import matprint
from vision.mats import PAPERS
from vision.registration import MarkerFinder, annotate

#: The widest annotated frame the page is sent.
VIEW_WIDTH = 960


class TableSetup:
    """Mats and the camera check for one device (the finder is made once: it holds OpenCV's detector)."""

    def __init__(self, hub: Hub, state_dir: Path) -> None:
        self.hub = hub
        self.state_dir = state_dir
        self._finder: MarkerFinder | None = None

    def sheets(self, game: str, players: int) -> list[dict[str, Any]]:
        return matprint.sheet_index(game, players)

    def sheet(self, game: str, number: int, players: int, paper: str | None, kind: str) -> bytes:
        """One sheet as ``kind`` "svg" or "pdf" (a ValueError names what cannot be made)."""
        if paper is not None and paper not in PAPERS:
            raise ValueError(f"paper {paper!r} is not one of {', '.join(PAPERS)}")
        if kind == "svg":
            return matprint.mat_svg(game, number, players, paper).encode("utf-8")
        if kind == "pdf":
            return matprint.mat_pdf(game, number, players, paper)
        raise ValueError(f"a mat is printed as svg or pdf, not {kind!r}")

    def check(self, game: str, players: int) -> tuple[dict[str, Any], bytes | None]:
        """What the camera sees of ``game``'s mats in the latest frame: the report and the annotated JPEG."""
        from device.zones import calibrate_frame

        shot = self.hub.frame()
        if shot is None:
            matprint.sheet_index(game, players)  # an unknown game or player count is said even without a frame
            return {"game": game, "ready": False, "sheets": [], "problems": [],
                    "advice": ["no camera frame yet: is the camera on? (offline games have none)"]}, None
        if self._finder is None:
            self._finder = MarkerFinder(thorough=True)
        report, reg = calibrate_frame(shot.image, game, players, self._finder)
        image = annotate(shot.image, reg)
        h, w = image.shape[:2]
        if w > VIEW_WIDTH:
            image = cv2.resize(image, (VIEW_WIDTH, round(h * VIEW_WIDTH / w)), interpolation=cv2.INTER_AREA)
        ok, buf = cv2.imencode(".jpg", image, [cv2.IMWRITE_JPEG_QUALITY, 80])
        return report, buf.tobytes() if ok else None

    def taught(self, game: str) -> dict[str, Any]:
        """Which colours of ``game``'s pieces are taught and which are still missing."""
        from device.teaching import TeachingStore

        return TeachingStore(self.state_dir).report(game)

    def teach_dice(self, game: str) -> dict[str, Any]:
        """Teach ``game``'s die colours from the dice in the latest frame (one die of each colour in view)."""
        from device.teaching import TeachingStore
        from device.zones import teach_dice

        store = TeachingStore(self.state_dir)
        report = store.report(game)  # an unknown game is said before anything is measured
        if "die" not in report["pieces"]:
            raise ValueError(f"{game}'s pieces are not dice: they are taught by its own reader")
        shot = self.hub.frame()
        if shot is None:
            raise ValueError("no camera frame yet: lay one die of each colour in view of the camera first")
        taught = teach_dice(store, game, shot.image)
        if not taught:
            raise ValueError("no die was found in the camera's view: lay one die of each colour on the table")
        return {**store.report(game), "measured": [{"centre": [round(c, 1) for c in centre], "colour": name}
                                                   for centre, _, name in taught]}
