"""``python -m ontoretrieve`` runs the CLI."""

from ontoretrieve.cli import main

main()
