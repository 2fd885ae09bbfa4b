"""The `test` package datasketch's tests import helpers from (`test.utils`): its modules
are read from the suite's directory (TESSERA_DATASKETCH_TESTS), not copied here."""

import os

__path__ = [os.environ["TESSERA_DATASKETCH_TESTS"]]
