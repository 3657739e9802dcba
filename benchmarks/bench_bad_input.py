"""Bad input from outside: every rejection in at most 2 s and 500 MB (issue 15).

    python -m benchmarks.bench_bad_input [--runs N]

Each case runs the real command in a fresh process (python -m companion ...),
as a user would; wall time and the peak resident memory of that process
(os.wait4) are its cost, start-up and model loading included. The median of
N runs is printed, with the exit status and the sentence said.
"""

from __future__ import annotations

import argparse
import os
import shutil
import sqlite3
import statistics
import struct
import subprocess
import sys
import tempfile
import time
import zlib
from dataclasses import dataclass
from pathlib import Path

from .machine import describe

LIMIT_S, LIMIT_MB = 2.0, 500.0


@dataclass
class Case:
    family: str
    name: str
    argv: list[str]


def _png(width: int, height: int, idat_length: int | None = None) -> bytes:
    def chunk(kind: bytes, data: bytes, claim: int | None = None) -> bytes:
        n = len(data) if claim is None else claim
        return struct.pack(">I", n) + kind + data + struct.pack(">I", zlib.crc32(kind + data))

    ihdr = struct.pack(">IIBBBBB", width, height, 8, 2, 0, 0, 0)
    return (
        b"\x89PNG\r\n\x1a\n"
        + chunk(b"IHDR", ihdr)
        + chunk(b"IDAT", zlib.compress(b"\0" * 2_600_000), idat_length)
        + chunk(b"IEND", b"")
    )


def _wav(rate: int, channels: int, data: bytes, claim: int | None = None) -> bytes:
    size = len(data) if claim is None else claim
    body = (
        b"WAVE"
        + b"fmt "
        + struct.pack(
            "<IHHIIHH", 16, 1, channels, rate, (rate * channels * 2) % 2**32, channels * 2, 16
        )
        + b"data"
        + struct.pack("<I", size)
        + data
    )
    return b"RIFF" + struct.pack("<I", 4 + len(body)) + body


def _database(folder: Path) -> Path:
    """A finished game, made by the secretary as at a table."""
    from companion.record.notation import StartRoll, Turn
    from companion.record.simulate import STRATEGIES, play_game
    from companion.rules import Options
    from companion.secretary import Secretary

    options = Options.make(("Anna", "Ben", "Cleo"))
    sim = play_game(options, 4, {c: STRATEGIES["greedy"] for c in options.cults})
    db = folder / "game.db"
    sec = Secretary.open(db)
    sec.start_game(options)
    for ev in sim.events:
        if isinstance(ev, StartRoll):
            sec.submit_start_roll(ev.cult, ev.faces)
        elif isinstance(ev, Turn):
            sec.submit_turn(ev.cult, ev.roll, ev.action)
    sec.close()
    return db


def _damaged(db: Path, name: str, statement: str) -> Path:
    out = db.with_name(name)
    shutil.copy(db, out)
    with sqlite3.connect(out) as c:
        c.execute(statement)
    return out


def build(folder: Path) -> list[Case]:
    def write(name: str, data: bytes | str) -> str:
        p = folder / name
        p.write_bytes(data.encode() if isinstance(data, str) else data)
        return str(p)

    base = '[Cults "Anna Ben"]\nAnna: I23E1I -> IÄÄ! Cthulhu! Fhtagn! place I23E\n'
    big = folder / "huge.txt"
    with big.open("wb") as fh:
        fh.truncate(200 * 1024 * 1024)
    cases = [
        Case(
            "record",
            "Target in another script's digits",
            ["replay", write("sup.txt", '[Target "²"]\n' + base)],
        ),
        Case(
            "record",
            "Target of 5000 digits",
            ["replay", write("t5000.txt", f'[Target "{"9" * 5000}"]\n' + base)],
        ),
        Case(
            "record",
            "phase number of 5000 digits",
            ["replay", write("p.txt", base + "phase " + "1" * 5000 + "\n")],
        ),
        Case(
            "record",
            "score of 4301 digits",
            ["replay", write("s.txt", base + "totals Anna +" + "7" * 4301 + "\n")],
        ),
        Case("record", "empty record", ["verify", write("empty.txt", "")]),
        Case("record", "200 MB file", ["replay", str(big)]),
        Case(
            "record",
            "standings with those",
            [
                "standings",
                str(folder / "sup.txt"),
                str(folder / "t5000.txt"),
                str(folder / "p.txt"),
            ],
        ),
    ]
    db = _database(folder)
    cases += [
        Case(
            "database",
            "tags with a flipped byte",
            [
                "verify",
                str(
                    _damaged(
                        db,
                        "tags.db",
                        "UPDATE games SET tags = substr(tags, 1, 5) || 'X' || substr(tags, 7)",
                    )
                ),
            ],
        ),
        Case("database", "tags with a flipped byte (export)", ["export", str(folder / "tags.db")]),
        Case(
            "database",
            "seq not a number",
            ["verify", str(_damaged(db, "seq.db", "UPDATE events SET seq = 'x' WHERE seq = 5"))],
        ),
        Case("database", "seq not a number (export)", ["export", str(folder / "seq.db")]),
        Case(
            "database",
            "last events deleted",
            ["verify", str(_damaged(db, "cut.db", "DELETE FROM events WHERE seq > 20"))],
        ),
        Case("database", "0-byte database", ["verify", write("zero.db", b"")]),
        Case("database", "no games", ["verify", str(_damaged(db, "none.db", "DELETE FROM games"))]),
    ]
    for face in "I123E":
        (folder / "enrol" / face).mkdir(parents=True)
        (folder / "enrol" / face / "a.png").write_bytes(_png(40000, 40000))
    cases += [
        Case(
            "image",
            "30000x30000 PNG (vision read)",
            ["vision", "read", write("big.png", _png(30000, 30000))],
        ),
        Case(
            "image",
            "PNG chunk claiming 1 GB",
            ["vision", "read", write("chunk.png", _png(64, 64, 2**30))],
        ),
        Case(
            "image",
            "40000x40000 PNG (vision enroll)",
            ["vision", "enroll", str(folder / "enrol"), "--out", str(folder / "profile")],
        ),
        Case(
            "image",
            "enroll --out naming a file",
            ["vision", "enroll", str(folder / "enrol"), "--out", str(folder / "big.png")],
        ),
        Case(
            "image",
            "40000x40000 PNG (calibrate)",
            ["calibrate", "--frame", str(folder / "enrol" / "I" / "a.png")],
        ),
    ]
    cases += [
        Case(
            "wav",
            "32 KB claiming 1 Hz",
            ["voice", "hear", write("1hz.wav", _wav(1, 1, b"\0" * 32000))],
        ),
        Case(
            "wav",
            "10 minutes of silence",
            ["voice", "hear", write("10min.wav", _wav(16000, 1, b"\0" * 16000 * 2 * 600))],
        ),
        Case("wav", "sample rate 0", ["voice", "hear", write("0hz.wav", _wav(0, 1, b"\0" * 3200))]),
        Case(
            "wav",
            "stereo cut inside a frame (read)",
            ["voice", "hear", write("cut.wav", _wav(16000, 2, b"\1" * 3203))],
        ),
    ]
    return cases


def measure(argv: list[str], runs: int, folder: Path) -> tuple[float, float, int, str]:
    """Median wall seconds, peak RSS in MB, exit status, and the last line said (stderr, else
    stdout)."""
    times, peaks = [], []
    code, said = 0, ""
    env = {**os.environ, "OMP_NUM_THREADS": "1"}
    for _ in range(runs):
        with (folder / "out.txt").open("wb") as out, (folder / "err.txt").open("wb") as err:
            start = time.perf_counter()
            proc = subprocess.Popen(
                [sys.executable, "-m", "companion", *argv], stdout=out, stderr=err, env=env
            )
            _, status, usage = os.wait4(proc.pid, 0)  # this child's own peak, not the runner's
            times.append(time.perf_counter() - start)
        proc.returncode = code = os.waitstatus_to_exitcode(status)
        peaks.append(usage.ru_maxrss / 1024)
        text = (
            (folder / "err.txt").read_text(errors="replace").strip()
            or (folder / "out.txt").read_text(errors="replace").strip()
        ).splitlines()
        said = text[-1] if text else ""
    return statistics.median(times), max(peaks), code, said


def main(argv: list[str] | None = None) -> None:
    ap = argparse.ArgumentParser(description=__doc__)
    ap.add_argument("--runs", type=int, default=3)
    args = ap.parse_args(argv)
    print(f"bad input ({describe()})")
    print(f"{'family':<9} {'case':<38} {'exit':>4} {'median s':>8} {'peak MB':>8}  sentence")
    worst_s = worst_mb = 0.0
    with tempfile.TemporaryDirectory() as tmp:
        folder = Path(tmp)
        for case in build(folder):
            seconds, mb, code, said = measure(case.argv, args.runs, folder)
            worst_s, worst_mb = max(worst_s, seconds), max(worst_mb, mb)
            flag = "" if seconds <= LIMIT_S and mb <= LIMIT_MB else "  OVER"
            print(
                f"{case.family:<9} {case.name:<38} {code:>4} {seconds:>8.2f} {mb:>8.0f}  "
                f"{said[:110]}{flag}",
                flush=True,
            )
    print(
        f"worst: {worst_s:.2f} s, {worst_mb:.0f} MB (limits {LIMIT_S:.0f} s, {LIMIT_MB:.0f} MB), "
        "start-up and model loading included"
    )


if __name__ == "__main__":
    main()
