"""``python -m fairdeal.cli``: the same as the ``fairdeal`` command."""

from .main import cli

cli(prog_name="fairdeal")
