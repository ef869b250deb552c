"""The Pi install's logic that a PC can check quickly: pyproject.toml's numpy/OpenCV pair per Raspberry Pi OS
release, and systemd/install.sh's shape. The install itself runs in debootstrap roots: `make pi-check`."""

from __future__ import annotations

import shutil
import subprocess
import tomllib
from pathlib import Path

import pytest
from packaging.requirements import Requirement
from packaging.version import Version

ROOT = Path(__file__).resolve().parent.parent
INSTALL = ROOT / "systemd" / "install.sh"

# What apt has (Debian's archive, the numpy that Raspberry Pi OS's picamera2 is built against) and what the
# OpenCV wheels themselves require of numpy (their METADATA on PyPI).
RELEASES = {"bookworm": ("3.11", "1.24.2"), "trixie": ("3.13", "2.2.4")}
OPENCV_NEEDS = {"4.11.0.86": ">=1.23.5", "4.12.0.88": ">=2,<2.3.0"}


def requirements(python: str) -> dict[str, Requirement]:
    deps = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))["project"]["dependencies"]
    chosen = {}
    for text in deps:
        req = Requirement(text)
        if req.marker is None or req.marker.evaluate({"python_version": python}):
            assert req.name not in chosen, f"two requirements for {req.name} on Python {python}"
            chosen[req.name] = req
    return chosen


@pytest.mark.parametrize("release", sorted(RELEASES))
def test_apt_numpy_satisfies_the_release_pair(release: str) -> None:
    python, apt_numpy = RELEASES[release]
    reqs = requirements(python)
    assert reqs["numpy"].specifier.contains(apt_numpy), f"pip would replace {release}'s numpy {apt_numpy}"
    # The OpenCV the range allows must accept that numpy too, or pip would upgrade numpy for it.
    allowed = [v for v in OPENCV_NEEDS if reqs["opencv-python-headless"].specifier.contains(v)]
    assert allowed, f"no tested OpenCV in {reqs['opencv-python-headless'].specifier}"
    for version in allowed:
        assert Requirement(f"numpy{OPENCV_NEEDS[version]}").specifier.contains(apt_numpy), version


def test_each_release_gets_one_numpy_major() -> None:
    assert all(Version(v) < Version("2") for v in requirements("3.11")["numpy"].specifier.filter(["1.26.4", "2.0.0"]))
    assert list(requirements("3.13")["numpy"].specifier.filter(["1.26.4", "2.2.6", "2.3.0"])) == ["2.2.6"]
    assert list(requirements("3.12")["numpy"].specifier.filter(["1.26.4", "2.2.6"])) == ["2.2.6"]


@pytest.mark.parametrize("shell", ["sh", "dash", "bash"])
def test_install_script_parses(shell: str) -> None:
    if shutil.which(shell) is None:
        pytest.skip(f"no {shell} here")
    subprocess.run([shell, "-n", str(INSTALL)], check=True)


def test_install_script_keeps_apt_numpy_and_the_units_paths() -> None:
    text = INSTALL.read_text(encoding="utf-8")
    assert "python3 -m venv --system-site-packages" in text
    assert "python3-numpy" in text  # the system numpy the venv is to keep
    pip_lines = [line for line in text.splitlines() if "/.venv/bin/pip" in line and " install " in line]
    assert pip_lines and not any("--upgrade" in line or " -U " in line for line in pip_lines)
    unit = (ROOT / "systemd" / "companion.service").read_text(encoding="utf-8")
    assert "PREFIX=${COMPANION_PREFIX:-/opt/companion}" in text
    assert "ExecStart=/opt/companion/.venv/bin/companion" in unit
