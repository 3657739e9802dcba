"""Make companion/voice/call_templates.npz: every call said by the development synthesisers.

    python -m benchmarks.voice_templates [--out FILE] [--sayings N] [--seed S]

Each development voice (espeak-ng's five, flite's four: ``voice_testset.DEV_VOICES``)
says every call of table K ``--sayings`` times, clean, at its normal speed and
pitch, with words drawn from that voice's development wordings. The kept-aside
synthesiser (festival) and wordings are never used (``test_voice_parts`` checks
the voices stored in the file). Needs espeak-ng, flite and sox.
"""

from __future__ import annotations

import argparse
import random
import sys
import tempfile
from pathlib import Path

from companion.rules import TABLE_K
from companion.voice.audio import read_wav
from companion.voice.templates import TEMPLATES, Floats, features, save

from . import voice_testset as ts


def sayings(voice: str, n: int, rng: random.Random) -> list[tuple[str, str]]:
    """(call id, text) for every call: the words drawn from the voice's development wordings."""
    table = ts.wordings(voice)
    return [
        (k, rng.choice((", ", "! ", " ")).join(rng.choice(table[w]) for w in call) + "!")
        for k, call in TABLE_K.items()
        for _ in range(n)
    ]


def build(out: Path, n: int = 3, seed: int = 11) -> int:
    ts.require_tools(ts.DEV_VOICES)
    rng = random.Random(seed)
    calls: list[str] = []
    feats: list[Floats] = []
    voices: list[str] = []
    with tempfile.TemporaryDirectory() as tmp:
        work = Path(tmp)
        for voice in ts.DEV_VOICES:
            pitch = 50 if ts.synth_of(voice) == "espeak-ng" else 0
            for k, text in sayings(voice, n, rng):
                item = ts.Item("t.wav", None, k, text, voice, 175, pitch, None, None, 0.0, "", "")
                ts.render(item, work / "t.wav", work, 0.2, 0.2)
                f = features(read_wav(work / "t.wav"))
                if f.shape[0]:
                    calls.append(k)
                    feats.append(f)
                    voices.append(voice)
    save(out, calls, feats, voices)
    return len(feats)


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(prog="python -m benchmarks.voice_templates")
    ap.add_argument("--out", type=Path, default=TEMPLATES)
    ap.add_argument("--sayings", type=int, default=3, help="sayings per call and voice")
    ap.add_argument("--seed", type=int, default=11)
    args = ap.parse_args(argv)
    n = build(args.out, args.sayings, args.seed)
    print(f"{n} templates written to {args.out}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
