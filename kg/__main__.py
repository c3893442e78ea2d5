"""``python -m kg``: the same command line as the ``kg`` script."""

from kg.cli import main

main()
