#!/bin/sh
# Install Table Companion as a systemd service on a Raspberry Pi: 64-bit Raspberry Pi OS bookworm (Python 3.11)
# or trixie (Python 3.13). Run from the repository root as root:  sudo systemd/install.sh
#
# Also runs on plain Debian 12 or 13 (a PC with a USB webcam, or the roots of tools/pi-check.sh): the Raspberry Pi
# packages that Debian lacks (python3-picamera2, python3-lgpio) are then skipped with a message. Safe to run again:
# it replaces the installed code, keeps /etc/companion/companion.toml and the state in /var/lib/companion, and
# rebuilds the venv when the system Python changed (an upgrade from bookworm to trixie).
#
# Environment: COMPANION_PREFIX (default /opt/companion; the unit expects the default),
# COMPANION_NO_APT=1 (the apt packages are already installed).
set -eu
PREFIX=${COMPANION_PREFIX:-/opt/companion}

[ -f pyproject.toml ] && [ -d device ] || { echo "install.sh: run it from the repository root" >&2; exit 2; }
[ "$(id -u)" = 0 ] || { echo "install.sh: run it as root (sudo systemd/install.sh)" >&2; exit 2; }

release=unknown
[ -r /etc/os-release ] && release=$(. /etc/os-release && echo "${VERSION_CODENAME:-unknown}")
case "$release" in
    bookworm | trixie) ;;
    *) echo "install.sh: warning: tested on bookworm and trixie; this is '$release'" >&2 ;;
esac
on_pi=false
grep -qs "Raspberry Pi" /proc/device-tree/model && on_pi=true

# python3-numpy: apt's numpy, the one picamera2 is built against; the venv keeps it (pyproject.toml's ranges
# accept bookworm's 1.24 and trixie's 2.2). libcairo2: cairosvg's library, for the printable mats.
packages="python3-venv python3-numpy libcairo2"
if [ "${COMPANION_NO_APT:-0}" != 1 ]; then
    apt-get update -qq
    skipped=""
    for pkg in python3-picamera2 python3-lgpio; do
        if apt-cache show "$pkg" >/dev/null 2>&1; then
            packages="$packages $pkg"
        elif $on_pi; then
            echo "install.sh: $pkg is not in this Pi's apt sources (Raspberry Pi OS has it: archive.raspberrypi.com)" >&2
            exit 1
        else
            skipped="$skipped $pkg"
        fi
    done
    [ -z "$skipped" ] || echo "install.sh: not Raspberry Pi OS, so skipped:$skipped; in /etc/companion/companion.toml" \
        "use a USB webcam ([camera] source = \"opencv:0\") and [panel] mode = \"none\" (no GPIO panel)" >&2
    # shellcheck disable=SC2086 # the list is split on purpose
    DEBIAN_FRONTEND=noninteractive apt-get install -y -q $packages
fi

python3 -c 'import sys; sys.exit(sys.version_info < (3, 11))' || {
    echo "install.sh: Python 3.11 or newer is needed; this is $(python3 -V 2>&1)" >&2; exit 1; }

# The unit runs as `companion` in the groups video (camera) and gpio (buttons, LEDs). Raspberry Pi OS has both
# groups; elsewhere gpio is made so that the unit's SupplementaryGroups= resolves.
getent group video >/dev/null || groupadd --system video
getent group gpio >/dev/null || groupadd --system gpio
id companion >/dev/null 2>&1 || useradd --system --home-dir "$PREFIX" --shell /usr/sbin/nologin companion
usermod -a -G video,gpio companion

# The code: replaced whole, so that files removed from the repository do not linger.
mkdir -p "$PREFIX" /etc/companion
for part in engine vision device web models docs build table_companion.egg-info; do rm -rf "${PREFIX:?}/$part"; done
cp -r engine vision device web models docs pyproject.toml README.md "$PREFIX"/

# picamera2 and lgpio come from apt, so the venv sees the system site packages. A venv of another Python (made
# before a release upgrade) is made again.
want=$(python3 -c 'import sys; print("%d.%d" % sys.version_info[:2])')
have=$("$PREFIX/.venv/bin/python" -c 'import sys; print("%d.%d" % sys.version_info[:2])' 2>/dev/null || true)
[ "$have" = "$want" ] || rm -rf "$PREFIX/.venv"
python3 -m venv --system-site-packages "$PREFIX/.venv"
# pip always reinstalls a project given as a folder; the dependencies are not upgraded, so apt's numpy stays
# when it satisfies pyproject.toml.
"$PREFIX/.venv/bin/pip" install --quiet --disable-pip-version-check "$PREFIX"
"$PREFIX/.venv/bin/python" -c 'import numpy, sys; print("numpy", numpy.__version__, "from", numpy.__file__, file=sys.stderr)'

[ -f /etc/companion/companion.toml ] || cp device/companion.toml /etc/companion/companion.toml
install -D -m 0644 systemd/companion.service /etc/systemd/system/companion.service
if [ -d /run/systemd/system ]; then
    systemctl daemon-reload
    systemctl enable companion.service
    systemctl restart companion.service
    echo "Table Companion installed and running; page on port 8080. Logs: journalctl -u companion -f"
else
    # A chroot or a container without systemd running: the unit is in place for the next boot.
    command -v systemctl >/dev/null && systemctl enable companion.service
    echo "Table Companion installed in $PREFIX; systemd is not running here, so the service was not started."
fi
