from tessera import LeanMinHash

__all__ = ["LeanMinHash"]
