"""`python -m tessera.spark dedup ...`: the command line (:mod:`tessera.spark._cli`)."""

import sys

# The imported module's main, so that executors unpickle the job's functions by reference
# from their installed tessera package.
from tessera.spark._cli import main

sys.exit(main())
