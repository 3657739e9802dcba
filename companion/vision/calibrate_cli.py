"""`companion calibrate` at the top level (the handler lives in read_cli)."""

from __future__ import annotations

import argparse

from companion.vision.read_cli import add_calibrate


def add_commands(subparsers: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    """Register `calibrate` on the top-level subparsers."""
    add_calibrate(subparsers)
