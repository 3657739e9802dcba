"""The call network alone, as each draw of the fold networks hears a development synthesiser.

    python -m benchmarks.bench_callnet --synth flite|mbrola|espeak-ng [--fresh 101-112]
        [--speeds 0.95,1.05] [--draws DIR,DIR,...] [--unheard-after 133-135]

A synthesiser's development files (seeds 1-5, calls and table talk) are heard by the call
network trained without it (``models/train_callnet.py --without``) of every draw (``--draws``:
folders holding ``without-SYNTH.onnx``; by default ``callnet/``, ``callnet/s1/`` and
``callnet/s2/`` of the cache), so that they are voices it never heard. ``--fresh A-B`` hears the
synthesiser's *training* files of seeds A-B instead: that network never heard them either, and
no choice was made on them. Printed per draw and their mean: the best guess among the allowed
calls and talk (``callnet.posteriors``), right for how many calls, and how much talk it takes
for a call. ``--speeds`` also hears each file played that many times as fast (pitch moving with
it, as the training's warped copies) and averages the opinions (docs/voice.md, session 33).
``--unheard-after A-B`` also counts, apart, the calls whose every word is said in a spelling
that no call of training seeds A-B says (session 35: networks trained on the generated
spellings of 133-135, heard on 136-138's). Never the kept-aside synthesisers (festival, Pico).
"""

from __future__ import annotations

import argparse
import re
import sys
import time
from dataclasses import dataclass
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))  # run from a checkout

from benchmarks import voice_testset as ts  # noqa: E402
from benchmarks.bench_voice import CACHE, dev_parts  # noqa: E402
from benchmarks.machine import describe  # noqa: E402
from companion.rules import Call  # noqa: E402
from companion.rules.calls import call_text  # noqa: E402
from companion.voice.audio import RATE, read_wav, resample, to_int16  # noqa: E402
from companion.voice.callnet import CallNet, SpeechEmbedding, posteriors  # noqa: E402
from companion.voice.narrow import calls_for  # noqa: E402

DEV_SYNTHS = ("espeak-ng", "flite", "mbrola")
DEFAULT_DRAWS = ("callnet", "callnet/s1", "callnet/s2")
Post = dict[Call | None, float]


def train_folder(seed: int) -> Path:
    """The folder of a training seed's files, which ``models/train_callnet.py`` makes."""
    folder = CACHE / f"voice-train-seed{seed}"
    if not (folder / "manifest.jsonl").exists():
        raise SystemExit(f"{folder} is missing: python models/train_callnet.py makes it")
    return folder


def items_of(synth: str, fresh: range | None) -> list[tuple[Path, ts.Item]]:
    """(folder, item) of every file of ``synth``: development seeds 1-5, or training seeds."""
    if fresh is None:
        parts = dev_parts(ts.DEV_SEEDS, synth == "mbrola")
        return [(f, it) for _, f, its in parts for it in its if ts.synth_of(it.voice) == synth]
    out = []
    for seed in fresh:
        folder = train_folder(seed)
        out += [
            (folder, it)
            for it in ts.load(folder / "manifest.jsonl")
            if ts.synth_of(it.voice) == synth
        ]
    return out


def spellings(text: str) -> set[str]:
    """The words of a spoken call, as written, without case or punctuation ("Ph'nglui!" and
    "phnglui" are one spelling)."""
    return {w for w in (re.sub(r"[^a-z]", "", t) for t in re.split(r"[\s,!]+", text.lower())) if w}


def spellings_said(seeds: range) -> set[str]:
    """Every spelling a call of these training seeds says (their manifests' ``spoken``)."""
    out: set[str] = set()
    for seed in seeds:
        for it in ts.load(train_folder(seed) / "manifest.jsonl"):
            if it.call is not None:
                out |= spellings(it.spoken)
    return out


def played_at(samples: np.ndarray, speed: float) -> np.ndarray:
    """The samples played ``speed`` times as fast (and as high)."""
    return to_int16(resample(samples.astype(np.float64), round(RATE * speed), RATE))


def averaged(posts: list[Post]) -> Post:
    """Several hearings' log-probabilities of the same calls and talk, averaged and normalised
    again over the same calls and talk (``callnet.posteriors``)."""
    mean = {k: float(np.mean([p[k] for p in posts])) for k in posts[0]}
    return posteriors(mean, [k for k in mean if k is not None])


@dataclass
class Tally:
    calls: int = 0
    right: int = 0
    talk: int = 0
    talk_as_call: int = 0
    #: Calls said only in spellings unheard in ``--unheard-after``'s seeds, and how many right.
    unheard: int = 0
    unheard_right: int = 0

    def add(self, said: str | None, post: Post, unheard: bool = False) -> None:
        best = max(post, key=lambda k: post[k])
        heard = None if best is None else call_text(best)
        if said is None:
            self.talk += 1
            self.talk_as_call += heard is not None
        else:
            self.calls += 1
            self.right += heard == said
            self.unheard += unheard
            self.unheard_right += unheard and heard == said

    @property
    def pct(self) -> float:
        return 100 * self.right / max(1, self.calls)


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0] if __doc__ else None)
    ap.add_argument("--synth", choices=DEV_SYNTHS, required=True)
    ap.add_argument("--fresh", help="training seeds A-B instead of the development sets")
    ap.add_argument("--speeds", default="", help="e.g. 0.95,1.05: also heard at these speeds")
    ap.add_argument("--draws", default=",".join(str(CACHE / d) for d in DEFAULT_DRAWS))
    ap.add_argument(
        "--unheard-after", help="training seeds A-B: also the calls in spellings none of them says"
    )
    args = ap.parse_args(argv)
    fresh = ts.seed_range(ap, args.fresh) if args.fresh else None
    seen = spellings_said(ts.seed_range(ap, args.unheard_after)) if args.unheard_after else None
    speeds = [float(s) for s in args.speeds.split(",") if s]
    draws = [Path(d).expanduser() for d in args.draws.split(",")]
    paths = [d / f"without-{args.synth}.onnx" for d in draws]
    for p in paths:
        if not p.exists():
            raise SystemExit(
                f"{p} is missing: python models/train_callnet.py --without "
                f"{args.synth} --seed N --out {p}"
            )
    embed = SpeechEmbedding()
    nets = [CallNet(p, embed) for p in paths]
    items = items_of(args.synth, fresh)
    print(
        f"{describe()}\n{args.synth}: {len(items)} files, {len(nets)} draws, speeds {speeds}",
        flush=True,
    )
    variants = ["plain"] + (["speeds"] if speeds else [])
    tallies = {(v, d): Tally() for v in variants for d in range(len(nets))}
    t0 = time.perf_counter()
    for folder, it in items:
        allowed = calls_for(tuple(it.roll), tuple(it.layout))
        if not allowed:
            continue
        unheard = seen is not None and it.call is not None and not (spellings(it.spoken) & seen)
        x = read_wav(folder / it.file)
        embs = [embed(x)] + [embed(played_at(x, s)) for s in speeds]
        for d, net in enumerate(nets):
            posts = [posteriors(net.scores_of(net.log_probs_of(e)), allowed) for e in embs]
            tallies[("plain", d)].add(it.call, posts[0], unheard)
            if speeds:
                tallies[("speeds", d)].add(it.call, averaged(posts), unheard)
    for v in variants:
        rows = [tallies[(v, d)] for d in range(len(nets))]
        for d, t in enumerate(rows):
            print(
                f"  {v:6s} {draws[d]}: best guess {t.pct:.2f} % of {t.calls} calls; "
                f"talk heard as a call {t.talk_as_call} of {t.talk}"
                + (
                    f"; calls in unheard spellings {t.unheard_right} right of {t.unheard}"
                    if seen is not None
                    else ""
                )
            )
        print(
            f"  {v:6s} mean of {len(rows)} draws: {np.mean([t.pct for t in rows]):.2f} %, "
            f"talk heard as a call {sum(t.talk_as_call for t in rows)} in all"
        )
    print(f"  {time.perf_counter() - t0:.0f} s")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
