"""`python -m tessera.ray ...`: the command line (:mod:`tessera.ray._cli`)."""

import sys

from tessera.ray._cli import main

sys.exit(main())
