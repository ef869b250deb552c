"""Part of ``tools/pi-check.sh``, run inside each root by the installed venv's Python (standard library only).

Reads ``companion recognize --json`` lines on stdin, compares each photo's dice values with its labels in the
manifest, and checks that numpy is apt's (the venv was made with ``--system-site-packages`` and pip kept the
system numpy). Prints one line per photo; exits 1 when a required photo is not read as labelled, or numpy is a
copy pip installed.
"""

from __future__ import annotations

import argparse
import json
import sys
from collections import Counter
from pathlib import Path


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("manifest", type=Path, help="labels, one JSON object per photo")
    parser.add_argument("--require", default="", help="photos (comma-separated) that must be read exactly")
    args = parser.parse_args(argv)
    labels = {}
    for line in args.manifest.read_text(encoding="utf-8").splitlines():
        if line.strip():
            record = json.loads(line)
            labels[record["image"]] = Counter(d["value"] for d in record["dice"])
    required = {name for name in args.require.split(",") if name}
    ok = True
    seen = set()
    for line in sys.stdin:
        if not line.strip():
            continue
        reading = json.loads(line)
        name = Path(reading["image"]).name
        seen.add(name)
        got = Counter(d["value"] for d in reading["dice"])
        unsure = sum(1 for d in reading["dice"] if d["unsure"])
        want = labels[name]
        values = " ".join(str(v) for v in sorted(got.elements()))
        same = got == want
        verdict = "as labelled" if same else f"NOT as labelled ({sum(want.values())} dice labelled)"
        print(f"{name}: {sum(got.values())} dice [{values}], {unsure} unsure, {verdict}")
        if name in required and not same:
            ok = False
    for name in sorted(required - seen):
        print(f"{name}: not read")
        ok = False
    import numpy  # the venv's numpy, the one `companion` imported

    system = numpy.__file__.startswith("/usr/lib/python3/dist-packages/")
    print(f"numpy {numpy.__version__}: {'apt' if system else 'installed by pip'} ({numpy.__file__})")
    return 0 if ok and system else 1


if __name__ == "__main__":
    sys.exit(main())
