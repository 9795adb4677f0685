"""C2SP checkpoints and tlog proofs. The reference here is a second parser, written in this
file from the text of c2sp.org/tlog-checkpoint and c2sp.org/signed-note alone, so the module's
parser is checked against the spec and not against itself."""

from __future__ import annotations

import base64
import binascii

import pytest

from fairdeal.verifier.checkpoint import Checkpoint, CheckpointError, TlogProof
from fairdeal.verifier.keys import SigningKey
from fairdeal.verifier.note import sign_note

KEY = SigningKey.from_seed(b"\x05" * 32)
ORIGIN = "fairdeal.test/log"


def spec_parse(note: str) -> tuple[str, int, bytes, list[str], list[tuple[str, bytes]]]:
    """From the specs' words: "a text ending in newline, followed by a blank line, followed
    by one or more signature lines ... em dash, space, key name, space, base64 signature,
    newline"; "the text is separated from the signatures by the last empty line"; the text is
    "at least three non-empty lines": origin (non-empty), tree size ("ASCII decimal ... with no
    leading zeroes (unless the tree is empty ...)"), root hash (base64 of the root), then
    optional non-empty extension lines."""
    assert all(ch == "\n" or ord(ch) >= 0x20 for ch in note), "control characters"
    cut = note.rindex("\n\n")
    text, sigs = note[:cut + 1], note[cut + 2:]
    assert sigs.endswith("\n")
    signatures = []
    for line in sigs[:-1].split("\n"):
        assert line[:2] == "\u2014 "
        name, b64sig = line[2:].split(" ")
        assert name and "+" not in name
        signatures.append((name, base64.b64decode(b64sig, validate=True)))
    lines = text.split("\n")
    assert lines[-1] == ""
    lines = lines[:-1]
    assert len(lines) >= 3 and all(lines)
    origin, size_text, root_text = lines[:3]
    assert size_text.isascii() and size_text.isdigit()
    assert size_text == "0" or not size_text.startswith("0")
    root = base64.b64decode(root_text, validate=True)
    assert len(root) == 32
    return origin, int(size_text), root, lines[3:], signatures


@pytest.mark.parametrize("size,extensions", [(0, ()), (1, ()), (20852163, ()),
                                             (7, ("ext one", "ext two"))])
def test_ours_and_the_spec_parser_agree(size: int, extensions: tuple[str, ...]) -> None:
    checkpoint = Checkpoint(ORIGIN, size, bytes(range(32)), extensions)
    note = sign_note(checkpoint.text(), ORIGIN, KEY).render()
    origin, spec_size, root, spec_extensions, signatures = spec_parse(note)
    parsed, parsed_note = Checkpoint.from_note(note)
    assert (parsed.origin, parsed.size, parsed.root, list(parsed.extensions)) == (
        origin, spec_size, root, spec_extensions)
    assert parsed == checkpoint
    assert [(s.name, s.key_id + s.signature) for s in parsed_note.signatures] == signatures


def test_the_spec_example_checkpoint_parses() -> None:
    example = ("example.com/behind-the-sofa\n20852163\n"
               "CsUYapGGPo4dkMgIAUqom/Xajj7h2fB2MPA3j2jxq2I=\n\n"
               "\u2014 example.com/behind-the-sofa Az3grlgtzPICa5OS8npVmf1Myq/5IZniMp+ZJurmRDeO"
               "oRDe4URYN7u5/Zhcyv2q1gGzGku9nTo+zyWE+xeMcTOAYQ8=\n")
    checkpoint, _ = Checkpoint.from_note(example)
    assert (checkpoint.origin, checkpoint.size) == spec_parse(example)[:2]
    assert checkpoint.root == spec_parse(example)[2]


ROOT = base64.b64encode(b"\x01" * 32).decode()
MUST_REJECT = {
    "leading zero in the size": f"log\n012\n{ROOT}\n",
    "negative size": f"log\n-1\n{ROOT}\n",
    "size with a plus": f"log\n+1\n{ROOT}\n",
    "size with spaces": f"log\n 1\n{ROOT}\n",
    "size not decimal": f"log\n0x10\n{ROOT}\n",
    "empty origin": f"\n1\n{ROOT}\n",
    "two lines only": "log\n1\n",
    "no final newline": f"log\n1\n{ROOT}",
    "root not base64": "log\n1\nnot-base64!\n",
    "root of 31 bytes": "log\n1\n" + base64.b64encode(b"\x01" * 31).decode() + "\n",
    "root in URL-safe base64": "log\n1\n" + base64.urlsafe_b64encode(b"\xfb" * 32).decode() + "\n",
    "root without padding": f"log\n1\n{ROOT.rstrip('=')}\n",
    "empty extension line": f"log\n1\n{ROOT}\next\n\n",
}


@pytest.mark.parametrize("name", MUST_REJECT)
def test_checkpoints_the_spec_rejects_are_rejected(name: str) -> None:
    with pytest.raises(CheckpointError):
        Checkpoint.from_text(MUST_REJECT[name])
    with pytest.raises((AssertionError, ValueError, binascii.Error)):
        spec_parse(MUST_REJECT[name] + "\n\u2014 log AAAAAAAA\n")


def test_a_tlog_proof_round_trips() -> None:
    note = sign_note(Checkpoint(ORIGIN, 5, b"\x02" * 32).text(), ORIGIN, KEY).render()
    proof = TlogProof(3, (b"\x03" * 32, b"\x04" * 32), note)
    text = proof.text()
    assert text.startswith("c2sp.org/tlog-proof@v1\nindex 3\n")
    assert TlogProof.from_text(text) == proof
    with_extra = TlogProof(0, (), note, b"context")
    assert TlogProof.from_text(with_extra.text()) == with_extra


@pytest.mark.parametrize("text", [
    "c2sp.org/tlog-proof@v2\nindex 1\n\nlog\n1\n" + ROOT + "\n\n\u2014 log AAAAAAAA\n",
    "c2sp.org/tlog-proof@v1\nindex 01\n\nx",
    "c2sp.org/tlog-proof@v1\n\nx",
    "c2sp.org/tlog-proof@v1\nindex 1\nnot a hash\n\nx",
    "c2sp.org/tlog-proof@v1\nindex 1",
])
def test_malformed_tlog_proofs_are_rejected(text: str) -> None:
    with pytest.raises(CheckpointError):
        TlogProof.from_text(text)
