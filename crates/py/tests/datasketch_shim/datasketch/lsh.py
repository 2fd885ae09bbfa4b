from tessera import MinHashLSH

__all__ = ["MinHashLSH"]
