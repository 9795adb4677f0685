"""``fairdeal tournament …``, ``keys new|public`` and ``play --tournament`` before any server
answers: key files, and every bad argument, key file, token file or unreachable server is one
line naming the problem (exit 1, or 2 for usage), never a traceback. What the commands print
from a tournament (the standings, the match a dispute is on by default, a ruling's decision)
is tested on the API's answers."""

from __future__ import annotations

import stat
from pathlib import Path

import click
import pytest
from click.testing import CliRunner

from fairdeal.cli.main import cli
from fairdeal.cli.tournament_output import (
    decision_of,
    latest_match_of,
    open_dispute,
    standings_lines,
)
from fairdeal.verifier.keys import SigningKey

#: nothing listens there
NO_SERVER = "http://127.0.0.1:9"


def _run(*args: str) -> tuple[int, str]:
    result = CliRunner().invoke(cli, list(args))
    assert result.exception is None or isinstance(result.exception, SystemExit), result.output
    assert "Traceback" not in result.output
    return result.exit_code, result.output


def test_keys_new_writes_a_private_key_only_its_owner_reads_and_never_overwrites(
        tmp_path: Path) -> None:
    path = tmp_path / "arbiter.pem"
    code, out = _run("keys", "new", str(path))
    assert code == 0, out
    key = SigningKey.from_pem(path.read_bytes())
    assert out.splitlines()[-1] == key.public_text
    assert stat.S_IMODE(path.stat().st_mode) == 0o600
    assert _run("keys", "public", str(path)) == (0, key.public_text + "\n")
    before = path.read_bytes()
    code, out = _run("keys", "new", str(path))
    assert code == 1 and "exists already: a key file is never overwritten" in out
    assert path.read_bytes() == before


def test_a_key_file_that_is_no_key_is_named(tmp_path: Path) -> None:
    bad = tmp_path / "bad.pem"
    bad.write_text("not a key\n")
    code, out = _run("keys", "public", str(bad))
    assert code == 1 and f"{bad} is not an Ed25519 private key in PEM" in out
    code, out = _run("tournament", "dispute", "cup", "--key", str(bad), "--step", "1",
                     "--text", "x", "--server", NO_SERVER)
    assert code == 1 and f"{bad} is not an Ed25519 private key in PEM" in out


def test_an_unreachable_server_is_one_line(tmp_path: Path) -> None:
    for args in (["status", "cup"], ["list"], ["export", "cup", "-o", str(tmp_path / "t.zip")],
                 ["register", "cup", "--key", str(tmp_path / "p.pem")]):
        code, out = _run("tournament", *args, "--server", NO_SERVER)
        assert code == 1, (args, out)
        errors = [line for line in out.splitlines() if line.startswith("Error: ")]
        assert len(errors) == 1 and errors[0].startswith(f"Error: cannot reach {NO_SERVER}")
    assert not (tmp_path / "t.zip").exists()


@pytest.mark.parametrize("args, words", [
    (["status", "a/b"], "Invalid value for TOURNAMENT: 'a/b' is not a tournament id"),
    (["status", "x" * 65], "is not a tournament id"),
    (["create", "cup", "--game", "arcomage", "--arbiter-key", "ed25519:00"],
     "Invalid value for --arbiter-key"),
    (["create", "cup", "--game", "arcomage", "--arbiter-key", "nope"],
     "'nope' is neither a key (ed25519:HEX) nor a key file"),
    (["create", "cup", "--game", "chess", "--arbiter-key", "nope"], "--game"),
    (["create", "cup", "--game", "arcomage", "--system", "knockout", "--arbiter-key", "x"],
     "--system"),
    (["create", "cup", "--game", "arcomage", "--param", "deck", "--arbiter-key", "x"],
     "expected KEY=VALUE, got 'deck'"),
    (["create", "cup", "--game", "arcomage", "--rounds", "0", "--arbiter-key", "x"],
     "--rounds"),
    (["start", "cup"], "the organiser's token is needed: --token-file FILE"),
    (["pair", "cup"], "the organiser's token is needed"),
    (["play", "-n", "2"], "play needs --game GAME (or --tournament TOURNAMENT)"),
    (["play", "--game", "arcomage", "--keys", "k"], "--keys and --organiser-token-file go "
                                                    "with --tournament"),
    (["play", "--tournament", "../x"], "is not a tournament id"),
])
def test_bad_arguments_are_usage_errors_naming_the_option(args: list[str],
                                                          words: str) -> None:
    code, out = _run(*(args if args[0] == "play" else ["tournament", *args]),
                     *(["--server", NO_SERVER] if args[0] != "play" else []))
    assert code == 2, out
    assert words in out, out


def test_create_refuses_a_tiebreak_it_does_not_know(tmp_path: Path) -> None:
    key = SigningKey.from_seed(b"\x01" * 32).public_text
    code, out = _run("tournament", "create", "cup", "--game", "arcomage", "--arbiter-key", key,
                     "--tiebreaks", "buchholz,elo", "--server", NO_SERVER)
    assert code == 2 and "Invalid value for --tiebreaks: 'buchholz,elo'" in out


def test_a_token_file_that_holds_no_token_is_named(tmp_path: Path) -> None:
    empty = tmp_path / "organiser.token"
    empty.write_text("\n")
    code, out = _run("tournament", "start", "cup", "--token-file", str(empty),
                     "--server", NO_SERVER)
    assert code == 1 and f"{empty} does not hold a token" in out
    code, out = _run("tournament", "start", "cup", "--token-file", str(tmp_path / "none"),
                     "--server", NO_SERVER)
    assert code == 1 and "cannot read the token file" in out


def test_export_names_an_output_folder_that_is_not_there(tmp_path: Path) -> None:
    (tmp_path / "afile").write_text("x")
    code, out = _run("tournament", "export", "cup", "-o", str(tmp_path / "afile" / "t.zip"),
                     "--server", NO_SERVER)
    assert code == 1 and "Not a directory" in out and str(tmp_path / "afile") in out


@pytest.mark.parametrize("kind, options, decision", [
    ("result-stands", {}, {"kind": "result-stands"}),
    ("result-changed", {"winner": "draw"}, {"kind": "result-changed", "winner": None}),
    ("result-changed", {"winner": "ab12"}, {"kind": "result-changed", "winner": "ab12"}),
    ("penalty", {"player": "ab12", "points": 2},
     {"kind": "penalty", "player": "ab12", "points": 2}),
    ("replay-ordered", {}, {"kind": "replay-ordered"}),
])
def test_a_rulings_decision_is_built_from_its_options(kind: str, options: dict[str, object],
                                                      decision: dict[str, object]) -> None:
    given = {"winner": None, "player": None, "points": None, **options}
    assert decision_of(kind, **given) == decision  # type: ignore[arg-type]


@pytest.mark.parametrize("kind, options, words", [
    ("result-changed", {}, "--decision result-changed needs --winner"),
    ("penalty", {"player": "ab12"}, "--decision penalty needs --points"),
    ("result-stands", {"winner": "ab12"}, "--decision result-stands takes no --winner"),
    ("replay-ordered", {"points": 1}, "--decision replay-ordered takes no --points"),
])
def test_a_decision_missing_or_given_an_option_is_refused(kind: str, options: dict[str, object],
                                                          words: str) -> None:
    given = {"winner": None, "player": None, "points": None, **options}
    with pytest.raises(click.UsageError, match=words):
        decision_of(kind, **given)  # type: ignore[arg-type]


_SHOWN = {"id": "cup", "rounds": [
    {"round": 1, "byes": [], "pairings": [
        {"table": 1, "seats": ["aa", "bb"], "match_id": "m1",
         "result": {"outcome": "match", "winner": "aa", "match_id": "m1"}},
        {"table": 2, "seats": ["cc", "dd"], "match_id": "m2", "result": None}]},
    {"round": 2, "byes": [], "pairings": [
        {"table": 1, "seats": ["bb", "cc"], "match_id": "m3", "result": None},
        {"table": 2, "seats": ["aa", "dd"], "match_id": "m5", "matches": ["m4", "m5"],
         "result": {"outcome": "match", "winner": None, "match_id": "m5"}}]}],
    "disputes": [{"dispute": 1, "ruling": {"decision": {"kind": "result-stands"}}},
                 {"dispute": 2, "ruling": None}, {"dispute": 3, "ruling": None}]}


def test_a_dispute_is_on_the_players_latest_ended_match_by_default() -> None:
    assert latest_match_of(_SHOWN, "aa") == "m5"  # its replay, not the match replaced
    assert latest_match_of(_SHOWN, "bb") == "m1"  # round 2's is still in play
    with pytest.raises(click.ClickException, match="player cc has no ended match in cup"):
        latest_match_of(_SHOWN, "cc")


def test_a_ruling_is_on_the_oldest_open_dispute_by_default() -> None:
    assert open_dispute(_SHOWN) == 2
    with pytest.raises(click.ClickException, match="no dispute awaiting a ruling"):
        open_dispute({"id": "cup", "disputes": [{"dispute": 1, "ruling": {"decision": {}}}]})


def test_standings_show_points_and_each_tiebreak_in_the_headers_order() -> None:
    """Half-points, and Sonneborn-Berger's quarter-points, shown as the points they are."""
    lines = list(standings_lines(
        [{"rank": 1, "player": "aa", "score": 3, "tiebreaks": [4, 11, 6]},
         {"rank": 2, "player": "bb", "name": "bo", "score": 2, "tiebreaks": [5, 0, 1]}],
        ["buchholz", "wins", "sonneborn-berger"], {"aa": "ann"}))
    assert lines[0].split() == ["rank", "player", "score", "buchholz", "wins",
                                "sonneborn-berger"]
    assert lines[1].split() == ["1", "ann", "1.5", "2", "11", "1.5"]
    assert lines[2].split() == ["2", "bo", "1", "2.5", "0", "0.25"]
