"""``python -m vision.lab.pyradice_measure``: the Pyradice reader (:mod:`vision.pyradice_read`) measured on rendered
tables of seeded games (:mod:`vision.lab.pyradice_render`): per frame its readings against the truth (slots,
quarry tops, reserves; sure and wrong counted apart), the totals and rates, and the reading time (one core).
Renders only: no photograph of Pyradice pieces exists. The figures are in docs/pyradice-table.md."""

from __future__ import annotations

import argparse
import json
import sys
import time
from collections.abc import Iterable, Sequence
from dataclasses import replace
from typing import Any

import cv2
import numpy as np

from engine.dice import Die
from engine.pyradice.quarry import Position
from vision.colour import nominal_palette
from vision.pyradice_read import PyradiceReader, PyradiceReading, _teach_from_truth


def _tables(seeds: Iterable[int], players: int, turns: Sequence[int], hand: float, condition: str | None,
            size: tuple[int, int]) -> Iterable[tuple[Any, list[tuple[Any, dict[Position, Die]]]]]:
    """Per seed, one table: a frame to teach its colours on (after 3 placements) and the frames measured,
    each with where the quarry's dice were one placement before (what the game believes when it looks)."""
    from vision.conditions import parse_condition
    from vision.lab.mat_render import random_view
    from vision.lab.pyradice_render import random_table_style, render_table, seeded_state

    cond = parse_condition(condition) if condition else None

    def drawn(seed: int, t: int, style: Any, k: int) -> Any:
        rng = np.random.default_rng([seed, players, t, k])
        frame = render_table(seeded_state(seed, players, t), rng, size, random_view(rng, max_tilt=25.0), style)
        return replace(frame, image=cond.apply(frame.image, f"{seed}-{t}")) if cond is not None else frame

    for seed in seeds:
        style = random_table_style(np.random.default_rng([seed, players, 99]), hand)
        teach = drawn(seed, 3, replace(style, hand=False), 1)
        frames = [(drawn(seed, t, style, 7), dict(seeded_state(seed, players, max(t - 1, 0)).quarry.dice))
                  for t in turns]
        yield teach, frames


def score_frame(reading: PyradiceReading, truth: Any) -> dict[str, int]:
    """Counts for one frame against its truth (:class:`vision.lab.pyradice_render.TableTruth`)."""
    c: dict[str, int] = {k: 0 for k in (
        "slots", "slots_hidden", "occupancy_right", "dice", "face_right", "colour_right", "die_right",
        "sure_wrong", "unsure", "quarry_tops", "quarry_top_right", "quarry_top_face_right", "quarry_present_right",
        "quarry_positions", "reserve", "reserve_right", "slots_unsure", "quarry_unsure")}
    for seat, board in truth.boards.items():
        read = reading.board(seat)
        if read is None or not read.seen:
            continue
        for s in read.slots:
            if (seat, s.slot) in truth.hidden_slots:
                c["slots_hidden"] += 1
                if s.occupied != (s.slot in board.dice) and not s.unsure:
                    c["sure_wrong"] += 1
                continue
            c["slots"] += 1
            true = board.dice.get(s.slot)
            ok_occ = s.occupied == (true is not None)
            c["occupancy_right"] += ok_occ
            c["unsure"] += s.unsure
            c["slots_unsure"] += s.unsure
            wrong = not ok_occ
            if true is not None and s.die is not None:
                c["dice"] += 1
                c["face_right"] += s.die.value == true.value
                c["colour_right"] += s.die.colour == true.colour
                c["die_right"] += s.die.die == true
                wrong = wrong or s.die.die != true
            if wrong and not s.unsure:
                c["sure_wrong"] += 1
    for p in reading.quarry.positions:
        pos = p.position
        if pos in truth.hidden_positions:
            continue
        c["quarry_positions"] += 1
        present_true = pos in truth.quarry
        c["quarry_present_right"] += p.present == present_true
        wrong = p.present != present_true
        if truth.visible_top(pos):
            c["quarry_tops"] += 1
            if p.die is not None:
                c["quarry_top_face_right"] += p.die.value == truth.quarry[pos].value
                c["quarry_top_right"] += p.die.die == truth.quarry[pos]
                wrong = wrong or p.die.die != truth.quarry[pos]
        if wrong and not p.unsure:
            c["sure_wrong"] += 1
        c["unsure"] += p.unsure
        c["quarry_unsure"] += p.unsure
    for seat, die in truth.reserves.items():
        r = reading.reserve(seat)
        if r is None or seat in truth.hidden_reserves:
            continue
        c["reserve"] += 1
        ok = r.occupied == (die is not None) and (die is None or (r.die is not None and r.die.die == die))
        c["reserve_right"] += ok
        if not ok and not r.unsure:
            c["sure_wrong"] += 1
    return c


def measure(seeds: Sequence[int], players: int = 2, turns: Sequence[int] = (6, 16, 26), hand: float = 0.3,
            condition: str | None = None, size: tuple[int, int] = (1280, 960), teach: bool = True) -> dict[str, Any]:
    """Render tables of seeded games and read them: totals, rates and the reading time per frame (one core).
    With ``teach`` each table's colours are taught first on another frame of it (as at set-up)."""
    from vision.registration import MarkerFinder, locate

    finder = MarkerFinder()
    reader = PyradiceReader(players)
    totals: dict[str, int] = {}
    times: list[float] = []
    for teach_frame, frames in _tables(seeds, players, turns, hand, condition, size):
        reader.palette = nominal_palette("pyradice")
        reader.board_labs.clear()  # a new table
        if teach:
            reader.lattices.clear()
            _teach_from_truth(reader, teach_frame, teach_frame.image,
                              locate(teach_frame.image, "pyradice", players, finder))
        for frame, prior in frames:
            reader.lattices.clear()
            reader.quarry_grid = None
            t0 = time.process_time()
            reg = locate(frame.image, "pyradice", players, finder)
            reading = reader.read(frame.image, reg, prior)
            times.append(time.process_time() - t0)
            for k, v in score_frame(reading, frame.truth).items():
                totals[k] = totals.get(k, 0) + v

    def rate(a: str, b: str) -> float:
        return round(totals.get(a, 0) / max(totals.get(b, 0), 1), 4)

    return {
        "frames": len(times), "players": players, "condition": condition or "none", "hand": hand,
        "taught": teach, **totals,
        "occupancy_accuracy": rate("occupancy_right", "slots"),
        "face_accuracy": rate("face_right", "dice"), "colour_accuracy": rate("colour_right", "dice"),
        "quarry_top_face_accuracy": rate("quarry_top_face_right", "quarry_tops"),
        "quarry_top_accuracy": rate("quarry_top_right", "quarry_tops"),
        "quarry_presence_accuracy": rate("quarry_present_right", "quarry_positions"),
        "reserve_accuracy": rate("reserve_right", "reserve"),
        "median_cpu_ms": round(1000 * float(np.median(times)), 1) if times else None,
    }



def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m vision.lab.pyradice_measure", description=__doc__.splitlines()[0])
    parser.add_argument("--measure", action="store_true", help="read rendered frames and print the figures")
    parser.add_argument("--seeds", default="1000-1009", help="seeds of the games rendered, A-B or A,B,C")
    parser.add_argument("--players", type=int, default=2)
    parser.add_argument("--turns", default="6,16,26", help="placements made before each frame")
    parser.add_argument("--hand", type=float, default=0.3, help="share of frames with a hand over the table")
    parser.add_argument("--condition", default=None, help="KIND:AMOUNT (vision.conditions) on every frame")
    parser.add_argument("--nominal", action="store_true", help="do not teach the colours (nominal palette)")
    args = parser.parse_args(argv)
    if not args.measure:
        parser.print_help()
        return 2
    if "-" in args.seeds:
        a, b = args.seeds.split("-")
        seeds = list(range(int(a), int(b) + 1))
    else:
        seeds = [int(s) for s in args.seeds.split(",")]
    turns = [int(t) for t in args.turns.split(",")]
    cv2.setNumThreads(1)
    result = measure(seeds, args.players, turns, args.hand, args.condition, teach=not args.nominal)
    json.dump(result, sys.stdout, indent=1)
    print()
    return 0


if __name__ == "__main__":  # pragma: no cover
    raise SystemExit(main())

