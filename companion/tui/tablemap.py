"""The table map: every die where it lies on the mat, with its motif, in text.

It is what the players look at to agree with a read. The mat's zones are
drawn as coloured areas with their names (each layout with its cult's name),
every die as its motif letter at its place; a die read as ``?`` is shown in
red reverse, the die the secretary picked in yellow reverse. Only ASCII and
the 16 ANSI colours are used, so it reads the same on the Pi's console (tty1)
and in any terminal; the zones are also bracketed for terminals without colour.

Without positions from a camera (manual mode, the plain demo) the dice are
laid out in their zones in rows: the map then shows the game as the rules
have it.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field

from rich.text import Text
from textual.events import Click
from textual.message import Message
from textual.widget import Widget

from ..rules import Game
from ..vision.seen import UNKNOWN, Seen, SeenDie, ZoneKind

Rect = tuple[float, float, float, float]

STYLE_ROLLING = ""
STYLE_CENTER = "black on cyan"
STYLE_LAYOUT = "white on blue"
STYLE_TO_MOVE = "black on yellow"
STYLE_DIE = "bold black on white"  # a die is a light square with its motif
STYLE_UNKNOWN = "bold white on red"
STYLE_PICKED = "bold black on bright_yellow"
#: A terminal cell is about twice as tall as it is wide: the map keeps the mat's proportions.
CELL_ASPECT = 2.0
STRETCH = 2.0


@dataclass(frozen=True)
class MatZone:
    kind: ZoneKind
    rect: Rect
    seat: int | None = None


def mat_zones(paper: str, cults: int) -> list[MatZone]:
    """The zones of the printed mat (vision/mat.py) as rectangles in millimetres."""
    from ..vision.mat import mat_geometry

    out = []
    for z in mat_geometry(paper).zones(cults):
        xs = [p[0] for p in z.polygon]
        ys = [p[1] for p in z.polygon]
        out.append(MatZone(ZoneKind(z.kind), (min(xs), min(ys), max(xs), max(ys)), z.cult))
    return out


def mat_size(paper: str) -> tuple[float, float]:
    from ..vision.mat import PAPER_MM

    return PAPER_MM[paper]


@dataclass
class MapView:
    """What the map shows: the cults, the dice on the mat and the picked die.

    ``roll`` are the faces of the current roll as keyed (the secretary's
    corrections included); ``roll_at`` their places when the camera gave
    them. ``layout_dice`` are the dice seen in the layouts (camera), or
    None to lay out ``layouts`` (the rules' view) in rows.
    """

    cults: tuple[str, ...]
    paper: str = "A3"
    roll: tuple[str, ...] = ()
    roll_at: tuple[tuple[float, float], ...] = ()
    layouts: dict[str, tuple[str, ...]] = field(default_factory=dict)
    layout_dice: tuple[SeenDie, ...] | None = None
    center: int = 0
    to_move: str | None = None
    picked: int | None = None
    source: str = ""


def _spread(rect: Rect, n: int) -> list[tuple[float, float]]:
    """n places along the long side of a rectangle, evenly spaced, clear of its name at the top."""
    x0, y0, x1, y1 = rect
    if x1 - x0 >= y1 - y0:
        return [(x0 + (i + 0.5) * (x1 - x0) / n, y0 + 0.7 * (y1 - y0)) for i in range(n)]
    top = y0 + 0.15 * (y1 - y0)
    return [((x0 + x1) / 2, top + (i + 0.5) * (y1 - top) / n) for i in range(n)]


@dataclass
class _Grid:
    width: int
    height: int
    size_mm: tuple[float, float]
    chars: list[list[str]] = field(default_factory=list)
    styles: list[list[str]] = field(default_factory=list)

    def __post_init__(self) -> None:
        self.chars = [[" "] * self.width for _ in range(self.height)]
        self.styles = [[""] * self.width for _ in range(self.height)]

    def cell(self, x: float, y: float) -> tuple[int, int]:
        w, h = self.size_mm
        col = min(self.width - 1, max(0, int(x / w * self.width)))
        row = min(self.height - 1, max(0, int(y / h * self.height)))
        return row, col

    def cells(self, rect: Rect) -> tuple[int, int, int, int]:
        r0, c0 = self.cell(rect[0], rect[1])
        w, h = self.size_mm
        r1 = min(self.height - 1, max(r0, int(rect[3] / h * self.height - 1e-6)))
        c1 = min(self.width - 1, max(c0, int(rect[2] / w * self.width - 1e-6)))
        return r0, c0, r1, c1

    def fill(self, rect: Rect, style: str) -> tuple[int, int, int, int]:
        r0, c0, r1, c1 = self.cells(rect)
        for r in range(r0, r1 + 1):
            for c in range(c0, c1 + 1):
                self.chars[r][c] = " "
                self.styles[r][c] = style
        return r0, c0, r1, c1

    def write(
        self, row: int, col: int, text: str, style: str | None = None, limit: int | None = None
    ) -> None:
        end = min(self.width, limit if limit is not None else self.width)
        for i, ch in enumerate(text):
            if col + i >= end:
                break
            self.chars[row][col + i] = ch
            if style is not None:
                self.styles[row][col + i] = style

    def place(self, row: int, col: int, taken: set[tuple[int, int]]) -> tuple[int, int]:
        """The nearest free cell to (row, col), so that no die hides another."""
        for dist in range(0, self.width + self.height):
            for dr, dc in (
                (0, dist),
                (0, -dist),
                (dist, 0),
                (-dist, 0),
                (dist, dist),
                (-dist, -dist),
                (dist, -dist),
                (-dist, dist),
            ):
                r, c = row + dr, col + dc
                if 0 <= r < self.height and 0 <= c < self.width and (r, c) not in taken:
                    return r, c
        return row, col

    def text(self, left: int = 0, top: int = 0) -> Text:
        out = Text("\n" * top, no_wrap=True, overflow="crop")
        for r in range(self.height):
            out.append(" " * left)
            for c in range(self.width):
                out.append(self.chars[r][c], self.styles[r][c] or None)
            if r + 1 < self.height:
                out.append("\n")
        return out


def map_text(view: MapView, width: int, height: int) -> tuple[Text, dict[int, tuple[int, int]]]:
    """The map drawn in ``width`` × ``height`` cells, and the cell of each roll die."""
    if width < 8 or height < 3 or not view.cults:
        return Text("table map: too small to draw", style="dim"), {}
    n = len(view.cults)
    zones = mat_zones(view.paper, n)
    w_mm, h_mm = mat_size(view.paper)
    k = min(width / w_mm, CELL_ASPECT * height / h_mm)  # cells per millimetre across
    # A short map (80×24) may stretch across the width: wider zones keep their names readable.
    cols, rows = (
        max(8, min(width, round(w_mm * k * STRETCH))),
        max(3, min(height, round(h_mm * k / CELL_ASPECT))),
    )
    left, top = (width - cols) // 2, (height - rows) // 2
    grid = _Grid(cols, rows, (w_mm, h_mm))
    labels: list[tuple[int, int, int, str, str]] = []
    # later zones win where they overlap, as on the mat
    for kind in (ZoneKind.ROLLING, ZoneKind.CENTER, ZoneKind.LAYOUT):
        for z in (z for z in zones if z.kind is kind):
            cult = view.cults[z.seat - 1] if z.seat else ""
            style = {ZoneKind.ROLLING: STYLE_ROLLING, ZoneKind.CENTER: STYLE_CENTER}.get(
                kind, STYLE_TO_MOVE if cult and cult == view.to_move else STYLE_LAYOUT
            )
            r0, c0, r1, c1 = grid.fill(z.rect, style)
            if kind is not ZoneKind.ROLLING:  # the rolling area is all the mat that is not coloured
                label = f"[center {view.center}]" if kind is ZoneKind.CENTER else f"[{cult}]"
                labels.append((r0, c0, c1 + 1, label, style))
    for r, c, c1, label, style in labels:
        grid.write(r, c, label, style, limit=c1)
    taken: set[tuple[int, int]] = set()

    def draw(x: float, y: float, face: str, style: str) -> tuple[int, int]:
        r, c = grid.place(*grid.cell(x, y), taken)
        taken.add((r, c))
        # a neighbour's letter would read as one word: keep the cells beside a die free
        taken.update({(r, c - 1), (r, c + 1)})
        grid.write(r, c, face, style)
        return r, c

    by_seat = {z.seat: z.rect for z in zones if z.kind is ZoneKind.LAYOUT}
    if view.layout_dice is not None:
        for d in view.layout_dice:
            draw(d.x, d.y, d.face, STYLE_UNKNOWN if d.face == UNKNOWN else STYLE_DIE)
    else:
        for seat, cult in enumerate(view.cults, start=1):
            faces = view.layouts.get(cult, ())
            for (x, y), face in zip(_spread(by_seat[seat], len(faces)), faces, strict=True):
                draw(x, y, face, STYLE_DIE)
    rolling = next(z.rect for z in zones if z.kind is ZoneKind.ROLLING)
    places = list(view.roll_at)
    if len(places) != len(view.roll):  # no camera places: a row across the rolling area
        x0, y0, x1, y1 = rolling
        band = (x0, y0 + 0.1 * (y1 - y0), x1, y0 + 0.2 * (y1 - y0))
        places = _spread(band, len(view.roll))
    cells: dict[int, tuple[int, int]] = {}
    for i, ((x, y), face) in enumerate(zip(places, view.roll, strict=True)):
        style = (
            STYLE_PICKED if i == view.picked else STYLE_UNKNOWN if face == UNKNOWN else STYLE_DIE
        )
        cells[i] = draw(x, y, face, style)
    return grid.text(left, top), {i: (r + top, c + left) for i, (r, c) in cells.items()}


class DiePicked(Message):
    """The secretary clicked a die of the roll on the map."""

    def __init__(self, index: int) -> None:
        super().__init__()
        self.index = index


class TableMap(Widget):
    """The map of the table; call ``show(view)`` after every change."""

    DEFAULT_CSS = """
    TableMap { height: 1fr; min-height: 5; }
    """

    def __init__(self, *, id: str | None = None) -> None:  # noqa: A002 - Textual's name
        super().__init__(id=id)
        self.view: MapView | None = None
        self.cells: dict[int, tuple[int, int]] = {}

    def show(self, view: MapView) -> None:
        self.view = view
        self.refresh()

    def render(self) -> Text:
        if self.view is None:
            return Text("")
        size = self.content_size
        text, self.cells = map_text(self.view, size.width, size.height)
        return text

    def on_click(self, event: Click) -> None:
        at = event.get_content_offset(self)
        if not self.cells or at is None:
            return
        row, col = at.y, at.x
        index, (r, c) = min(
            self.cells.items(), key=lambda kv: abs(kv[1][0] - row) * 2 + abs(kv[1][1] - col)
        )
        if abs(r - row) <= 1 and abs(c - col) <= 2:
            self.post_message(DiePicked(index))


def roll_places(dice: Sequence[SeenDie], size: int) -> tuple[tuple[float, float], ...]:
    """The places of the roll's ``size`` dice (a Seen lists the roll's dice first)."""
    return tuple((d.x, d.y) for d in dice[:size])


def turn_map(
    g: Game,
    look: Seen | None,
    roll: tuple[str, ...],
    roll_look: Seen | None,
    picked: int | None,
    to_move: str | None,
) -> MapView:
    """The table of game ``g`` as the camera saw it last (``look``, or as the rules have it
    without one), with the ``roll`` as keyed where ``roll_look`` read its dice."""
    at = roll_places(roll_look.dice, len(roll_look.roll)) if roll_look and roll_look.dice else ()
    return MapView(
        cults=g.cults,
        paper=look.paper if look else "A3",
        roll=roll,
        roll_at=at if len(at) == len(roll) else (),
        layouts={c: tuple(g.layouts[c]) for c in g.cults},
        layout_dice=look.layout_dice() if look and look.dice else None,
        center=g.center,
        to_move=to_move,
        picked=picked,
        source=look.source if look else "",
    )
