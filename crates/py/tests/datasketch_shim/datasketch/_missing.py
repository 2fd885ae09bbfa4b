"""Stand-ins for datasketch classes tessera does not offer: building one raises."""


def missing(name: str, reason: str) -> type:
    """A class named `name` whose construction raises NotImplementedError(reason)."""

    def __init__(self, *args, **kwargs):
        raise NotImplementedError(f"tessera does not offer datasketch's {name}: {reason}")

    return type(name, (), {"__init__": __init__, "__doc__": f"Not offered by tessera: {reason}"})
