"""`python -m causalqa.cli`: the same as the `causalqa` command."""

from causalqa.cli import main

main()
