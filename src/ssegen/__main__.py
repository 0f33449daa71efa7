"""``python -m ssegen``: the ssegen command line."""

from .cli import main

main()
