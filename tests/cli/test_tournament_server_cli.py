"""A whole tournament from the command line against a real `fairdeal serve` process: an arbiter's
key made, the tournament created, four bots entered by `play --tournament` (every match played
with the bots' tournament keys, each sealed bundle verified with them pinned), a dispute filed
by a bot, ruled by the arbiter, a second one ruled a replay (played by the same bots, resumed
from their key files), the tournament finished, exported and verified offline. Then what the server
refuses — a ruling not signed by the arbiter, a dispute on someone else's match, a stale
organiser token — each shown as the API's message and code on one line."""

from __future__ import annotations

import json
import re
import zipfile
from collections.abc import Iterator
from pathlib import Path

import pytest
from click.testing import CliRunner

from fairdeal.cli.main import cli
from fairdeal.verifier.keys import SigningKey

from ..processes import ServeProcess


def _run(*args: str) -> tuple[int, str]:
    result = CliRunner().invoke(cli, list(args))
    assert result.exception is None or isinstance(result.exception, SystemExit), (
        result.output, result.exception)
    assert "Traceback" not in result.output
    return result.exit_code, result.output


@pytest.fixture(scope="module")
def server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[ServeProcess]:
    data = tmp_path_factory.mktemp("data")
    process = ServeProcess(data)
    process.start()
    yield process
    process.stop()


@pytest.fixture(scope="module")
def played(server: ServeProcess, tmp_path_factory: pytest.TempPathFactory) -> dict[str, str]:
    """A round-robin of four bots, every round played, nothing finished yet."""
    folder = tmp_path_factory.mktemp("club")
    url = server.url
    code, out = _run("keys", "new", str(folder / "arbiter.pem"))
    assert code == 0, out
    code, out = _run("tournament", "create", "club night", "--game", "toybattle",
                     "--system", "round-robin", "--rounds", "1", "--arbiter-key",
                     str(folder / "arbiter.pem"), "--token-file", str(folder / "org.token"),
                     "-q", "--server", url)
    assert code == 0, out
    tournament_id = out.strip()
    code, out = _run("play", "--tournament", tournament_id, "-n", "4", "--seed", "5",
                     "--keys", str(folder / "bots"), "--organiser-token-file",
                     str(folder / "org.token"), "--receipts", str(folder / "receipts"),
                     "--server", url)
    assert code == 0, out
    return {"id": tournament_id, "folder": str(folder), "url": url, "play": out}


def test_the_bots_play_every_round_with_their_keys_pinned(played: dict[str, str]) -> None:
    out = played["play"]
    assert out.count("registered: random bot ") == 4
    assert re.findall(r"^round (\d): 2 matches$", out, re.M) == ["1", "2", "3"]
    ended = re.findall(r"^ended:   (\S+)  round \d table \d, .*\(verified, keys pinned\)$",
                       out, re.M)
    assert len(ended) == 6 and len(set(ended)) == 6
    assert "every round played (the organiser finishes it" in out
    folder = Path(played["folder"])
    assert sorted(p.name for p in (folder / "bots").iterdir()) == sorted(
        f"random-bot-{n}.pem{suffix}" for n in range(1, 5) for suffix in ("", ".token"))
    assert len(list((folder / "receipts").glob("*.receipts.json"))) == 6
    code, shown = _run("tournament", "status", played["id"], "--json", "--server",
                       played["url"])
    status = json.loads(shown)
    assert status["status"] == "running"
    assert all(p["result"] is not None for r in status["rounds"] for p in r["pairings"])
    assert {p["match_id"] for r in status["rounds"] for p in r["pairings"]} == set(ended)


def test_a_dispute_is_filed_ruled_and_the_tournament_finished_and_exported(
        played: dict[str, str], tmp_path: Path) -> None:
    folder, url, tid = Path(played["folder"]), played["url"], played["id"]
    bot = str(folder / "bots" / "random-bot-1.pem")
    code, out = _run("tournament", "dispute", tid, "--key", bot, "--step", "1", "--text",
                     "my unit moved twice", "--server", url)
    assert code == 0, out
    assert re.match(r"dispute 1 filed on match \S+, step 1 \(report [0-9a-f]{16}…\)", out)
    code, out = _run("tournament", "finish", tid, "--token-file", str(folder / "org.token"),
                     "--server", url)
    assert code == 1 and "(disputes-open, HTTP 409)" in out, out
    # a key that is not the header's arbiter's: the server refuses the ruling
    code, out = _run("tournament", "rule", tid, "--arbiter", bot, "--decision",
                     "result-stands", "--text", "I rule for myself", "--server", url)
    assert code == 1 and out.startswith("Error: the server refused: ") and "HTTP 400" in out
    code, out = _run("tournament", "rule", tid, "--arbiter", str(folder / "arbiter.pem"),
                     "--decision", "result-stands", "--text", "the replay shows one move",
                     "--server", url)
    assert code == 0 and out.strip() == "dispute 1 ruled: result-stands", out
    # a second dispute, and a replay ordered: the bots of --keys come back to play it
    other = str(folder / "bots" / "random-bot-2.pem")
    code, out = _run("tournament", "dispute", tid, "--key", other, "--step", "0", "--text",
                     "the deal", "--server", url)
    assert code == 0 and out.startswith("dispute 2 filed on match "), out
    disputed = out.split()[5].rstrip(",")
    code, out = _run("tournament", "rule", tid, "--arbiter", str(folder / "arbiter.pem"),
                     "--decision", "replay-ordered", "--text", "play it again",
                     "--organiser-token-file", str(folder / "org.token"), "--server", url)
    assert code == 0 and re.fullmatch(r"dispute 2 ruled: replay-ordered \(the replay is "
                                      r"match (\S+)\)\n", out), out
    replay = out.split()[-1].rstrip(")")
    assert replay != disputed
    code, out = _run("play", "--tournament", tid, "--keys", str(folder / "bots"),
                     "--organiser-token-file", str(folder / "org.token"), "--server", url)
    assert code == 0 and out.startswith("resumed: 4 bots of "), out
    assert re.findall(r"^ended:   (\S+) ", out, re.M) == [replay], out
    code, out = _run("tournament", "finish", tid, "--token-file", str(folder / "org.token"),
                     "--server", url)
    assert code == 0 and "finished" in out, out
    code, out = _run("tournament", "status", tid, "--server", url)
    assert code == 0 and "finished" in out.splitlines()[0]
    assert "dispute 1 by random bot 1 on match" in out and "result-stands" in out
    assert "dispute 2 by random bot 2 on match" in out and "replay-ordered" in out
    assert re.search(r"^\s+1\s+random bot \d\s+\d", out, re.M), out
    code, out = _run("tournament", "export", tid, "-o", str(tmp_path / "t.zip"),
                     "--server", url)
    assert code == 0, out
    with zipfile.ZipFile(tmp_path / "t.zip") as archive:
        names = archive.namelist()
        bundle = json.loads(archive.read("tournament.json"))
    assert "tournament.json" in names and len([n for n in names if n.startswith("matches/")]) == 7
    kinds = [event["type"] for event in bundle["events"]]
    assert kinds.count("register") == 4 and kinds.count("dispute") == 2
    assert kinds.count("ruling") == 2 and kinds[-2:] == ["reveal", "final"]
    # offline, every key pinned: the server's, the arbiter's and each bot's
    code, players = _run("keys", "public", *sorted(str(p) for p in (folder / "bots").glob(
        "*.pem")))
    pins = [arg for key in players.split() for arg in ("--player-key", key)]
    server_key = bundle["signature"]["key"]
    code, arbiter = _run("keys", "public", str(folder / "arbiter.pem"))
    code, out = _run("verify", str(tmp_path / "t.zip"), "--trusted-key", server_key,
                     "--arbiter-key", arbiter.strip(), *pins)
    assert code == 0 and out.startswith(f"OK: {tmp_path / 't.zip'}"), out
    code, out = _run("verify", str(tmp_path / "t.zip"), "--trusted-key", server_key,
                     "--arbiter-key", players.split()[0], *pins)
    assert code == 1 and out.startswith("FAIL: "), out


def test_an_api_error_is_its_message_and_code_on_one_line(played: dict[str, str]) -> None:
    url = played["url"]
    code, out = _run("tournament", "status", "no-such-cup", "--server", url)
    assert code == 1 and out.startswith("Error: the server refused: ") and "HTTP 404" in out
    assert out.count("\n") == 1
    code, out = _run("tournament", "pair", played["id"], "--token", "not-the-token",
                     "--server", url)
    assert code == 1 and out.startswith("Error: the server refused: ") and "HTTP 40" in out


def test_people_register_the_organiser_pairs_and_a_withdrawal_forfeits(
        server: ServeProcess, tmp_path: Path) -> None:
    """The commands one by one, as people would type them: two players register with keys
    made on first use, the organiser starts and pairs, one withdraws before its match's first
    move (from the next round, which forfeits the game not begun), and the table is a forfeit
    to the other."""
    url = server.url
    arbiter = SigningKey.from_seed(b"\x09" * 32).public_text
    code, out = _run("tournament", "create", "two of us", "--game", "arcomage", "--system",
                     "round-robin", "--arbiter-key", arbiter, "--token-file",
                     str(tmp_path / "org.token"), "--server", url)
    assert code == 0, out
    tid = re.match(r"created: (\S+)  'two of us', round-robin of 1 round\(s\), arcomage",
                   out).group(1)  # type: ignore[union-attr]
    assert "commitment to the tournament seed: " in out
    assert "organiser token saved to" in out and "organiser token (shown" not in out
    ids = {}
    for name in ("ann", "bo"):
        key = tmp_path / f"{name}.pem"
        code, out = _run("tournament", "register", tid, "--key", str(key), "--server", url)
        assert code == 0, out
        ids[name] = SigningKey.from_pem(key.read_bytes()).key_id
        assert "registered 'ann' as player" in out if name == "ann" else "'bo'" in out
        assert ids[name] in out and (tmp_path / f"{name}.pem.token").stat().st_mode & 0o077 == 0
    code, out = _run("tournament", "register", tid, "--key", str(tmp_path / "ann.pem"),
                     "--name", "ann twice", "--server", url)
    assert code == 1 and "(already-registered, HTTP 409)" in out, out
    code, out = _run("tournament", "list", "--server", url)
    assert code == 0 and re.search(rf"^{tid}  registering .* 2 players  'two of us'$", out,
                                   re.M), out
    token = ["--token-file", str(tmp_path / "org.token"), "--server", url]
    assert _run("tournament", "start", tid, *token) == (0, f"{tid}: started\n")
    code, out = _run("tournament", "pair", tid, *token)
    assert code == 0 and out.startswith("round 1 paired: 1 matches created"), out
    code, out = _run("tournament", "withdraw", tid, "--key", str(tmp_path / "bo.pem"),
                     "--from-round", "2", "--server", url)
    # from the next round on, while round 1's game has had no move: that game is forfeit
    assert code == 0 and out.strip() == f"player {ids['bo']} withdrawn from round 2 on", out
    code, out = _run("tournament", "status", tid, "--server", url)
    assert code == 0 and "table 1: " in out
    assert re.search(r"table 1: .*  ann won by forfeit$", out, re.M), out
