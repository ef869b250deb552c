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


# --- install.sh's branches, run against stand-in commands (nothing is installed, nothing outside tmp_path) -----

STUB = """#!/bin/sh
echo "$(basename "$0") $*" >> "$STUB_LOG"
case "$(basename "$0")" in
  id) [ "$1" = -u ] && { echo "${FAKE_UID:-0}"; exit 0; }; exit 1 ;;
  apt-cache) for p in $FAKE_APT_HAS; do [ "$p" = "$2" ] && exit 0; done; exit 100 ;;
  getent) exit 2 ;;
  python3)
    case "$*" in
      *"-m venv"*) mkdir -p "$COMPANION_PREFIX/.venv/bin"
                   for tool in python pip; do cp "$0" "$COMPANION_PREFIX/.venv/bin/$tool"; done ;;
      *print*) echo "$FAKE_PYTHON" ;;
    esac ;;
  python) case "$*" in *print*"version_info"*) echo "${FAKE_VENV_PYTHON:-$FAKE_PYTHON}" ;; esac ;;
esac
exit 0
"""
COMMANDS = ["id", "apt-get", "apt-cache", "getent", "groupadd", "useradd", "usermod", "mkdir", "rm", "cp",
            "install", "systemctl", "python3"]
ON_A_PI = Path("/proc/device-tree/model").is_file() and b"Raspberry Pi" in Path("/proc/device-tree/model").read_bytes()


def run_install(tmp_path: Path, **env: str) -> tuple[subprocess.CompletedProcess[str], list[str]]:
    stubs = tmp_path / "bin"
    stubs.mkdir(exist_ok=True)
    real_mkdir, real_cp = shutil.which("mkdir"), shutil.which("cp")
    for name in COMMANDS:
        text = STUB.replace("mkdir -p", f"{real_mkdir} -p").replace('cp "$0"', f'{real_cp} "$0"')
        (stubs / name).write_text(text)
        (stubs / name).chmod(0o755)
    log = tmp_path / "log"
    log.write_text("")
    prefix = tmp_path / "opt"
    base = {"PATH": f"{stubs}:/usr/bin:/bin", "STUB_LOG": str(log), "COMPANION_PREFIX": str(prefix),
            "FAKE_PYTHON": "3.13", "FAKE_APT_HAS": ""}
    done = subprocess.run(["sh", str(INSTALL)], cwd=ROOT, env={**base, **env}, capture_output=True, text=True,
                          timeout=60)
    return done, log.read_text().replace(str(prefix), "PREFIX").splitlines()


def apt_install(calls: list[str]) -> list[str]:
    return [c for c in calls if c.startswith("apt-get install")]


@pytest.mark.skipif(ON_A_PI, reason="on a Raspberry Pi the missing Pi packages stop the script")
def test_off_a_pi_the_raspberry_pi_packages_are_skipped(tmp_path: Path) -> None:
    done, calls = run_install(tmp_path)
    assert done.returncode == 0, done.stderr
    [line] = apt_install(calls)
    assert "python3-venv python3-numpy libcairo2" in line and "picamera2" not in line and "lgpio" not in line
    assert "skipped: python3-picamera2 python3-lgpio" in done.stderr
    assert "useradd --system --home-dir PREFIX --shell /usr/sbin/nologin companion" in calls
    assert "groupadd --system gpio" in calls
    assert "pip install --quiet --disable-pip-version-check PREFIX" in calls
    assert any(c.startswith("systemctl enable companion.service") for c in calls)


def test_the_raspberry_pi_packages_are_installed_where_apt_has_them(tmp_path: Path) -> None:
    done, calls = run_install(tmp_path, FAKE_APT_HAS="python3-picamera2 python3-lgpio")
    assert done.returncode == 0, done.stderr
    [line] = apt_install(calls)
    assert line.endswith("python3-venv python3-numpy libcairo2 python3-picamera2 python3-lgpio")
    assert "skipped" not in done.stderr


def test_a_venv_of_another_python_is_made_again(tmp_path: Path) -> None:
    venv = tmp_path / "opt" / ".venv" / "bin"
    venv.mkdir(parents=True)
    run_install(tmp_path, FAKE_APT_HAS="python3-picamera2 python3-lgpio")  # makes the stand-in venv
    _, calls = run_install(tmp_path, FAKE_APT_HAS="python3-picamera2 python3-lgpio", FAKE_VENV_PYTHON="3.11")
    assert "rm -rf PREFIX/.venv" in calls  # bookworm's 3.11 venv after the upgrade to trixie's 3.13
    _, calls = run_install(tmp_path, FAKE_APT_HAS="python3-picamera2 python3-lgpio", FAKE_VENV_PYTHON="3.13")
    assert "rm -rf PREFIX/.venv" not in calls
    assert "python3 -m venv --system-site-packages PREFIX/.venv" in calls


def test_no_apt_and_not_root(tmp_path: Path) -> None:
    done, calls = run_install(tmp_path, COMPANION_NO_APT="1")
    assert done.returncode == 0, done.stderr
    assert not [c for c in calls if c.startswith(("apt-get", "apt-cache"))]
    done, calls = run_install(tmp_path, FAKE_UID="1000")
    assert done.returncode == 2 and "as root" in done.stderr
    assert [c.split()[0] for c in calls] == ["id"]
