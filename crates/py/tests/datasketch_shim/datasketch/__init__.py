"""datasketch's names, resolved to tessera's classes (the shim of test_datasketch_suite.py)."""

from tessera import LeanMinHash, MinHash, MinHashLSH, MinHashLSHForest

from .b_bit_minhash import bBitMinHash
from .lshensemble import MinHashLSHEnsemble
from .weighted_minhash import WeightedMinHash, WeightedMinHashGenerator

__all__ = [
    "LeanMinHash",
    "MinHash",
    "MinHashLSH",
    "MinHashLSHEnsemble",
    "MinHashLSHForest",
    "WeightedMinHash",
    "WeightedMinHashGenerator",
    "bBitMinHash",
]
