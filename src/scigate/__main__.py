"""`python -m scigate` runs the command line."""

from scigate.cli import main

main()
