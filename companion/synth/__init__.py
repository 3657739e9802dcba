"""Procedural renderer of dice and tables: training data, tests, demo camera."""

from companion.synth.frame import (
    FACES,
    DiePlacement,
    DieTruth,
    RenderedFrame,
    render_frame,
    render_placed,
)
from companion.synth.styles import ALL_STYLES, HELD_OUT, TRAIN, VALIDATION, Style, style_by_name

__all__ = [
    "ALL_STYLES",
    "FACES",
    "HELD_OUT",
    "TRAIN",
    "VALIDATION",
    "DiePlacement",
    "DieTruth",
    "RenderedFrame",
    "Style",
    "render_frame",
    "render_placed",
    "style_by_name",
]
