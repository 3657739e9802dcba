"""A second listener for the call: a speech embedding and a small word network (docs/voice.md).

pocketsphinx hears phones with an acoustic model of American English; the
words of this game are not English, and voices it was not tuned on lose a
call in three (issue 18). This listener hears them another way: Google's
``speech_embedding`` (trained on a great deal of real speech; its ONNX files
come with the openwakeword 0.4.0 package, Apache-2.0) turns 16 kHz audio into
one 96-value vector every 80 ms, and ``models/callnet.onnx`` (a small
recurrent network trained with CTC on our development synthesisers, never on
the kept-aside ones: models/train_callnet.py) gives, per vector, the
log-probability of each call word, of a word that is no call word, and of
none. A call's score is the CTC log-likelihood of its words, a word said twice
in a row included.
"""

from __future__ import annotations

import importlib.metadata
import os
from collections.abc import Iterable
from pathlib import Path
from typing import Any

import numpy as np

from companion.paths import shipped_file
from companion.rules import TABLE_K, Call, Word

#: The network's labels: 0 is CTC's blank, then the four words, then any other word.
BLANK = 0
WORD_LABEL = {Word.IAA: 1, Word.CTHULHU: 2, Word.FHTAGN: 3, Word.PHNGLUI: 4}
OTHER = 5
RATE = 16000
MEL_WINDOW = 76  # mel frames (10 ms each) one embedding sees
MEL_STEP = 8  # mel frames between embeddings: one every 80 ms
#: Silence around the utterance, so that its first and last word lie in the
#: middle of some embedding window and not only at its edge.
PAD_S = 0.4
EMBED_DIM = 96
ALL_CALLS: tuple[Call, ...] = tuple(TABLE_K.values())


class CallNetUnavailable(RuntimeError):
    """The speech embedding or the call network cannot be loaded."""


def _embedding_files() -> tuple[Path, Path]:
    """openwakeword 0.4.0's mel-spectrogram and speech-embedding ONNX files, found without
    importing openwakeword (its import pulls in far more than these two files)."""
    try:
        dist = importlib.metadata.distribution("openwakeword")
    except importlib.metadata.PackageNotFoundError:
        raise CallNetUnavailable(
            "hearing calls needs the voice extra: pip install 'companion[voice]' (openwakeword)"
        ) from None
    files = tuple(
        Path(str(dist.locate_file(f"openwakeword/resources/models/{name}.onnx")))
        for name in ("melspectrogram", "embedding_model")
    )
    missing = [f.name for f in files if not f.is_file()]
    if missing:
        raise CallNetUnavailable(
            f"openwakeword {dist.version} has no {' or '.join(missing)}: "
            "install openwakeword==0.4.0, the release that ships them"
        )
    return files[0], files[1]


def call_targets(call: Call) -> list[list[int]]:
    """The label sequences that say ``call``: its words, and each word said twice in a row."""
    base = [WORD_LABEL[w] for w in call]
    return [base] + [base[: i + 1] + base[i:] for i in range(len(base))]


def ctc_loglik(lp: np.ndarray, targets: list[list[int]]) -> np.ndarray:
    """log P(target | frames) for every target at once: CTC's forward pass in log space.

    ``lp`` holds (T, labels) log-probabilities. Vectorised over the targets,
    so scoring every call of table K is T small numpy steps.
    """
    n = len(targets)
    s_len = 2 * max(len(t) for t in targets) + 1
    ext = np.full((n, s_len), BLANK, np.int64)
    valid = np.zeros((n, s_len), bool)
    for i, t in enumerate(targets):
        ext[i, 1 : 2 * len(t) : 2] = t
        valid[i, : 2 * len(t) + 1] = True
    # A path may skip a blank only between two different labels.
    skip = np.zeros((n, s_len), bool)
    skip[:, 2:] = (ext[:, 2:] != BLANK) & (ext[:, 2:] != ext[:, :-2])
    neg = -np.inf
    alpha = np.full((n, s_len), neg)
    alpha[:, :2] = lp[0][ext[:, :2]]
    alpha[~valid] = neg
    pad1 = np.full((n, 1), neg)
    pad2 = np.full((n, 2), neg)
    for frame in range(1, lp.shape[0]):
        prev1 = np.concatenate([pad1, alpha[:, :-1]], 1)
        prev2 = np.where(skip, np.concatenate([pad2, alpha[:, :-2]], 1), neg)
        alpha = np.logaddexp(np.logaddexp(alpha, prev1), prev2) + lp[frame][ext]
        alpha[~valid] = neg
    rows = np.arange(n)
    ends = np.array([2 * len(t) for t in targets])
    return np.asarray(np.logaddexp(alpha[rows, ends], alpha[rows, ends - 1]))


class SpeechEmbedding:
    """16 kHz audio to one 96-value speech embedding every 80 ms (one thread)."""

    def __init__(self) -> None:
        mel, emb = _embedding_files()
        self._mel = _session(mel)
        self._emb = _session(emb)
        # The last utterance's windows of mel frames (as bytes) and their embeddings. The
        # network sees one window at a time, so a window of the same bits embeds the same;
        # an utterance embedded while it was said (``ahead``) leaves only the windows its
        # end changed to be embedded when it is heard (issue 18's latency).
        self._memo: dict[bytes, np.ndarray] = {}

    def __call__(self, samples: np.ndarray) -> np.ndarray:
        """(n, 96) embeddings of int16 samples (the utterance padded with PAD_S of silence)."""
        return self._embed(samples, end_pad=True)

    def ahead(self, samples: np.ndarray) -> None:
        """Embed the windows of an utterance still being said that lie wholly in its audio,
        so that its call embeds only the rest; changes no result."""
        self._embed(samples, end_pad=False)

    def _embed(self, samples: np.ndarray, end_pad: bool) -> np.ndarray:
        pad = np.zeros(int(PAD_S * RATE), np.float32)
        x = np.concatenate([pad, samples.astype(np.float32)] + ([pad] if end_pad else []))[None]
        # /10 + 2 brings this ONNX mel front end to the scale the embedding was trained on.
        # Its frames depend on the loudest frame of all (a floor 80 dB under it), so a
        # window embedded ahead is used again only while that holds (the bits are the key).
        mel = self._mel.run(None, {"input": x})[0].reshape(-1, 32) / 10 + 2
        n = (mel.shape[0] - MEL_WINDOW) // MEL_STEP + 1
        if n < 1:
            return np.zeros((0, EMBED_DIM), np.float32)
        idx = np.arange(MEL_WINDOW)[None] + MEL_STEP * np.arange(n)[:, None]
        windows = mel[idx][..., None].astype(np.float32)
        keys = [w.tobytes() for w in windows]
        memo = self._memo
        out = np.empty((n, EMBED_DIM), np.float32)
        todo = []
        for i, key in enumerate(keys):
            known = memo.get(key)
            if known is None:
                todo.append(i)
            else:
                out[i] = known
        if todo:
            got = self._emb.run(None, {"input_1": windows[todo]})[0]
            out[todo] = np.asarray(got).reshape(len(todo), EMBED_DIM)
        # only this utterance's windows are kept: the next call is it again, longer, or another
        self._memo = dict(zip(keys, out.copy(), strict=True))
        return out


def _session(path: Path) -> Any:
    import onnxruntime as ort

    opts = ort.SessionOptions()
    opts.intra_op_num_threads = 1
    opts.inter_op_num_threads = 1
    try:
        return ort.InferenceSession(str(path), opts, providers=["CPUExecutionProvider"])
    except Exception as exc:  # onnxruntime raises its own types for a bad file
        raise CallNetUnavailable(f"{path.name} could not be loaded: {exc}") from None


class CallNet:
    """Scores every call of table K, and talk, for one utterance; one thread, not thread-safe."""

    def __init__(
        self, model: str | os.PathLike[str] | None = None, embed: SpeechEmbedding | None = None
    ) -> None:
        self.embed = SpeechEmbedding() if embed is None else embed
        path = Path(model) if model is not None else shipped_file("models", "callnet.onnx")
        self._net = _session(path)
        self._targets: list[list[int]] = []
        self._owner: list[Call | None] = []
        for call in ALL_CALLS:
            for t in call_targets(call):
                self._targets.append(t)
                self._owner.append(call)
        self._targets.append([OTHER])
        self._owner.append(None)

    def log_probs(self, samples: np.ndarray) -> np.ndarray:
        """(T, 6) per-frame log-probabilities of blank, the four words and another word."""
        return self.log_probs_of(self.embed(samples))

    def log_probs_of(self, embeddings: np.ndarray) -> np.ndarray:
        """The same from the utterance's embeddings (several networks may share one)."""
        if embeddings.shape[0] == 0:
            return np.zeros((0, OTHER + 1), np.float32)
        return np.asarray(self._net.run(None, {"embeddings": embeddings[None]})[0][0], np.float64)

    def scores(self, samples: np.ndarray) -> dict[Call | None, float]:
        """Each call's log-likelihood (a word said twice included), and talk's (None)."""
        return self.scores_of(self.log_probs(samples))

    def scores_of(self, lp: np.ndarray) -> dict[Call | None, float]:
        """The same from ``log_probs``."""
        if lp.shape[0] == 0:
            return {c: -np.inf for c in (*ALL_CALLS, None)}
        ll = ctc_loglik(lp, self._targets)
        out: dict[Call | None, float] = {}
        for owner, v in zip(self._owner, ll, strict=True):
            out[owner] = float(np.logaddexp(out[owner], v)) if owner in out else float(v)
        return out


def posteriors(scores: dict[Call | None, float], calls: Iterable[Call]) -> dict[Call | None, float]:
    """Log-probabilities over the allowed calls and talk (None), from ``CallNet.scores``."""
    keys: list[Call | None] = [*calls, None]
    v = np.array([scores[k] for k in keys])
    top = np.max(v)
    if not np.isfinite(top):
        return {k: float(-np.log(len(keys))) for k in keys}
    v = v - (top + np.log(np.sum(np.exp(v - top))))
    return dict(zip(keys, map(float, v), strict=True))
