"""``companion bench zones``: time to locate every zone of a table in a 1280x960 frame, and with kept homographies.

Scenes are rendered by the lab (:mod:`vision.lab.mat_render`), tilted 20 degrees with light, blur, noise and JPEG:
a 2-player Pyradice table (3 small sheets) and a 2-player Dice Treasure table (4 large sheets). Figures: a
full :func:`vision.registration.locate` (marker detection, fits, zone checks) with the default finder and the
thorough one (calibration's), and :meth:`ZoneTracker.update` on a new frame of the same still table (the
kept-homography path: markers sampled where they should be). "One core" pins the process to one CPU and
gives OpenCV one thread. Targets (issue 21): under 8 ms to locate, under 1 ms kept, on one core. A fixed OpenCV
workload (a Gaussian blur of the frame) is timed in the same run as a reference for the machine's load.
"""

from __future__ import annotations

import argparse
from dataclasses import replace
from functools import partial

import cv2
import numpy as np

from vision.lab.bench import available_cpus, core_runs, median_ms, pin
from vision.mats import mats
from vision.registration import MarkerFinder, ZoneTracker, locate


def add_arguments(parser: argparse.ArgumentParser) -> None:  # the shared bench parser has --repeat
    del parser


def scenes() -> list[tuple[str, str, np.ndarray, np.ndarray]]:
    """(label, game, frame, a second frame of the same table with new noise) for each benchmark table."""
    from vision.lab.mat_render import ViewStyle, render_mats, table_layout

    out = []
    for game in ("pyradice", "dicetreasure"):
        sheets = mats(game, 2)
        view = ViewStyle(tilt=20.0, azimuth=30.0, roll=5.0, fill=0.88, light=0.3, light_direction=40.0, blur=0.7,
                         noise=3.0, jpeg=85)
        placed = table_layout(sheets, np.random.default_rng(21))
        first = render_mats(np.random.default_rng(1), placed, (1280, 960), view)
        again = render_mats(np.random.default_rng(1), placed, (1280, 960), replace(view, noise=4.0, light=0.25))
        label = f"{game}, 2 players: {len(sheets)} sheets, {sum(len(m.zones) for m in sheets)} zones"
        out.append((label, game, first.image, again.image))
    return out


def run(args: argparse.Namespace) -> int:
    repeat = int(getattr(args, "repeat", 5) or 5) * 4
    all_cpus = available_cpus()
    tables = scenes()
    print(f"zones bench: median of {max(repeat, 3)} runs per figure, 1280x960 frames; {len(all_cpus)} CPUs available")
    for threads, cpus, label in core_runs(all_cpus):
        pin(cpus)
        cv2.setNumThreads(threads)
        try:
            fast, thorough = MarkerFinder(), MarkerFinder(thorough=True)
            gray = cv2.cvtColor(tables[0][2], cv2.COLOR_BGR2GRAY)
            reference = median_ms(partial(cv2.GaussianBlur, gray, (0, 0), 2.0), repeat)
            print(f"  {label:9s} reference: Gaussian blur (sigma 2) of the 1280x960 grey frame {reference:.2f} ms "
                  "(compare runs by it: this machine's load moves every figure)")
            for name, game, image, again in tables:
                reg = locate(image, game, 2, fast)
                located = f"{len(reg.fits)} sheets, {len(reg.zones)} zones located"
                full = median_ms(partial(locate, image, game, 2, fast), repeat)
                slow = median_ms(partial(locate, image, game, 2, thorough), repeat)
                tracker = ZoneTracker(game, 2, refit_every=10**9, finder=fast)
                tracker.update(image)
                kept = median_ms(partial(tracker.update, again), repeat * 5)
                if not tracker.update(again).kept:
                    print(f"  {label:9s} {name}: the tracker did not keep its fit on the second frame")
                print(f"  {label:9s} {name} ({located}): locate {full:6.2f} ms (thorough finder {slow:.2f} ms), "
                      f"kept homographies {kept:.3f} ms")
        finally:
            pin(all_cpus)
            cv2.setNumThreads(len(all_cpus))
    return 0
