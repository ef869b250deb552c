"""``companion bench vision``: median latency of the die reader per image, on one core and on all cores.

Two scenes: a 640x640 photo with 25 dice (the Byler photo ``IMG_20191208_112332.jpg``, from
``../shared/data`` or the copy under ``tests/data/photos``; a rendered scene when neither is there) and a
1280x960 frame with 6 rendered dice. "One core" pins the process to one CPU (``sched_setaffinity``) and
gives ONNX Runtime and OpenCV one thread each. Beside the reader, the same 640x640 image is run through a
YOLOv8n-sized ONNX detector (:mod:`vision.lab.yolo_ref`) on one core, when it can be had. Peak memory is the
process's maximum resident set size, taken before the reference is built (building it may load torch).
"""

from __future__ import annotations

import argparse
import importlib
import os
import resource
import statistics
import time
from collections.abc import Callable
from functools import partial
from pathlib import Path
from typing import Any

import cv2
import numpy as np

from vision.recognize import DiceRecognizer, FixedDetector, load_image
from vision.types import DieCandidate

REPO = Path(__file__).resolve().parents[2]
PHOTO = "IMG_20191208_112332.jpg"
PHOTO_PLACES = (
    REPO.parent / "shared" / "data" / "dice-photos" / "byler" / "images" / PHOTO,
    REPO / "tests" / "data" / "photos" / PHOTO,
)


def add_arguments(parser: argparse.ArgumentParser) -> None:  # the shared bench parser has --repeat
    del parser


def scenes() -> list[tuple[str, np.ndarray, list[DieCandidate]]]:
    """(label, image, true candidates) for the two benchmark scenes."""
    from vision.lab.render import render_scene

    out: list[tuple[str, np.ndarray, list[DieCandidate]]] = []
    photo = next((p for p in PHOTO_PLACES if p.is_file()), None)
    if photo is not None:
        out.append((f"640x640 photo, 25 dice ({photo.name})", load_image(photo), []))
    else:
        image, truth = render_scene(np.random.default_rng(25), (640, 640), n_dice=(25, 25), side_range=(30, 45))
        cands = [DieCandidate(d.centre, d.side, d.angle, 1.0) for d in truth]
        out.append((f"640x640 rendered, {len(truth)} dice", image, cands))
    image, truth = render_scene(np.random.default_rng(6), (1280, 960), n_dice=(6, 6), side_range=(60, 100))
    cands = [DieCandidate(d.centre, d.side, d.angle, 1.0) for d in truth]
    out.append((f"1280x960 rendered, {len(truth)} dice", image, cands))
    return out


def median_ms(fn: Callable[[], Any], repeat: int, clock: Callable[[], float] = time.perf_counter) -> float:
    """The median time of ``fn`` in ms by ``clock``: wall time, or ``time.process_time`` for the process's own CPU
    time (on a machine shared with other work, what the code itself costs)."""
    fn()  # warm-up: first runs allocate
    fn()
    times = []
    for _ in range(max(repeat, 3)):
        start = clock()
        fn()
        times.append((clock() - start) * 1000)
    return statistics.median(times)


def available_cpus() -> set[int]:
    """The CPUs this process may run on."""
    return os.sched_getaffinity(0) if hasattr(os, "sched_getaffinity") else set(range(os.cpu_count() or 1))


def pin(cpus: set[int]) -> None:
    """Run this process on these CPUs only (where the system lets it choose): every thread of it, not only the
    caller (Linux pins a thread at a time), so that the pools NumPy's BLAS and the libraries started at import
    do not go on working on the other cores while a "one core" figure is taken."""
    if not hasattr(os, "sched_setaffinity"):
        return
    os.sched_setaffinity(0, cpus)
    tasks = Path("/proc/self/task")
    for task in tasks.iterdir() if tasks.is_dir() else ():
        try:
            os.sched_setaffinity(int(task.name), cpus)
        except (OSError, ValueError):  # a thread that ended meanwhile
            continue


def core_runs(all_cpus: set[int]) -> tuple[tuple[int, set[int], str], ...]:
    """Each bench's two runs: (threads, CPUs, label) for one core, then for all of them."""
    return ((1, {min(all_cpus)}, "one core"), (len(all_cpus), all_cpus, "all cores"))


def run(args: argparse.Namespace) -> int:
    repeat = int(getattr(args, "repeat", 5) or 5) * 4
    all_cpus = available_cpus()
    have_detector = True
    try:
        importlib.import_module("vision.detect")
    except ModuleNotFoundError:
        have_detector = False
    print(f"vision bench: median of {max(repeat, 3)} runs per figure; {len(all_cpus)} CPUs available")
    if not have_detector:
        print("  (vision.detect is not in this build: the reader runs on the labelled/rendered boxes, no detection)")
    for threads, cpus, label in core_runs(all_cpus):
        pin(cpus)
        cv2.setNumThreads(threads)
        try:
            fixed = FixedDetector()
            recognizer = DiceRecognizer(detector=None if have_detector else fixed, threads=threads)
            for name, image, truth in scenes():
                fixed.candidates = truth if truth else _photo_truth(image)
                found = recognizer.candidates(image)[1]
                total = median_ms(partial(recognizer.read, image), repeat)
                detect = median_ms(partial(recognizer.candidates, image), repeat)
                print(
                    f"  {label:9s} {name}: {total:6.1f} ms per image "
                    f"(detector {detect:.1f} ms, reading {len(found)} dice {total - detect:.1f} ms)"
                )
        finally:
            pin(all_cpus)
            cv2.setNumThreads(len(all_cpus))
    # Measured before the YOLOv8n-sized reference, whose export loads torch: that is not the device's memory.
    peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
    _yolo(repeat, min(all_cpus), all_cpus)
    print(f"  peak memory of the reader (max RSS of this process, before the YOLO reference): {peak:.0f} MiB")
    return 0


def _photo_truth(image: np.ndarray) -> list[DieCandidate]:
    """The benchmark photo's labelled dice as candidates (used only when there is no detector)."""
    from vision.lab.evaluate import truth_candidates
    from vision.lab.splits import read_manifest

    manifest = REPO.parent / "shared" / "data" / "dice-photos" / "byler" / "manifest.jsonl"
    local = REPO / "tests" / "data" / "photos" / "manifest.jsonl"
    for path in (manifest, local):
        if path.is_file():
            for record in read_manifest(path):
                if record["image"].endswith(PHOTO):
                    return truth_candidates(record, image)
    return []


def _yolo(repeat: int, cpu: int, all_cpus: set[int]) -> None:
    from vision.lab.yolo_ref import onnx_path

    path = onnx_path()
    if path is None:
        print("  YOLOv8n-sized ONNX reference: not available (needs the onnx package of the dev extra, or torch)")
        return
    import onnxruntime as ort

    options = ort.SessionOptions()
    options.intra_op_num_threads = 1
    options.inter_op_num_threads = 1
    session = ort.InferenceSession(str(path), sess_options=options, providers=["CPUExecutionProvider"])
    photo = next((p for p in PHOTO_PLACES if p.is_file()), None)
    image = load_image(photo) if photo else np.zeros((640, 640, 3), np.uint8)
    blob = (cv2.resize(image, (640, 640))[:, :, ::-1].transpose(2, 0, 1)[None].astype(np.float32)) / 255.0
    pin({cpu})
    try:
        ms = median_ms(lambda: session.run(None, {"images": blob}), max(repeat // 4, 3))
    finally:
        pin(all_cpus)
    print(f"  one core  YOLOv8n-sized ONNX detector (untrained, 640x640 input): {ms:6.1f} ms per image")
