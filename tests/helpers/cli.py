"""The ``orma`` command as the CLI tests call it (the ``orma`` fixture)."""

from __future__ import annotations

from collections.abc import Callable

from typer.testing import Result

# ``orma(ARGS...)``: runs the command line in-process and returns typer's result.
Orma = Callable[..., Result]
