#!/bin/bash
# The Raspberry Pi install on both Raspberry Pi OS releases, checked on a PC: builds a Debian bookworm and a
# Debian trixie root with debootstrap (amd64: this checks the software versions, not the Pi's CPU), runs
# systemd/install.sh in each as the Pi install does (apt packages, the `companion` user, a venv with
# --system-site-packages in /opt/companion, the config and the unit), twice (it must be safe to run again),
# then reads the dice of real photos (tests/data/photos) with the installed `companion recognize` and compares
# them with the photos' labels. Raspberry Pi OS adds python3-picamera2 and python3-lgpio to Debian; they are not
# in Debian's archive, so here apt's python3-numpy (what picamera2 pulls in) stands for them.
#
#   sudo tools/pi-check.sh [--ref REF] [RELEASE...]     (default: bookworm trixie; `make pi-check`)
#
# --ref REF installs the committed tree at REF (git archive) instead of the working tree as it is.
# Roots are kept between runs in $PI_CHECK_DIR (default /var/tmp/companion-pi-check, about 400 MB each);
# delete the folder to start from nothing. Needs root, debootstrap (apt-get install debootstrap), Debian's
# archive ($PI_CHECK_MIRROR, default http://deb.debian.org/debian) and PyPI. Not part of `make test`.
set -euo pipefail

DIR=${PI_CHECK_DIR:-/var/tmp/companion-pi-check}
MIRROR=${PI_CHECK_MIRROR:-http://deb.debian.org/debian}
REPO=$(cd "$(dirname "$0")/.." && pwd)
REF=
RELEASES=()
while [ $# -gt 0 ]; do
    case "$1" in
        --ref) REF=$2; shift 2 ;;
        -h | --help) sed -n '2,17p' "$0" | sed 's/^# \{0,1\}//'; exit 0 ;;
        -*) echo "pi-check: unknown option $1" >&2; exit 2 ;;
        *) RELEASES+=("$1"); shift ;;
    esac
done
[ ${#RELEASES[@]} -gt 0 ] || RELEASES=(bookworm trixie)
# The photos the recogniser reads exactly as labelled on the development PC; the fourth test photo has a die the
# detector misses (docs/vision.md) and is read and reported, not required.
REQUIRED="IMG_20191209_095414.jpg,IMG_20191208_112305.jpg,IMG_20191208_112332.jpg"

[ "$(id -u)" = 0 ] || { echo "pi-check: needs root (debootstrap, chroot)" >&2; exit 2; }
command -v debootstrap >/dev/null || { echo "pi-check: needs debootstrap (apt-get install debootstrap)" >&2; exit 2; }
mkdir -p "$DIR"

MOUNTED=()
cleanup() {
    local m
    for m in "${MOUNTED[@]}"; do umount -l "$m" 2>/dev/null || true; done
}
trap cleanup EXIT

# A proxy the host goes through, and local CA certificates the host trusts (a TLS-inspecting proxy), are passed
# into the roots; nothing else of the host's set-up is.
PASS_ENV=()
for var in http_proxy https_proxy no_proxy HTTP_PROXY HTTPS_PROXY NO_PROXY; do
    [ -n "${!var:-}" ] && PASS_ENV+=("$var=${!var}")
done
LOCAL_CAS=(/usr/local/share/ca-certificates/*.crt)
[ -e "${LOCAL_CAS[0]}" ] || LOCAL_CAS=()
[ ${#LOCAL_CAS[@]} -eq 0 ] || PASS_ENV+=(PIP_CERT=/etc/ssl/certs/ca-certificates.crt)

in_root() {  # in_root ROOT COMMAND...: a clean environment, as a root shell on the Pi would have
    local root=$1; shift
    chroot "$root" /usr/bin/env -i PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin \
        HOME=/root LANG=C.UTF-8 TERM=dumb "${PASS_ENV[@]}" "$@"
}

check_release() {
    local rel=$1 root="$DIR/$1" log="$DIR/$1.log" src=/src/table-companion start
    start=$(date +%s)
    : >"$log"
    if [ ! -e "$root/.pi-check-root" ]; then
        echo "[$rel] debootstrap into $root (a few minutes)"
        rm -rf "$root"
        debootstrap --variant=minbase --include=ca-certificates "$rel" "$root" "$MIRROR" >>"$log" 2>&1
        printf '#!/bin/sh\nexit 101\n' >"$root/usr/sbin/policy-rc.d"  # apt starts no services in the root
        chmod +x "$root/usr/sbin/policy-rc.d"
        touch "$root/.pi-check-root"
    fi
    cp /etc/resolv.conf "$root/etc/resolv.conf"
    if [ ${#LOCAL_CAS[@]} -gt 0 ]; then
        cp "${LOCAL_CAS[@]}" "$root/usr/local/share/ca-certificates/"
        in_root "$root" update-ca-certificates >>"$log" 2>&1
    fi
    local m
    for m in proc dev; do
        if ! mountpoint -q "$root/$m"; then
            if [ $m = proc ]; then mount -t proc proc "$root/proc"; else mount --bind /dev "$root/dev"; fi
            MOUNTED+=("$root/$m")
        fi
    done

    echo "[$rel] copying the ${REF:-working tree} into $src"
    rm -rf "${root:?}$src"
    mkdir -p "$root$src"
    if [ -n "$REF" ]; then
        git -C "$REPO" archive "$REF" | tar -x -C "$root$src"
    else
        (cd "$REPO" && git ls-files -z -co --exclude-standard | tar --null --ignore-failed-read -T - -cf - 2>/dev/null) |
            tar -x -C "$root$src"
    fi

    local n
    for n in 1 2; do
        echo "[$rel] systemd/install.sh, run $n (log: $log)"
        if ! in_root "$root" sh -c "cd $src && sh systemd/install.sh" >>"$log" 2>&1; then
            echo "[$rel] FAIL: install.sh run $n failed; the end of $log:" >&2
            tail -n 25 "$log" >&2
            return 1
        fi
    done
    in_root "$root" test -f /etc/companion/companion.toml -a -f /etc/systemd/system/companion.service
    in_root "$root" id companion >>"$log"

    echo "[$rel] reading the photos with the installed companion"
    local reads="$DIR/$rel-read.jsonl"
    in_root "$root" sh -c "/opt/companion/.venv/bin/companion recognize $src/tests/data/photos/*.jpg --json" >"$reads"
    in_root "$root" /opt/companion/.venv/bin/python - <<'EOF' >"$DIR/$rel-versions.txt"
import platform, subprocess
from importlib.metadata import version
import cairosvg, cv2, numpy, onnxruntime  # noqa: F401  (all import; cairosvg: the mats' PDF needs libcairo2)
dpkg = subprocess.run(["dpkg-query", "-W", "-f", "${Package} ${Version}\n", "python3", "python3-numpy",
                       "python3-venv", "python3-pip-whl", "libcairo2"], capture_output=True, text=True).stdout
print("os: Debian", open("/etc/debian_version").read().strip(), platform.machine())
print("python:", platform.python_version(), "pip:", version("pip"))
print("numpy:", numpy.__version__, "from", numpy.__file__)
print("pip installed:", ", ".join(f"{d} {version(d)}" for d in ("opencv-python-headless", "onnxruntime", "flask",
                                                              "waitress", "gpiozero", "drawsvg", "cairosvg")))
print("apt:", ", ".join(dpkg.split("\n")[:-1]))
EOF
    in_root "$root" /opt/companion/.venv/bin/pip freeze --all >"$DIR/$rel-freeze.txt" 2>/dev/null || true
    cat "$DIR/$rel-versions.txt" | sed "s/^/[$rel] /"
    echo "[$rel] the demo in the root: companion run --demo, then GET /healthz"
    if ! in_root "$root" /opt/companion/.venv/bin/python - <<'EOF' 2>&1 | sed "s/^/[$rel] /"; then
import json, subprocess, sys, time, urllib.request
port = 18731
demo = subprocess.Popen(["/opt/companion/.venv/bin/companion", "run", "--demo", "--port", str(port)],
                        stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
healthy = None
try:
    deadline = time.time() + 90
    while healthy is None and time.time() < deadline and demo.poll() is None:
        try:
            with urllib.request.urlopen(f"http://127.0.0.1:{port}/healthz", timeout=2) as reply:
                health = json.load(reply)
            if health.get("ok"):
                healthy = health
        except OSError:
            time.sleep(1)
finally:
    demo.terminate()
    output = demo.communicate(timeout=30)[0]
if healthy is None:
    print("demo: /healthz never ok; its output:\n" + output)
    sys.exit(1)
print(f"demo: /healthz ok (camera {healthy['camera']['status']}, game {healthy['engine']['game']}, storage "
      f"{healthy['storage']['status']}); stopped with status {demo.returncode}")
EOF
        echo "[$rel] FAIL: the demo did not come up" >&2
        return 1
    fi
    cp "$REPO/tools/pi_check_compare.py" "$root/tmp/pi_check_compare.py"
    if in_root "$root" /opt/companion/.venv/bin/python /tmp/pi_check_compare.py \
        "$src/tests/data/photos/manifest.jsonl" --require "$REQUIRED" <"$reads" | sed "s/^/[$rel] /"; then
        echo "[$rel] PASS in $(($(date +%s) - start)) s"
    else
        echo "[$rel] FAIL: the photos were not read as labelled (or numpy is not apt's)" >&2
        return 1
    fi
}

status=0
for rel in "${RELEASES[@]}"; do
    check_release "$rel" || status=1
    cleanup
    MOUNTED=()
done
exit $status
