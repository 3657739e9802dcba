#!/usr/bin/env bash
# System tools the test suite drives (shellcheck, tmux, espeak-ng, sox, systemd-analyze).
# Installs the missing ones from Debian's packages when it can; tests that need a
# tool still missing afterwards skip with the reason.
set -uo pipefail

declare -A PKG=([shellcheck]=shellcheck [tmux]=tmux [espeak-ng]=espeak-ng [sox]=sox
                [systemd-analyze]=systemd)
missing=()
for tool in "${!PKG[@]}"; do
    command -v "$tool" >/dev/null 2>&1 || missing+=("${PKG[$tool]}")
done
[ "${#missing[@]}" -eq 0 ] && exit 0
if [ "$(id -u)" -ne 0 ] || ! command -v apt-get >/dev/null 2>&1; then
    echo "sysdeps: missing ${missing[*]}; install them for the full test suite (tests needing them skip)" >&2
    exit 0
fi
echo "sysdeps: installing ${missing[*]}"
export DEBIAN_FRONTEND=noninteractive
apt-get update -qq >/dev/null 2>&1 || true
apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null 2>&1 ||
    echo "sysdeps: apt-get could not install ${missing[*]}; tests needing them skip" >&2
exit 0
