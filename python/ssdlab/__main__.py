"""`python -m ssdlab`: the same command line as the `ssdlab` script."""

from ssdlab.entry import main

main()
