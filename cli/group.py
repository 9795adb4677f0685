"""The ``fairdeal`` click group and the options every command shares (``--data-dir``,
``--database-url``, ``--version``).

This module imports none of the command modules: each of them imports ``cli`` from here and
registers its commands on it (``@cli.command()``), and cli/main.py, the entry point, imports
them all once. So no command module is imported back by the module it imports.
"""

from __future__ import annotations

from pathlib import Path

import click

from fairdeal.games.compiled import build_name

__all__ = ["DEFAULT_DATA_DIR", "Context", "cli"]

DEFAULT_DATA_DIR = click.get_app_dir("fairdeal")
#: click's own line, then which build of games/ and verifier/ runs (docs/compiled.md)
VERSION_MESSAGE = "%(prog)s, version %(version)s\n" + f"games and verifier: {build_name()}"


class Context:
    """Options shared by every command."""

    def __init__(self, data_dir: str, database_url: str | None) -> None:
        self.data_dir = Path(data_dir)
        self.database_url = database_url


@click.group(context_settings={"help_option_names": ["-h", "--help"]})
@click.option("--data-dir", envvar="FAIRDEAL_DATA_DIR", default=DEFAULT_DATA_DIR,
              show_default=True, type=click.Path(file_okay=False),
              help="Where the embedded database and the server key live.")
@click.option("--database-url", envvar="FAIRDEAL_DATABASE_URL", default=None,
              help="A database URL (sqlite:///… or postgresql+psycopg://…); overrides "
                   "the SQLite file in the data folder.")
@click.version_option(package_name="fairdeal", message=VERSION_MESSAGE)
@click.pass_context
def cli(ctx: click.Context, data_dir: str, database_url: str | None) -> None:
    """fairdeal: provably fair match records you can verify yourself."""
    ctx.obj = Context(data_dir, database_url)
