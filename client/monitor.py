"""The log monitor: fetch a server's newest checkpoint, check it extends the last one seen,
scan the leaves added since (one genesis per match id, each seal closing its own genesis;
the leaves must make the checkpoint's tree), and check given bundles are in it.

``run_monitor`` is the whole run, as ``fairdeal log monitor`` makes it: it tells ``say`` each line
of its findings as it goes, and answers whether the log held. An alarm about the checkpoint
itself (a fork, a shrink, no proof, the witnesses missing) is a ``LogWatchError``; an alarm about
the leaves is a line, and leaves the state file as it was, so the alarm rings again.
"""

from __future__ import annotations

import base64
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any
from urllib.parse import quote

from fairdeal.verifier.bundle import Bundle, InvalidBundle
from fairdeal.verifier.checkpoint import Checkpoint, WitnessError, WitnessPolicy
from fairdeal.verifier.keys import InvalidKey, parse_public_key, public_key_text
from fairdeal.verifier.logleaf import genesis_leaf, seal_leaf
from fairdeal.verifier.logscan import LogScan, ScanError, Sealed
from fairdeal.verifier.merkle import ProofError, leaf_hash, verify_inclusion
from fairdeal.verifier.note import VerifierKey
from fairdeal.verifier.report import VerificationError, counted
from fairdeal.verifier.verify import chain_hashes, verify_bytes

from .api import ApiError
from .logwatch import LogServer, LogWatchError, read_state, to_stderr, write_state

__all__ = ["LEAF_PAGE", "bundle_in_log", "deep_check", "run_monitor", "scan_leaves"]

#: leaves asked for per request: a hostile server's answer is cut to what was asked
LEAF_PAGE = 1000


def run_monitor(server: LogServer, state_path: Path, *, log_key: str | None = None,
            witnesses: WitnessPolicy | None = None, bundles: Sequence[str] = (),
            deep: bool = False, say: Callable[[str], None] = print,
            warn: Callable[[str], None] = to_stderr) -> bool:
    """One monitor run against ``server``, remembering what it saw in ``state_path``: True
    when the log held and every bundle is in it. ``warn`` hears the first use of a log key."""
    state = read_state(state_path)
    key = server.log_key(log_key, state, warn)
    checkpoint, note, text = server.checkpoint(key)
    say(server.check_growth(state, checkpoint, text))
    if witnesses is not None:
        try:
            say(witnesses.check(note))
        except WitnessError as e:
            # not accepted, so not remembered: the next run asks again
            raise LogWatchError(f"ALARM: {e}\n--- the checkpoint served ---\n{text}") from None
    scanned, alarms, scan = scan_leaves(server, state, checkpoint, key, deep)
    for line in [*scanned, *alarms]:
        say(line)
    lines = [bundle_in_log(server, bundle, key, checkpoint) for bundle in bundles]
    for line in lines:
        say(line)
    if alarms:
        return False
    write_state(state_path, {"log_key": key.text(), "checkpoint": text, "scan": scan})
    return not any(line.startswith("FAIL") for line in lines)


def bundle_in_log(server: LogServer, path: str, key: VerifierKey,
                  checkpoint: Checkpoint) -> str:
    """Check a bundle's two leaves against the new checkpoint; the line to print."""
    try:
        bundle = Bundle.from_bytes(Path(path).read_bytes())
        if parse_public_key(bundle.server_key) != key.public_raw:
            return f"FAIL: {path}: sealed by another key than this log's"
        hashes = chain_hashes(bundle.events)
    except (OSError, InvalidBundle, InvalidKey, VerificationError) as e:
        return f"FAIL: {path}: {e}"
    found, genesis_at = [], 0
    for kind in ("genesis", "seal"):
        try:
            answer = server.api.call("GET", f"/log/proof/inclusion?match={bundle.match_id}"
                                     f"&kind={kind}&size={checkpoint.size}")
        except ApiError as e:
            return f"FAIL: {path}: the log has no {kind} leaf of match {bundle.match_id} ({e})"
        except OSError as e:
            raise LogWatchError(f"cannot reach {server.base}: {e}") from None
        except RecursionError:
            return f"FAIL: {path}: the server's proof of its {kind} leaf is not JSON"
        if not isinstance(answer, dict) or isinstance(answer.get("index"), bool) \
                or not isinstance(answer.get("index"), int):
            return f"FAIL: {path}: the server's answer for the {kind} leaf names no leaf index"
        if kind == "genesis":
            leaf = genesis_leaf(bundle.genesis)
            genesis_at = answer["index"]
        else:  # the seal names the genesis leaf it closes; format 1 seals name none
            old = seal_leaf(bundle.match_id, len(bundle.events) - 1, hashes[-1])
            leaf = old if answer.get("leaf") == old.decode() else seal_leaf(
                bundle.match_id, len(bundle.events) - 1, hashes[-1], genesis_at)
        try:
            verify_inclusion(leaf_hash(leaf), answer["index"], checkpoint.size,
                             [base64.b64decode(item) for item in answer["hashes"]],
                             checkpoint.root)
        except (ProofError, KeyError, TypeError, ValueError) as e:
            return (f"FAIL: {path}: its {kind} leaf is not in {checkpoint.describe()}: {e}")
        found.append(f"{kind} leaf {answer['index']}")
    return f"OK: {path}: {' and '.join(found)} in size {checkpoint.size}"


# --- the leaves: one genesis per match id, every seal closing its own (verifier.logscan) ----

def scan_leaves(server: LogServer, state: dict[str, Any], checkpoint: Checkpoint,
                key: VerifierKey, deep: bool) -> tuple[list[str], list[str], dict[str, Any]]:
    """Scan the leaves appended since the last run, up to the checkpoint's size, and check
    they make its tree; with ``deep``, each new seal's bundle. Returns the lines to print, the
    ALARM lines, and the scan to keep in the state file."""
    scan = _scan_so_far(state, checkpoint)
    first, deep_checked = scan.size, 0
    alarms: list[str] = []
    while scan.size < checkpoint.size and not alarms:
        limit = min(LEAF_PAGE, checkpoint.size - scan.size)
        answer = server.get_json(f"/log/leaves?after={scan.size - 1}&limit={limit}")
        entries = answer.get("leaves") if isinstance(answer, dict) else None
        if not isinstance(entries, list) or not entries:
            alarms.append(f"ALARM: the server lists no leaf {scan.size}, though its checkpoint "
                          f"holds {checkpoint.size} leaves")
            break
        for entry in entries[:limit]:
            if not isinstance(entry, dict) or type(entry.get("index")) is not int \
                    or entry["index"] != scan.size or not isinstance(entry.get("leaf"), str):
                alarms.append(f"ALARM: the server's list of leaves has no leaf {scan.size} "
                              "where it should be")
                break
            findings, sealed = scan.add(scan.size, entry["leaf"].encode("utf-8"))
            alarms += [f"ALARM: {finding.message}" for finding in findings]
            if sealed is not None and deep:
                alarms += deep_check(server, key, checkpoint, sealed)
                deep_checked += 1
    if not alarms and scan.root() != checkpoint.root:
        alarms.append(f"ALARM: the leaves the server lists are not the tree its checkpoint "
                      f"signs ({checkpoint.describe()})")
    created, sealed_count = scan.counts()
    lines = [f"leaves {first} to {scan.size - 1} scanned: {counted(created, 'match id')} created, "
             f"{sealed_count} sealed, each once" if scan.size > first
             else "no new leaves to scan"]
    if deep:
        lines.append(f"deep: {counted(deep_checked, 'sealed match bundle')} checked against "
                     "their leaves")
    return lines, alarms, scan.to_json()


def _scan_so_far(state: dict[str, Any], checkpoint: Checkpoint) -> LogScan:
    """The scan the state file kept (a fresh one on first use), refused when it is damaged
    or bigger than the checkpoint."""
    try:
        scan = LogScan.from_json(state["scan"]) if "scan" in state else LogScan()
    except ScanError as e:
        raise LogWatchError(f"the state file's leaf scan is damaged ({e}): delete its "
                            "'scan' entry to scan the log again from leaf 0") from None
    if scan.size > checkpoint.size:
        raise LogWatchError(f"the state file scanned {scan.size} leaves, more than the "
                            f"checkpoint's {checkpoint.size}: not this log's state")
    return scan


def deep_check(server: LogServer, key: VerifierKey, checkpoint: Checkpoint,
               sealed: Sealed) -> list[str]:
    """The sealed match's bundle, fetched from the server: its genesis and head must be the
    leaves', and it must verify under the log's key. The ALARM lines (none when it holds)."""
    where = f"seal leaf {sealed.seal} of match {sealed.match_id!r}"
    try:
        answer = server.api.call("GET", f"/log/proof/inclusion?index={sealed.genesis}"
                                 f"&size={checkpoint.size}")
        genesis = str(answer["leaf"]).encode("utf-8")
        verify_inclusion(leaf_hash(genesis), sealed.genesis, checkpoint.size,
                         [base64.b64decode(item, validate=True) for item in answer["hashes"]],
                         checkpoint.root)
    except (ApiError, ProofError, KeyError, TypeError, ValueError) as e:
        return [f"ALARM: {where}: the server proves no genesis leaf {sealed.genesis} ({e})"]
    except OSError as e:
        raise LogWatchError(f"cannot reach {server.base}: {e}") from None
    path = f"/matches/{quote(sealed.match_id, safe='')}/bundle"
    try:
        status, body = server.api.raw("GET", path)
    except OSError as e:
        raise LogWatchError(f"cannot reach {server.base}{path}: {e}") from None
    if status != 200:
        return [f"ALARM: {where}: the server gives no bundle of this match (HTTP {status})"]
    try:
        bundle = Bundle.from_bytes(body)
        hashes = chain_hashes(bundle.events)
    except (InvalidBundle, VerificationError) as e:
        return [f"ALARM: {where}: the server's bundle of this match is not one ({e})"]
    seal = seal_leaf(bundle.match_id, len(bundle.events) - 1, hashes[-1], sealed.leaf.genesis)
    if bundle.match_id != sealed.match_id or genesis_leaf(bundle.genesis) != genesis:
        return [f"ALARM: {where}: the bundle's genesis is not genesis leaf {sealed.genesis}"]
    if seal != sealed.leaf.body:
        return [f"ALARM: {where}: the bundle's head is not the one the seal leaf logs"]
    report = verify_bytes(body, trusted_key=public_key_text(key.public_raw))
    if not report.ok:
        return [f"ALARM: {where}: the server's bundle of this match does not verify "
                f"({report.failure})"]
    return []
