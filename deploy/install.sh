#!/usr/bin/env bash
# Install the companion on Raspberry Pi OS (Bookworm or later, 64-bit).
#
#   sudo deploy/install.sh             install or update (idempotent)
#   sudo deploy/install.sh --dry-run   print every step, change nothing
#   sudo deploy/install.sh --uninstall remove what it added, keep the game databases
#   sudo deploy/install.sh --uninstall --purge   ... and the databases too
#   deploy/install.sh --print-unit     print the service unit as it would be installed
#
# Layout on the Pi:
#   /opt/companion/src    this repository (the model in models/ stays beside the code)
#   /opt/companion/venv   venv with --system-site-packages: picamera2/libcamera come from apt
#   /var/lib/companion    home of user companion: data/companion (games database),
#                         config/companion (calibration, enrolment profile, table key)
# COMPANION_PREFIX and COMPANION_DATA move the first two, COMPANION_VOICE=1 turns voice on;
# the service unit is written from systemd/companion.service.in with them.
set -euo pipefail

PREFIX=${COMPANION_PREFIX:-/opt/companion}
DATA=${COMPANION_DATA:-/var/lib/companion}
UNIT_DIR=${COMPANION_UNIT_DIR:-/etc/systemd/system}
# COMPANION_VOICE=1: the secretary hears the calls (companion play --voice, a USB microphone);
# only then is the service in the audio group and allowed the sound devices.
VOICE=${COMPANION_VOICE:-0}
USER_NAME=companion
SRC_DIR="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
APT_PACKAGES=(python3-picamera2 python3-venv python3-pip python3-numpy rsync)

dry_run=0
mode=install
purge=0

usage() {
    sed -n '2,10p' "$0" | sed 's/^# \{0,1\}//'
}

for arg in "$@"; do
    case "$arg" in
        --dry-run) dry_run=1 ;;
        --uninstall) mode=uninstall ;;
        --purge) purge=1 ;;
        --print-unit) mode=print-unit ;;
        -h | --help) usage; exit 0 ;;
        *) echo "install.sh: unknown option '$arg' (see --help)" >&2; exit 2 ;;
    esac
done

# Every change goes through run: --dry-run prints it instead.
run() {
    if [ "$dry_run" -eq 1 ]; then
        printf '[dry-run] %s\n' "$*"
    else
        printf '+ %s\n' "$*"
        "$@"
    fi
}

step() {
    printf '==> %s\n' "$*"
}

need_root() {
    if [ "$dry_run" -eq 0 ] && [ "$(id -u)" -ne 0 ]; then
        echo "install.sh: run it with sudo: it installs packages, a user and a service." >&2
        exit 1
    fi
}

# The unit with this install's paths (systemd/companion.service.in).
render_unit() {
    local audio_group="" voice_flag="" alsa="# without voice: "
    if [ "$VOICE" = 1 ]; then
        audio_group=" audio" voice_flag=" --voice" alsa=""
    fi
    sed -e "s#@PREFIX@#$PREFIX#g" -e "s#@DATA@#$DATA#g" -e "s#@AUDIO_GROUP@#$audio_group#g" \
        -e "s#@VOICE_FLAG@#$voice_flag#g" -e "s|@ALSA@|$alsa|g" "$SRC_DIR/systemd/companion.service.in"
}

have_user() {
    id -u "$USER_NAME" >/dev/null 2>&1
}

install_all() {
    step "Packages from apt (picamera2 and libcamera come from the OS)"
    run apt-get update
    run apt-get install -y --no-install-recommends "${APT_PACKAGES[@]}"

    local groups=video
    [ "$VOICE" = 1 ] && groups=video,audio
    step "User $USER_NAME in the groups it needs only: $groups (camera$([ "$VOICE" = 1 ] && echo ', microphone'))"
    if have_user; then
        # -G without -a: exactly these groups (older installs added tty, input and audio)
        run usermod -G "$groups" "$USER_NAME"
    else
        run useradd --system --home-dir "$DATA" --shell /usr/sbin/nologin \
            --groups "$groups" "$USER_NAME"
    fi

    step "Code in $PREFIX/src"
    run mkdir -p "$PREFIX/src"
    run rsync -a --delete --exclude .venv --exclude .git "$SRC_DIR/" "$PREFIX/src/"

    step "Venv with system site packages in $PREFIX/venv"
    if [ ! -x "$PREFIX/venv/bin/python" ]; then
        run python3 -m venv --system-site-packages "$PREFIX/venv"
    fi
    run "$PREFIX/venv/bin/pip" install --upgrade pip
    run "$PREFIX/venv/bin/pip" install -e "$PREFIX/src[pi]"

    step "Data folder $DATA (0700), the default calibration and the table key (0600)"
    run install -d -o "$USER_NAME" -g "$USER_NAME" -m 0700 "$DATA" "$DATA/data" "$DATA/config" \
        "$DATA/data/companion" "$DATA/config/companion"
    # A calibration made on this Pi is never overwritten by the default.
    if [ ! -e "$DATA/config/companion/calibration.json" ]; then
        run install -o "$USER_NAME" -g "$USER_NAME" -m 0600 \
            "$SRC_DIR/calibration/default.json" "$DATA/config/companion/calibration.json"
    fi
    # The key that seals this table's games (docs/verify.md); never replaced once made.
    if [ ! -e "$DATA/config/companion/table.key" ]; then
        run "$PREFIX/venv/bin/companion" key new --out "$DATA/config/companion/table.key"
        run chown "$USER_NAME:$USER_NAME" "$DATA/config/companion/table.key"
    fi

    step "Service on tty1 ($UNIT_DIR/companion.service, from systemd/companion.service.in)"
    if [ "$dry_run" -eq 1 ]; then
        printf '[dry-run] %s\n' "render_unit > $UNIT_DIR/companion.service"
    else
        printf '+ %s\n' "render_unit > $UNIT_DIR/companion.service"
        mkdir -p "$UNIT_DIR"
        render_unit > "$UNIT_DIR/companion.service"
        chmod 0644 "$UNIT_DIR/companion.service"
    fi
    run systemctl daemon-reload
    run systemctl enable companion.service
    run systemctl restart companion.service
    step "Done: the secretary starts on the screen. Check it with: $PREFIX/venv/bin/companion doctor"
}

uninstall_all() {
    step "Service"
    run systemctl disable --now companion.service || true
    run rm -f "$UNIT_DIR/companion.service"
    run systemctl daemon-reload
    step "Code and venv"
    run rm -rf "$PREFIX"
    if [ "$purge" -eq 1 ]; then
        step "Data, games databases included (--purge)"
        run rm -rf "$DATA"
    else
        step "Keeping the game databases in $DATA (add --purge to remove them)"
    fi
    step "User $USER_NAME"
    if have_user; then
        run userdel "$USER_NAME"
    fi
    step "Done: getty on tty1 comes back at the next boot (or: systemctl start getty@tty1)"
}

if [ "$mode" = print-unit ]; then
    render_unit
    exit 0
fi
need_root
if [ "$mode" = install ]; then
    install_all
else
    uninstall_all
fi
