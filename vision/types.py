"""What the vision stages hand to each other and to the device: plain frozen values, no numpy arrays."""

from __future__ import annotations

from dataclasses import dataclass

#: Pip centres on a unit face (0..1), for faces 1..6: the layout the renderer draws and the pip counter checks
#: (one definition, here in the runtime, so the device's reader needs nothing of the renderer).
PIP_LAYOUT: dict[int, tuple[tuple[float, float], ...]] = {
    1: ((0.5, 0.5),),
    2: ((0.25, 0.25), (0.75, 0.75)),
    3: ((0.25, 0.25), (0.5, 0.5), (0.75, 0.75)),
    4: ((0.25, 0.25), (0.75, 0.25), (0.25, 0.75), (0.75, 0.75)),
    5: ((0.25, 0.25), (0.75, 0.25), (0.5, 0.5), (0.25, 0.75), (0.75, 0.75)),
    6: ((0.25, 0.22), (0.25, 0.5), (0.25, 0.78), (0.75, 0.22), (0.75, 0.5), (0.75, 0.78)),
}


@dataclass(frozen=True, slots=True)
class DieCandidate:
    """A place where the detector thinks a die lies: centre and side in pixels, rotation in degrees
    (0..90, the angle of the die's edges), and the detector's confidence 0..1."""

    centre: tuple[float, float]
    side: float
    angle: float
    score: float

    @property
    def box(self) -> tuple[float, float, float, float]:
        """Axis-aligned pixel box (x0, y0, x1, y1) around the rotated square."""
        import math

        half = self.side / 2 * (abs(math.cos(math.radians(self.angle))) + abs(math.sin(math.radians(self.angle))))
        x, y = self.centre
        return (x - half, y - half, x + half, y + half)

    def scaled(self, factor: float) -> DieCandidate:
        """The same candidate with its side times ``factor`` (same centre, angle and score)."""
        return DieCandidate(self.centre, self.side * factor, self.angle, self.score)


@dataclass(frozen=True, slots=True)
class DieReading:
    """One die as read: where it is, its face and colour, and how sure the reader is.

    ``unsure`` is set when the face model and the pip count disagree or a confidence is low: the device
    then asks the players instead of guessing. ``cocked`` is set when the die leans or shows two faces
    strongly. ``colour`` is the nearest palette name; ``lab`` is the measured CIELAB value of the body.
    """

    box: tuple[float, float, float, float]
    centre: tuple[float, float]
    angle: float
    value: int
    colour: str
    confidence: float
    unsure: bool = False
    cocked: bool = False
    colour_distance: float = 0.0
    lab: tuple[float, float, float] = (0.0, 0.0, 0.0)
    pips: int | None = None
    detector_score: float = 1.0
    #: The face probabilities of 1..6 the value was decided on (after the second look): what
    #: :func:`vision.fuse.fuse_frames` averages over several still frames. Empty when not known.
    probabilities: tuple[float, ...] = ()
    #: The face model's probability that the crop is not a die (0 when the model has no such label).
    not_die: float = 0.0
    #: Why the die is unsure, every reason ("low confidence", "pip count says 5", "cocked", ...); empty when sure.
    doubts: tuple[str, ...] = ()

    def to_json(self) -> dict[str, object]:
        return {
            "box": [round(v, 1) for v in self.box],
            "centre": [round(v, 1) for v in self.centre],
            "angle": round(self.angle, 1),
            "value": self.value,
            "colour": self.colour,
            "confidence": round(self.confidence, 4),
            "unsure": self.unsure,
            "cocked": self.cocked,
            "colour_distance": round(self.colour_distance, 1),
            "lab": [round(v, 1) for v in self.lab],
            "pips": self.pips,
            "detector_score": round(self.detector_score, 4),
            "doubts": list(self.doubts),
        }
