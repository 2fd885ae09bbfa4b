from ._missing import missing

WeightedMinHash = missing("WeightedMinHash", "weighted MinHash (Ioffe's consistent sampling) is not implemented")
WeightedMinHashGenerator = missing(
    "WeightedMinHashGenerator", "weighted MinHash (Ioffe's consistent sampling) is not implemented"
)

__all__ = ["WeightedMinHash", "WeightedMinHashGenerator"]
