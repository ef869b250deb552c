"""``companion bench pyramido-table``: time to read a Pyramido table from a 1280x960 frame.

The frames are rendered by the lab (:mod:`vision.lab.pyramido_render`, seeds 110 and 111, 2 players): each game's
last state (a full four-stage pyramid) and a state in mid-game. Figures, each the median of several runs:
reading one player's pyramid against its record (:meth:`vision.pyramido_read.PyramidReader.read`, the zone
already located; "pyramid" as live, the lattice and the record's place kept from the frame before, so one pass at
the recorded heights; "cold" a reader that has seen nothing of this table: the lattice searched afresh and two
passes), the exploration area read afresh (:func:`vision.pyramido_read.read_exploration`) and as the device reads a
turn's table (:class:`vision.pyramido_read.ExplorationReader`, which has read the table at the turn's start: only
the piles and gem areas the turn changed are read again, a domino and a gem taken, the area refilled, a pile
turned up; the renderer keeps a place nobody touched as it lay), the whole frame as the
device reads it (:meth:`device.tables.pyramido.PyramidoTable.frame_reader`: locating the mats, the mover's
pyramid and the exploration area; read afresh, and again on a new picture of the same settled table, whose zones
look unchanged and keep their readings), and a settled table to the page's data (the adapter's explain of a
placement and its view). "One core" pins the process to one CPU and gives OpenCV one thread. Targets (issue
23): a pyramid under 30 ms and the exploration area under 30 ms on one core; settled table to the page event
under 200 ms. A fixed OpenCV workload (a Gaussian blur of the frame) is timed in the same run as a reference
for the load.
"""

from __future__ import annotations

import argparse
import copy
import time
from functools import partial
from typing import Any

import cv2
import numpy as np

from vision.lab.bench import available_cpus, core_runs, median_ms, pin


def add_arguments(parser: argparse.ArgumentParser) -> None:  # the shared bench parser has --repeat
    del parser


def scenes() -> list[dict[str, Any]]:
    """Per seed and state: the frame, the state before the last placement and the state it shows."""
    from engine.pyramido.game import Phase
    from vision.lab.pyramido_render import make_table, placement_turns, render, seeded_game

    out = []
    for seed in (110, 111):
        states = seeded_game(seed, 2)
        turns = placement_turns(states)
        table = make_table(seed, 2, states[-1])
        for label, (before, after, seat) in (("last placement", turns[-1]), ("mid-game", turns[len(turns) // 2])):
            frame = render(table, after, np.random.default_rng([seed, 5])).image
            # The table at the turn's start (nothing taken yet), as the device saw it before the turn.
            k = next(i for i, st in enumerate(states) if st is before)
            while k > 0 and not (states[k].phase is Phase.TAKE and not states[k].pending):
                k -= 1
            start = render(table, states[k], np.random.default_rng([seed, 4])).image
            out.append({"label": f"seed {seed}, {label} (stage {before.stage})", "image": frame, "before": before,
                        "after": after, "seat": seat, "thickness": table.thickness_mm, "start": start,
                        "start_state": states[k]})
    return out


def run(args: argparse.Namespace) -> int:
    from device.tables.pyramido import PyramidoTable, TableView
    from engine.game import find_game
    from vision.pyramido_read import ExplorationReader, PyramidReader, read_exploration
    from vision.registration import MarkerFinder, locate

    repeat = max(int(getattr(args, "repeat", 5) or 5), 3)
    all_cpus = available_cpus()
    tables = scenes()
    game = find_game("pyramido")
    print(f"pyramido-table bench: median of {repeat} runs per figure, 1280x960 rendered frames; "
          f"{len(all_cpus)} CPUs available")
    status = 0
    for threads, cpus, label in core_runs(all_cpus):
        pin(cpus)
        cv2.setNumThreads(threads)
        try:
            gray = cv2.cvtColor(tables[0]["image"], cv2.COLOR_BGR2GRAY)
            reference = median_ms(partial(cv2.GaussianBlur, gray, (0, 0), 2.0), repeat)
            print(f"  {label:9s} reference: Gaussian blur (sigma 2) of the 1280x960 grey frame {reference:.2f} ms")
            finder = MarkerFinder()
            for t in tables:
                image, before, seat = t["image"], t["before"], t["seat"]
                reg = locate(image, "pyramido", 2, finder)
                zone, ex_zone = reg.zone(f"pyramid-{seat + 1}"), reg.zone("exploration")
                if zone is None or ex_zone is None:
                    print(f"  {label:9s} {t['label']}: a zone was not located")
                    status = 1
                    continue
                known = before.explorers[seat].pyramid.top_view
                reader = PyramidReader()
                reader.read(image, zone, known, seat=seat)  # the lattice kept from the frame before, as live
                pyramid = median_ms(partial(reader.read, image, zone, known, seat=seat), repeat)

                def cold(image: np.ndarray = image, zone: Any = zone, known: Any = known, seat: int = seat) -> Any:
                    return PyramidReader().read(image, zone, known, seat=seat)

                pyramid_cold = median_ms(cold, repeat)
                cpu = [median_ms(partial(reader.read, image, zone, known, seat=seat), repeat, time.process_time),
                       median_ms(cold, repeat, time.process_time)]
                sizes = [s.size for s in before.spaces]
                explore = partial(read_exploration, image, ex_zone, pile_sizes=sizes, thickness_mm=t["thickness"])
                exploration = median_ms(explore, repeat)
                cpu.append(median_ms(explore, repeat, time.process_time))
                # A turn's table: a reader that read the table at the turn's start (each run a copy of it, since a
                # read makes the places it read the reference).
                primed = ExplorationReader(thickness_mm=t["thickness"])
                start_zone = locate(t["start"], "pyramido", 2, finder).zone("exploration")
                assert start_zone is not None
                primed.read(t["start"], start_zone, [s.size for s in t["start_state"].spaces])
                copies: list[Any] = []

                def turn(copies: list[Any] = copies, image: np.ndarray = image, zone: Any = ex_zone,
                         sizes: Any = sizes) -> Any:
                    reader = copies.pop()
                    reader.read(image, zone, sizes)
                    return reader.read_places

                copies.extend(copy.deepcopy(primed) for _ in range(max(repeat, 3) + 2))
                turn_wall = median_ms(turn, repeat)
                copies.extend(copy.deepcopy(primed) for _ in range(max(repeat, 3) + 2))
                cpu.append(median_ms(turn, repeat, time.process_time))
                copies.append(copy.deepcopy(primed))
                places = len(turn())
                adapter = PyramidoTable(game)
                adapter.record = before
                frame_reader = adapter.frame_reader({"players": 2, "domino_mm": t["thickness"]})

                count = [0]

                def whole(reader: Any = frame_reader, image: np.ndarray = image, count: list[int] = count) -> Any:
                    # A new picture each time (one pixel differs): the reader keeps the reading of one it has read.
                    picture = image.copy()
                    count[0] += 1
                    picture[0, 0, 0] = count[0] % 256
                    return reader(picture)

                readings = whole()
                steady = median_ms(whole, repeat)

                def afresh(image: np.ndarray = image, known: Any = known, seat: int = seat, sizes: Any = sizes,
                           t: Any = t, reader: Any = reader, finder: Any = finder) -> Any:
                    # A table that changed: the mats located, the mover's pyramid and the exploration area read.
                    reg = locate(image, "pyramido", 2, finder)
                    zone, ex_zone = reg.zone(f"pyramid-{seat + 1}"), reg.zone("exploration")
                    assert zone is not None and ex_zone is not None
                    return (reader.read(image, zone, known, seat=seat),
                            read_exploration(image, ex_zone, pile_sizes=sizes, thickness_mm=t["thickness"]))

                frame = median_ms(afresh, repeat)
                seen = adapter.observe(readings, moved=True)
                assert isinstance(seen, TableView)

                def settle(adapter: Any = adapter, before: Any = before, seen: Any = seen) -> Any:
                    adapter.explain(before, seen)
                    return adapter.view(before)

                explained = adapter.explain(before, seen)
                to_page = median_ms(settle, repeat)
                took = " ".join(game.action_text(a) for a in explained.actions) or \
                    f"asked: {explained.problems[0][:60] if explained.problems else 'nothing'}"
                print(f"  {label:9s} {t['label']}: pyramid {pyramid:6.1f} ms (cold {pyramid_cold:6.1f} ms), "
                      f"exploration area {exploration:6.1f} ms (a turn's table: {turn_wall:5.1f} ms, {places} of 10 "
                      "places read), "
                      f"whole frame {frame:6.1f} ms (zones unchanged since read: {steady:5.1f} ms), settled table to "
                      f"the page's data {to_page:6.1f} ms ({took}); CPU time: pyramid {cpu[0]:.1f} ms (cold "
                      f"{cpu[1]:.1f}), exploration area {cpu[2]:.1f} ms (a turn's table {cpu[3]:.1f} ms)")
        finally:
            pin(all_cpus)
    return status
