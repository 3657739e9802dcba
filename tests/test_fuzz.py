"""Fuzzing the inputs from outside: records, databases, images and WAV files (hypothesis).

Each reader either accepts its input or refuses it with its own error and one
sentence; nothing else may escape, and no example may take more than two
seconds (the deadline). Bounded in examples so the whole file runs in about a
minute; CI runs it with the rest.
"""

from __future__ import annotations

import os
import shutil
import sqlite3
import struct
import zlib
from contextlib import suppress
from datetime import timedelta
from pathlib import Path

import cv2
import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from companion.record.replay import UnreadableRecord, decode_record, replay_text
from companion.secretary import Secretary
from companion.store import SQLiteStore, StoreError
from companion.store.export import load, select
from companion.store.verify import verify
from companion.vision.image_file import MAX_PIXELS, ImageFileError, decode_image
from companion.voice.audio import AudioError, read_wav

from .store_util import feed, sim_game

#: Examples per test; COMPANION_FUZZ_EXAMPLES=5000 for a long hunt by hand.
EXAMPLES = int(os.environ.get("COMPANION_FUZZ_EXAMPLES", "200"))
FUZZ = settings(
    max_examples=EXAMPLES,
    deadline=timedelta(seconds=2),
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.function_scoped_fixture],
)


def one_sentence(text: str) -> None:
    assert "Traceback" not in text
    assert text.strip() and "\n" not in text.strip(), text


# ------------------------------------------------------------------ records

EXAMPLE = sim_game(5).record
NUMBERS = st.one_of(
    st.integers(-(10**6), 10**6).map(str),
    st.tuples(st.sampled_from("+-"), st.integers(1, 6000)).map(lambda t: t[0] + "7" * t[1]),
    st.text(alphabet=st.characters(categories=["Nd", "No"]), min_size=1, max_size=12),
)
WORDS = st.one_of(
    st.sampled_from(
        [
            "start",
            "phase",
            "score",
            "totals",
            "place",
            "take",
            "give",
            "center",
            "->",
            ":",
            "-",
            "IÄÄ!",
            "Cthulhu!",
            "Fhtagn!",
            "Ph'nglui!",
            "Anna",
            "Ben",
            "Cleo",
            "I23E1I",
            "E",
            ",",
            '[Cults "Anna Ben"]',
            '[Target "',
            '"]',
            "#",
            "\ufeff",
            "\x00",
            "\r",
        ]
    ),
    NUMBERS,
    st.text(max_size=8),
)


@FUZZ
@given(lines=st.lists(st.lists(WORDS, max_size=8).map(" ".join), max_size=30))
def test_records_of_random_words(lines: list[str]) -> None:
    r = replay_text("\n".join(lines))
    if r.error is not None:
        one_sentence(r.error.message)
        assert r.error.line >= 1


@FUZZ
@given(data=st.data())
def test_mutated_records(data: st.DataObject) -> None:
    raw = bytearray(EXAMPLE.encode())
    for _ in range(data.draw(st.integers(1, 8))):
        at = data.draw(st.integers(0, len(raw) - 1))
        op = data.draw(st.sampled_from(["flip", "insert", "delete", "number"]))
        if op == "flip":
            raw[at] ^= data.draw(st.integers(1, 255))
        elif op == "insert":
            raw[at:at] = data.draw(st.binary(min_size=1, max_size=20))
        elif op == "delete":
            del raw[at : at + data.draw(st.integers(1, 40))]
        else:
            raw[at:at] = data.draw(NUMBERS).encode()
    try:
        text = decode_record(bytes(raw))
    except UnreadableRecord as exc:
        one_sentence(str(exc))
        return
    r = replay_text(text)
    if r.error is not None:
        one_sentence(r.error.message)


# ---------------------------------------------------------------- databases
@pytest.fixture(scope="module")
def game_db(tmp_path_factory: pytest.TempPathFactory) -> Path:
    folder = tmp_path_factory.mktemp("fuzzdb")
    sim = sim_game(6)
    sec = Secretary.open(folder / "t.db")
    assert sim.game is not None
    sec.start_game(sim.game.options, {"Table": "3"})
    feed(sec, sim, upto=40)
    sec.close()
    return folder / "t.db"


COLUMNS = {
    "games": [
        "id",
        "created",
        "tags",
        "meta",
        "finished",
        "genesis",
        "n_events",
        "last_hash",
        "seal",
        "oseal",
    ],
    "events": [
        "id",
        "game_id",
        "seq",
        "kind",
        "text",
        "ref",
        "note",
        "created",
        "prev_hash",
        "hash",
        "evidence",
        "mac",
        "omac",
    ],
}
VALUES = st.one_of(
    st.none(),
    st.integers(-(2**63), 2**63 - 1),
    st.floats(allow_nan=False),
    st.text(max_size=30),
    st.binary(max_size=30),
    st.sampled_from(
        ["{", "[]", '{"Cults": 1}', "null", "1e999", '"x"', '{"Cults": "A"}', "turn", "correct"]
    ),
)


def _reads_without_traceback(db: Path) -> None:
    """verify and export either judge the file or refuse it in one sentence."""
    try:
        found = verify(db)
    except StoreError as exc:
        one_sentence(str(exc))
    else:
        assert found
        for f in found:
            one_sentence(f.message)
    try:
        store = SQLiteStore(db, create=False, salvage=True)
    except StoreError as exc:
        one_sentence(str(exc))
        return
    try:
        for info in select(store, "all"):
            try:
                load(store, info).record  # noqa: B018 - the record is what export prints
            except StoreError as exc:
                one_sentence(str(exc))
    except StoreError as exc:
        one_sentence(str(exc))
    finally:
        store.close()


@FUZZ
@given(data=st.data())
def test_damaged_columns(game_db: Path, tmp_path: Path, data: st.DataObject) -> None:
    db = tmp_path / f"c{data.draw(st.integers(0, 10**9))}.db"
    shutil.copy(game_db, db)
    with sqlite3.connect(db) as c:
        for _ in range(data.draw(st.integers(1, 3))):
            table = data.draw(st.sampled_from(sorted(COLUMNS)))
            column = data.draw(st.sampled_from(COLUMNS[table]))
            row = data.draw(st.integers(1, 45))
            value = data.draw(VALUES)
            # NOT NULL, UNIQUE, a rowid that is no number: SQLite itself refuses that damage
            with suppress(sqlite3.Error):
                c.execute(f"UPDATE {table} SET {column} = ? WHERE rowid = ?", (value, row))
    _reads_without_traceback(db)


def test_an_event_text_damaged_with_a_line_break_is_shown_on_one_line(
    game_db: Path, tmp_path: Path
) -> None:
    """Found by test_damaged_columns: verify quoted a changed event's text as it was, so a
    line break in it split the sentence (and a long one ran on)."""
    db = tmp_path / "n.db"
    shutil.copy(game_db, db)
    with sqlite3.connect(db) as c:
        c.execute("UPDATE events SET text = ? WHERE rowid = 7", ("R\x02 a\nb\u2028c" + "x" * 200,))
    found = verify(db)
    messages = [f.message for f in found]
    assert any("was changed after it was stored" in m for m in messages), messages
    for m in messages:
        one_sentence(m)
        assert len(m) < 400, m
    assert any("a\\x0ab\\u2028c" in m for m in messages), messages


@FUZZ
@given(data=st.data())
def test_flipped_bytes(game_db: Path, tmp_path: Path, data: st.DataObject) -> None:
    raw = bytearray(game_db.read_bytes())
    for _ in range(data.draw(st.integers(1, 6))):
        at = data.draw(st.integers(0, len(raw) - 1))
        raw[at] ^= data.draw(st.integers(1, 255))
    if data.draw(st.booleans()):
        raw = raw[: data.draw(st.integers(0, len(raw)))]
    db = tmp_path / f"f{data.draw(st.integers(0, 10**9))}.db"
    db.write_bytes(bytes(raw))
    _reads_without_traceback(db)


# ------------------------------------------------------------------ images
def _png(width: int, height: int, body: bytes) -> bytes:
    def chunk(kind: bytes, payload: bytes) -> bytes:
        return (
            struct.pack(">I", len(payload))
            + kind
            + payload
            + struct.pack(">I", zlib.crc32(kind + payload))
        )

    ihdr = struct.pack(">IIBBBBB", width, height, 8, 2, 0, 0, 0)
    return (
        b"\x89PNG\r\n\x1a\n"
        + chunk(b"IHDR", ihdr)
        + chunk(b"IDAT", zlib.compress(body))
        + chunk(b"IEND", b"")
    )


_small = np.random.default_rng(1).integers(0, 255, (24, 32, 3), dtype=np.uint8)
VALID_IMAGES = [cv2.imencode(ext, _small)[1].tobytes() for ext in (".png", ".jpg", ".bmp")]


def _decodes_or_refuses(data: bytes) -> None:
    try:
        image = decode_image(data)
    except ImageFileError as exc:
        one_sentence(str(exc))
        return
    assert image.ndim == 3 and image.shape[0] * image.shape[1] <= MAX_PIXELS


@FUZZ
@given(data=st.data())
def test_mutated_images(data: st.DataObject) -> None:
    raw = bytearray(data.draw(st.sampled_from(VALID_IMAGES)))
    for _ in range(data.draw(st.integers(1, 6))):
        at = data.draw(st.integers(0, min(len(raw) - 1, 80)))  # the header, mostly
        raw[at] = data.draw(st.integers(0, 255))
    if data.draw(st.booleans()):
        raw = raw[: data.draw(st.integers(0, len(raw)))]
    _decodes_or_refuses(bytes(raw))


@FUZZ
@given(
    width=st.integers(0, 2**32 - 1), height=st.integers(0, 2**32 - 1), body=st.binary(max_size=200)
)
def test_png_headers_of_any_size(width: int, height: int, body: bytes) -> None:
    _decodes_or_refuses(_png(width, height, body))


@FUZZ
@given(width=st.integers(0, 65535), height=st.integers(0, 65535), tail=st.binary(max_size=60))
def test_jpeg_headers_of_any_size(width: int, height: int, tail: bytes) -> None:
    jpg = bytearray(VALID_IMAGES[1])
    at = jpg.index(b"\xff\xc0") + 5
    jpg[at : at + 4] = struct.pack(">HH", height, width)
    _decodes_or_refuses(bytes(jpg[: len(jpg) // 2]) + tail)


# -------------------------------------------------------------------- WAVs
@FUZZ
@given(
    rate=st.integers(0, 2**32 - 1),
    channels=st.integers(0, 65535),
    width=st.integers(0, 8),
    fmt=st.sampled_from([1, 1, 1, 3, 0xFFFE, 0]),
    claim=st.one_of(st.none(), st.integers(0, 2**32 - 1)),
    body=st.binary(max_size=2000),
)
def test_wav_headers(
    tmp_path: Path, rate: int, channels: int, width: int, fmt: int, claim: int | None, body: bytes
) -> None:
    size = len(body) if claim is None else claim
    block = (channels * width) & 0xFFFF
    head = struct.pack(
        "<IHHIIHH",
        16,
        fmt,
        channels,
        rate,
        (rate * block) & 0xFFFFFFFF,
        block,
        (8 * width) & 0xFFFF,
    )
    riff = b"WAVE" + b"fmt " + head + b"data" + struct.pack("<I", size) + body
    f = tmp_path / "a.wav"
    f.write_bytes(b"RIFF" + struct.pack("<I", 4 + len(riff)) + riff)
    try:
        samples = read_wav(f)
    except AudioError as exc:
        one_sentence(str(exc))
        return
    assert samples.dtype == np.int16 and samples.size <= 16000 * 30 + 1
