#!/usr/bin/env bash
# System tools the test suite drives (shellcheck, tmux, espeak-ng, flite, sox, systemd-analyze).
# Installs the missing ones from Debian's packages only when CI=true or a person at
# the terminal says yes; otherwise prints the command. Tests needing a missing tool skip.
set -uo pipefail

declare -A PKG=([shellcheck]=shellcheck [tmux]=tmux [espeak-ng]=espeak-ng [flite]=flite [sox]=sox
                [systemd-analyze]=systemd)
missing=()
for tool in "${!PKG[@]}"; do
    command -v "$tool" >/dev/null 2>&1 || missing+=("${PKG[$tool]}")
done
[ "${#missing[@]}" -eq 0 ] && exit 0
cmd="apt-get install -y --no-install-recommends ${missing[*]}"
# Installing system packages is asked for, never assumed: CI (CI=true) installs,
# a person at a terminal is asked, anything else is told the command.
if [ "$(id -u)" -ne 0 ] || ! command -v apt-get >/dev/null 2>&1; then
    echo "sysdeps: missing ${missing[*]}; tests needing them skip. To run them: sudo $cmd" >&2
    exit 0
fi
if [ "${CI:-}" != "true" ]; then
    answer=n
    if [ -t 0 ]; then
        read -r -p "sysdeps: the tests also use ${missing[*]}; install them with apt-get now? [y/N] " answer || answer=n
    fi
    if [ "$answer" != "y" ] && [ "$answer" != "Y" ]; then
        echo "sysdeps: not installing; tests needing ${missing[*]} skip. To run them: $cmd" >&2
        exit 0
    fi
fi
echo "sysdeps: installing ${missing[*]}"
export DEBIAN_FRONTEND=noninteractive
apt-get update -qq >/dev/null 2>&1 || true
apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null 2>&1 ||
    echo "sysdeps: apt-get could not install ${missing[*]}; tests needing them skip" >&2
exit 0
