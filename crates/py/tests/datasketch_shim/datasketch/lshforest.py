from tessera import MinHashLSHForest

__all__ = ["MinHashLSHForest"]
