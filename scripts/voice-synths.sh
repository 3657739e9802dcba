#!/usr/bin/env bash
# The extra speech synthesisers of the voice benchmarks (docs/voice.md): festival and its
# three voices (kept aside for testing only), MBROLA's
# diphone voices (development and training), RHVoice's voices of English and seven
# other languages (training the call network only) and SVOX Pico (kept aside for testing only). None is needed to run
# the companion or its tests. They live in Debian's contrib and non-free components
# (MBROLA's voices, RHVoice's and Pico's data may not be modified), so this
# adds those components to apt's sources first, in a file of its own.
#
#     sudo scripts/voice-synths.sh
set -euo pipefail

if [ "$(id -u)" -ne 0 ]; then
    echo "voice-synths: run as root (sudo scripts/voice-synths.sh)" >&2
    exit 1
fi
if ! command -v apt-get >/dev/null 2>&1; then
    echo "voice-synths: needs Debian's apt-get" >&2
    exit 1
fi
# shellcheck source=/dev/null
. /etc/os-release
sources=/etc/apt/sources.list.d/companion-voice-synths.sources
if [ ! -e "$sources" ]; then
    cat >"$sources" <<EOF
Types: deb
URIs: http://deb.debian.org/debian
Suites: ${VERSION_CODENAME:-bookworm}
Components: contrib non-free
Signed-By: /usr/share/keyrings/debian-archive-keyring.gpg
EOF
fi
export DEBIAN_FRONTEND=noninteractive
apt-get update -qq
apt-get install -y -qq --no-install-recommends espeak-ng sox flite libttspico-utils mbrola \
    festival festvox-kallpc16k festvox-kdlpc16k festvox-us-slt-hts \
    mbrola-us1 mbrola-us2 mbrola-us3 mbrola-en1 mbrola-de2 mbrola-de6 \
    mbrola-de1 mbrola-de3 mbrola-de4 mbrola-de5 mbrola-de7 mbrola-de8 \
    mbrola-af1 mbrola-fr1 mbrola-fr4 mbrola-gr2 mbrola-hu1 mbrola-nl2 mbrola-pl1 mbrola-ro1 \
    mbrola-sw1 mbrola-sw2 rhvoice rhvoice-english \
    rhvoice-polish rhvoice-russian rhvoice-ukrainian rhvoice-macedonian \
    rhvoice-brazilian-portuguese rhvoice-esperanto rhvoice-albanian
echo "voice-synths: festival (kal_diphone, ked_diphone, cmu_us_slt_arctic_hts), flite, pico2wave, RHVoice-test (8 languages) and MBROLA's voices us1 us2 us3 en1 de1-de8 af1 fr1 fr4 gr2 hu1 nl2 pl1 ro1 sw1 sw2 are installed"
