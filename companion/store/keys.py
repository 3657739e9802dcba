"""Secret keys that seal a table's games (HMAC-SHA256), kept outside the database.

The hash chain alone shows accidental damage and clumsy edits, but anyone who
can edit the file can also recompute every hash. An event sealed with a key
can only be rewritten by someone who holds that key:

- the table key, made once at install (``companion key new``), readable only
  by the service user: a game sealed with it was written by this table's
  companion, not edited by whoever only had the database file;
- an organiser's key, optional, that a tournament puts on every table for its
  duration and keeps: with it the organiser can check a table's games without
  trusting that table's own key.
"""

from __future__ import annotations

import hashlib
import hmac
import os
import secrets
from dataclasses import dataclass
from pathlib import Path

from ..fileperm import private_dir
from ..paths import config_dir
from .base import StoreError

KEY_BYTES = 32
TABLE_KEY_ENV = "COMPANION_TABLE_KEY"
ORGANISER_KEY_ENV = "COMPANION_ORGANISER_KEY"


@dataclass(frozen=True, slots=True)
class Key:
    secret: bytes
    source: str  # where it was read from, for messages

    @property
    def id(self) -> str:
        """A public name of the key: tells which key sealed a game without giving the key away."""
        return hashlib.sha256(b"companion key id\n" + self.secret).hexdigest()[:16]

    def mac(self, message: str) -> str:
        return hmac.new(self.secret, message.encode(), hashlib.sha256).hexdigest()

    def check(self, message: str, mac: str) -> bool:
        return hmac.compare_digest(self.mac(message), mac)


@dataclass(frozen=True, slots=True)
class Keys:
    """The keys a store seals with (writing) or checks (verify)."""

    table: Key | None = None
    organiser: Key | None = None


def table_key_path() -> Path:
    env = os.environ.get(TABLE_KEY_ENV, "").strip()
    return Path(env) if env else config_dir() / "table.key"


def organiser_key_path() -> Path:
    env = os.environ.get(ORGANISER_KEY_ENV, "").strip()
    return Path(env) if env else config_dir() / "organiser.key"


def load_key(path: str | Path) -> Key:
    """A key file: 64 hex digits on one line. One sentence when it cannot be used."""
    p = Path(path)
    try:
        with p.open("rb") as fh:
            raw = fh.read(1024)
    except FileNotFoundError:
        raise StoreError(f"{p}: no such key file") from None
    except IsADirectoryError:
        raise StoreError(f"{p} is a folder, not a key file") from None
    except OSError as exc:
        raise StoreError(f"the key file {p} cannot be read: {exc.strerror}") from None
    text = raw.strip()
    try:
        secret = bytes.fromhex(text.decode("ascii"))
    except (UnicodeDecodeError, ValueError):
        secret = b""
    if len(secret) != KEY_BYTES:
        raise StoreError(
            f"{p} is not a companion key file (64 hexadecimal digits); "
            "make one with `companion key new`"
        )
    return Key(secret, str(p))


def make_key(path: str | Path) -> Key:
    """A new random key, written 0600 in a 0700 folder; an existing key is never overwritten."""
    p = Path(path)
    try:
        private_dir(p.parent)
        fd = os.open(p, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
    except FileExistsError:
        raise StoreError(
            f"{p} exists already: a key is never overwritten (games sealed with it "
            "could no longer be checked)"
        ) from None
    except OSError as exc:
        raise StoreError(f"cannot write the key file {p}: {exc.strerror}") from None
    key = Key(secrets.token_bytes(KEY_BYTES), str(p))
    with os.fdopen(fd, "w") as fh:
        fh.write(key.secret.hex() + "\n")
    return key


def default_keys() -> Keys:
    """The table's key and the organiser's, where their files exist (the secretary seals with
    them)."""
    found: list[Key | None] = []
    for path in (table_key_path(), organiser_key_path()):
        found.append(load_key(path) if path.exists() else None)
    return Keys(found[0], found[1])
