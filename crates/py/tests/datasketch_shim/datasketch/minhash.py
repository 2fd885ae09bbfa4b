from tessera import MinHash

__all__ = ["MinHash"]
