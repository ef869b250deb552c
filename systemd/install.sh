#!/bin/sh
# Install Table Companion as a systemd service on a Raspberry Pi (64-bit Raspberry Pi OS, bookworm).
# Run from the repository root as root:  sudo systemd/install.sh
set -eu
PREFIX=/opt/companion
apt-get install -y python3-venv python3-picamera2 python3-lgpio
id companion >/dev/null 2>&1 || useradd --system --home-dir "$PREFIX" --shell /usr/sbin/nologin companion
usermod -a -G video,gpio companion
mkdir -p "$PREFIX" /etc/companion
cp -r engine vision device web models pyproject.toml README.md docs "$PREFIX"/
# picamera2 and lgpio come from apt, so the venv sees the system site packages.
python3 -m venv --system-site-packages "$PREFIX/.venv"
"$PREFIX/.venv/bin/pip" install --quiet "$PREFIX"
[ -f /etc/companion/companion.toml ] || cp device/companion.toml /etc/companion/companion.toml
install -m 0644 systemd/companion.service /etc/systemd/system/companion.service
systemctl daemon-reload
systemctl enable --now companion.service
echo "Table Companion installed; page on port 8080. Logs: journalctl -u companion -f"
