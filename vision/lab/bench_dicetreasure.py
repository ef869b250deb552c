"""``companion bench dicetreasure-table``: time to read a Dice Treasure table in a 1280x960 frame.

The scene is a seeded 2-player game at a turn (:func:`vision.lab.dicetreasure_render.seeded_turn`, seed 9101, never
used to tune the reader), rendered by the lab with the stand-in deck: 8 dealt cards on the two players' mats,
the roll in the tray, both reserves and the common reserve, the middle empty. Figures (medians):

- **whole frame, from scratch**: :meth:`vision.dicetreasure_read.DiceTreasureReader.read` with its reuse of
  unchanged spots off: every card spot (16: 4 per player mat, 8 in the middle), the tray, the common reserve
  and both personal reserves, with the zones already located (registration is timed apart);
- **after one change**: the same table with one more die placed on a card and gone from the tray, read by a
  reader that read the previous table (unchanged spots and zones are glanced at and not read again), first with
  no cards named (every changed spot read whole), then among the game's cards in play as the device reads them
  (``among``: a card known on its spot whose picture changed only on its spaces has only its dice read
  again, not its card): what a settled frame costs during a game;
- **identify one card** against the 63-card deck (:func:`vision.dicetreasure_read.identify`, both ways up);
- **registration**: :meth:`vision.registration.ZoneTracker.update` on a new frame of the same table.

Times are CPU milliseconds of this process (process time), so that the load of a shared machine does not count;
on "all cores" they add up the threads' time. "One core" pins the process to one CPU and gives OpenCV and ONNX
Runtime one thread. Targets (issue 24):
the tray, four cards and both reserves under 50 ms on one core; a card identified under 5 ms.
"""

from __future__ import annotations

import argparse
from functools import partial

import cv2
import numpy as np

from vision.lab.bench import available_cpus, core_runs, pin

SEED = 9101


def add_arguments(parser: argparse.ArgumentParser) -> None:  # the shared bench parser has --repeat
    del parser


def scenes() -> tuple[np.ndarray, np.ndarray]:
    """The table at a turn after one die placed, and the same table after one more die placed."""
    first, second, _ = scenes_and_cards()
    return first, second


def scenes_and_cards() -> tuple[np.ndarray, np.ndarray, tuple[str, ...]]:
    """:func:`scenes` and the cards the game has in play there (what the device identifies among)."""
    from engine.dicetreasure import GAME
    from engine.dicetreasure.observe import in_play
    from vision.lab.dicetreasure_render import layout_of, render_table, seeded_turn
    from vision.mats import mats

    before, places, _ = seeded_turn(2, SEED, places=2)
    if len(places) < 2:
        raise ValueError(f"seed {SEED}: the seeded turn has fewer than two placements")
    one = GAME.apply(before, places[0])
    two = GAME.apply(one, places[1])
    sheets = mats("dicetreasure", 2)
    first = render_table(layout_of(one), sheets, SEED, (1280, 960), one, hands=0.0, pieces=SEED).image
    second = render_table(layout_of(two), sheets, SEED, (1280, 960), two, hands=0.0, pieces=SEED).image
    return first, second, tuple(in_play(one))


def _after_change(reader: object, first: np.ndarray, second: np.ndarray, regs: tuple[object, object],
                  repeat: int, among: tuple[str, ...] | None = None) -> float:
    """Median time to read ``second`` by a reader that has just read ``first`` (its glances kept), both among
    ``among``."""
    times = []
    for _ in range(repeat + 2):
        reader.forget()  # type: ignore[attr-defined]
        reader.read(first, regs[0], among=among)  # type: ignore[attr-defined]
        times.append(_once(partial(reader.read, second, regs[1], among=among)))  # type: ignore[attr-defined]
    return float(np.median(times[2:]))


def _once(fn: object) -> float:
    """CPU milliseconds of one call (process time: this shared machine's load does not count)."""
    import time

    start = time.process_time()
    fn()  # type: ignore[operator]
    return (time.process_time() - start) * 1000


def cpu_ms(fn: object, repeat: int) -> float:
    """Median CPU milliseconds of ``repeat`` calls after two warm-up calls."""
    _once(fn)
    _once(fn)
    return float(np.median([_once(fn) for _ in range(max(repeat, 3))]))


def _identify_ms(reading: object, image: object, deck: object, repeat: int) -> float:
    from vision.dicetreasure_read import identify, turned

    def one() -> None:
        identify(reading, deck)  # type: ignore[arg-type]
        if image is not None:
            identify(turned(reading, image)[0], deck)  # type: ignore[arg-type]

    return cpu_ms(one, repeat)


def run(args: argparse.Namespace) -> int:
    from engine.dicetreasure import sample_deck
    from vision.dicetreasure_read import DiceTreasureReader, card_spots, read_card
    from vision.registration import ZoneTracker, locate

    repeat = max(int(getattr(args, "repeat", 5) or 5), 3)
    all_cpus = available_cpus()
    first, second, dealt = scenes_and_cards()
    deck = sample_deck()
    print(f"dicetreasure-table bench: median of {repeat} runs per figure, 1280x960 frames, seed {SEED} "
          f"(2 players: 8 cards dealt, tray, reserves); {len(all_cpus)} CPUs available")
    for threads, cpus, label in core_runs(all_cpus):
        pin(cpus)
        cv2.setNumThreads(threads)
        try:
            reader = DiceTreasureReader(deck, threads=threads)
            reg = locate(first, "dicetreasure", 2)
            reg2 = locate(second, "dicetreasure", 2)
            reader.reuse = False
            scratch = cpu_ms(partial(reader.read, first, reg), repeat)
            reader.reuse = True
            after = _after_change(reader, first, second, (reg, reg2), repeat)
            among = _after_change(reader, first, second, (reg, reg2), repeat, dealt)
            view = reg.zone("motif-cards-1")
            assert view is not None
            reading, image = read_card(first, view.fit, view.zone, 0, reader.colours)
            ident = _identify_ms(reading, image, deck, repeat * 4)
            tracker = ZoneTracker("dicetreasure", 2)
            tracker.update(first)
            kept = cpu_ms(partial(tracker.update, second), repeat * 4)
            spots = sum(len(card_spots(v.zone)) for v in reg.zones)
            print(f"  {label:9s} whole frame from scratch ({spots} card spots, 4 loose zones): {scratch:7.1f} ms; "
                  f"after one die placed (unchanged spots reused): {after:6.1f} ms, among the game's cards (a card "
                  f"changed on its spaces only: its dice read): {among:6.1f} ms; identify a card against "
                  f"{len(deck.motif_cards)} (both ways up): {ident:5.2f} ms; registration kept: {kept:5.2f} ms")
        finally:
            pin(all_cpus)
    return 0
