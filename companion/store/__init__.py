"""Durable storage of games: an append-only, hash-chained event log per game."""

from .base import Evidence, GameInfo, GameStore, Kind, NewEvent, StoredEvent, StoreError
from .paths import default_db_path
from .sqlite import SQLiteStore

__all__ = [
    "Evidence",
    "GameInfo",
    "GameStore",
    "Kind",
    "NewEvent",
    "SQLiteStore",
    "StoreError",
    "StoredEvent",
    "default_db_path",
]
