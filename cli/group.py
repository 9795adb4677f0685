"""The ``fairdeal`` click group and the options every command shares (``--data-dir``,
``--database-url``, ``--version``).

This module imports none of the command modules: each of them imports ``cli`` from here and
registers its commands on it (``@cli.command()``). cli/main.py, the entry point, says which
module registers which command (``cli.lazy``), and the group imports a command's modules only
when that command runs (or when the help lists them all): ``fairdeal verify`` then starts
without importing the web viewer, the ledger or the audit (about 0.3 s instead of 1.3 s). So no
command module is imported back by the module it imports.
"""

from __future__ import annotations

import importlib
from pathlib import Path

import click

from fairdeal.games.compiled import build_name

__all__ = ["DEFAULT_DATA_DIR", "Context", "cli"]

DEFAULT_DATA_DIR = click.get_app_dir("fairdeal")
#: click's own line, then which build of games/, verifier/ and audit/ runs (docs/compiled.md)
VERSION_MESSAGE = ("%(prog)s, version %(version)s\n"
                   + f"games, verifier and audit: {build_name()}")


class Context:
    """Options shared by every command."""

    def __init__(self, data_dir: str, database_url: str | None) -> None:
        self.data_dir = Path(data_dir)
        self.database_url = database_url


class LazyGroup(click.Group):
    """A group whose commands are registered by modules imported on first use: ``lazy`` maps
    each top-level command's name to the cli/ modules that register it and its subcommands."""

    def __init__(self, *args: object, **kwargs: object) -> None:
        super().__init__(*args, **kwargs)  # type: ignore[arg-type]
        self.lazy: dict[str, tuple[str, ...]] = {}

    def _load(self, modules: set[str] | tuple[str, ...]) -> None:
        for module in sorted(modules):
            importlib.import_module(f"fairdeal.cli.{module}")

    def list_commands(self, ctx: click.Context) -> list[str]:
        self._load({module for modules in self.lazy.values() for module in modules})
        return super().list_commands(ctx)

    def get_command(self, ctx: click.Context, cmd_name: str) -> click.Command | None:
        self._load(self.lazy.get(cmd_name, ()))
        return super().get_command(ctx, cmd_name)


@click.group(cls=LazyGroup, context_settings={"help_option_names": ["-h", "--help"]})
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
