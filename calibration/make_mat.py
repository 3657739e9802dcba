"""Write the printable play mats (PNG and PDF, A3 and A2) beside this script.

python calibration/make_mat.py [--png-dpi 100] [--pdf-dpi 150]
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

import cv2

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))  # run from a checkout
from companion.vision.mat import draw_mat, mat_geometry, write_pdf  # noqa: E402


def main(argv: list[str] | None = None) -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--png-dpi", type=float, default=100.0)
    ap.add_argument("--pdf-dpi", type=float, default=150.0)
    ap.add_argument("--out", type=Path, default=Path(__file__).parent)
    args = ap.parse_args(argv)
    for paper in ("A3", "A2"):
        geom = mat_geometry(paper)
        png = args.out / f"mat-{paper.lower()}.png"
        cv2.imwrite(str(png), draw_mat(geom, args.png_dpi / 25.4))
        pdf = args.out / f"mat-{paper.lower()}.pdf"
        write_pdf(pdf, draw_mat(geom, args.pdf_dpi / 25.4), geom.size_mm)
        print(f"wrote {png} and {pdf}")


if __name__ == "__main__":
    main()
