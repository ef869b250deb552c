"""Recordings: a folder of frames plus ``recording.json`` saying what is true in each frame.

``recording.json`` holds the game (name, players, rule options, the seed of its set-up), the table (a
game-specific section: the mats and their layout, the colours taught, what the game's reader needs), the
frame list (file, time in seconds, what truly lies on the table, and the players' inputs that happen just
before the frame: button presses, a category chosen or a die corrected on the page) and the expected
outcome (every action and the final score sheet). Still frames share one image file.

What lies on the table is ``dice`` for Paša (die readings, :func:`die_from_json`) and ``truth`` for the
board games (the game's own JSON, which its table adapter turns into readings); a truth reader reads a
recording's frames from this instead of the image, to test the device pipeline apart from vision.
"""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from device.errors import RecordingError
from vision.types import DieReading

FORMAT = 1
INPUT_KINDS = ("press", "action", "correct", "confirm")


@dataclass(frozen=True)
class FrameInfo:
    file: str
    t: float
    dice: tuple[DieReading, ...]
    inputs: tuple[dict[str, Any], ...]
    #: A board game's truth of this frame (its table adapter's JSON); None for Paša's dice.
    truth: Mapping[str, Any] | None = None

    @property
    def seen(self) -> Any:
        """What truly lies on the table: the board game's truth, else the dice."""
        return self.truth if self.truth is not None else self.dice


@dataclass(frozen=True)
class Recording:
    root: Path
    game: str
    players: tuple[str, ...]
    options: Mapping[str, str]
    size: tuple[int, int]
    frames: tuple[FrameInfo, ...]
    expected: Mapping[str, Any]
    #: The seed of the game's set-up (``initial_state(..., seed=seed)``); None: the engine's default.
    seed: int | None = None
    #: What the game's reader needs to know about the table (mats, layout, taught colours).
    table: Mapping[str, Any] = field(default_factory=dict)


def die_from_json(d: Mapping[str, Any]) -> DieReading:
    x0, y0, x1, y1 = (float(v) for v in d["box"])
    return DieReading(
        box=(x0, y0, x1, y1),
        centre=(float(d["centre"][0]), float(d["centre"][1])),
        angle=float(d.get("angle", 0.0)),
        value=int(d.get("read_as", d["value"])),  # what a reader makes of a hard-to-read die
        colour=str(d.get("colour", "white")),
        confidence=float(d.get("confidence", 1.0)),
        unsure=bool(d.get("unsure", False)),
        cocked=bool(d.get("cocked", False)),
    )


def die_to_json(d: DieReading) -> dict[str, Any]:
    return {
        "box": [round(v, 1) for v in d.box],
        "centre": [round(v, 1) for v in d.centre],
        "angle": round(d.angle, 1),
        "value": d.value,
        "colour": d.colour,
        "unsure": d.unsure,
        "cocked": d.cocked,
    }


def load_recording(path: str | Path) -> Recording:
    root = Path(path)
    index = root / "recording.json"
    if not index.is_file():
        raise RecordingError(f"{str(root)!r} is not a recording: {index.name} is missing")
    try:
        data = json.loads(index.read_text(encoding="utf-8"))
        if data.get("format") != FORMAT:
            raise RecordingError(f"{str(index)!r}: format {data.get('format')!r} is not {FORMAT}")
        frames = []
        for n, f in enumerate(data["frames"]):
            inputs = tuple(dict(i) for i in f.get("inputs", ()))
            for i in inputs:
                if i.get("kind") not in INPUT_KINDS:
                    raise RecordingError(f"{str(index)!r}: frame {n} has an input of unknown kind {i.get('kind')!r}")
            truth = f.get("truth")
            if truth is not None and not isinstance(truth, dict):
                raise RecordingError(f"{str(index)!r}: frame {n}'s truth is not an object")
            frames.append(FrameInfo(str(f["file"]), float(f["t"]),
                                    tuple(die_from_json(d) for d in f.get("dice", ())), inputs, truth))
        if not frames:
            raise RecordingError(f"{str(index)!r} has no frames")
        return Recording(
            root=root,
            game=str(data["game"]),
            players=tuple(data["players"]),
            options=dict(data.get("options", {})),
            size=(int(data["size"][0]), int(data["size"][1])),
            frames=tuple(frames),
            expected=dict(data.get("expected", {})),
            seed=None if data.get("seed") is None else int(data["seed"]),
            table=dict(data.get("table") or {}),
        )
    except (KeyError, TypeError, ValueError) as exc:
        if isinstance(exc, RecordingError):
            raise
        raise RecordingError(f"{str(index)!r} is not a valid recording: {type(exc).__name__}: {exc}") from None


def true_record(game: Any, players: Sequence[str], actions: Sequence[Any], *, options: Mapping[str, str] | None = None,
                seed: int | None = None) -> dict[str, Any]:
    """The record a replay must reach: ``actions`` (the engine's) played from the set-up, as the session
    exports a game (its ``expected`` section is ``actions``, ``sheet`` and ``winners`` of this)."""
    from device.eventlog import GameRecord
    from device.session import game_record_json

    record = GameRecord(id=0, game=game.name, players=tuple(players), options=dict(options or {}), mode="camera",
                        created=0.0, finished=None, actions=tuple(game.action_to_json(a) for a in actions),
                        origins=("sim",) * len(actions), seed=seed)
    return game_record_json(record)


def expected_section(record: Mapping[str, Any]) -> dict[str, Any]:
    """A recording's ``expected`` section from a :func:`true_record`."""
    return {"actions": list(record["actions"]), "sheet": record["sheet"], "winners": record["winners"]}


class TruthReader:
    """Reads a recording's frames from the truth in its JSON (the frame's ``truth``), not from pixels."""

    def __call__(self, truth: Sequence[DieReading] | None) -> list[DieReading]:
        return list(truth or ())
