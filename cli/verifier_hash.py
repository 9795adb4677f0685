"""``fairdeal verifier-hash``: the SHA-256 of the browser verifier this installed fairdeal
serves (``/pyodide/fairdeal.zip``), so that a visitor can compare it with the hash /verify and
the match page show — computed there, in their browser, over the bytes it loaded."""

from __future__ import annotations

import hashlib
from pathlib import Path

import click

from .group import cli


@cli.command(name="verifier-hash")
@click.option("-o", "--output", type=click.Path(dir_okay=False, path_type=Path), default=None,
              help="Also write the archive itself there (to compare it file by file with the "
                   "one a site serves).")
def verifier_hash(output: Path | None) -> None:
    """Print the SHA-256 of the browser verifier (fairdeal.zip: the verifier and the games,
    from this installed fairdeal), in `sha256sum` format.

    Built from the installed package's source files, reproducibly: the same release gives the
    same bytes on any machine. To check a site's browser verifier, install the version its
    /verify page names (`pip install fairdeal==VERSION`) and compare this hash with the one the
    page shows; or download its /pyodide/fairdeal.zip and run `fairdeal verifier-hash |
    sha256sum -c` beside it."""
    from fairdeal.web.viewer.runtime import ARCHIVE_NAME, fairdeal_version, package_archive

    data, _ = package_archive()
    if output is not None:
        try:
            output.write_bytes(data)
        except OSError as e:
            raise click.FileError(str(output), hint=e.strerror or str(e)) from None
    click.echo(f"{hashlib.sha256(data).hexdigest()}  {ARCHIVE_NAME}")
    # on stderr, so that the line above stays what `sha256sum -c` reads
    click.echo(f"fairdeal {fairdeal_version()}'s browser verifier", err=True)
