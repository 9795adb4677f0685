"""The recorder keeps the canonical bytes and hash of the last events it accepted
(``MatchRecorder.encoded``), for a writer that stores them not to encode them again: they are
exactly the protocol's, for those events only, and a refused event leaves none behind."""

from __future__ import annotations

import pytest

from fairdeal.verifier.canonical import canonical_bytes
from fairdeal.verifier.keys import SigningKey
from fairdeal.verifier.protocol import event_hash
from fairdeal.verifier.record import KEPT_ENCODINGS, MatchRecorder, make_genesis
from fairdeal.verifier.report import VerificationError

SEED = bytes(range(32))
T0 = 1_800_000_000_000


def _recorder() -> MatchRecorder:
    genesis = make_genesis(game_name="arcomage", params={}, seats=["a", "b"],
                           match_id="kept-bytes", server_seed=SEED,
                           server_key_id=SigningKey.from_seed(bytes(32)).key_id,
                           turn_limit_ms=None, ts=T0)
    recorder = MatchRecorder(genesis, SEED)
    recorder.append("client_seed", T0 + 1, seat=0, client_seed=None)
    recorder.append("client_seed", T0 + 2, seat=1, client_seed=None)
    return recorder


def _play(recorder: MatchRecorder, moves: int) -> None:
    game = recorder.game
    for n in range(moves):
        action = game.action_to_json(game.legal_actions(recorder.state)[0])
        recorder.append("move", T0 + 10 + n, seat=game.current_seat(recorder.state),
                        action=action)


def test_the_last_events_bytes_and_hashes_are_the_protocols() -> None:
    recorder = _recorder()
    _play(recorder, KEPT_ENCODINGS + 3)
    kept = range(recorder.next_seq - KEPT_ENCODINGS, recorder.next_seq)
    for seq, event in enumerate(recorder.events):
        expected = (canonical_bytes(event), event_hash(event)) if seq in kept else None
        assert recorder.encoded(seq) == expected
    assert recorder.encoded(recorder.next_seq - 1) == (
        canonical_bytes(recorder.events[-1]), recorder.head)


def test_a_resumed_recorder_keeps_the_last_ones_too() -> None:
    recorder = _recorder()
    _play(recorder, 4)
    resumed = MatchRecorder.resume(recorder.events, SEED)
    assert [resumed.encoded(seq) for seq in range(1, resumed.next_seq)] == \
        [recorder.encoded(seq) for seq in range(1, recorder.next_seq)]
    assert resumed.encoded(0) is None  # the genesis is hashed, not kept


def test_a_refused_event_leaves_no_bytes() -> None:
    recorder = _recorder()
    seq = recorder.next_seq
    with pytest.raises(VerificationError):
        recorder.append("move", T0 + 10, seat=0, action={"kind": "play", "card": 10**6})
    assert recorder.encoded(seq) is None and recorder.next_seq == seq
