"""The detector's training script: fine-tuning starts from the shipped model, and the
teacher term holds the regression outputs only where a die is seen (torch only)."""

from __future__ import annotations

from pathlib import Path
from types import ModuleType

import numpy as np
import pytest

pytest.importorskip("torch")
pytest.importorskip("onnx")

import torch  # noqa: E402

from tests.scripts import load_script  # noqa: E402

REPO = Path(__file__).resolve().parents[1]


def _script() -> ModuleType:
    return load_script("train_detector")


def _maps(heat_logit: float, reg: float) -> torch.Tensor:
    out = torch.full((1, 14, 8, 8), reg)
    out[:, 0] = heat_logit
    return out


def test_the_teacher_term_is_zero_when_the_student_agrees() -> None:
    td = _script()
    teacher = _maps(3.0, 0.5)
    mask = torch.zeros(1, 8, 8)
    assert float(td.distill_loss(teacher.clone(), teacher, mask)) == 0.0


def test_the_teacher_term_counts_only_cells_where_a_die_is_seen() -> None:
    td = _script()
    mask = torch.zeros(1, 8, 8)
    # Neither sees a die anywhere (heat ~0.05): the regression outputs are free.
    teacher = _maps(-3.0, 0.5)
    student = _maps(-3.0, 2.0)
    assert float(td.distill_loss(student, teacher, mask)) == 0.0
    # The truth puts a die in one cell: that cell's regression is held.
    mask[0, 3, 4] = 1.0
    held = float(td.distill_loss(student, teacher, mask))
    assert held > 1.0
    # The teacher sees a die there (and the truth does not): held all the same.
    teacher[0, 0, 3, 4] = 3.0
    assert float(td.distill_loss(student, teacher, torch.zeros(1, 8, 8))) == pytest.approx(held)


def test_teacher_cells_leave_a_die_the_teacher_misses_to_the_truth() -> None:
    td = _script()
    mask = torch.zeros(1, 8, 8)
    mask[0, 3, 4] = 1.0  # the truth puts a die here
    teacher = _maps(-3.0, 0.5)  # the teacher does not see it: its edge there means nothing
    student = _maps(-3.0, 2.0)
    assert float(td.distill_loss(student, teacher, mask, cells="either")) > 1.0
    assert float(td.distill_loss(student, teacher, mask, cells="teacher")) == 0.0
    # Where the teacher sees a die, its regression is held either way.
    teacher[0, 0, 3, 4] = 3.0
    held = float(td.distill_loss(student, teacher, mask, cells="either"))
    assert held > 1.0
    assert float(td.distill_loss(student, teacher, mask, cells="teacher")) == pytest.approx(held)


@pytest.mark.slow
def test_a_checkpoint_from_the_shipped_model_computes_what_it_computes(tmp_path: Path) -> None:
    onnxruntime = pytest.importorskip("onnxruntime")
    td = _script()
    onnx_path = REPO / "models" / "dice_detector.onnx"
    ckpt = tmp_path / "t.pt"
    td.from_onnx(onnx_path, ckpt)
    net = td.build_model()
    net.load_state_dict(torch.load(ckpt)["net"])
    net.eval()
    x = np.random.default_rng(1).uniform(0, 255, (1, 3, 64, 96)).astype(np.float32)
    with torch.no_grad():
        ours = td.Exported.wrap(net).eval()(torch.from_numpy(x)).numpy()
    sess = onnxruntime.InferenceSession(str(onnx_path), providers=["CPUExecutionProvider"])
    theirs = sess.run(None, {sess.get_inputs()[0].name: x})[0]
    assert ours.shape == theirs.shape
    assert np.abs(ours - theirs).max() < 1e-3
