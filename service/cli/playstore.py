"""The games ``pref play`` started, kept on this computer so that a person who quits can come
back (``pref play --resume GAME``) and can flag a deal later.

A game against bots played by ``pref play`` needs every seat's token: the bots play in the
person's process, so the game waits while nobody runs it. Each game is one JSON file,
``<dir>/<game id>.json``, holding the server, the game, the person's seat, every seat token, the
player names and the creator's credential (to call time in a Classic game played until time).
The directory is ``$PREF_HOME/games``, else ``$XDG_DATA_HOME/pref/games``, else
``~/.local/share/pref/games``; it is created with mode 0700 and each file with mode 0600 (the
tokens act for the seats). A file that others may read is refused when loaded.
"""

from __future__ import annotations

import json
import os
import stat
from dataclasses import asdict, dataclass, field
from pathlib import Path

from service.cli.botplay import Creator


class SavedGameError(Exception):
    """A saved game cannot be used (missing, unreadable, open to others, malformed)."""


@dataclass(frozen=True)
class SavedGame:
    """What ``pref play --resume`` needs to sit down at a game again."""

    server: str
    game: str
    """``games/<id>``."""
    seat: int
    tokens: list[str]
    names: list[str]
    pool_target: int = 0
    time_deals: int = 0
    creator: dict[str, str] = field(default_factory=dict)

    @property
    def game_id(self) -> str:
        return self.game.removeprefix("games/")

    def creator_credential(self) -> Creator | None:
        if not self.creator:
            return None
        return Creator(self.creator["request_id"], self.creator["secret"])


def games_dir() -> Path:
    """Where saved games are kept (see the module text)."""
    home = os.environ.get("PREF_HOME")
    if home:
        return Path(home) / "games"
    data = os.environ.get("XDG_DATA_HOME") or str(Path.home() / ".local" / "share")
    return Path(data) / "pref" / "games"


def path_of(game: str) -> Path:
    return games_dir() / f"{game.removeprefix('games/')}.json"


def save(saved: SavedGame) -> Path:
    """Write ``saved`` readable and writable by its owner only (0600, in a 0700 directory)."""
    folder = games_dir()
    folder.mkdir(parents=True, exist_ok=True, mode=0o700)
    os.chmod(folder, 0o700)
    path = path_of(saved.game)
    descriptor = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
    os.fchmod(descriptor, 0o600)  # an older file keeps its mode through O_CREAT
    with os.fdopen(descriptor, "w", encoding="utf-8") as out:
        json.dump(asdict(saved), out, indent=2)
    return path


def load(game: str) -> SavedGame:
    """The saved game ``game`` (an id or ``games/<id>``)."""
    path = path_of(game)
    try:
        mode = path.stat().st_mode
    except FileNotFoundError:
        raise SavedGameError(
            f"no saved game {game} in {games_dir()} (only games started by pref play here)"
        ) from None
    if mode & (stat.S_IRWXG | stat.S_IRWXO):
        raise SavedGameError(
            f"{path} may be read by others (mode {stat.S_IMODE(mode):o}); it holds seat "
            f"tokens: chmod 600 it first"
        )
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
        return SavedGame(**data)
    except (OSError, ValueError, TypeError) as exc:
        raise SavedGameError(f"{path} is not a saved game: {exc}") from None
