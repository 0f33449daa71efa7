"""``python -m generator``: the ssegen command line."""

from .cli import main

main()
