"""Vision's lab: training, rendering, evaluation, tuning, benchmarks and the YOLO reference.

The device never imports this package (tests/test_vision_runtime.py checks it); the runtime modules of
`vision` (types, crop, detect, faces, colour, fuse, change, registration, recognize, the board readers)
need none of it. A command that renders, trains or measures imports from here lazily.
"""
