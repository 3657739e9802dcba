"""The face model's training helpers (models/train_faces.py): appearance changes, crop cache."""

from __future__ import annotations

import argparse
import math
import sys
from pathlib import Path
from typing import Any

import numpy as np
import pytest

torch = pytest.importorskip("torch")
sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "models"))
import train_faces as tf  # noqa: E402

from companion.synth.crops import CropSet  # noqa: E402


def _discs(n: int) -> Any:
    """n crops of a light disc on a dark body (BGR 0..255), the disc's mask."""
    yy, xx = np.mgrid[:64, :64]
    mask = (yy - 30) ** 2 + (xx - 36) ** 2 < 14**2
    img = np.where(mask[..., None], [200.0, 180.0, 160.0], [40.0, 50.0, 60.0])
    return torch.from_numpy(np.repeat(img[None], n, axis=0).astype(np.float32)), mask


def test_curves_follow_their_knots() -> None:
    x = torch.arange(256.0).reshape(1, 16, 16, 1).expand(1, 16, 16, 3).contiguous()
    same = torch.linspace(0, 255, 6).expand(1, 3, 6).contiguous()
    assert torch.allclose(tf._curve(x, same), x, atol=1e-3)
    assert torch.allclose(tf._curve(x, same.flip(2).contiguous()), 255 - x, atol=1e-3)
    step = torch.tensor([0.0, 0.0, 0.0, 255.0, 255.0, 255.0]).expand(1, 3, 6).contiguous()
    out = tf._curve(x, step)
    assert float(out[x <= 102].max()) == 0.0 and float(out[x >= 153].min()) == 255.0


def test_textures_lie_in_0_1_and_differ_from_crop_to_crop() -> None:
    tex = tf._textures(32, 64, torch.Generator().manual_seed(0))
    assert tex.shape == (32, 64, 64, 1)
    assert float(tex.min()) >= 0.0 and float(tex.max()) <= 1.0
    assert float(tex.std(dim=(1, 2, 3)).min()) > 0.01  # a pattern, not a flat grey
    assert float((tex[0] - tex[1]).abs().mean()) > 0.01


def test_restyle_off_changes_nothing() -> None:
    x, _ = _discs(8)
    assert torch.equal(tf.restyle(x, torch.Generator().manual_seed(0), 0.0), x)


def test_restyle_changes_a_share_of_crops_and_keeps_their_shape() -> None:
    x, mask = _discs(400)
    out = tf.restyle(x, torch.Generator().manual_seed(1), 0.5)
    assert out.shape == x.shape and float(out.min()) >= 0.0 and float(out.max()) <= 255.0
    changed = (out - x).abs().amax(dim=(1, 2, 3)) > 1.0
    assert 0.35 < float(changed.float().mean()) < 0.65
    # The disc is still there: each crop's grey level tells disc from body (either way round).
    grey = out.mean(dim=3).reshape(len(out), -1).numpy()
    m = mask.reshape(-1)
    gap = np.abs(grey[:, m].mean(axis=1) - grey[:, ~m].mean(axis=1))
    spread = grey[:, m].std(axis=1) + grey[:, ~m].std(axis=1) + 1.0
    assert float(np.mean(gap / spread > 1.0)) > 0.9
    # Same generator, same crops: a run is reproducible from its seed.
    again = tf.restyle(x, torch.Generator().manual_seed(1), 0.5)
    assert torch.equal(out, again)


def _args(**kw: int) -> argparse.Namespace:
    base = dict.fromkeys(tf.RENDER_ARGS, 1)
    base.update(kw)
    return argparse.Namespace(cache="/tmp/x", **base)


def test_the_crop_cache_is_keyed_by_the_rendering_and_keeps_every_crop(tmp_path: Path) -> None:
    assert tf.crop_cache(_args()) == tf.crop_cache(_args())
    assert tf.crop_cache(_args()) != tf.crop_cache(_args(non_die=2))
    rng = np.random.default_rng(0)
    tr = CropSet(
        rng.integers(0, 256, (5, 64, 64, 3), dtype=np.uint8),
        np.array([0, 1, 5, -1, 3], np.int64),
        ["a", "non-die", "table", "pip", "b"],
        np.arange(5, dtype=np.int64),
    )
    va = CropSet(tr.images[:2], tr.labels[:2], tr.styles[:2], tr.frames[:2])
    path = tmp_path / "c" / "crops.npz"
    tf.save_crops(path, tr, va)
    assert path.is_file() and not list(path.parent.glob("*.part.npz"))
    for got, want in zip(tf.load_crops(path), (tr, va), strict=True):
        assert np.array_equal(got.images, want.images)
        assert np.array_equal(got.labels, want.labels)
        assert got.styles == want.styles and np.array_equal(got.frames, want.frames)


def test_the_separable_box_mean_is_the_square_mean_clipped_at_the_borders() -> None:
    x = torch.rand(3, 64, 64, 3, generator=torch.Generator().manual_seed(5)) * 255
    for r in (1, 7):
        square = torch.nn.functional.avg_pool2d(
            x.permute(0, 3, 1, 2), 2 * r + 1, 1, r, count_include_pad=False
        ).permute(0, 2, 3, 1)
        assert torch.allclose(tf._box_mean(x, r), square, atol=1e-3)


def test_unknown_mix_off_changes_nothing() -> None:
    x, _ = _discs(8)
    y = torch.arange(8) % 5
    mx, my = tf.mix_unknown(x, y, torch.Generator().manual_seed(0), 0.0)
    assert torch.equal(mx, x) and torch.equal(my, y)


def test_unknown_mix_gives_a_band_of_another_motif_and_the_unknown_label() -> None:
    n = 600
    x = torch.zeros(n, 64, 64, 3)
    y = torch.arange(n) % 6  # five motifs and "not a die"
    x[:] = (y.float() * 40.0)[:, None, None, None]  # each class its own grey
    mx, my = tf.mix_unknown(x, y, torch.Generator().manual_seed(2), 0.3)
    mixed = my == tf.UNKNOWN_ART
    motif = y < 5
    assert 0.15 < float(mixed[motif].float().mean()) < 0.3
    assert not bool(mixed[~motif].any())  # "not a die" crops are never mixed
    assert torch.equal(mx[~mixed], x[~mixed]) and torch.equal(my[~mixed], y[~mixed])
    for i in torch.nonzero(mixed).flatten().tolist():
        own = float(y[i]) * 40.0
        share = float((mx[i, ..., 0] != own).float().mean())
        assert 0.3 <= share <= 0.55  # a band of a third to a half of the face
        assert bool(((mx[i] == own) | (mx[i] % 40 == 0)).all())  # the band is another class's


def test_the_episodic_term_reads_each_die_by_the_other_dice_of_its_own_set() -> None:
    torch.manual_seed(0)
    # Two sets, each drawing the five motifs its own way: apart within a set, and one set's
    # motif k lying where the other set's motif k+1 lies (global directions would mix them).
    base = torch.randn(5, 64)
    labels = torch.tensor([0, 1, 2, 3, 4] * 4)
    groups = torch.tensor([0] * 10 + [1] * 10)
    emb = torch.stack([base[(int(y) + int(g)) % 5] for y, g in zip(labels, groups, strict=True)])
    emb = emb + 0.05 * torch.randn(20, 64)
    views = torch.cat([emb, emb + 0.05 * torch.randn(20, 64)])
    both = torch.cat([labels, labels])
    assert float(tf.episodic_loss(views, both, groups)) < 0.01
    # The same embeddings read as one set: the motifs collide.
    assert float(tf.episodic_loss(views, both, torch.zeros(20, dtype=torch.long))) > 1.0
    # No episode, or only crops that are no motif: no term, and no NaN.
    assert float(tf.episodic_loss(views, both, torch.full((20,), -1))) == 0.0
    nondie = torch.full((40,), tf.NOT_DIE)
    assert float(tf.episodic_loss(views, nondie, groups)) == 0.0


def test_a_die_is_never_its_own_support() -> None:
    # One die per motif in a set: nothing else of its motif to read it by, so no query counts.
    emb = torch.randn(10, 64)
    labels = torch.tensor([0, 1, 2, 3, 4] * 2)
    assert float(tf.episodic_loss(emb, labels, torch.zeros(5, dtype=torch.long))) == 0.0


def test_episode_groups_keep_sets_with_enough_dice_of_two_motifs() -> None:
    n = tf.EPISODE_DICE
    styles = ["a"] * n + ["b"] * n + ["c"] * (n - 1) + ["d"] * n
    labels = np.array(
        [0, 1] * (n // 2)
        + [2] * n
        + [0, 1] * ((n - 1) // 2)
        + [0] * ((n - 1) % 2)
        + [tf.NOT_DIE] * n
    )
    groups = tf.episode_groups(styles, labels)
    assert [sorted(set(np.asarray(styles)[g])) for g in groups] == [["a"]]


F = torch.nn.functional  # the reference below spells the term out crop by crop


def _reference(emb: Any, labels: Any, groups: Any) -> float:
    """episodic_loss written out crop by crop: both views of the query left out, absent motifs
    masked, margin 0.25 on the query's own motif, scale 16."""
    n, k = len(groups), len(tf.FACES)
    e = F.normalize(emb, dim=1)
    rows, ys = [], []
    for q in range(2 * n):
        i, y, g = q % n, int(labels[q]), int(groups[q % n])
        if g < 0 or not 0 <= y < k:
            continue
        logits, present = [], []
        for m in range(k):
            sup = [
                s
                for s in range(2 * n)
                if s % n != i and int(groups[s % n]) == g and int(labels[s]) == m
            ]
            present.append(bool(sup))
            if sup:
                p = F.normalize(e[sup].mean(0), dim=0)
                logits.append(16 * (float(e[q] @ p) - (0.25 if m == y else 0.0)))
            else:
                logits.append(-1e4)
        if present[y] and sum(present) >= 2:
            rows.append(logits)
            ys.append(y)
    return float(F.cross_entropy(torch.tensor(rows), torch.tensor(ys))) if rows else 0.0


def test_the_episodic_term_is_the_crop_by_crop_reading() -> None:
    # Random episodes with absent motifs, unknown art (-1), "not a die" and crops of no episode.
    gen = torch.Generator().manual_seed(3)
    for _ in range(30):
        n = int(torch.randint(6, 24, (1,), generator=gen))
        groups = torch.randint(-1, 3, (n,), generator=gen)
        lab = torch.randint(-1, len(tf.FACES) + 1, (n,), generator=gen)
        emb = torch.randn(2 * n, 16, generator=gen)
        both = torch.cat([lab, lab])
        got = float(tf.episodic_loss(emb, both, groups))
        assert got == pytest.approx(_reference(emb, both, groups), rel=1e-4, abs=1e-5)


def test_the_margin_is_taken_from_the_crops_own_motif() -> None:
    # Every crop the same: cosine 1 to both motifs present, so only the margin and the
    # mask decide: logits 16 * (1 - 0.25) for the own motif, 16 for the other, the rest masked.
    labels = torch.tensor([0, 0, 1, 1] * 2)
    emb = torch.ones(8, 8)
    loss = float(tf.episodic_loss(emb, labels, torch.zeros(4, dtype=torch.long)))
    assert loss == pytest.approx(math.log1p(math.exp(4.0)), rel=1e-4)


def test_absent_motifs_take_no_probability() -> None:
    # Two motifs in the set, orthogonal; the query lies halfway: with the three absent motifs
    # masked it is a two-way choice (unmasked, each would add exp(0) to the denominator).
    u, v = torch.eye(4)[0], torch.eye(4)[1]
    emb = torch.stack([u, u, v, v, (u + v) / 2])
    emb = torch.cat([emb, emb])
    labels = torch.tensor([0, 0, 1, 1, 0] * 2)
    groups = torch.zeros(5, dtype=torch.long)
    assert float(tf.episodic_loss(emb, labels, groups)) == pytest.approx(
        _reference(emb, labels, groups), rel=1e-4
    )


def test_a_set_with_one_motif_reads_nothing_and_dilutes_nothing() -> None:
    gen = torch.Generator().manual_seed(0)
    emb = torch.randn(16, 32, generator=gen)
    labels = torch.tensor([0, 1, 0, 1, 2, 2, 2, 2] * 2)
    two_sets = torch.tensor([0, 0, 0, 0, 1, 1, 1, 1])  # set 1: motif 2 only
    alone = torch.tensor([0, 0, 0, 0, -1, -1, -1, -1])
    assert float(tf.episodic_loss(emb, labels, two_sets)) == pytest.approx(
        float(tf.episodic_loss(emb, labels, alone)), rel=1e-5
    )


def test_unknown_art_in_an_episode_is_neither_read_nor_support() -> None:
    # mix_unknown can relabel a crop of an episode to UNKNOWN_ART: it must count as absent.
    gen = torch.Generator().manual_seed(1)
    emb = torch.randn(20, 32, generator=gen, requires_grad=True)
    lab = torch.tensor([0, 1, 2, 0, 1, 2, tf.UNKNOWN_ART, 0, 1, tf.NOT_DIE])
    groups = torch.zeros(10, dtype=torch.long)
    loss = tf.episodic_loss(emb, torch.cat([lab, lab]), groups)
    loss.backward()
    assert bool(torch.isfinite(loss.detach())) and torch.isfinite(emb.grad).all()
    for i in (6, 9):
        assert float(emb.grad[i].abs().sum()) == 0.0 and float(emb.grad[10 + i].abs().sum()) == 0.0
    out = groups.clone()
    out[[6, 9]] = -1
    assert float(loss.detach()) == pytest.approx(
        float(tf.episodic_loss(emb.detach(), torch.cat([lab, lab]), out)), rel=1e-6
    )


def test_the_two_views_are_the_first_and_second_half() -> None:
    # A crop's own second view (index i + n) is close to it; if the halves were paired wrongly
    # (interleaved), a crop's own other view would count as support and the loss would fall.
    gen = torch.Generator().manual_seed(2)
    n = 6
    first = torch.randn(n, 32, generator=gen)
    emb = torch.cat([first, first + 0.01 * torch.randn(n, 32, generator=gen)])
    labels = torch.tensor([0, 1, 2, 0, 1, 2] * 2)
    groups = torch.zeros(n, dtype=torch.long)
    assert float(tf.episodic_loss(emb, labels, groups)) == pytest.approx(
        _reference(emb, labels, groups), rel=1e-4
    )


def test_an_episode_batch_marks_each_crop_with_its_own_set() -> None:
    import numpy as np

    styles = ["a"] * 20 + ["b"] * 20 + ["c"] * 20 + ["d"] * 20 + ["pip"] * 5
    labels = np.array([0, 1, 2, 3, 4] * 16 + [tf.UNKNOWN_ART] * 5)
    groups = tf.episode_groups(styles, labels)
    gen = torch.Generator().manual_seed(0)
    head = torch.arange(10)
    idx, member = tf.episode_batch(head, groups, gen)
    n = tf.EPISODE_SETS * tf.EPISODE_DICE
    assert len(idx) == len(member) == 10 + n
    assert torch.equal(idx[:10], head) and bool((member[:10] == -1).all())
    names = np.asarray(styles)
    for j in range(tf.EPISODE_SETS):
        mine = idx[member == j].numpy()
        assert len(mine) == tf.EPISODE_DICE and len(set(mine.tolist())) == tf.EPISODE_DICE
        assert len(set(names[mine])) == 1 and (labels[mine] >= 0).all()
    assert len({names[idx[member == j].numpy()][0] for j in range(tf.EPISODE_SETS)}) == 3
    same, none = tf.episode_batch(head, [], gen)
    assert torch.equal(same, head) and bool((none == -1).all())


def _record_make_crops(monkeypatch: pytest.MonkeyPatch) -> list[Any]:
    """make_crops replaced by a recorder of its calls (frames, styles, size) that renders
    nothing: one blank crop a frame."""
    seen: list[Any] = []

    def fake_make_crops(seeds: Any, styles: Any, **kw: Any) -> CropSet:
        seen.append((len(seeds), styles, kw.get("size")))
        n = len(seeds)
        return CropSet(
            np.zeros((n, 4, 4, 3), np.uint8), np.zeros(n, np.int64), ["s"] * n, np.arange(n)
        )

    monkeypatch.setattr(tf, "make_crops", fake_make_crops)
    return seen


def test_extra_family_crops_draw_the_splits_drawings_lettered_by_training_typefaces(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from companion.synth.families import FAMILY_SPLITS, typefaces

    seen = _record_make_crops(monkeypatch)
    args = argparse.Namespace(
        seed=5, extra_families="hard", extra_family_frames=8, per_die=1, background=1,
        workers=1, cache=str(tmp_path),
    )  # fmt: skip
    out = tf.extra_family_crops(args)
    assert len(out.labels) == 8 and [s[0] for s in seen] == [6, 2]
    assert seen[1][2] == (1280, 960)  # a quarter at the camera's size
    styles = seen[0][1]
    hard = FAMILY_SPLITS["hard"]
    unseen = {f"font:{t}" for split in ("validation", "held_out") for t in typefaces(split)}
    for st in styles:
        assert st.art.tentacle in hard["tentacle"] and st.art.elder in hard["elder"]
        assert st.art.arrangement in hard["arrangement"]
        assert st.art.lettering not in unseen  # validation's typefaces stay unseen
    # Cached apart from the base crops: a second call renders nothing.
    seen.clear()
    again = tf.extra_family_crops(args)
    assert not seen and np.array_equal(again.frames, out.frames)


def test_other_make_crops_keep_the_training_drawings_on_dice_of_other_makes(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from companion.synth.families import FAMILY_SPLITS

    seen = _record_make_crops(monkeypatch)
    args = argparse.Namespace(
        seed=5, other_make_frames=8, per_die=1, background=1, workers=1, cache=str(tmp_path)
    )
    out = tf.other_make_crops(args)
    assert len(out.labels) == 8 and [s[0] for s in seen] == [6, 2]
    styles = seen[0][1]
    unseen = [FAMILY_SPLITS[s] for s in ("validation", "held_out", "hard")]
    for st in styles:  # training drawings only: the development and held-out ones stay unseen
        assert all(st.art.tentacle not in u["tentacle"] for u in unseen)
        assert all(st.art.elder not in u["elder"] for u in unseen)
    bodies = {(st.body.radius, st.body.pattern, st.body.color) for st in styles}
    assert len(bodies) == len(styles) > 1  # each set its own make
    assert {st.body.pattern for st in styles} <= {"", "wood", "speckled", "pearl"}
    seen.clear()
    again = tf.other_make_crops(args)  # cached apart from the base crops
    assert not seen and np.array_equal(again.frames, out.frames)


def test_distillation_holds_only_the_kept_crops_to_the_teacher() -> None:
    gen = torch.Generator().manual_seed(3)
    logits = torch.randn(6, tf.CLASSES, generator=gen)
    emb = torch.randn(6, tf.EMBED, generator=gen)
    keep = torch.tensor([True, True, True, False, False, False])
    # the student as its teacher: nothing to pull
    assert float(tf.distill_loss(logits, emb, logits, emb, keep)) == pytest.approx(0, abs=1e-6)
    moved_l, moved_e = logits.clone(), emb.clone()
    moved_l[4] += 5.0 * torch.randn(tf.CLASSES, generator=gen)  # crops not kept move freely
    moved_e[5] = -moved_e[5]
    assert float(tf.distill_loss(moved_l, moved_e, logits, emb, keep)) == pytest.approx(0, abs=1e-6)
    moved_l[0] += 5.0 * torch.randn(tf.CLASSES, generator=gen)  # a kept crop's read moves
    assert float(tf.distill_loss(moved_l, emb, logits, emb, keep)) > 0.01
    moved_e = emb.clone()
    moved_e[1] = -moved_e[1]  # a kept crop's embedding turns: the cosine term alone is 10 * 2 / 3
    assert float(tf.distill_loss(logits, moved_e, logits, emb, keep)) == pytest.approx(20 / 3)
    assert float(tf.distill_loss(moved_l, moved_e, logits, emb, torch.zeros(6, dtype=bool))) == 0


def test_frozen_blocks_keep_their_weights_through_a_step() -> None:
    torch.manual_seed(0)
    model = tf.FaceNet()
    tf.freeze_blocks(model, 2)
    blocks = [m for m in model.features if isinstance(m, torch.nn.Sequential)]
    before = [p.detach().clone() for b in blocks for p in b.parameters()]
    opt = torch.optim.AdamW([p for p in model.parameters() if p.requires_grad], lr=1e-2)
    logits, emb = model(torch.rand(8, 64, 64, 3) * 255)
    tf.loss_terms(model, logits, emb, torch.arange(8) % tf.CLASSES).backward()
    opt.step()
    after = [p.detach() for b in blocks for p in b.parameters()]
    per_block = [len(list(b.parameters())) for b in blocks]
    frozen = sum(per_block[:2])
    assert all(torch.equal(a, b) for a, b in zip(before[:frozen], after[:frozen], strict=True))
    assert not all(torch.equal(a, b) for a, b in zip(before[frozen:], after[frozen:], strict=True))
    with pytest.raises(SystemExit, match="convolution blocks"):
        tf.freeze_blocks(tf.FaceNet(), len(blocks) + 1)


@pytest.mark.parametrize("option", [["--distill", "1"], ["--freeze", "2"]])
def test_distill_and_freeze_ask_for_a_model_to_start_from(
    option: list[str], monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.setattr(sys, "argv", ["train_faces.py", *option])
    with pytest.raises(SystemExit) as stop:
        tf.main()
    assert stop.value.code == 2
    assert "give it with --init" in capsys.readouterr().err
