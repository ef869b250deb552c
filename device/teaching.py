"""Colours taught at the table: one file per game in the state directory, read back as the readers' palettes.

The real pieces' colours are taught, not assumed (the light and the print differ from table to table): a
die of each colour (Pyradice's white, gray, maroon, orange; Dice Treasure's five), a block of each domino
colour and a gem of each kind for Pyramido. Each lesson is a measured CIELAB colour; a colour's reference
is the mean of its last :data:`KEEP` lessons, so one bad measurement does not stick. A palette
(:class:`vision.colour.Palette`) mixes taught colours with the built-in nominal ones for the rest, and says
it is calibrated only when every colour was taught. A dice palette also keeps the kinds of real dice of its
names (:func:`vision.colour.with_kinds`), as the die reader was measured (issue 25: one taught die of each colour
named 79-82% of real dice right alone, 97-98% with the kinds; ``docs/vision.md``, "Colour"). A die calibration
file written by ``companion recognize --calibrate`` is one case: :meth:`TeachingStore.import_calibration`
teaches its colours.

The file is ``<state dir>/teaching/<game>.json``, written atomically (a temporary file renamed over it), so a
power cut leaves the old lessons or the new ones, never half a file.
"""

from __future__ import annotations

import json
import os
import tempfile
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

from device.errors import StorageError, UsageError
from engine.dice import PALETTES
from vision.colour import DICE_KINDS, NOMINAL_RGB, Palette, as_seen, load_palette, with_kinds

#: What is taught per game: piece kind -> its colour names.
PIECE_COLOURS: dict[str, dict[str, tuple[str, ...]]] = {
    "pyradice": {"die": PALETTES["pyradice"]},
    "pyramido": {"block": PALETTES["pyramido"], "gem": (*PALETTES["pyramido"], "mythical")},
    "dicetreasure": {"die": PALETTES["dicetreasure"]},
}
KEEP = 5


def _check(game: str, piece: str, colour: str | None = None) -> None:
    if game not in PIECE_COLOURS:
        raise UsageError(f"no colours to teach for game {game!r}: one of {', '.join(PIECE_COLOURS)}")
    if piece not in PIECE_COLOURS[game]:
        raise UsageError(f"{game} has no piece {piece!r} to teach: one of {', '.join(PIECE_COLOURS[game])}")
    if colour is not None and colour not in PIECE_COLOURS[game][piece]:
        raise UsageError(f"{game}'s {piece} colours are {', '.join(PIECE_COLOURS[game][piece])}, not {colour!r}")


def taught_palette(name: str, colours: Sequence[str], taught: Mapping[str, Sequence[float]], *,
                   kinds: bool = True) -> Palette:
    """A palette of ``colours``: the taught CIELAB reference where ``taught`` has one, the nominal colour as the
    camera sees it for the rest (a colour with neither is left out); calibrated when every colour is taught.

    With ``kinds`` (dice) each name also keeps the kinds of real dice of that name beside its taught colour
    (:func:`vision.colour.with_kinds`), and a die is named by the nearest of them: one die taught per colour stands
    for one kind of its name (a plain green), and the kinds name the others (a swirled teal green). Measured on
    the labelled Byler dice, one taught die of each of a game's colours named 79-82% of every die of those names
    right alone and 97-98% with the kinds; of dice of the taught die's own kind 97-98% alone and 98.9-99.0% with
    them (``python -m vision.lab.colour_fit``). Pieces that are not dice (blocks, gems) have no kinds."""
    lessons = {c: (float(lab[0]), float(lab[1]), float(lab[2])) for c, lab in taught.items() if c in colours}
    refs = [(c, lessons[c] if c in lessons else as_seen(NOMINAL_RGB[c]))
            for c in colours if c in lessons or c in NOMINAL_RGB]
    complete = all(c in lessons for c in colours)
    if not kinds:
        return Palette(name, tuple(refs), calibrated=complete)
    # A taught name: its taught colour and its kinds (with_kinds, as measured); a name not taught yet: its kinds
    # alone, as the built-in palettes name dice (vision.colour.nominal_palette).
    joined = with_kinds(Palette(name, tuple((c, lab) for c, lab in refs if c in lessons)))
    untaught = tuple((c, k) for c, _ in refs if c not in lessons for k in DICE_KINDS.get(c, ()))
    return Palette(name, tuple(refs), calibrated=complete, kinds=joined.kinds + untaught)


class TeachingStore:
    """The taught colours of every game, kept under ``state_dir``."""

    def __init__(self, state_dir: str | Path) -> None:
        self.folder = Path(state_dir) / "teaching"

    def path(self, game: str) -> Path:
        return self.folder / f"{game}.json"

    def _read(self, game: str) -> dict[str, dict[str, list[list[float]]]]:
        path = self.path(game)
        if not path.exists():
            return {}
        try:
            data = json.loads(path.read_text(encoding="utf-8"))
            pieces = data["pieces"]
            return {str(p): {str(c): [[float(v) for v in lab] for lab in labs] for c, labs in cols.items()}
                    for p, cols in pieces.items()}
        except (OSError, ValueError, KeyError, TypeError, AttributeError) as exc:
            raise StorageError(f"{path}: not a teaching file ({exc}); remove it to start again") from None

    def _write(self, game: str, pieces: dict[str, dict[str, list[list[float]]]]) -> None:
        self.folder.mkdir(parents=True, exist_ok=True)
        data = {"game": game, "pieces": pieces}
        fd, tmp = tempfile.mkstemp(prefix=f".{game}-", suffix=".json", dir=self.folder)
        try:
            with os.fdopen(fd, "w", encoding="utf-8") as fh:
                json.dump(data, fh, indent=2)
                fh.flush()
                os.fsync(fh.fileno())
            os.replace(tmp, self.path(game))
        except OSError as exc:
            Path(tmp).unlink(missing_ok=True)
            raise StorageError(f"cannot write {self.path(game)}: {exc}") from None

    def teach(self, game: str, piece: str, colour: str, lab: Sequence[float]) -> None:
        """Add one measured colour (CIELAB) of a piece."""
        _check(game, piece, colour)
        values = [float(v) for v in lab]
        if len(values) != 3 or not 0 <= values[0] <= 100:
            raise UsageError(f"a colour is [L, a, b] with L in 0..100, not {list(lab)!r}")
        pieces = self._read(game)
        lessons = pieces.setdefault(piece, {}).setdefault(colour, [])
        lessons.append([round(v, 3) for v in values])
        del lessons[:-KEEP]
        self._write(game, pieces)

    def forget(self, game: str, piece: str | None = None, colour: str | None = None) -> None:
        """Forget a colour, a piece's colours, or all of a game's."""
        pieces = self._read(game)
        if piece is None:
            pieces = {}
        else:
            _check(game, piece, colour)
            if colour is None:
                pieces.pop(piece, None)
            else:
                pieces.get(piece, {}).pop(colour, None)
        self._write(game, pieces)

    def taught(self, game: str, piece: str) -> dict[str, tuple[float, float, float]]:
        """Each taught colour's reference: the mean of its kept lessons."""
        _check(game, piece)
        out = {}
        for colour, labs in self._read(game).get(piece, {}).items():
            n = len(labs)
            out[colour] = (sum(v[0] for v in labs) / n, sum(v[1] for v in labs) / n, sum(v[2] for v in labs) / n)
        return out

    def missing(self, game: str) -> dict[str, list[str]]:
        """Per piece, the colours not taught yet."""
        if game not in PIECE_COLOURS:
            raise UsageError(f"no colours to teach for game {game!r}")
        pieces = self._read(game)
        return {piece: [c for c in colours if c not in pieces.get(piece, {})]
                for piece, colours in PIECE_COLOURS[game].items()}

    def palette(self, game: str, piece: str) -> Palette:
        """The readers' palette for a piece: taught colours, nominal ones for the rest (a colour with no
        nominal value, e.g. a mythical gem, is left out until taught); a die's with the kinds of real dice
        (:func:`taught_palette`)."""
        _check(game, piece)
        return taught_palette(f"{game}-{piece}", PIECE_COLOURS[game][piece], self.taught(game, piece),
                              kinds=piece == "die")

    def import_calibration(self, game: str, path: str | Path) -> list[str]:
        """Teach the dice colours of a ``companion recognize --calibrate`` file; returns the colours taught."""
        _check(game, "die")
        palette = load_palette(str(path))
        names = []
        for name, lab in palette.colours:
            if name in PIECE_COLOURS[game]["die"]:
                self.teach(game, "die", name, lab)
                names.append(name)
        if not names:
            raise UsageError(f"{path}: none of its colours ({', '.join(palette.names)}) is a {game} die colour")
        return names

    def report(self, game: str) -> dict[str, Any]:
        """JSON-ready: per piece, which colours are taught and which are missing (for the set-up step)."""
        missing = self.missing(game)
        return {"game": game, "pieces": {piece: {"taught": sorted(set(PIECE_COLOURS[game][piece]) - set(miss)),
                                                 "missing": miss} for piece, miss in missing.items()},
                "complete": not any(missing.values())}
