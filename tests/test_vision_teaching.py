"""Colours taught at the table name dice as the die reader was measured: the taught colours joined by the kinds of
real dice (``device.teaching.taught_palette``, ``vision.colour.with_kinds``; issue 25)."""

from __future__ import annotations

from pathlib import Path

from device.teaching import PIECE_COLOURS, TeachingStore, taught_palette
from vision.colour import DICE_KINDS, nominal_palette

#: A navy die, as the Byler camera measured one (CIELAB): blue's second kind, nearly.
NAVY = (21.0, 6.5, -13.0)


def test_a_taught_dice_palette_names_a_die_of_another_kind_of_a_taught_colour(tmp_path: Path) -> None:
    store = TeachingStore(tmp_path)
    # One die of each Dice Treasure colour taught: the bright kind of each (a bright blue, a bright purple).
    for name in PIECE_COLOURS["dicetreasure"]["die"]:
        store.teach("dicetreasure", "die", name, DICE_KINDS[name][0])
    palette = store.palette("dicetreasure", "die")
    assert palette.calibrated
    # Every taught die is still named by its own colour ...
    for name in PIECE_COLOURS["dicetreasure"]["die"]:
        assert palette.nearest(DICE_KINDS[name][0])[0] == name
    # ... and a navy die, which the taught colours alone call purple (nearer the bright purple than the bright
    # blue), is blue by its kind.
    alone = taught_palette("dicetreasure-die", PIECE_COLOURS["dicetreasure"]["die"],
                           store.taught("dicetreasure", "die"), kinds=False)
    assert alone.nearest(NAVY)[0] == "purple"
    assert palette.nearest(NAVY)[0] == "blue"


def test_colours_not_taught_yet_name_dice_as_the_built_in_palette_does(tmp_path: Path) -> None:
    store = TeachingStore(tmp_path)
    assert set(store.palette("pyradice", "die").references()) == set(nominal_palette("pyradice").references())
    # One colour taught: that name is matched by its taught colour and its kinds, the others as built in.
    store.teach("pyradice", "die", "maroon", (28.0, 30.0, 10.0))
    refs = store.palette("pyradice", "die").references()
    assert ("maroon", (28.0, 30.0, 10.0)) in refs
    assert {k for n, k in refs if n == "maroon"} == {(28.0, 30.0, 10.0), *DICE_KINDS["maroon"]}
    assert {k for n, k in refs if n == "white"} == set(DICE_KINDS["white"])
    # Blocks and gems are not dice: no kinds of real dice among them.
    store.teach("pyramido", "block", "blue", (40.0, 5.0, -40.0))
    assert store.palette("pyramido", "block").kinds == ()
    assert store.palette("pyramido", "gem").kinds == ()
