"""MLLR adaptation of pocketsphinx's en-us model to development speech: does it carry over?

    python -m benchmarks.voice_adapt --cross              # adapt on espeak-ng, hear flite; and back
    python -m benchmarks.voice_adapt --held-out VOICE,…   # adapt on the other eight voices
    python -m benchmarks.voice_adapt --per-voice VOICE,…  # a voice's seeds 1-2 -> its seeds 3-5

A global MLLR transform (one affine map of every Gaussian mean, with
sphinxtrain's ``bw`` and ``mllr_solve``) is estimated on development calls
(espeak-ng and flite, ``voice_testset.DEV_VOICES``) and measured as the best
guess among the allowed calls (the recognizer's first search, with
--roll/--layout) on speech it was not estimated on. The kept-aside festival
set is never read here. Each call's transcript is the pronunciation the
recognizer itself chooses for the call that was said (a search of that call
alone), so ``bw`` aligns the words as the decoder would.

Needs the Debian packages sphinxtrain (bw, mllr_solve), sphinxbase-utils
(sphinx_fe: the same MFCCs as pocketsphinx 5, checked score for score) and
pocketsphinx (pocketsphinx_mdef_convert): only to make a transform, never to
hear. pocketsphinx's own model ships its mixture weights as ``sendump``;
``bw`` wants them as a Sphinx-III ``mixture_weights`` file, made here.
"""

from __future__ import annotations

import argparse
import multiprocessing
import shutil
import struct
import subprocess
import sys
import tempfile
from collections.abc import Callable
from pathlib import Path
from typing import Any, TypeVar

import numpy as np
import numpy.typing as npt

from companion.rules import TABLE_K, Call, call_text
from companion.voice.audio import read_wav

from . import voice_testset as ts
from .bench_voice import dev_set, ensure_dev, situation_calls

BW = Path("/usr/lib/sphinxtrain/bw")
MLLR_SOLVE = Path("/usr/lib/sphinxtrain/mllr_solve")
TOOLS = ("sphinx_fe", "pocketsphinx_mdef_convert")
# The en-us model's front end (its feat.params) for sphinx_fe; pocketsphinx 5
# removes no silence, so neither may sphinx_fe.
FRONT_END = [
    "-samprate",
    "16000",
    "-lowerf",
    "130",
    "-upperf",
    "6800",
    "-nfilt",
    "25",
    "-transform",
    "dct",
    "-lifter",
    "22",
    "-remove_noise",
    "yes",
    "-remove_silence",
    "no",
]
MODEL_ARGS = [
    "-ts2cbfn",
    ".ptm.",
    "-feat",
    "1s_c_d_dd",
    "-svspec",
    "0-12/13-25/26-38",
    "-cmn",
    "batch",
    "-agc",
    "none",
]
# sendump stores each weight as a byte b: -log1.0001(w) = b << SHIFT.
SHIFT = 10

Floats = npt.NDArray[np.float64]
J = TypeVar("J")
T = TypeVar("T")


def mixture_weights(sendump: bytes) -> Floats:
    """pocketsphinx's ``sendump`` as weights [senone, stream, codeword], each row summing to 1."""
    at = 0

    def string() -> bytes:
        nonlocal at
        (n,) = struct.unpack_from("<I", sendump, at)
        at += 4 + n
        return sendump[at - n : at]

    string()  # the title
    header = []
    while s := string():
        header.append(s.rstrip(b"\0").decode("ascii", "replace"))
    fields = dict(h.split(" ", 1) for h in header if " " in h)
    if int(fields.get("cluster_count", "0")) != 0:
        raise ValueError("clustered sendump files are not handled")
    streams = int(fields.get("feature_count", "1"))
    codewords, senones = struct.unpack_from("<II", sendump, at)
    at += 8
    data = np.frombuffer(sendump, dtype=np.uint8, count=streams * codewords * senones, offset=at)
    w = np.power(1.0001, -(data.astype(np.float64) * (1 << SHIFT)))
    w = w.reshape(streams, codewords, senones).transpose(2, 0, 1)
    return np.asarray(w / w.sum(axis=2, keepdims=True))


def s3_array(a: Floats) -> bytes:
    """A 3-D array as a Sphinx-III parameter file (no checksum), as sphinxtrain reads it."""
    head = b"s3\nversion 1.0\n"
    pad = -(len(head) + len(b"endhdr\n")) % 4  # the data starts on a 4-byte boundary
    return (
        head
        + b" " * pad
        + b"endhdr\n"
        + struct.pack("<i", 0x11223344)
        + struct.pack("<IIII", *a.shape, a.size)
        + a.astype("<f4").tobytes()
    )


def base_model(out: Path) -> Path:
    """The en-us model in the files bw reads (text mdef, mixture_weights)."""
    from companion.voice.recognizer import pocketsphinx_module

    src = Path(pocketsphinx_module().get_model_path("en-us/en-us"))
    out.mkdir(parents=True, exist_ok=True)
    for name in ("means", "variances", "transition_matrices", "noisedict"):
        shutil.copy(src / name, out / name)
    subprocess.run(
        ["pocketsphinx_mdef_convert", "-text", str(src / "mdef"), str(out / "mdef.txt")],
        check=True,
        capture_output=True,
    )
    (out / "mixture_weights").write_bytes(s3_array(mixture_weights((src / "sendump").read_bytes())))
    return out


def transcript(words: list[str]) -> str:
    """bw's transcript line from the decoder's words: pronunciations and pauses kept."""
    kept = [w for w in words if w == "<sil>" or not w.startswith(("<", "[", "+", "("))]
    return " ".join(["<s>", *kept, "</s>"])


Job = tuple[Path, ts.Item]
_WORKER: dict[str, Any] = {}


def _map(fn: Callable[[J], T], jobs: list[J], workers: int) -> list[T]:
    with multiprocessing.get_context("fork").Pool(workers) as pool:
        return pool.map(fn, jobs, chunksize=8)


def calls_of(seeds: tuple[int, ...], voices: set[str]) -> list[Job]:
    """The development calls (no table talk) of these voices."""
    return [
        (dev_set(s), it)
        for s in seeds
        for it in ensure_dev(s)
        if it.call is not None and it.voice in voices
    ]


def _call(text: str) -> Call:
    return next(c for c in TABLE_K.values() if call_text(c) == text)


def _prepare(job: tuple[Path, ts.Item, Path]) -> tuple[str, str] | None:
    from companion.voice import recognizer as r

    folder, it, work = job
    rec = _WORKER.get("rec") or _WORKER.setdefault("rec", r.Recognizer())
    raw = rec._with_floor(read_wav(folder / it.file))  # what the recognizer decodes
    assert it.call is not None
    rec._activate((_call(it.call),))
    words = r._decode(rec._calls, raw, rec._log)
    if not words:
        return None
    uid = f"{folder.name}_{Path(it.file).stem}"
    (work / f"{uid}.raw").write_bytes(raw)
    return uid, transcript([w for w, *_ in words])


def accumulate(jobs: list[Job], work: Path, base: Path, workers: int) -> Path:
    """bw's statistics of these calls under the en-us model, in ``work/acc``."""
    work.mkdir(parents=True, exist_ok=True)
    from companion.voice.lexicon import dictionary_text

    done = [u for u in _map(_prepare, [(f, it, work) for f, it in jobs], workers) if u]
    (work / "ctl").write_text("".join(f"{u}\n" for u, _ in done))
    (work / "lsn").write_text("".join(f"{t} ({u})\n" for u, t in done))
    (work / "dict").write_text(dictionary_text())
    d = str(work)
    fe = ["sphinx_fe", "-c", f"{d}/ctl", "-di", d, "-do", d, "-ei", "raw", "-eo", "mfc", "-raw"]
    subprocess.run([*fe, "yes", *FRONT_END], check=True, capture_output=True)
    acc = work / "acc"
    acc.mkdir(exist_ok=True)
    bw = [str(BW), "-hmmdir", str(base), "-moddeffn", str(base / "mdef.txt"), *MODEL_ARGS]
    bw += ["-dictfn", f"{d}/dict", "-fdictfn", str(base / "noisedict"), "-ctlfn", f"{d}/ctl"]
    bw += ["-lsnfn", f"{d}/lsn", "-cepdir", d, "-accumdir", str(acc), "-timing", "no"]
    subprocess.run(bw, check=True, capture_output=True)
    print(f"  bw: {len(done)} of {len(jobs)} calls aligned", flush=True)
    return acc


def solve(accs: list[Path], base: Path, out: Path, multiply: bool = True) -> Path:
    """One global MLLR transform of the means from these statistics (shift only if not multiply)."""
    run = [str(MLLR_SOLVE), "-meanfn", str(base / "means"), "-varfn", str(base / "variances")]
    run += ["-outmllrfn", str(out), "-mllrmult", "yes" if multiply else "no"]
    subprocess.run([*run, "-accumdir", ",".join(map(str, accs))], check=True, capture_output=True)
    return out


def _guess(job: tuple[Path, ts.Item, str]) -> bool:
    """The first search's best call among the allowed ones, with the transform (or none)."""
    from companion.voice import recognizer as r
    from companion.voice.lexicon import dictionary_text, parse_tokens

    folder, it, mllr = job
    rec = _WORKER.get(mllr)
    if rec is None:
        rec = _WORKER[mllr] = r.Recognizer()
        if mllr:
            ps = r.pocketsphinx_module()
            with tempfile.NamedTemporaryFile("w", suffix=".dict") as d:
                d.write(dictionary_text())
                d.flush()
                rec._calls = ps.Decoder(
                    hmm=ps.get_model_path("en-us/en-us"),
                    dict=d.name,
                    lm=None,
                    wip=r.WORD_PENALTY,
                    topn=r.TOPN,
                    mllr=mllr,
                    **r._COMMON,
                )
    raw = rec._with_floor(read_wav(folder / it.file))
    rec._activate(situation_calls(it, True))
    best = parse_tokens(" ".join(w for w, *_ in r._decode(rec._calls, raw, rec._log)))
    return best is not None and call_text(best) == it.call


def best_guess(jobs: list[Job], mllr: Path | None, workers: int) -> int:
    return sum(_map(_guess, [(f, it, str(mllr or "")) for f, it in jobs], workers))


def _line(label: str, jobs: list[Job], right: int, before: int) -> None:
    n = len(jobs)
    print(
        f"  {label}: best guess {before}/{n} = {100 * before / n:.1f} % without, "
        f"{right}/{n} = {100 * right / n:.1f} % with the transform",
        flush=True,
    )


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(prog="python -m benchmarks.voice_adapt")
    ap.add_argument(
        "--cross", action="store_true", help="espeak-ng -> flite and flite -> espeak-ng"
    )
    ap.add_argument("--held-out", default="", help="voices, each adapted on the other eight")
    ap.add_argument("--per-voice", default="", help="voices, each adapted on its seeds 1-2")
    ap.add_argument("--shift-only", action="store_true", help="MLLR shift, no matrix")
    ap.add_argument("--work", type=Path, default=Path(tempfile.gettempdir()) / "voice-adapt")
    ap.add_argument("--workers", type=int, default=2)
    args = ap.parse_args(argv)
    missing = [t for t in TOOLS if shutil.which(t) is None] + [
        str(p) for p in (BW, MLLR_SOLVE) if not p.exists()
    ]
    if missing:
        print(
            f"voice_adapt: missing {', '.join(missing)} (apt-get install sphinxtrain "
            "sphinxbase-utils pocketsphinx)",
            file=sys.stderr,
        )
        return 2
    base = base_model(args.work / "base")
    every = ts.DEV_SEEDS
    by_synth = {
        s: {v for v in ts.DEV_VOICES if ts.synth_of(v) == s} for s in ("espeak-ng", "flite")
    }
    acc: dict[str, Path] = {}

    def stats(voice: str) -> Path:
        if voice not in acc:
            work = args.work / voice.replace(":", "_").replace("+", "_")
            acc[voice] = accumulate(calls_of(every, {voice}), work, base, args.workers)
        return acc[voice]

    def heard(label: str, jobs: list[Job], transform: Path) -> None:
        """The best guess on ``jobs`` with the transform and without it."""
        with_t = best_guess(jobs, transform, args.workers)
        _line(label, jobs, with_t, best_guess(jobs, None, args.workers))

    mult = not args.shift_only
    if args.cross:
        for src, dst in (("espeak-ng", "flite"), ("flite", "espeak-ng")):
            t = solve(
                [stats(v) for v in sorted(by_synth[src])], base, args.work / f"mllr-{src}", mult
            )
            heard(f"adapted on {src}, heard {dst}", calls_of(every, by_synth[dst]), t)
    for voice in filter(None, args.held_out.split(",")):
        others = [stats(v) for v in ts.DEV_VOICES if v != voice]
        t = solve(others, base, args.work / f"mllr-without-{voice}", mult)
        heard(f"{voice} held out", calls_of(every, {voice}), t)
    for voice in filter(None, args.per_voice.split(",")):
        own = accumulate(calls_of((1, 2), {voice}), args.work / f"own-{voice}", base, args.workers)
        t = solve([own], base, args.work / f"mllr-own-{voice}", mult)
        heard(f"{voice} seeds 3-5, adapted on its seeds 1-2", calls_of((3, 4, 5), {voice}), t)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
