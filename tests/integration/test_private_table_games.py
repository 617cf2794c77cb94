"""The games of private tables are left out of the game list (ListGames)."""

from __future__ import annotations

from domain.rules import DEFAULT
from projections import standard_runners
from projections.queries import list_games
from service.app.application import PreferansApplication
from service.app.tables import Lobby, Seated


def _started(lobby: Lobby, creator: str, visibility: str) -> str:
    opened = lobby.create_table(creator, "t", DEFAULT, visibility=visibility)
    assert not isinstance(opened, Seated)
    code = lobby.create_invitation(opened.id, creator, "inv").code
    lobby.join_table(opened.id, creator, "j", code)
    table = lobby.fill_with_bots(opened.id, creator, "fill")
    assert table.state == "started"
    return str(table.game_id)


def test_the_game_list_leaves_out_the_games_of_private_tables(app: PreferansApplication) -> None:
    lobby = Lobby(app)
    public = _started(lobby, "ann", "public")
    private = _started(lobby, "bob", "private")
    runners = standard_runners(app, app.db, ("games", "lobby"))
    for runner in runners.values():
        while runner.run_once():
            pass
    listed = {row["game_id"] for row in list_games(app.db, hide_private=True)}
    assert public in listed and private not in listed
    everything = {row["game_id"] for row in list_games(app.db)}
    assert {public, private} <= everything  # the projection itself keeps every game
