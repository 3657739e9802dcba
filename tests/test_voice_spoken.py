"""Recognition of real synthesised speech: a small espeak-ng + sox subset made at test time.

Skips when espeak-ng or sox is missing; the full figures come from
``python -m benchmarks.bench_voice`` on the cached seed-8 set.
"""

from __future__ import annotations

import shutil
import threading
from collections.abc import Iterator
from pathlib import Path

import numpy as np
import pytest

pytest.importorskip("pocketsphinx")
if shutil.which("espeak-ng") is None or shutil.which("sox") is None:
    pytest.skip("espeak-ng and sox are needed to synthesise calls", allow_module_level=True)

from benchmarks import voice_testset as ts  # noqa: E402
from companion.rules import TABLE_K, call_text, parse_call  # noqa: E402
from companion.voice.audio import read_wav  # noqa: E402
from companion.voice.heard import HIGH_CONFIDENCE, Heard  # noqa: E402
from companion.voice.listen import Listener, Utterances  # noqa: E402
from companion.voice.narrow import calls_for  # noqa: E402
from companion.voice.recognizer import Recognizer  # noqa: E402


@pytest.fixture(scope="module")
def spoken(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, list[ts.Item]]:
    """Every call in one English and one German voice, clean and at 10 dB, plus table talk."""
    folder = tmp_path_factory.mktemp("calls")
    items = ts.plan(seed=3, renders=1, voices=("en-us", "de"), snrs=(None, 10), talk=slice(0, 1))
    ts.generate(folder, items)
    return folder, items


@pytest.fixture(scope="module")
def recognizer() -> Recognizer:
    return Recognizer()


def test_calls_are_heard_and_errors_are_not_confident(
    spoken: tuple[Path, list[ts.Item]], recognizer: Recognizer
) -> None:
    folder, items = spoken
    right = total = confident_errors = 0
    for it in items:
        heard = recognizer.hear(
            read_wav(folder / it.file), calls_for(tuple(it.roll), tuple(it.layout))
        )
        if it.call is not None:
            total += 1
            right += heard.text == it.call
        if heard.call is not None and heard.text != it.call and heard.confidence >= HIGH_CONFIDENCE:
            confident_errors += 1
    assert total == 44
    assert right / total >= 0.85, f"{right} of {total} right"
    assert confident_errors <= 1


def test_narrowing_excludes_calls_the_roll_does_not_allow(
    spoken: tuple[Path, list[ts.Item]], recognizer: Recognizer
) -> None:
    folder, items = spoken
    it = next(i for i in items if i.k == "K11" and i.snr is None and i.voice == "en-us")
    x = read_wav(folder / it.file)
    only = (parse_call("Cthulhu!"),)
    heard = recognizer.hear(x, only)
    assert heard.best in (None, only[0])  # never a call outside the grammar


def test_the_second_guess_is_another_allowed_call(
    spoken: tuple[Path, list[ts.Item]], recognizer: Recognizer
) -> None:
    folder, items = spoken
    it = next(i for i in items if i.k == "K11" and i.snr is None and i.voice == "en-us")
    x = read_wav(folder / it.file)
    allowed = (TABLE_K["K11"], TABLE_K["K10"], TABLE_K["K2"])
    f = recognizer.features(x, allowed)
    assert f.best == TABLE_K["K11"] and f.second in allowed[1:]
    assert f.legal_margin is not None and f.legal_margin > 0  # the best beat the runner-up
    lone = recognizer.features(x, (TABLE_K["K11"],))
    assert lone.best == TABLE_K["K11"] and lone.second is None and lone.legal_margin is None
    heard = recognizer.hear(x, allowed)
    assert heard.second == (None if heard.sure else f.second)


def test_results_repeat(spoken: tuple[Path, list[ts.Item]], recognizer: Recognizer) -> None:
    folder, items = spoken
    x = read_wav(folder / items[0].file)
    calls = tuple(TABLE_K.values())
    a, b = recognizer.hear(x, calls), recognizer.hear(x, calls)
    assert (a.call, a.confidence) == (b.call, b.confidence)


def test_listener_hears_a_call_by_voice_activity(spoken: tuple[Path, list[ts.Item]]) -> None:
    folder, items = spoken
    it = next(i for i in items if i.k == "K2" and i.snr == 10 and i.voice == "en-us")
    got: list[Heard] = []
    done = threading.Event()

    def on_heard(h: Heard) -> None:
        got.append(h)
        done.set()

    listener = Listener(on_heard)
    listener.start(microphone=False)
    try:
        pcm = read_wav(folder / it.file).tobytes()
        listener.feed(pcm)  # before the turn: ignored
        listener.start_turn(tuple(it.roll), tuple(it.layout))
        for i in range(0, len(pcm), 1024):  # arrives in chunks, as from the microphone
            listener.feed(pcm[i : i + 1024])
        listener.feed(np.zeros(16000, dtype=np.int16).tobytes())  # a second of quiet after
        assert done.wait(30), "no utterance was cut"
        # A cut at the pause between the words is posted at once and then again
        # joined to the rest: the last result is the whole call.
        for _ in range(300):
            if listener._queue.empty() and got[-1].text == "IÄÄ! Cthulhu!":
                break
            threading.Event().wait(0.1)
    finally:
        listener.stop()
    assert got[-1].text == "IÄÄ! Cthulhu!"


def test_listener_push_to_talk(spoken: tuple[Path, list[ts.Item]]) -> None:
    folder, items = spoken
    it = next(i for i in items if i.k == "K8" and i.snr is None and i.voice == "de")
    got: list[Heard] = []
    done = threading.Event()

    def on_heard(h: Heard) -> None:
        got.append(h)
        done.set()

    listener = Listener(on_heard, vad=False)
    listener.start(microphone=False)
    try:
        listener.start_turn(("E", "E"), ())
        listener.push_to_talk(True)
        listener.feed(read_wav(folder / it.file).tobytes())
        listener.push_to_talk(False)
        assert done.wait(30)
    finally:
        listener.stop()
    assert got[0].text == call_text(TABLE_K["K8"])


def _say(folder: Path, phrases: list[tuple[str, str]]) -> list[ts.Item]:
    """Clean recordings of (voice, text), at a middling speed and pitch."""
    items = [
        ts.Item(f"{n:02d}.wav", None, None, text, voice, 150, 45, None, None, 0.0, "I2E", "")
        for n, (voice, text) in enumerate(phrases)
    ]
    ts.generate(folder, items)
    return items


def test_table_talk_is_never_heard_with_high_confidence(
    tmp_path: Path, recognizer: Recognizer
) -> None:
    # Development phrases (never in the benchmark's set), some sounding like a call word.
    items = _say(
        tmp_path,
        [
            ("en-us", "let me think"),
            ("en-us", "to the loo"),
            ("en-gb-x-rp", "nah"),
            ("en-us", "fun again"),
            ("de", "ja ja"),
            ("de", "guten Tag"),
        ],
    )
    for it in items:
        for calls in (tuple(TABLE_K.values()), calls_for(tuple(it.roll), tuple(it.layout))):
            heard = recognizer.hear(read_wav(tmp_path / it.file), calls)
            assert heard.confidence < HIGH_CONFIDENCE, (it.spoken, heard)


def test_a_clear_call_is_still_heard_with_high_confidence(
    tmp_path: Path, recognizer: Recognizer
) -> None:
    items = _say(
        tmp_path,
        [
            ("en-gb-x-rp", "ee-ah, Ka-thoo-loo!"),
            ("en-us", "ee-ah, Ka-thoo-loo, [[ft'ag@n]]!"),
            ("de", "Iä! [[kt'u:lu:]]! [[fNgl'u:i:]]!"),
        ],
    )
    calls = tuple(TABLE_K.values())
    heard = [recognizer.hear(read_wav(tmp_path / it.file), calls) for it in items]
    assert [h.text for h in heard] == [
        "IÄÄ! Cthulhu!",
        "IÄÄ! Cthulhu! Fhtagn!",
        "IÄÄ! Cthulhu! Ph'nglui!",
    ]
    # Sure (0.8) is kept for what no wrong call or table talk of the
    # development sets reached, plus a margin: since the refit on espeak-ng
    # and flite almost no call reaches it, and the secretary asks; a clear
    # call is given all the same.
    assert all(h.confidence >= 0.5 for h in heard), heard


def test_a_cut_followed_soon_by_more_speech_is_handed_out_again_joined(
    spoken: tuple[Path, list[ts.Item]],
) -> None:
    from companion.voice.listen import Utterances

    folder, items = spoken
    a = read_wav(
        folder / next(i for i in items if i.k == "K1" and i.snr is None and i.voice == "en-us").file
    )
    b = read_wav(
        folder / next(i for i in items if i.k == "K5" and i.snr is None and i.voice == "en-us").file
    )

    loud_a, loud_b = np.flatnonzero(np.abs(a) > 500), np.flatnonzero(np.abs(b) > 500)
    a, b = a[: loud_a[-1] + 1], b[loud_b[0] :]  # the words without the files' padding

    def stream(gap_s: float) -> list[tuple[int, bool]]:
        cuts = Utterances(window=0.3, join=0.6)
        quiet = np.zeros(int(16000 * gap_s), dtype=np.int16)
        lead = np.zeros(8000, dtype=np.int16)
        pcm = np.concatenate([lead, a, quiet, b, np.zeros(16000, dtype=np.int16)]).tobytes()
        fb = cuts.frame_bytes
        out = []
        for i in range(0, len(pcm) - fb + 1, fb):
            utt = cuts.push(pcm[i : i + fb])
            if utt is not None:
                out.append((len(utt), cuts.joined))
        return out

    near = stream(0.55)  # a pause the 0.3 s window cuts at
    far = stream(2.0)
    assert len(near) == 2 and len(far) == 2
    assert near[1][1] and near[1][0] > near[0][0]  # the second cut holds the first as well
    assert not far[1][1] and far[1][0] < far[0][0] + far[1][0]


def _pushed(
    folder: Path, items: list[ts.Item]
) -> Iterator[tuple[ts.Item, Utterances, bytes | None]]:
    """Each item (a second of silence after it) pushed frame by frame through a cutter of its
    own: the item, its cutter, and what the cutter handed out for that frame."""
    from companion.voice.listen import Utterances

    for it in items:
        pcm = _with_silence(folder, it).tobytes()
        cuts = Utterances()
        fb = cuts.frame_bytes
        for i in range(0, len(pcm) - fb + 1, fb):
            yield it, cuts, cuts.push(pcm[i : i + fb])


def test_the_tentative_utterance_is_exactly_what_the_endpointer_cuts(
    spoken: tuple[Path, list[ts.Item]],
) -> None:
    folder, items = spoken
    cuts_seen = 0
    last: bytes | None = None
    for it, cuts, utt in _pushed(folder, items[:12]):
        if utt is not None:
            cuts_seen += 1
            # the endpointer waits WINDOW after the speech: by then the
            # utterance was already offered, byte for byte
            assert last == utt, it.file
            assert cuts.tentative is None
            last = None
        elif cuts.tentative is not None:
            last = cuts.tentative
    assert cuts_seen >= 12


def _play(listener: Listener, it: ts.Item, got: list[Heard], pcm: bytes, chunk: int) -> None:
    """Start the listener, feed ``pcm`` ``chunk`` bytes at a time with the thread caught up
    after each (as a live microphone gives it), wait for a result, stop."""
    listener.start(microphone=False)
    try:
        listener.start_turn(tuple(it.roll), tuple(it.layout))
        for i in range(0, len(pcm), chunk):
            listener.feed(pcm[i : i + chunk])
            for _ in range(200):
                if listener._queue.empty():
                    break
                threading.Event().wait(0.01)
        for _ in range(300):
            if listener._queue.empty() and got:
                break
            threading.Event().wait(0.1)
    finally:
        listener.stop()


def _listening(items: list[ts.Item], k: str) -> tuple[ts.Item, list[Heard], Listener]:
    """A clean en-us saying of call ``k``, and a listener that posts what it hears to a list."""
    it = next(i for i in items if i.k == k and i.snr is None and i.voice == "en-us")
    got: list[Heard] = []
    return it, got, Listener(got.append)


def _with_silence(folder: Path, it: ts.Item) -> np.ndarray:
    return np.concatenate([read_wav(folder / it.file), np.zeros(16000, dtype=np.int16)])


def test_the_listener_hears_the_call_while_the_endpointer_waits(
    spoken: tuple[Path, list[ts.Item]],
) -> None:
    folder, items = spoken
    it, got, listener = _listening(items, "K4")
    heard_on: list[tuple[bool, Heard]] = []  # (was a tentative utterance, result)
    hear = listener._recognizer.hear

    def spy(
        samples: np.ndarray, calls: tuple[object, ...], before: np.ndarray | None = None
    ) -> Heard:
        cuts = listener._utterances
        tentative = cuts is not None and cuts.tentative == samples.tobytes()
        h = hear(samples, calls, before)  # type: ignore[arg-type]
        heard_on.append((tentative, h))
        return h

    listener._recognizer.hear = spy  # type: ignore[method-assign]
    _play(listener, it, got, _with_silence(folder, it).tobytes(), 960)  # 30 ms at a time
    assert got and got[-1].text == it.call
    # the posted result is the one heard early, and the cut was not heard again
    assert heard_on[-1] == (True, got[-1])
    assert got[-1] is heard_on[-1][1]


def test_the_call_searches_score_more_gaussians_than_the_phone_loop(
    recognizer: Recognizer,
) -> None:
    from companion.voice.recognizer import TOPN

    # chosen on the development sets (docs/voice.md, fourth round); the phone
    # loop is only a yardstick and keeps pocketsphinx's default of 4
    assert TOPN > 4
    assert recognizer._calls.config["topn"] == TOPN
    assert recognizer._phones.config["topn"] == 4


def test_the_head_is_the_audio_just_before_the_utterance(
    spoken: tuple[Path, list[ts.Item]],
) -> None:
    """The preroll the call network hears: up to PREROLL seconds right before the cut
    utterance in the stream, and the utterance itself is what it was without it."""
    from companion.voice.listen import PREROLL, Utterances

    folder, items = spoken
    it = next(i for i in items if i.k == "K11" and i.snr is None and i.voice == "en-us")
    pcm = np.concatenate([read_wav(folder / it.file), np.zeros(16000, np.int16)]).tobytes()

    def cut(preroll: float) -> tuple[bytes, bytes]:
        cuts = Utterances(preroll=preroll)
        fb = cuts.frame_bytes
        out = [
            (u, cuts.head)
            for i in range(0, len(pcm) - fb + 1, fb)
            if (u := cuts.push(pcm[i : i + fb])) is not None
        ]
        return out[-1]

    utterance, head = cut(PREROLL)
    assert cut(0.0) == (utterance, b"")
    assert 0 < len(head) <= PREROLL * 16000 * 2
    at = pcm.index(utterance)
    assert pcm[at - len(head) : at] == head


def test_the_utterance_so_far_agrees_with_what_is_cut(
    spoken: tuple[Path, list[ts.Item]],
) -> None:
    from companion.voice.listen import AHEAD

    folder, items = spoken
    checked = 0
    given: list[tuple[bytes, bytes]] = []
    for it, cuts, utt in _pushed(folder, items[:12]):
        if utt is not None:
            for audio, head in given:
                # the same audio where both have it (the cut may end before the
                # frames the endpointer still held, if they turned out silence)
                common = min(len(audio), len(utt))
                assert utt[:common] == audio[:common] and head == cuts.head, it.file
                checked += 1
            given = []
            continue
        so_far = cuts.so_far()
        if so_far is not None:
            if given:  # at most every AHEAD seconds of speech
                assert len(so_far[0]) >= len(given[-1][0]) + AHEAD * cuts.rate * 2
            given.append(so_far)
    assert checked >= 12


def test_the_listener_starts_on_the_call_while_it_is_said(
    spoken: tuple[Path, list[ts.Item]],
) -> None:
    folder, items = spoken
    it, got, listener = _listening(items, "K8")
    started: list[int] = []
    ahead = listener._recognizer.ahead
    heard: list[tuple[np.ndarray, np.ndarray | None]] = []
    hear = listener._recognizer.hear

    def spy_ahead(samples: np.ndarray, before: np.ndarray | None = None) -> None:
        started.append(samples.size)
        ahead(samples, before)

    def spy_hear(
        samples: np.ndarray, calls: tuple[object, ...], before: np.ndarray | None = None
    ) -> Heard:
        heard.append((samples, before))
        return hear(samples, calls, before)  # type: ignore[arg-type]

    listener._recognizer.ahead = spy_ahead  # type: ignore[method-assign]
    listener._recognizer.hear = spy_hear  # type: ignore[method-assign]
    _play(listener, it, got, _with_silence(folder, it).tobytes(), 960)  # 30 ms at a time
    assert len(started) >= 2 and started == sorted(started)
    assert got and got[-1].text == it.call
    # what a recognizer that never started early hears in that utterance: the same
    samples, before = heard[-1]
    again = Recognizer().hear(samples, calls_for(tuple(it.roll), tuple(it.layout)), before)
    assert (again.call, again.confidence, again.best, again.second) == (
        got[-1].call,
        got[-1].confidence,
        got[-1].best,
        got[-1].second,
    )


def test_a_microphone_at_another_rate_is_not_started_on_early(
    spoken: tuple[Path, list[ts.Item]],
) -> None:
    # its utterances are resampled whole: the start of one so far is not the same bits
    from companion.voice.audio import resample, to_int16

    folder, items = spoken
    it, got, listener = _listening(items, "K8")
    listener.rate = 48000
    started: list[int] = []

    def spy(samples: np.ndarray, before: np.ndarray | None = None) -> None:
        started.append(samples.size)

    listener._recognizer.ahead = spy  # type: ignore[method-assign]
    x = _with_silence(folder, it).astype(np.float64)
    _play(listener, it, got, to_int16(resample(x, 16000, 48000)).tobytes(), 2880)  # 30 ms
    assert got and got[-1].text == it.call
    assert started == []
