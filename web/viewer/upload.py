"""Upload and verify: a bundle file or pasted JSON gets the report and the stepper; it is
stored (through the ledger's import) only when the user asks and it verifies."""

from __future__ import annotations

from typing import Any

from flask import redirect, render_template, request, url_for
from werkzeug.exceptions import RequestEntityTooLarge

from fairdeal.verifier.keys import InvalidKey, parse_public_key

from ..security import UPLOAD_LIMIT, rate_limited
from .blueprint import bp
from .loading import ledger, load_upload, match_cache, uploads
from .matches import check_rows, load_bundle

__all__: list[str] = []  # views only: the upload limit itself is web/security.py's UPLOAD_LIMIT


@bp.route("/upload", methods=["GET"])
def upload_form() -> Any:
    """The upload form: a file, or pasted JSON; an optional key to pin; "store" if wanted."""
    return render_template("viewer/upload.html", limit_mb=UPLOAD_LIMIT // (1024 * 1024),
                           error=None, pasted="", can_store=True)


def _upload_error(message: str, status: int, pasted: str = "") -> Any:
    return render_template("viewer/upload.html", limit_mb=UPLOAD_LIMIT // (1024 * 1024),
                           error=message, pasted=pasted, can_store=True), status


@bp.route("/upload", methods=["POST"])
def upload_post() -> Any:
    """Verify an uploaded bundle; store it only if the user ticked "store"."""
    if request.content_length is not None and request.content_length > UPLOAD_LIMIT + 64_000:
        raise RequestEntityTooLarge()
    request.max_content_length = UPLOAD_LIMIT + 64_000
    request.max_form_memory_size = UPLOAD_LIMIT
    upload = request.files.get("bundle")
    pasted = request.form.get("pasted", "")
    data = upload.read(UPLOAD_LIMIT + 1) if upload is not None and upload.filename else b""
    if not data:
        data = pasted.encode("utf-8")
    if not data.strip():
        return _upload_error("Choose a bundle file or paste its JSON.", 400)
    if len(data) > UPLOAD_LIMIT:
        raise RequestEntityTooLarge()
    trusted_key = request.form.get("trusted_key", "").strip() or None
    if trusted_key is not None:
        try:
            parse_public_key(trusted_key)
        except InvalidKey as e:
            return _upload_error(f"The trusted key is not a public key: {e}", 400)
    match = load_bundle(data, trusted_key=trusted_key)
    if request.form.get("store") and match.report.ok:
        refused = rate_limited("import")
        if refused is not None:
            return refused
        try:
            match_id = ledger().store(data)
        except ValueError as e:  # the ledger's own refusal, in its own words
            return _upload_error(f"The bundle verifies, but the ledger would not store it: {e}",
                                 409)
        match_cache().put(f"m-{match_id}", load_bundle(data, f"m-{match_id}"))
        return redirect(url_for("viewer.match_page", match_id=match_id), 303)
    uploads().put(match.key, match)
    if not match.events:
        # not a bundle at all: the report says why, with the parser's own message
        return render_template("viewer/upload.html", limit_mb=UPLOAD_LIMIT // (1024 * 1024),
                               error=None, pasted="", can_store=True, failed=match,
                               checks=check_rows(match)), 422
    target = url_for("viewer.upload_page", key=match.key)
    if request.form.get("store") and not match.report.ok:
        target += "?unstored=1"
    return redirect(target, 303)


@bp.route("/u/<key>/store", methods=["POST"])
def upload_store(key: str) -> Any:
    """Store an uploaded bundle that verifies (the user asked after seeing the report)."""
    match = load_upload(key)
    if not match.report.ok or match.bundle_bytes is None:
        return _upload_error("Only a bundle that verifies can be stored.", 409)
    try:
        match_id = ledger().store(match.bundle_bytes)
    except ValueError as e:
        return _upload_error(f"The bundle verifies, but the ledger would not store it: {e}", 409)
    match_cache().put(f"m-{match_id}", load_bundle(match.bundle_bytes, f"m-{match_id}"))
    return redirect(url_for("viewer.match_page", match_id=match_id), 303)




@bp.errorhandler(RequestEntityTooLarge)
def too_large(error: RequestEntityTooLarge) -> Any:
    """The upload limit, as a page a person can act on."""
    return render_template(
        "viewer/error.html", status=413, heading="That file is too large",
        message=f"Bundles up to {UPLOAD_LIMIT // (1024 * 1024)} MB can be uploaded here "
                "(a long match is well under 1 MB). Verify larger files offline with "
                "`fairdeal verify FILE`."), 413


