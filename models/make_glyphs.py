"""Rasterise "IÄÄ!" in many typefaces for the renderer's lettering (training data only).

The renderer must not need fonts or a font library at run time or in CI, so
the lettering is rasterised once here (Pillow, the `train` extra, and Debian's
font packages: fonts-dejavu-core fonts-liberation fonts-freefont-ttf
fonts-urw-base35 fonts-noto-core fonts-linuxlibertine fonts-cantarell
fonts-comic-neue fonts-crosextra-carlito fonts-crosextra-caladea fonts-lato
fonts-open-sans fonts-roboto-unhinted fonts-ebgaramond) and committed as
companion/synth/glyphs.npz: one 8-bit mask per typeface, cropped to its ink.

    python models/make_glyphs.py
"""

from __future__ import annotations

import sys
from pathlib import Path

import numpy as np

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO))

from PIL import Image, ImageDraw, ImageFont  # noqa: E402

from companion.synth.glyphs import GLYPH_FILE, TEXT  # noqa: E402

FONTS = Path("/usr/share/fonts")
# (typeface family, file): a family is held out of training as a whole.
FACES = [
    ("dejavu-sans", "truetype/dejavu/DejaVuSans.ttf"),
    ("dejavu-sans", "truetype/dejavu/DejaVuSans-Bold.ttf"),
    ("dejavu-sans", "truetype/dejavu/DejaVuSansCondensed-BoldOblique.ttf"),
    ("dejavu-sans", "truetype/dejavu/DejaVuSans-ExtraLight.ttf"),
    ("dejavu-serif", "truetype/dejavu/DejaVuSerif.ttf"),
    ("dejavu-serif", "truetype/dejavu/DejaVuSerif-BoldItalic.ttf"),
    ("dejavu-mono", "truetype/dejavu/DejaVuSansMono-Bold.ttf"),
    ("liberation-sans", "truetype/liberation/LiberationSans-Regular.ttf"),
    ("liberation-sans", "truetype/liberation/LiberationSans-BoldItalic.ttf"),
    ("liberation-sans", "truetype/liberation/LiberationSansNarrow-Bold.ttf"),
    ("liberation-serif", "truetype/liberation/LiberationSerif-Regular.ttf"),
    ("liberation-serif", "truetype/liberation/LiberationSerif-Italic.ttf"),
    ("liberation-mono", "truetype/liberation/LiberationMono-Regular.ttf"),
    ("freefont", "truetype/freefont/FreeSans.ttf"),
    ("freefont", "truetype/freefont/FreeSerifBoldItalic.ttf"),
    ("freefont", "truetype/freefont/FreeMonoBold.ttf"),
    ("nimbus-sans", "opentype/urw-base35/NimbusSans-Bold.otf"),
    ("nimbus-sans", "opentype/urw-base35/NimbusSansNarrow-Oblique.otf"),
    ("nimbus-roman", "opentype/urw-base35/NimbusRoman-Regular.otf"),
    ("nimbus-roman", "opentype/urw-base35/NimbusRoman-BoldItalic.otf"),
    ("nimbus-mono", "opentype/urw-base35/NimbusMonoPS-Bold.otf"),
    ("c059", "opentype/urw-base35/C059-Roman.otf"),
    ("c059", "opentype/urw-base35/C059-BdIta.otf"),
    ("p052", "opentype/urw-base35/P052-Bold.otf"),
    ("p052", "opentype/urw-base35/P052-Italic.otf"),
    ("bookman", "opentype/urw-base35/URWBookman-Demi.otf"),
    ("bookman", "opentype/urw-base35/URWBookman-LightItalic.otf"),
    ("urw-gothic", "opentype/urw-base35/URWGothic-Book.otf"),
    ("urw-gothic", "opentype/urw-base35/URWGothic-DemiOblique.otf"),
    ("z003", "opentype/urw-base35/Z003-MediumItalic.otf"),
    ("noto-sans", "truetype/noto/NotoSans-Regular.ttf"),
    ("noto-sans", "truetype/noto/NotoSans-BoldItalic.ttf"),
    ("noto-serif", "truetype/noto/NotoSerif-Bold.ttf"),
    ("noto-serif", "truetype/noto/NotoSerif-Italic.ttf"),
    ("noto-serif", "truetype/noto/NotoSerifDisplay-Regular.ttf"),
    ("libertine", "opentype/linux-libertine/LinLibertine_R.otf"),
    ("libertine", "opentype/linux-libertine/LinLibertine_RBI.otf"),
    ("biolinum", "opentype/linux-libertine/LinBiolinum_RB.otf"),
    ("cantarell", "opentype/cantarell/Cantarell-Regular.otf"),
    ("cantarell", "opentype/cantarell/Cantarell-ExtraBold.otf"),
    ("comic-neue", "opentype/comic-neue/ComicNeue-Bold.otf"),
    ("comic-neue", "opentype/comic-neue/ComicNeue-LightItalic.otf"),
    ("eb-garamond", "opentype/ebgaramond/EBGaramond12-Regular.otf"),
    ("eb-garamond", "opentype/ebgaramond/EBGaramond12-Italic.otf"),
    ("carlito", "truetype/crosextra/Carlito-Bold.ttf"),
    ("carlito", "truetype/crosextra/Carlito-Italic.ttf"),
    ("caladea", "truetype/crosextra/Caladea-Regular.ttf"),
    ("caladea", "truetype/crosextra/Caladea-BoldItalic.ttf"),
    ("lato", "truetype/lato/Lato-Black.ttf"),
    ("lato", "truetype/lato/Lato-LightItalic.ttf"),
    ("lato", "truetype/lato/Lato-Regular.ttf"),
    ("open-sans", "truetype/open-sans/OpenSans-ExtraBold.ttf"),
    ("open-sans", "truetype/open-sans/OpenSans-CondLight.ttf"),
    ("open-sans", "truetype/open-sans/OpenSans-Italic.ttf"),
    ("roboto", "truetype/roboto/unhinted/RobotoCondensed-Bold.ttf"),
    ("roboto", "truetype/roboto/unhinted/RobotoCondensed-Italic.ttf"),
]
HEIGHT = 64  # pixels of the cropped lettering's height


def rasterise(path: Path) -> np.ndarray:
    font = ImageFont.truetype(str(path), 160)
    img = Image.new("L", (1400, 400), 0)
    ImageDraw.Draw(img).text((60, 60), TEXT, font=font, fill=255)
    a = np.asarray(img)
    ys, xs = np.nonzero(a > 32)
    box = a[ys.min() : ys.max() + 1, xs.min() : xs.max() + 1]
    w = max(int(round(box.shape[1] * HEIGHT / box.shape[0])), 1)
    return np.asarray(Image.fromarray(box).resize((w, HEIGHT), Image.Resampling.LANCZOS), np.uint8)


def main() -> None:
    names, families, masks = [], [], []
    for family, rel in FACES:
        path = FONTS / rel
        if not path.is_file():
            print(
                f"missing {path}: install the font packages named in the docstring", file=sys.stderr
            )
            sys.exit(1)
        names.append(Path(rel).stem)
        families.append(family)
        masks.append(rasterise(path))
    width = max(m.shape[1] for m in masks)
    packed = np.zeros((len(masks), HEIGHT, width), np.uint8)
    widths = np.array([m.shape[1] for m in masks], np.int32)
    for i, m in enumerate(masks):
        packed[i, :, : m.shape[1]] = m
    np.savez_compressed(
        REPO / GLYPH_FILE,
        masks=packed,
        widths=widths,
        names=np.array(names),
        families=np.array(families),
    )
    print(f"{len(masks)} typefaces of {len(set(families))} families -> {GLYPH_FILE}")


if __name__ == "__main__":
    main()
