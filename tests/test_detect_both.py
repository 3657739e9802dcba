"""The agreeing finder: nothing either finder sees is dropped; a die one finder doubts is read
'?'."""

from __future__ import annotations

from companion.synth.frame import render_frame
from companion.synth.styles import HELD_OUT
from companion.vision.detect import find_dice
from companion.vision.detect_both import find_dice_both
from companion.vision.detect_net import find_dice_net
from companion.vision.finders import DEFAULT_FINDER, FINDERS, make_finder


def _near(a: tuple[float, float], b: tuple[float, float], r: float) -> bool:
    return (a[0] - b[0]) ** 2 + (a[1] - b[1]) ** 2 < r * r


def test_every_die_of_either_finder_is_kept_and_lone_ones_are_flagged() -> None:
    for seed in (5003, 5011, 5020):
        image = render_frame(seed, styles=HELD_OUT).image
        net, classic, both = find_dice_net(image), find_dice(image), find_dice_both(image)
        assert len(both) >= max(len(net), len(classic))
        for d in both:
            seen_by_net = any(_near(d.center, n.center, 0.5 * n.edge) for n in net)
            seen_by_classic = any(_near(d.center, c.center, 0.5 * d.edge) for c in classic)
            if d.clean:
                assert seen_by_net and seen_by_classic
        for c in classic:
            assert any(
                _near(c.center, d.center, 1.0) or _near(c.center, d.center, 0.5 * d.edge)
                for d in both
            )


def test_finders_by_name() -> None:
    assert DEFAULT_FINDER in FINDERS
    for name in FINDERS:
        assert callable(make_finder(name))
