from ._missing import missing

bBitMinHash = missing("bBitMinHash", "b-bit MinHash is not implemented")

__all__ = ["bBitMinHash"]
