"""The transparency log's routes: the latest signed checkpoint (text), inclusion and
consistency proofs, and the leaves (docs/ledger.md, "The transparency log")."""

from __future__ import annotations

from flask import Response, jsonify, request

from fairdeal.ledger.errors import BadRequest
from fairdeal.verifier.checkpoint import Checkpoint, TlogProof, b64
from fairdeal.verifier.merkle import leaf_hash
from fairdeal.verifier.note import Note

from ..queryargs import int_query
from .blueprint import bp
from .body import field, json_body, unknown_fields
from .routes import ledger

_INCLUSION_ARGS = {"index", "size", "match", "kind"}


def _count(name: str, required: bool = True) -> int | None:
    """A query parameter that is a leaf count or index: a decimal from 0 up (64 bits)."""
    return int_query(name, minimum=0, required=required)


def _only(allowed: set[str]) -> None:
    unknown = sorted(set(request.args) - allowed)
    if unknown:
        raise BadRequest(f"unknown query parameter {unknown[0]!r} (known: "
                         f"{', '.join(sorted(allowed))})", code="invalid-query")


@bp.get("/log/checkpoint")
def log_checkpoint() -> Response:
    """The latest checkpoint, or the one signed at ``size``; with the witnesses'
    cosignatures stored for it."""
    _only({"size"})
    log = ledger().log
    size = _count("size", required=False)
    note = log.checkpoint() if size is None else log.stored_checkpoint(size)
    if note is None:
        raise BadRequest(f"the log signed no checkpoint of size {size}", code="invalid-size")
    response = Response(log.cosigned(note), mimetype="text/plain")
    response.headers["Cache-Control"] = "no-store"
    return response


@bp.post("/log/cosignature")
def log_cosignature() -> tuple[Response, int]:
    """A witness hands in its cosignature: the checkpoint note with its signature line."""
    body = json_body()
    unknown_fields(body, {"checkpoint"})
    note = field(body, "checkpoint")
    if not isinstance(note, str):
        raise BadRequest("checkpoint must be the cosigned checkpoint's text",
                         code="invalid-checkpoint")
    added = ledger().log.add_cosignatures(note)
    return jsonify({"added": added}), 201 if added else 200


@bp.get("/log/proof/inclusion")
def log_inclusion() -> Response:
    _only(_INCLUSION_ARGS)
    log = ledger().log
    index = _count("index", required=False)
    match_id = request.args.get("match")
    if (index is None) == (match_id is None):
        raise BadRequest("name the leaf by 'index', or by 'match' (and 'kind': genesis or "
                         "seal), not both", code="invalid-query")
    if match_id is not None:
        kind = request.args.get("kind", "seal")
        if kind not in ("genesis", "seal"):
            raise BadRequest(f"kind must be genesis or seal, got {kind[:40]!r}",
                             code="invalid-query")
        leaves = log.leaves_of(match_id)
        if kind not in leaves:
            raise BadRequest(f"the log holds no {kind} leaf of match {match_id[:64]!r}",
                             code="not-in-log")
        index = leaves[kind][0]
    elif request.args.get("kind") is not None:
        raise BadRequest("'kind' goes with 'match', not with 'index'", code="invalid-query")
    assert index is not None
    size = _count("size", required=False)
    note = log.checkpoint() if size is None else log.stored_checkpoint(size)
    if size is None:
        size = Checkpoint.from_text(Note.parse(note or "").text).size
    hashes = log.inclusion_proof(index, size)
    body = log.leaf(index)
    answer = {"index": index, "size": size, "leaf": body.decode("utf-8"),
              "leaf_hash": b64(leaf_hash(body)), "hashes": [b64(item) for item in hashes],
              "checkpoint": note,
              "proof": TlogProof(index, tuple(hashes), note).text() if note else None}
    return jsonify(answer)


@bp.get("/log/proof/consistency")
def log_consistency() -> Response:
    _only({"old", "new"})
    old, new = _count("old"), _count("new")
    assert old is not None and new is not None
    hashes = ledger().log.consistency_proof(old, new)
    return jsonify({"old": old, "new": new, "hashes": [b64(item) for item in hashes]})


@bp.get("/log/leaves")
def log_leaves() -> Response:
    _only({"after", "limit"})
    # a leaf index: -1 (the default) means from the first leaf
    after = int_query("after", -1, minimum=-1)
    limit = int_query("limit", 1000, minimum=1, maximum=10_000)
    found = ledger().log.leaves(after, limit)
    return jsonify({"leaves": [{"index": index, "kind": leaf.kind, "match_id": leaf.match_id,
                                "leaf": leaf.body.decode("utf-8")} for index, leaf in found],
                    "after": after})
