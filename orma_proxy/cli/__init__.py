"""The ``orma`` command line.

``app.py`` holds the Typer app, ``main()``, logging and the one place where
errors become exit codes; ``shared_options.py`` the options and helpers every command
shares; each group of commands lives in its own module (``add_cmds.py``, ``memory_cmds.py``...)
with its own ``typer.Typer()`` that ``app.py`` merges in.
"""

# The entry point is ``orma_proxy.cli.app:main``; no other package imports the CLI.
__all__: list[str] = []
