"""Listening to a microphone during a cult's turn: push-to-talk or voice activity.

``Listener`` owns one thread. Audio arrives from sounddevice's callback (or
from ``feed`` in tests and replays) and is queued; the thread cuts it into
utterances, by pocketsphinx's VAD endpointer or by the push-to-talk key,
recognises each among the calls that make sense for the current roll and
layout, and posts a ``Heard`` through ``on_heard``. The callback runs on the
listener's thread: a UI must hand it over to its own loop (Textual:
``app.call_from_thread``).
"""

from __future__ import annotations

import queue
import threading
from collections import deque
from collections.abc import Callable
from typing import Any

import numpy as np

from companion.rules import Call

from .audio import RATE, Samples, resample, to_int16
from .heard import Heard
from .narrow import calls_for
from .recognizer import DEFAULT_THRESHOLD, Recognizer, VoiceUnavailable, pocketsphinx_module

#: Longest utterance kept; a call takes two seconds, table talk may run on.
MAX_SECONDS = 6.0
#: Seconds of audio the endpointer decides a start or an end on, and the
#: share of it that must be speech (or not) to decide (``Utterances``), and
#: the WebRTC VAD's aggressiveness (0 loose to 3). Chosen on the development
#: sets (bench_voice --latency-only): 0.5 s, 0.9, mode 0 waited a median
#: 685 ms after the end of speech; 0.2 s, 0.9, mode 3 waits 319 ms and cuts
#: inside one call in eight, which ``JOIN`` mends.
WINDOW = 0.2
RATIO = 0.9
VAD_MODE = 3
#: Speech that starts this soon (s) after a cut continues the utterance before.
JOIN = 0.6
#: Seconds of audio before the endpointer's start of speech kept at the head of
#: an utterance: the VAD decides a start late on a soft onset ("ee-ah"), and the
#: call network (``callnet``) lost the first word of such calls without it.
PREROLL = 0.3
#: While speech goes on, the utterance so far is handed to the recognizer this
#: often (s of new audio) when the listener is idle (``Utterances.so_far``):
#: the call network embeds it ahead, and hearing it at its end costs less.
AHEAD = 0.25
_STOP = object()


class Utterances:
    """Cuts a stream of VAD frames into utterances with pocketsphinx's Endpointer.

    ``window`` seconds of audio decide a start or end, and the end is known
    about ``window`` after speech stops: that is most of the latency. A
    short window also cuts at the pause between two words of a call, so a
    cut followed by more speech within ``join`` seconds is handed out again
    joined to that speech: the listener hears the first piece at once and
    the whole call a moment later, and the newer result replaces the older.

    The endpointer decides an end only ``window`` after the last speech
    frame, and those frames are silence: the utterance is already known when
    the VAD first hears no speech. ``tentative`` then holds it, exactly as it
    will be cut if the speech has ended there, so that it can be recognised
    while the endpointer waits (``Listener``): the wait and the recognition
    overlap instead of adding up.
    """

    def __init__(
        self,
        rate: int = RATE,
        window: float = WINDOW,
        ratio: float = RATIO,
        join: float = JOIN,
        vad_mode: int = VAD_MODE,
        preroll: float = PREROLL,
    ) -> None:
        ps = pocketsphinx_module()
        self._ep = ps.Endpointer(window=window, ratio=ratio, vad_mode=vad_mode, sample_rate=rate)
        self.rate = rate
        self.join = join
        self.frame_bytes: int = self._ep.frame_bytes
        self._parts: list[bytes] = []
        self._previous = b""  # the last utterance handed out, to join a continuation to
        self.speech_end = 0.0  # stream time (s) of the end of the last utterance
        self.joined = False  # the last utterance handed out continues the one before
        # The utterance as it will be cut if the speech ended at the last frame
        # pushed (set on the first frame the VAD hears no speech in, else None).
        self.tentative: bytes | None = None
        self._vad = ps.Vad(vad_mode, rate)  # the endpointer's VAD, frame by frame
        self._was_speech = False
        self._pushed = 0  # frames pushed so far: stream time in frames
        # The last frames pushed, with their numbers: the endpointer holds back
        # ``window`` of them, and a tentative utterance needs them; the
        # preroll is cut from them when an utterance starts.
        length = float(self._ep.frame_length)
        self._preroll_frames = round(preroll / length)
        self._recent: deque[tuple[int, bytes]] = deque(
            maxlen=int((window + preroll) / min(0.01, length)) + 8
        )
        self._head = b""  # the preroll of the utterance being cut
        self._previous_head = b""
        # The audio just before the last utterance handed out (``head``) or the
        # tentative one (``tentative_head``): up to ``preroll`` seconds before the
        # endpointer's start of speech. It is not part of the utterance
        # (pocketsphinx's searches were chosen on utterances without it, and it
        # would cost them time); the call network hears it (``Recognizer.hear``).
        self.head = b""
        self.tentative_head = b""
        self._ahead = 0  # bytes of the utterance so far when ``so_far`` last gave it

    def push(self, frame: bytes) -> bytes | None:
        """One frame of ``frame_bytes``; returns a whole utterance when one has ended."""
        self.tentative = None
        is_speech = bool(self._vad.is_speech(frame))
        self._recent.append((self._pushed, frame))
        self._pushed += 1
        speech = self._ep.process(frame)
        if speech is not None:
            if not self._parts:
                first = self._first_frame()
                self._head = b"".join(
                    f for n, f in self._recent if first - self._preroll_frames <= n < first
                )
            self._parts.append(speech)
            if len(self._parts) * self.frame_bytes > MAX_SECONDS * self.rate * 2:
                return self._cut()
        if not self._ep.in_speech and self._parts:
            self._was_speech = is_speech
            return self._cut()
        if self._ep.in_speech and self._was_speech and not is_speech:
            cut = self._as_cut()
            if cut is not None:
                self.tentative, self.tentative_head = cut
        self._was_speech = is_speech
        return None

    def so_far(self, every: float = AHEAD) -> tuple[bytes, bytes] | None:
        """While speech goes on, the utterance said so far and its head, once ``every``
        seconds more of it have been said since it was last given (else None). Its audio is
        the cut's where both have audio (the cut may end before the last frames held here,
        if they turn out silence): what ``Recognizer.ahead`` starts on."""
        if not self._ep.in_speech or not self._parts:
            self._ahead = 0
            return None
        cut = self._as_cut()
        if cut is None or len(cut[0]) < self._ahead + every * self.rate * 2:
            return None
        self._ahead = len(cut[0])
        return cut

    def _as_cut(self) -> tuple[bytes, bytes] | None:
        """What ``_cut`` would hand out if the endpointer ended the speech now, and its head."""
        held = self._first_frame() + len(self._parts)  # the first frame the endpointer holds
        tail = [f for n, f in self._recent if n >= held]
        if not tail or self._recent[0][0] > held:  # not all of it kept: no guess
            return None
        out = b"".join(self._parts) + b"".join(tail)
        if self._joins(float(self._ep.speech_start), len(out)):
            return self._previous + out, self._previous_head
        return out, self._head

    def _first_frame(self) -> int:
        """The number of the first frame of the speech the endpointer is in."""
        return round(float(self._ep.speech_start) / float(self._ep.frame_length))

    def _joins(self, start: float, size: int) -> bool:
        return (
            bool(self._previous)
            and start - self.speech_end <= self.join
            and len(self._previous) + size <= MAX_SECONDS * self.rate * 2
        )

    def flush(self, tail: bytes = b"") -> bytes | None:
        """End of the stream: whatever speech is still open."""
        if self._ep.in_speech:
            rest = self._ep.end_stream(tail or bytes(self.frame_bytes))  # it needs a frame
            if rest is not None:
                self._parts.append(rest)
        return self._cut() if self._parts else None

    def _cut(self) -> bytes:
        start, end = float(self._ep.speech_start), float(self._ep.speech_end)
        out = b"".join(self._parts)
        self.head, self._parts, self._head, self._ahead = self._head, [], b"", 0
        self.joined = self._joins(start, len(out))
        if self.joined:
            out = self._previous + out
            self.head = self._previous_head
        self._previous, self._previous_head, self.speech_end = out, self.head, end
        return out


class Listener:
    """Hears calls from a USB microphone for the TUI.

    ``Listener(on_heard, device=None)``; ``start()``; on every turn
    ``start_turn(roll, layout)``; ``push_to_talk(True/False)`` from a key, or
    leave it to voice activity (``vad=True``); ``end_turn()``; ``stop()``.
    """

    def __init__(
        self,
        on_heard: Callable[[Heard], None],
        device: int | str | None = None,
        *,
        vad: bool = True,
        threshold: float = DEFAULT_THRESHOLD,
    ) -> None:
        self.on_heard = on_heard
        self.device = device
        self.vad = vad
        self.rate = RATE
        self._recognizer = Recognizer(threshold=threshold)
        self._queue: queue.Queue[object] = queue.Queue()
        self._thread: threading.Thread | None = None
        self._stream: Any = None
        self._calls: tuple[Call, ...] = ()
        self._listening = False
        self._talking = False
        self._ptt: list[bytes] = []  # the thread's own state from here on
        self._utterances: Utterances | None = None
        # A tentative utterance recognised before its end was sure (with its
        # head), and the result.
        self._early: tuple[bytes, bytes, Heard | None] | None = None
        self.error: str | None = None  # the last problem, as a sentence for the screen

    # ----------------------------------------------------------- lifecycle
    def start(self, microphone: bool = True) -> None:
        """Start the thread, and the microphone unless audio comes from ``feed``."""
        if microphone:
            self._open_microphone()
        self._utterances = Utterances(self.rate)
        self._thread = threading.Thread(target=self._run, name="voice-listener", daemon=True)
        self._thread.start()
        if self._stream is not None:
            self._stream.start()

    def stop(self) -> None:
        if self._stream is not None:
            self._stream.stop()
            self._stream.close()
            self._stream = None
        if self._thread is not None:
            self._queue.put(_STOP)
            self._thread.join(timeout=5)
            self._thread = None

    def _open_microphone(self) -> None:
        try:
            import sounddevice as sd  # type: ignore[import-untyped,unused-ignore]
        except (ImportError, OSError) as exc:  # OSError: PortAudio itself is missing
            raise VoiceUnavailable(
                f"no microphone support: {exc} (install the voice extra and libportaudio2)"
            ) from None
        try:
            try:
                sd.check_input_settings(
                    device=self.device, channels=1, dtype="int16", samplerate=RATE
                )
            except Exception:  # noqa: BLE001 - 16 kHz refused: use the device's own rate
                self.rate = int(sd.query_devices(self.device, "input")["default_samplerate"])
            self._stream = sd.RawInputStream(
                samplerate=self.rate,
                channels=1,
                dtype="int16",
                device=self.device,
                callback=self._on_audio,
            )
        except Exception as exc:  # noqa: BLE001 - PortAudio errors carry their own text
            raise VoiceUnavailable(f"the microphone could not be opened: {exc}") from None

    def _on_audio(self, indata: Any, frames: int, time: Any, status: Any) -> None:
        self._queue.put(bytes(indata))

    # ------------------------------------------------------------- control
    # Controls travel through the same queue as the audio, so a key press is
    # applied exactly between the audio before it and the audio after it.
    def start_turn(self, roll: tuple[str, ...] | None, layout: tuple[str, ...] | None) -> None:
        """Listen for the calls that make sense for this roll and layout (None: unknown)."""
        self._queue.put(("turn", calls_for(roll, layout)))

    def end_turn(self) -> None:
        self._queue.put(("end", ()))

    def push_to_talk(self, pressed: bool) -> None:
        """Key down starts an utterance; key up ends it and recognises it."""
        self._queue.put(("ptt", pressed))

    def feed(self, pcm: bytes) -> None:
        """Audio as 16-bit mono PCM at ``self.rate``, as the microphone would give it."""
        self._queue.put(pcm)

    # --------------------------------------------------------------- thread
    def _run(self) -> None:
        pending = b""
        while True:
            item = self._queue.get()
            if item is _STOP:
                return
            if isinstance(item, tuple):
                self._control(*item)
                pending = b""
                continue
            assert isinstance(item, bytes)
            if not self._listening:
                continue
            if self._talking:
                self._ptt.append(item)
                continue
            if not self.vad:
                continue
            cuts = self._utterances
            assert cuts is not None
            pending += item
            while len(pending) >= cuts.frame_bytes:
                frame, pending = pending[: cuts.frame_bytes], pending[cuts.frame_bytes :]
                utterance = cuts.push(frame)
                if utterance is not None:
                    self._post(utterance, cuts.head)
                elif (
                    cuts.tentative is not None
                    and len(pending) < cuts.frame_bytes
                    and self._queue.empty()
                ):
                    # Caught up with the microphone, and the speech may have
                    # ended: recognise it now, while the endpointer waits to
                    # be sure. Behind the microphone, the wait is already over.
                    head = cuts.tentative_head
                    self._early = (cuts.tentative, head, self._hear(cuts.tentative, head))
                elif len(pending) < cuts.frame_bytes and self._queue.empty():
                    ahead = cuts.so_far()  # idle while speech goes on: start on it
                    if ahead is not None:
                        self._ahead(*ahead)

    def _control(self, what: str, value: Any) -> None:
        if what in ("turn", "end"):  # half an utterance from before never carries over
            self._utterances, self._early = Utterances(self.rate), None
        if what == "turn":
            self._calls, self._listening = value, True
        elif what == "end":
            self._listening, self._talking, self._ptt = False, False, []
        elif value:  # push-to-talk pressed
            self._talking, self._ptt = True, []
        elif self._talking:  # released
            audio, self._talking, self._ptt = b"".join(self._ptt), False, []
            self._recognise(audio)

    def _post(self, pcm: bytes, head: bytes) -> None:
        """An utterance the endpointer cut: its early result when it is the same audio."""
        early, self._early = self._early, None
        same = early is not None and early[0] == pcm and early[1] == head
        heard = early[2] if early is not None and same else self._hear(pcm, head)
        if heard is not None:
            self.on_heard(heard)

    def _ahead(self, pcm: bytes, head: bytes) -> None:
        # A microphone at another rate is resampled utterance by utterance: the start of
        # an utterance so far is then not the same bits as that of the whole, nothing to gain.
        if self._listening and pcm and self.rate == RATE:
            try:
                self._recognizer.ahead(self._samples(pcm), self._samples(head))
            except Exception as exc:  # noqa: BLE001 - the thread must survive; the screen says why
                self.error = f"the call could not be recognised: {exc}"

    def _samples(self, pcm: bytes) -> Samples:
        samples: Samples = np.frombuffer(pcm, dtype="<i2")
        if self.rate != RATE and samples.size:
            samples = to_int16(resample(samples.astype(np.float64), self.rate, RATE))
        return samples

    def _recognise(self, pcm: bytes) -> None:
        heard = self._hear(pcm)
        if heard is not None:
            self.on_heard(heard)

    def _hear(self, pcm: bytes, head: bytes = b"") -> Heard | None:
        if not self._listening or not pcm:
            return None
        samples, before = self._samples(pcm), self._samples(head)
        try:
            return self._recognizer.hear(samples, self._calls, before)
        except Exception as exc:  # noqa: BLE001 - the thread must survive; the screen says why
            self.error = f"the call could not be recognised: {exc}"
            return None
