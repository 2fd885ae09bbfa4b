try:
    from tessera import MinHashLSHEnsemble
except ImportError:
    from ._missing import missing

    MinHashLSHEnsemble = missing("MinHashLSHEnsemble", "containment search (LSH Ensemble) is not implemented")

__all__ = ["MinHashLSHEnsemble"]
