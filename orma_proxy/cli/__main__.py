"""``python -m orma_proxy.cli``: the same as the ``orma`` script."""

from orma_proxy.cli.app import main

main()
