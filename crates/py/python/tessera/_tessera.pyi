"""Type stubs of the extension module (Rust, PyO3). Docstrings are the Rust ones."""

from __future__ import annotations

import os
from typing import Any, Callable, Hashable, Iterable, Iterator, NoReturn, Optional, Protocol, Sequence, Union, final

from typing_extensions import Self

import numpy as np
import numpy.typing as npt

__version__: str
#: The longest text of one document, in bytes of UTF-8 (the CLI's `--max-text-mb`): a longer
#: text given to `sketch`, `dedup`, `Index.add` or `Index.check` is a `ValueError`.
MAX_TEXT_BYTES: int

_Item = Union[str, bytes]
_Fingerprint = Union["SimHash", int]

class TesseraError(Exception):
    """An operation of Tessera's engine failed (an index, a file, a sketch store): the
    message is the engine's, naming the file and the reason."""

class MinHash:
    """A MinHash signature of a set of items (bytes or str, or anything `hashfunc` takes).

    Each item is hashed with xxh3-64 (of its UTF-8 bytes for a str) and folded into
    `num_perm` minimums of the engine's hash family (`h_i(x) = (a_i * x + b_i) mod 2^64 >>
    32`, coefficients drawn from SplitMix64 seeded with `seed`): the same family as every
    signature Tessera stores, so values are 32-bit (held in uint64 arrays as datasketch
    does). A MinHash that saw no item is *empty*: every value is 0xFFFFFFFF.

    Args:
        num_perm: hash functions (signature length), 1 to 4096.
        seed: seed of the hash functions; only signatures of equal `num_perm` and `seed`
            compare.
        gpu_mode: datasketch's; accepted, no GPU is used ("always" raises RuntimeError in
            `update_batch`, as datasketch without CUDA).
        hashfunc: a callable taking an item and returning an int (at most 64 bits) that
            replaces xxh3-64 as the item hash. Slower: it runs in Python, item by item.
        hashobj: deprecated in datasketch, a no-op with a DeprecationWarning.
        hashvalues: start from these values (e.g. a row of `tessera.sketch`, or another
            MinHash's `digest()`), each below 2**32; their length sets `num_perm`.
        permutations: datasketch's; accepted only when equal to this seed's coefficients
            (`permutations`), since the family is drawn from the seed.
        scheme: datasketch 2's permutation scheme; only None (Tessera has one family).
    """

    def __new__(
        cls,
        num_perm: int = 128,
        seed: int = 1,
        gpu_mode: str = "disable",
        hashfunc: Optional[Callable[[Any], int]] = None,
        hashobj: Optional[object] = None,
        hashvalues: Optional[Union[npt.ArrayLike, Sequence[int]]] = None,
        permutations: Optional[npt.ArrayLike] = None,
        scheme: Optional[str] = None,
    ) -> MinHash: ...
    def update(self, b: Any) -> None:
        """Adds one item (bytes or str; anything `hashfunc` takes when one was given)."""
    def update_batch(self, b: Iterable[Any]) -> None:
        """Adds every item of an iterable (bytes or str): items are hashed, then folded in
        batches without the GIL."""
    def jaccard(self, other: MinHash) -> float:
        """The estimated Jaccard similarity with `other`: the share of positions where both
        signatures agree (the engine's estimate: 0 when either is empty). `ValueError` when
        `num_perm` or `seed` differ."""
    def count(self) -> float:
        """The estimated number of distinct items, as datasketch computes it:
        `num_perm / sum(v / (2**32 - 1)) - 1` (0 for an empty MinHash)."""
    def digest(self) -> npt.NDArray[np.uint64]:
        """The signature: a numpy uint64 array of `num_perm` values, each below 2**32."""
    @property
    def hashvalues(self) -> npt.NDArray[np.uint64]:
        """The signature (datasketch's name for `digest()`): a new array on each read, so
        change values by assigning `hashvalues`, not by writing into the array."""
    @hashvalues.setter
    def hashvalues(self, values: Union[npt.ArrayLike, Sequence[int]]) -> None: ...
    @property
    def permutations(self) -> npt.NDArray[np.uint64]:
        """The hash family's coefficients: a (2, num_perm) uint64 array, `a` (odd) then `b`
        of `h_i(x) = ((a_i * x + b_i) mod 2**64) >> 32`. They are not datasketch's (its
        family is another one), so only their shape and role match."""
    @property
    def hashfunc(self) -> Optional[Callable[[Any], int]]:
        """The `hashfunc` given, or None for the built-in xxh3-64."""
    @property
    def _gpu_mode(self) -> str:
        """datasketch's `gpu_mode` as given ("disable", "detect" or "always")."""
    @property
    def num_perm(self) -> int:
        """Hash functions (signature length)."""
    @property
    def seed(self) -> int:
        """Seed of the hash functions."""
    def copy(self) -> Self:
        """A copy (with the same `hashfunc`)."""
    def merge(self, other: MinHash) -> None:
        """Makes this the signature of the union of both sets (the minimum of each value).
        `ValueError` when `num_perm` or `seed` differ."""
    @classmethod
    def union(cls, *mhs: MinHash) -> MinHash:
        """A new MinHash of the union of two or more (the minimum of each value), of the
        first one's class and `hashfunc`. `ValueError` for fewer than two, or when
        `num_perm` or `seed` differ."""
    def is_empty(self) -> bool:
        """True when no item was added."""
    def clear(self) -> None:
        """Clears the signature (as if no item was added)."""
    @staticmethod
    def bulk(
        sets: Iterable[Iterable[Any]],
        num_perm: int = 128,
        seed: int = 1,
        hashfunc: Optional[Callable[[Any], int]] = None,
        gpu_mode: str = "disable",
    ) -> list[MinHash]:
        """The MinHash of each set of items, computed without the GIL (with a `hashfunc`,
        the items are hashed by it in Python first)."""
    @staticmethod
    def generator(
        sets: Iterable[Iterable[Any]],
        num_perm: int = 128,
        seed: int = 1,
        hashfunc: Optional[Callable[[Any], int]] = None,
        gpu_mode: str = "disable",
    ) -> Iterator[MinHash]:
        """The MinHash of each set of items, one at a time (datasketch's `generator`): an
        iterator, so the sets can be a stream. Arguments as `bulk`."""
    def __len__(self) -> int: ...
    def __eq__(self, other: object, /) -> bool: ...
    def __copy__(self) -> Self: ...
    def __deepcopy__(self, memo: Any, /) -> Self: ...

@final
class LeanMinHash(MinHash):
    """A MinHash frozen for storage: its seed and values, without a hash function.

    As datasketch's `LeanMinHash` (a subclass of MinHash: `jaccard`, `count`, `digest`,
    `is_empty`, `merge`, `union`, and LSH, forest and `jaccard` with a MinHash take it).
    `update` and `update_batch` raise TypeError. `serialize(buf)` writes datasketch's
    byte layout of a LeanMinHash without a scheme (the one of datasketch before 2.0, which
    datasketch 2 still reads, as scheme "legacy"): the seed as int64, the number of values
    as int32, then each value as uint32, in `byteorder` (default "@": the machine's,
    little-endian on x86-64 and aarch64), 12 + 4 * num_perm bytes. `merge` changes it, as
    datasketch's does: do not merge a LeanMinHash that is a dict key.

    Args:
        minhash: the MinHash to freeze.
        seed: with `hashvalues`, instead of `minhash`: the seed of the family they are of.
        hashvalues: the values (below 2**32).
        scheme: datasketch 2's; only None (Tessera has one family).
    """

    def __new__(  # type: ignore[override]
        cls,
        minhash: Optional[MinHash] = None,
        seed: Optional[int] = None,
        hashvalues: Optional[Union[npt.ArrayLike, Sequence[int]]] = None,
        scheme: Optional[str] = None,
    ) -> LeanMinHash: ...
    def update(self, b: Any) -> NoReturn:
        """Not available on a LeanMinHash: raises TypeError."""
    def update_batch(self, b: Iterable[Any]) -> NoReturn:
        """Not available on a LeanMinHash: raises TypeError."""
    def bytesize(self, byteorder: str = "@") -> int:
        """Bytes `serialize` writes: 12 + 4 * num_perm (in every byte order)."""
    def serialize(self, buf: Any, byteorder: str = "@") -> None:
        """Writes the layout (see the class) at the start of `buf`, a writable buffer
        (bytearray, memoryview, numpy array) of at least `bytesize()` bytes.
        `ValueError` when it is smaller or the seed does not fit an int64."""
    @classmethod
    def deserialize(cls, buf: Any, byteorder: str = "@") -> LeanMinHash:
        """Reads a LeanMinHash written by `serialize` (or by datasketch's LeanMinHash of the
        layout without a scheme) from the start of `buf`. `ValueError` for a buffer too
        short, a negative seed, or datasketch 2's layouts with a scheme (a negative count):
        their values are of datasketch's hash families, which Tessera's do not compare with."""
    def __hash__(self) -> int:
        """The hash of `(seed, values)`: equal LeanMinHashes hash alike (dict keys, sets)."""

@final
class MinHashLSHForest:
    """MinHash LSH Forest (Bawa et al. 2005, as datasketch implements it): `l` prefix trees,
    each over `k = num_perm // l` consecutive values of the signatures, kept as sorted
    arrays. `query(minhash, k)` walks the prefix length `r` from `k` down to 1 and, in
    every tree, collects the keys whose first `r` values of that tree's band equal the
    query's (a binary search in the sorted array), until it holds `k` keys: the keys
    sharing the longest prefixes come first, an approximation of the top-k by Jaccard
    similarity.

    Keys added by `add` are searchable after the next `index()` (datasketch also finds
    keys added after `index()` whose band equals a band indexed before; here they wait
    for `index()`). The answer is the set of keys datasketch returns for the same hash
    values and insertion order, as a list in the order they were found (datasketch's
    comes from a set, in no fixed order). An empty MinHash is indexed like any other, as
    datasketch does.

    `hashtables` (per tree, band key -> keys) and `keys` (key -> its band keys) are
    datasketch's, built on each read; a band key is the band's values as big-endian
    uint64.

    Args:
        num_perm: the MinHashes' length (at least `l`; a MinHash must have `k * l` values
            or more).
        l: the number of prefix trees.
    """

    def __new__(cls, num_perm: int = 128, l: int = 8) -> MinHashLSHForest: ...  # noqa: E741
    def add(self, key: Hashable, minhash: MinHash) -> None:
        """Adds `minhash` under `key` (any hashable), searchable after `index()`.
        `ValueError` when the key was added already, the MinHash has fewer than `k * l`
        values or another seed."""
    def index(self) -> None:
        """Makes every key added so far searchable (sorts each tree, in parallel)."""
    def query(self, minhash: MinHash, k: int) -> list[Any]:
        """The approximate top-`k` keys by Jaccard similarity to `minhash`: at most `k`, in
        the order found (longest shared prefix first). `ValueError` for `k <= 0` or a
        MinHash the forest cannot take."""
    def get_minhash_hashvalues(self, key: Hashable) -> npt.NDArray[np.uint64]:
        """The hash values stored for `key` (the first `k * l` of its MinHash), a uint64
        array. `KeyError` when it was not added."""
    def is_empty(self) -> bool:
        """True when no key is searchable (none added, or `index()` not called since)."""
    def __contains__(self, key: Hashable, /) -> bool:
        """Whether `key` was added (searchable or not)."""
    @property
    def l(self) -> int:  # noqa: E743
        """The number of prefix trees."""
    @property
    def k(self) -> int:
        """The depth of each tree: values per tree (`num_perm // l`)."""
    @property
    def hashranges(self) -> list[tuple[int, int]]:
        """Each tree's `(start, end)` in the signature."""
    @property
    def hashtables(self) -> list[dict[bytes, list[Any]]]:
        """datasketch's `hashtables`: per tree, a dict band key -> keys in insertion order,
        of every key added (a snapshot)."""
    @property
    def keys(self) -> dict[Any, list[bytes]]:
        """datasketch's `keys`: a dict key -> its band keys (one per tree), a snapshot."""

class MinHashLSH:
    """MinHash LSH: finds the keys whose signatures share at least one band with a query's,
    the candidates of Jaccard similarity around `threshold` and above.

    Bands and rows come from the engine's rule (`LshParams::optimal`, the one `tessera
    dedup` uses): the `(b, r)` with `b * r <= num_perm` minimising `weights[0] * FP +
    weights[1] * FN`, the areas of the S-curve on the wrong side of the threshold (the
    criterion of datasketch's MinHashLSH, whose choices it equals). An empty MinHash is
    stored but shares no band, so no query finds it and it finds nothing.

    `save(path)` writes a directory: the engine's sketch store (format 4: its segments
    `path/NEAR-<n>.seg`, each with signatures and band tables, little-endian,
    crc32-checked, written to a temporary file and renamed; `path/MANIFEST` naming them, an
    index manifest without collections; and `LOCK`, the writers' lock), and
    `path/keys.json`, `{"format": "tessera.MinHashLSH", "version": 1, "threshold",
    "weights", "num_perm", "seed", "bands", "rows", "keys": [...]}` with the keys in
    insertion order (str or int keys only: no pickle). The store's header carries
    the xxh3-64 of the keys file, so a keys file of another save is refused.
    `MinHashLSH.load(path)` opens the store memory-mapped (its checksum verified) and
    queries it in place; inserts and removes after a load live in memory over it (a
    removed key masks its store entry) until the next `save`, which writes everything.

    Args:
        threshold: the Jaccard similarity the bands are tuned for, strictly between 0 and 1.
        num_perm: the signatures' length; every MinHash inserted or queried must have it.
        weights: the weights of false positives and false negatives in the choice of bands.
        params: `(bands, rows)` to use instead of the optimal ones (`threshold` and
            `weights` are then only checked, as datasketch ignores them).
        storage_config: None or `{"type": "dict"}` (memory); `tessera.MinHashLSH` sends
            `{"type": "redis", ...}` to its Redis-backed class before this one.
        prepickle: as datasketch: True stores `pickle.dumps(key)` instead of each key (the
            `keys` and `hashtables` views then show those bytes); queries unpickle.

    datasketch's views of the storage: `keys` (`len`, `in`, iteration, `keys()`,
    `keys[key]`: the key's band keys; calling it, `lsh.keys()`, gives the list of keys),
    `hashtables` (one dict per band, band key -> keys, a snapshot) and `get_counts()`. A
    band key is datasketch's for the same values: the band's values as big-endian uint64
    (8 bytes each), as datasketch writes them for uint64 hash values. The views list an
    empty MinHash under its band keys as datasketch does, but no query finds it.
    """

    def __new__(
        cls,
        threshold: float = 0.8,
        num_perm: int = 128,
        weights: tuple[float, float] = (0.5, 0.5),
        params: Optional[tuple[int, int]] = None,
        storage_config: Optional[dict[str, Any]] = None,
        prepickle: Optional[bool] = None,
    ) -> MinHashLSH: ...
    def insert(self, key: Hashable, minhash: MinHash, check_duplication: bool = True) -> None:
        """Inserts `minhash` under `key` (any hashable; str or int to `save`). `ValueError`
        when the key is there already, or the MinHash's `num_perm` or `seed` differ.
        `check_duplication` is datasketch's; the check is a dict lookup here, so it is
        always made (a key twice would corrupt the tables)."""
    def query(self, minhash: MinHash) -> list[Any]:
        """The keys whose signatures share at least one band with `minhash`'s, in insertion
        order (candidates: check them with `MinHash.jaccard` when precision matters)."""
    def remove(self, key: Hashable) -> None:
        """Removes `key`. `ValueError` when it is not there."""
    def insertion_session(self, buffer_size: int = 50000) -> MinHashLSHInsertionSession:
        """A context manager for many inserts (datasketch's): `session.insert(key, minhash)`
        checks at once and buffers; every `buffer_size` inserts, and when the `with` block
        ends, the buffer's band keys are computed in parallel and the keys enter the LSH
        (so they are found from then on)."""
    def deletion_session(self, buffer_size: int = 50000) -> MinHashLSHDeletionSession:
        """A context manager for many removes (datasketch's): `session.remove(key)` removes
        at once (removal from memory has nothing to batch)."""
    def merge(self, other: MinHashLSH, check_overlap: bool = False) -> None:
        """Adds every key of `other` (of the same num_perm, bands and rows, and seed), as
        datasketch's `merge`. `check_overlap=True`: `ValueError` when a key is in both.
        Without it, a key in both takes `other`'s MinHash (datasketch would keep both
        under the key; a key has one signature here)."""
    def is_empty(self) -> bool:
        """Whether the LSH holds no key."""
    def add_to_query_buffer(self, minhash: MinHash) -> None:
        """Buffers a query (datasketch's): `collect_query_buffer` answers all at once.
        `ValueError` as `query`."""
    def collect_query_buffer(self) -> list[Any]:
        """The keys that are candidates of *every* buffered query (datasketch's
        intersection), in insertion order; empties the buffer. `[]` when none was buffered."""
    def get_counts(self) -> list[dict[bytes, int]]:
        """Per band, datasketch's bucket sizes: a list of `b` dicts, band key (bytes, see
        the class) -> number of keys."""
    def get_subset_counts(self, *keys: Hashable) -> list[dict[bytes, int]]:
        """`get_counts` restricted to the keys given (keys not in the LSH count nothing)."""
    @property
    def hashtables(self) -> list[dict[bytes, list[Any]]]:
        """datasketch's `hashtables`: per band, a dict band key (bytes, see the class) ->
        list of keys (stored form), built on each read (a snapshot for inspection)."""
    @property
    def keys(self) -> MinHashLSHKeys:
        """datasketch's `keys` storage: `len`, `in`, iteration and `keys()` over the keys
        (stored form), `keys[key]` the key's band keys; calling it gives the list of keys."""
    @property
    def h(self) -> int:
        """Number of values of the MinHashes (datasketch's `h`)."""
    @property
    def hashranges(self) -> list[tuple[int, int]]:
        """Each band's `(start, end)` in the signature (datasketch's `hashranges`)."""
    @property
    def prepickle(self) -> bool:
        """Whether keys are stored pickled."""
    def save(self, path: Union[str, os.PathLike[str]]) -> None:
        """Writes the LSH to the directory `path` (created if needed; see the class
        docstring for the files). `TypeError` for a key that is not str or int;
        `TesseraError` naming the file when writing fails."""
    @staticmethod
    def load(path: Union[str, os.PathLike[str]]) -> MinHashLSH:
        """Opens an LSH written by `save`: the store memory-mapped and verified (checksum,
        sizes), the keys read. `TesseraError` naming the file when a file is missing,
        damaged, or the two files come from different saves."""
    def __contains__(self, key: Hashable, /) -> bool: ...
    def __len__(self) -> int: ...
    @property
    def b(self) -> int:
        """Number of bands (datasketch's `b`)."""
    @property
    def r(self) -> int:
        """Values per band (datasketch's `r`)."""
    @property
    def threshold(self) -> float:
        """The threshold the bands were chosen for."""
    @property
    def num_perm(self) -> int:
        """The signatures' length."""
    @property
    def weights(self) -> tuple[float, float]:
        """The weights of false positives and false negatives."""
    @property
    def seed(self) -> Optional[int]:
        """The seed of the signatures inserted (None before the first insert)."""
    @property
    def store_path(self) -> Optional[os.PathLike[str]]:
        """The store this LSH was loaded from, if any."""

@final
class MinHashLSHKeys:
    """`MinHashLSH.keys`: datasketch's keys storage, a live view of the LSH's keys."""

    def __call__(self) -> list[Any]:
        """The keys, in insertion order (tessera's `lsh.keys()`)."""
    def keys(self) -> list[Any]:
        """The keys, in insertion order (datasketch's `lsh.keys.keys()`)."""
    def __len__(self) -> int: ...
    def __contains__(self, key: Hashable, /) -> bool: ...
    def __iter__(self) -> Iterator[Any]: ...
    def __getitem__(self, key: Hashable, /) -> list[bytes]:
        """The key's band keys (datasketch's `keys[key]`). `KeyError` when it is not there."""
    def get(self, key: Hashable, default: Any = None) -> Any:
        """The key's band keys, or `default` (`[]` when None, as datasketch's storage)."""
    def size(self) -> int:
        """Number of keys (datasketch's storage `size()`)."""

@final
class MinHashLSHInsertionSession:
    """`MinHashLSH.insertion_session()`: inserts buffered, then added in batches."""

    def insert(self, key: Hashable, minhash: MinHash, check_duplication: bool = True) -> None:
        """Buffers `minhash` under `key`. `ValueError` at once when the key is in the LSH or
        the buffer, or the MinHash's `num_perm` or `seed` differ."""
    def close(self) -> None:
        """Adds what is buffered to the LSH."""
    def __enter__(self) -> MinHashLSHInsertionSession: ...
    def __exit__(self, *args: Any) -> bool: ...

@final
class MinHashLSHDeletionSession:
    """`MinHashLSH.deletion_session()`: removes, as datasketch's context manager."""

    def remove(self, key: Hashable) -> None:
        """Removes `key`. `ValueError` when it is not there."""
    def close(self) -> None:
        """Nothing is buffered: a no-op, for datasketch's API."""
    def __enter__(self) -> MinHashLSHDeletionSession: ...
    def __exit__(self, *args: Any) -> bool: ...

class RedisConnectionError(TesseraError, ConnectionError):
    """Redis could not be reached or stopped answering (refused, timed out, dropped): the
    message names the server's address. A TesseraError and a ConnectionError."""

@final
class RedisMinHashLSH:
    """A MinHash LSH stored in Redis and shared by every process that opens its basename.

    Made by `tessera.MinHashLSH(threshold, num_perm, weights, params,
    storage_config={"type": "redis", "redis": {"host": ..., "port": ...}, "basename":
    b"..."})`, datasketch's configuration. Bands and rows are the in-memory LSH's (the
    engine's rule), so the same signatures give the same candidates. The first process to
    open a basename records the parameters there; a later one with other parameters is
    refused (`ValueError`). The seed of the MinHashes is recorded by the first insert.

    Keys are str, bytes or int, stored as a type tag and the key's bytes (readable from
    any language). `prepickle=True` stores any picklable key as its pickle instead, as
    datasketch does by default for Redis (reading them back unpickles what the database
    holds: only for a database no one untrusted writes to). Answers come in insertion
    order over all writers. Each insert and remove is one Lua script, atomic on the server:
    no lock, so many processes insert and query at once. `insertion_session()` sends
    inserts in pipelines of `buffer_size`.

    `storage_config["redis"]` takes `host` (default "localhost"), `port` (6379), `db` (0),
    `username`, `password`, `unix_socket_path`, `socket_connect_timeout` (seconds;
    default 5) and `socket_timeout` (seconds per reply; default 60; None waits forever);
    a value may be `{"env": NAME, "default": ...}`, read from the environment as
    datasketch does. `storage_config["redis_buffer"] = {"transaction": True}` sends each
    pipeline as one MULTI/EXEC transaction (all of a batch visible at once, and other
    clients wait for it); the default sends it plain, each key atomic on its own.

    An unreachable or silent server raises `tessera.RedisConnectionError` (a
    `TesseraError` and a `ConnectionError`) naming its address; a command the server
    refuses raises `TesseraError`.
    """

    def __new__(
        cls,
        threshold: float = 0.8,
        num_perm: int = 128,
        weights: tuple[float, float] = (0.5, 0.5),
        params: Optional[tuple[int, int]] = None,
        storage_config: Optional[dict[str, Any]] = None,
        prepickle: Optional[bool] = None,
    ) -> RedisMinHashLSH: ...
    def insert(self, key: Hashable, minhash: MinHash, check_duplication: bool = True) -> None:
        """Inserts `minhash` under `key` (str, bytes or int; any picklable key with
        `prepickle`). `ValueError` when the key is there already (in any process's
        inserts), or the MinHash's `num_perm` or `seed` differ from the LSH's.
        `check_duplication` is datasketch's: the check is part of the insert's script (a
        key twice would leave stale buckets), so it is always made."""
    def insertion_session(self, buffer_size: int = 50000) -> RedisInsertionSession:
        """A context manager that sends inserts in pipelines of `buffer_size` (and the rest
        when it closes), as datasketch's `insertion_session`."""
    def query(self, minhash: MinHash) -> list[Any]:
        """The keys whose signatures share at least one band with `minhash`'s, in insertion
        order over all writers (candidates: check them with `MinHash.jaccard` when
        precision matters). One round trip."""
    def query_batch(self, minhashes: Iterable[MinHash]) -> list[list[Any]]:
        """`query` of each MinHash (of one seed), in one pipeline: a list of answers in order."""
    def remove(self, key: Hashable) -> None:
        """Removes `key`. `ValueError` when it is not there."""
    def keys(self) -> list[Any]:
        """The keys, in insertion order (read in steps of 10,000, so a server busy with
        other clients keeps answering them; keys inserted meanwhile may or may not be in)."""
    def is_empty(self) -> bool:
        """True when no key is stored."""
    def __contains__(self, key: object, /) -> bool: ...
    def __len__(self) -> int: ...
    @property
    def b(self) -> int:
        """Number of bands (datasketch's `b`)."""
    @property
    def r(self) -> int:
        """Values per band (datasketch's `r`)."""
    @property
    def threshold(self) -> float:
        """The threshold the bands were chosen for."""
    @property
    def num_perm(self) -> int:
        """The signatures' length."""
    @property
    def weights(self) -> tuple[float, float]:
        """The weights of false positives and false negatives."""
    @property
    def seed(self) -> Optional[int]:
        """The seed of the signatures stored (None before the first insert anywhere)."""
    @property
    def prepickle(self) -> bool:
        """Whether keys are pickled (datasketch's `prepickle`)."""
    @property
    def basename(self) -> bytes:
        """The prefix of this LSH's Redis keys."""
    @property
    def storage_config(self) -> dict[str, Any]:
        """The storage_config, with the basename filled in (a copy)."""

@final
class RedisInsertionSession:
    """Inserts into a Redis-backed MinHashLSH in pipelines: made by `insertion_session()`,
    used as a context manager (`with lsh.insertion_session() as s: s.insert(k, m)`).
    Inserts are sent every `buffer_size` keys and when the session closes. A key already
    in the LSH is reported when its batch is sent (`ValueError` naming it; the batch's
    other keys are in)."""

    def insert(self, key: Hashable, minhash: MinHash, check_duplication: bool = True) -> None:
        """Adds `minhash` under `key` to the next batch (checked now: key type, `num_perm`,
        `seed`; duplicates when the batch is sent, whatever `check_duplication` says)."""
    def flush(self) -> None:
        """Sends the keys buffered so far."""
    def close(self) -> None:
        """Sends the rest (the same as `flush`)."""
    def __enter__(self) -> RedisInsertionSession: ...
    def __exit__(self, _exc_type: object = None, _exc: object = None, _tb: object = None) -> bool:
        """Sends the rest, also when the block raised (datasketch's behaviour); never
        swallows the block's exception."""
    def __len__(self) -> int:
        """Keys waiting for the next batch."""

@final
class SimHash:
    """A 64-bit SimHash (Charikar): near-identical feature sets have fingerprints a small
    Hamming distance apart.

    `SimHash(value)` takes:
    - a str: a text, made into terms by Tessera's normalizer (the engine's tokenizer, stop
      words, stemming; `stop_words`, `stemming` and `language` as in `tessera.sketch`),
      each term weighted by its count (the engine's `simhash` with idf 1;
      `tessera.dedup(..., method="simhash")` weights terms by tf-idf over the whole
      collection instead);
    - an iterable of features, each a str or bytes (hashed with xxh3-64 of its UTF-8
      bytes; repeats count) or a `(feature, weight)` tuple;
    - an int (the fingerprint itself, 0 to 2**64 - 1), or another SimHash.

    Each feature is spread to 64 bits by SplitMix64's mixer; bit `i` is set when the
    weights of the features with bit `i` set outweigh the others. No feature gives 0.
    """

    def __new__(
        cls,
        value: Union[str, int, SimHash, Iterable[Union[_Item, tuple[_Item, float]]]],
        *,
        stop_words: bool = True,
        stemming: bool = True,
        language: Optional[str] = None,
    ) -> SimHash: ...
    @property
    def value(self) -> int:
        """The fingerprint, an int from 0 to 2**64 - 1."""
    def distance(self, other: _Fingerprint) -> int:
        """The Hamming distance to another SimHash (or int fingerprint)."""
    def __int__(self) -> int: ...
    def __index__(self) -> int: ...
    def __eq__(self, other: object, /) -> bool: ...
    def __hash__(self) -> int: ...

@final
class SimHashIndex:
    """Keys of 64-bit fingerprints, found within a Hamming distance by Manku, Jain and Das
    Sarma's permuted sorted tables (the engine's `SimhashTables`: the table design is
    chosen from `k` and the number of fingerprints, and answers equal a full scan).

    Fingerprints added after the tables were last built are scanned one by one until
    there are enough of them to rebuild the tables at the next query.

    Args:
        k: the largest Hamming distance queries ask for, 0 to 8.
        objs: `(key, fingerprint)` pairs to add first.
    """

    def __new__(cls, k: int = 3, objs: Optional[Iterable[tuple[Hashable, _Fingerprint]]] = None) -> SimHashIndex: ...
    def add(self, key: Hashable, fp: _Fingerprint) -> None:
        """Adds `fp` (a SimHash or an int) under `key` (any hashable). `ValueError` when the
        key is there already."""
    def remove(self, key: Hashable) -> None:
        """Removes `key`. `ValueError` when it is not there."""
    def query(self, fp: _Fingerprint, k: Optional[int] = None) -> list[Any]:
        """The keys whose fingerprints are within Hamming distance `k` of `fp` (default: the
        index's `k`, which `k` may not exceed), in the order they were added."""
    def keys(self) -> list[Any]:
        """The keys, in the order they were added."""
    @property
    def k(self) -> int:
        """The largest distance queries may ask for."""
    def __contains__(self, key: Hashable, /) -> bool: ...
    def __len__(self) -> int: ...

@final
class DedupDefaults:
    """The defaults of a dedup run, as the engine defines them (`tessera dedup`'s, the
    keyword arguments' of `tessera.dedup`, `tessera.sketch`, `tessera.kernels.DedupPlan`
    and the Spark job). Read-only; `_asdict()` gives them as a dict.

    The values below are the engine's; tests/test_defaults.py fails when they differ.
    """

    @property
    def method(self) -> str:
        """"minhash", "simhash", "exact" or "lines" (default "minhash")."""
    @property
    def threshold(self) -> float:
        """MinHash: the Jaccard similarity of near-duplicates (default 0.8)."""
    @property
    def max_distance(self) -> int:
        """SimHash: the largest Hamming distance of near-duplicates (default 3)."""
    @property
    def num_perm(self) -> int:
        """MinHash: hash functions per signature (default 128)."""
    @property
    def seed(self) -> int:
        """MinHash: seed of the hash functions (default 1)."""
    @property
    def verify(self) -> str:
        """MinHash: "auto", "exact" or "estimate" (default "auto")."""
    @property
    def exact_budget(self) -> int:
        """MinHash, "auto": bytes of shingle sets kept at most for exact verification."""
    @property
    def short_words(self) -> int:
        """Texts of fewer terms are shingled cyclically (default 10)."""
    @property
    def shingle_size(self) -> int:
        """Words per shingle (default 3)."""
    @property
    def stop_words(self) -> bool:
        """Stop words are dropped (default True)."""
    @property
    def stemming(self) -> bool:
        """Words are stemmed (default True)."""
    @property
    def text_field(self) -> str:
        """Records: the field (column) holding the text (default "text")."""
    def _asdict(self) -> dict[str, Any]:
        """The defaults as a dict, by name."""

DEDUP_DEFAULTS: DedupDefaults

def record_format(name: str) -> Optional[str]:
    """The record format a file name (or path, or URI) says, as `tessera dedup` reads it:
    "jsonl" (`.jsonl`, `.ndjson`), "csv", "tsv" or "parquet", looking under `.gz`, `.zst`
    and `.zstd`; None for another name."""

def check_jsonl_fields(
    name: str, lines: list[str], text_field: str = "text", id_field: Optional[str] = None, order_field: Optional[str] = None
) -> None:
    """Checks the first lines (str) of a JSONL input named `name` as `tessera dedup` checks
    an input's first records: ValueError, with the command's message, when they all miss
    `text_field` (or `id_field`) or none reads as a record; and, with `order_field` (the
    Spark job's order column), when no JSON object among them has it."""

def _spark_input_format(inputs: list[str], format: Optional[str] = None, default_ids: bool = True) -> str:
    """The one format ("jsonl" or "parquet") of the Spark job's inputs: `format`, else what
    each name says (also under `.bz2`, and `.json` lines), else a local folder's one format
    of its files. ValueError when it cannot be told, when inputs mix formats, and when
    several inputs not all plain files take the default ids (`FILE:LINE`)."""

def _spark_input_files(inputs: list[str], listed: list[list[str]]) -> list[tuple[str, str, str]]:
    """The files of the Spark job's inputs in `tessera dedup`'s order (inputs as given,
    each one's `listed` URIs sorted by path): (URI, the start of its default ids, path).
    ValueError for an input with no file and a file given twice."""

def _check_record_columns(
    columns: list[tuple[str, str]], text_field: str, id_field: Optional[str] = None, order_field: Optional[str] = None
) -> None:
    """Checks a Parquet input's columns (name, Spark `simpleString` type) as `tessera
    dedup` reads them: a string or binary text, a string or integer id, an integer order."""

def sketch(
    texts: Iterable[Optional[str]],
    num_perm: int = 128,
    seed: int = 1,
    shingle_size: int = 3,
    stop_words: bool = True,
    stemming: bool = True,
    language: Optional[str] = None,
    short_words: int = 10,
) -> npt.NDArray[np.uint64]:
    """MinHash signatures of texts through Tessera's own normalizer and word shingles: row
    `i` is the signature `tessera dedup --write-signatures` gives text `i` with the same
    settings. Runs in parallel (rayon) without the GIL.

    Args:
        texts: an iterable of str (None: no text, the empty signature).
        num_perm: hash functions per signature.
        seed: seed of the hash functions.
        shingle_size: words per shingle.
        stop_words: drop stop words (Tessera's English and Russian lists).
        stemming: reduce words to Snowball stems.
        language: force the language of Latin-script words (ISO 639-1, e.g. "en", "de");
            None detects it.
        short_words: texts of fewer terms are shingled cyclically.

    Returns:
        numpy uint64 array of shape (len(texts), num_perm), values below 2**32; an empty
        signature is all 0xFFFFFFFF.
    """

def _dedup_columns(
    texts: Iterable[str],
    ids: Optional[Iterable[Union[str, int]]] = None,
    method: str = "minhash",
    threshold: float = 0.8,
    max_distance: int = 3,
    num_perm: int = 128,
    seed: int = 1,
    verify: str = "auto",
    exact: bool = False,
    shingle_size: int = 3,
    stop_words: bool = True,
    stemming: bool = True,
    language: Optional[str] = None,
    short_words: int = 10,
) -> tuple[
    list[str], list[str], npt.NDArray[np.bool_], npt.NDArray[np.float64], dict[str, Any], list[list[int]]
]:
    """The columns of a dedup run (the package's `tessera.dedup` makes a table of them);
    the last is each text's removed lines with `method="lines"` (empty otherwise)."""

def _remove_lines(text: str, removed: list[int]) -> str:
    """`text` without the lines `removed` (0-based, ascending): the engine's rule."""

def _read_rows(
    offsets: npt.NDArray[np.int64],
    data: npt.NDArray[np.uint8],
    valid: npt.NDArray[np.bool_],
    text_field: Optional[str] = None,
    id_field: Optional[str] = None,
) -> tuple[npt.NDArray[np.uint8], Optional[tuple[npt.NDArray[np.int64], npt.NDArray[np.uint8]]], tuple[npt.NDArray[np.int64], npt.NDArray[np.uint8]]]:
    """Rows read as `DedupPlan.sign_rows` reads them, unsketched: (status, ids, texts)."""

def _exact_keys(offsets: npt.NDArray[np.int64], data: npt.NDArray[np.uint8]) -> tuple[npt.NDArray[np.int64], npt.NDArray[np.int64]]:
    """The engine's exact key of each text as (high, low) 64-bit halves."""

def _line_key_rows(
    offsets: npt.NDArray[np.int64], data: npt.NDArray[np.uint8]
) -> tuple[npt.NDArray[np.int64], npt.NDArray[np.int32], npt.NDArray[np.int64]]:
    """The non-blank lines of each text with the engine's line keys: (row, line, key)."""

def _lines_outcome(text: str, removed: list[int]) -> tuple[bool, float]:
    """The lines method's verdict on a text: (kept, similarity)."""

def _rewrite_jsonl(line: bytes, text_field: str, removed: list[int]) -> str:
    """A JSONL line with its text field without the lines `removed`."""

def _lines_verdicts(
    texts: list[str], removed: list[Optional[list[int]]]
) -> tuple[list[bool], list[float], list[list[int]], list[str]]:
    """The lines method's answer for texts and the lines of each an earlier document had:
    (kept, similarity, removed lines ascending, texts without them)."""

def _pair_components(
    a: npt.NDArray[np.int64], b: npt.NDArray[np.int64]
) -> tuple[npt.NDArray[np.int64], npt.NDArray[np.int64], npt.NDArray[np.int64], npt.NDArray[np.int64], npt.NDArray[np.int64]]:
    """The distinct pairs of `(a[i], b[i])` and their components by union-find: (vertices,
    components, lo, hi, pair_components)."""

def _member_pairs(
    vid: npt.NDArray[np.int64], a: npt.NDArray[np.int64], b: npt.NDArray[np.int64]
) -> npt.NDArray[np.int64]:
    """Pairs of document numbers as (p, 2) positions in `vid`: distinct, earlier first,
    ascending, a pair of one document dropped; ValueError for a number not in `vid`."""

@final
class DedupPlan:
    """The pieces of a MinHash dedup run, for jobs that spread it over many machines (the
    Spark job): the engine's `MinHashPlan`. Running them as their docstrings say gives the
    answer `tessera.dedup` and `tessera dedup` give on one machine:

    1. `signatures(texts)` per document;
    2. `band_keys(signatures)`: documents sharing the key of one band form a bucket;
    3. `bucket_pairs(sizes, members)`: the candidate pairs of buckets whose members are in
       document order;
    4. `cluster(signatures, pairs)` on each connected component of the candidate pairs,
       members in document order.

    The settings are those of `tessera.dedup` (MinHash); `ValueError` for one out of range.
    """

    def __new__(
        cls,
        threshold: float = 0.8,
        num_perm: int = 128,
        seed: int = 1,
        shingle_size: int = 3,
        stop_words: bool = True,
        stemming: bool = True,
        language: Optional[str] = None,
        short_words: int = 10,
    ) -> DedupPlan: ...
    @property
    def bands(self) -> int:
        """LSH bands."""
    @property
    def rows(self) -> int:
        """Values per band."""
    @property
    def num_perm(self) -> int:
        """Hash functions per signature."""
    @property
    def threshold(self) -> float:
        """The Jaccard similarity of near-duplicates."""
    @property
    def seed(self) -> int:
        """Seed of the hash functions."""
    def signatures(self, texts: Iterable[Optional[str]]) -> npt.NDArray[np.uint32]:
        """The signatures of texts (None: no text, the empty signature, all 0xFFFFFFFF):
        numpy uint32 of shape (n, num_perm). In parallel, without the GIL."""
    def sign_rows(
        self,
        offsets: npt.NDArray[np.int64],
        data: npt.NDArray[np.uint8],
        valid: npt.NDArray[np.bool_],
        text_field: Optional[str] = None,
        id_field: Optional[str] = None,
        keep_text: bool = False,
    ) -> tuple[
        npt.NDArray[np.uint8],
        npt.NDArray[np.uint32],
        npt.NDArray[np.uint64],
        npt.NDArray[np.bool_],
        Optional[tuple[npt.NDArray[np.int64], npt.NDArray[np.uint8]]],
        Optional[tuple[npt.NDArray[np.int64], npt.NDArray[np.uint8]]],
    ]:
        """Signs the rows of an Arrow column handed over as its buffers: `offsets` (int64,
        n + 1) into `data` (uint8), `valid` (bool, n; a row not valid gives no document).
        Each row is a text (UTF-8), or with `text_field` a JSONL line read by the rule of
        `tessera dedup` (a blank line is no record; a line that is not a JSON object with a
        string text, and a string or number `id_field`, gives no document).

        Returns `(status, signatures, keys, usable, ids, texts)`: status uint8 (n,), 0 a
        document, 1 a blank line, 2 no document; signatures uint32 (n, num_perm) and band
        keys uint64 (n, bands), zero where there is no document; usable bool (n,) as
        `band_keys`; ids (JSONL with `id_field`) and texts (`keep_text`) as `(offsets int64,
        bytes uint8)`, empty where there is no document, else None. In parallel, without
        the GIL."""
    def band_keys(
        self, signatures: npt.NDArray[Union[np.uint32, np.uint64]]
    ) -> tuple[npt.NDArray[np.uint64], npt.NDArray[np.bool_]]:
        """The band keys of signatures (n, num_perm): `(keys, usable)`, keys uint64 of shape
        (n, bands) and usable bool of shape (n,); an empty signature takes part in no band
        (usable False, its keys 0)."""
    def band_row_pairs(
        self,
        band: npt.NDArray[np.int64],
        key: npt.NDArray[np.int64],
        o1: npt.NDArray[np.int64],
        o2: npt.NDArray[np.int64],
        vid: npt.NDArray[np.int64],
    ) -> npt.NDArray[np.int64]:
        """The candidate pairs of band rows (int64 arrays of one length, whole buckets in any
        order): rows of one `(band, key)` form a bucket, its members in document order
        `(o1, o2, vid)`; returns what `bucket_pairs` returns for those buckets ((p, 2) int64
        `vid` values). The sort runs in Rust, in parallel."""
    def bucket_pairs(self, sizes: npt.NDArray[np.int64], members: npt.NDArray[np.int64]) -> npt.NDArray[np.int64]:
        """The candidate pairs of buckets: `sizes` (int64, one per bucket) cut `members`
        (int64, concatenated, each bucket's members in document order); returns (p, 2)
        int64 `(earlier, later)` member values, each later member paired with its nearest
        predecessors in the bucket (the engine's rule)."""
    def cluster(
        self, signatures: npt.NDArray[Union[np.uint32, np.uint64]], pairs: npt.NDArray[np.int64]
    ) -> tuple[npt.NDArray[np.uint32], npt.NDArray[np.float64]]:
        """Clusters documents (signatures (m, num_perm) in document order) from candidate
        pairs ((p, 2) int64 positions `(earlier, later)`): `(kept, similarity)`, the
        position of each document's kept document (uint32, (m,)) and its similarity to it
        (float64, rounded to 4 decimals as `tessera dedup` prints it). No chaining: every
        member is compared with its kept document itself."""
    def cluster_texts(
        self, texts: Sequence[Optional[str]], pairs: npt.NDArray[np.int64]
    ) -> tuple[npt.NDArray[np.uint32], npt.NDArray[np.float64]]:
        """`cluster` verified with the exact Jaccard similarity of the shingle sets, made from
        the documents' texts (a sequence of str, in document order): the default
        verification of `tessera dedup` (`--verify auto` while the sets fit its budget)."""
    def cluster_rows(
        self,
        offsets: npt.NDArray[np.int64],
        data: npt.NDArray[np.uint8],
        digests: npt.NDArray[np.uint64],
        pairs: npt.NDArray[np.int64],
        text_field: Optional[str] = None,
    ) -> tuple[npt.NDArray[np.uint32], npt.NDArray[np.float64]]:
        """`cluster_texts` from the documents' rows handed over as an Arrow column's buffers:
        `offsets` (int64, m + 1) into `data` (uint8), in document order, each a text or with
        `text_field` a JSONL line (read as `sign_rows` reads it). `digests` (uint64, m) are
        the rows' `row_digests` when they were signed: a row whose digest differs (the input
        changed between two reads) is a ValueError, as is a row that gives no text."""

@final
class Index:
    """A Tessera index: a directory of immutable segments holding collections of documents'
    digital snapshots (shingle hashes and offsets; texts only in collections that keep
    them). The same index `tessera index`, `tessera check` and `tessera serve` use.

    Open one with `Index.open(path)` or make one with `Index.create(path, ...)`. Every
    method releases the GIL while the engine works.
    """

    @staticmethod
    def open(path: Union[str, os.PathLike[str]], cross_language: Optional[str] = None) -> Index:
        """Opens an existing index. `TesseraError` when there is none at `path`, or it
        cannot be read. `cross_language`: "auto" (checks also find passages translated
        from sources in another language when a bilingual dictionary is installed), "on"
        (a missing dictionary is a `TesseraError`) or "off"; None, the engine's default
        ("auto"); anything else `ValueError`."""
    @staticmethod
    def create(
        path: Union[str, os.PathLike[str]],
        shingle_size: int = 3,
        stop_words: bool = True,
        stemming: bool = True,
        language: Optional[str] = None,
        cross_language: Optional[str] = None,
    ) -> Index:
        """Creates an index at `path` with these fingerprint settings (stored in it: every
        later add and check uses them). `FileExistsError` when an index is there already.
        `cross_language` as in `Index.open`."""
    def add(
        self,
        texts: Iterable[str],
        titles: Optional[Iterable[str]] = None,
        collection: str = "main",
        if_new: Optional[Union[bool, float]] = None,
        origins: Optional[Iterable[str]] = None,
        kind: str = "source",
        keep_texts: Optional[bool] = None,
        force: bool = False,
    ) -> dict[str, Any]:
        """Adds texts to a collection (created at the first add).

        Args:
            texts: an iterable of str.
            titles: one title per text (default: its first line with words, else
                the origin's file name).
            collection: the collection's name.
            if_new: False adds every text but repeats; True (or a min containment in
                (0, 1], default 0.9) adds only texts no document of the collection
                contains: a contained text is attached to the document containing it
                instead (listed in "seen").
            origins: where each text comes from (default `text:<xxh3-64 of the text>`, so
                the same text offered again is "already indexed").
            kind: "source", or "citation" (matches count as citations).
            keep_texts: keep the texts themselves, so reports show source passages. None
                (the default): a new collection keeps them, an existing one keeps its
                choice; True switches them on for a collection of fingerprints only (from
                this add on); False keeps fingerprints only (refused by a collection that
                keeps texts).
            force: add even a repeat (a text the collection already holds from the same
                origin with the same shingles), which is otherwise listed in "seen" with
                "same_origin" true and not added again, as `tessera index` does.

        Returns:
            dict: "added" (list of {"id", "origin"} in order), "seen" (list of {"origin",
            "into", "into_origin", "containment", "same_origin"}), "failed", "bytes",
            "seconds".
        """
    def add_paths(
        self,
        paths: Sequence[Union[str, os.PathLike[str]]],
        collection: str = "main",
        if_new: Optional[Union[bool, float]] = None,
        kind: str = "source",
        keep_texts: Optional[bool] = None,
        force: bool = False,
    ) -> dict[str, Any]:
        """Adds files and folders (recursively, in sorted order; archives give one document
        per member) to a collection. Arguments and result as `add`; files that cannot be
        read are listed in "failed" with the reason, the others are added."""
    def check(
        self,
        document: Union[str, os.PathLike[str]],
        name: str = "text",
        title: Optional[str] = None,
        exclude_quotes: bool = False,
        exclude_bibliography: bool = False,
        min_words: int = 0,
        min_percent: float = 0.0,
        submit_to: Optional[str] = None,
    ) -> Any:
        """Checks a text (a str) or a file (a `pathlib.Path` or other path-like) against
        every collection: the JSON report of `tessera check --format json`
        (crates/report/SCHEMA.md) as a dict. An archive gives a list of {"name", "report"}
        or {"name", "error"}, one per member, as the CLI prints it. The filters
        (`exclude_quotes`: quotations count as citations, `exclude_bibliography`,
        `min_words`, `min_percent` from 0 to 100, else ValueError) are the report's
        (SCHEMA.md, "Filters"), as `tessera check --exclude-quotes ...` applies them.
        `submit_to`: once checked, keep the document in this collection of submissions
        (made on first use; texts kept), so later checks find it, with its title, the
        check's time and a check id (`tessera check --submit-to`)."""
    def near(self, text: str, top: int = 10, exhaustive: bool = False) -> list[dict[str, Any]]:
        """The indexed documents nearest a text, most similar first: a list of dicts as
        `tessera near --format json` prints them."""
    def delete(self, ids: Sequence[int]) -> int:
        """Deletes documents by id; returns how many were live."""
    def stats(self) -> dict[str, Any]:
        """The index's settings and collections, as `tessera stats --format json` prints
        them."""
    def optimize(self, max_segments: int = 1) -> dict[str, int]:
        """Merges every collection down to at most `max_segments` segments and purges
        deleted documents (`tessera optimize`); returns what the merges did."""
    @property
    def path(self) -> os.PathLike[str]:
        """The index directory."""
    @property
    def settings(self) -> dict[str, Any]:
        """The fingerprint settings stored in the index (a dict)."""

class ShardUnavailableError(TesseraError):
    """A shard of a sharded index did not answer (down, or its call timed out): the check
    cannot be complete and may succeed when tried again. The message names the shard."""

class ShardClient(Protocol):
    """What `ShardedIndex` needs of a carrier of requests to the shards."""

    shards: int
    def call(self, shard: int, request: bytes) -> bytes:
        """Sends `request` to a replica of shard `shard` and returns its answer (or raises)."""

@final
class Shard:
    """One shard of a sharded index (a folder `shard-S-of-N`), opened read only to answer
    a sharded check's requests (what a Ray replica of the shard holds). Adds go through
    `Index.open(path)` on the shard's folder: a shard adds only under the ids it owns."""

    def __init__(self, path: Union[str, os.PathLike[str]]) -> None: ...
    def answer(self, request: bytes) -> bytes:
        """Answers a request's bytes with the answer's bytes (a failure is in the answer,
        named; never an exception). Reads the shard's last commit."""
    @property
    def shard(self) -> Optional[tuple[int, int]]:
        """`(shard, shards)` from the folder's name; None for an ordinary index."""
    def live_docs(self) -> int:
        """Live documents of every collection."""

@final
class ShardedIndex:
    """A sharded index checked as one: the report equals that of one index holding the
    same documents. Reached through `client` (`shards` and `call(shard, request)`), or
    opened in this process with `ShardedIndex.open(path)`."""

    def __init__(
        self,
        settings_from: Union[str, os.PathLike[str]],
        client: ShardClient,
        cross_language: Optional[str] = None,
    ) -> None: ...
    @staticmethod
    def open(path: Union[str, os.PathLike[str]], cross_language: Optional[str] = None) -> ShardedIndex:
        """The shards under `path` (folders `shard-S-of-N`), opened in this process."""
    @property
    def shards(self) -> int:
        """How many shards."""
    def check(
        self,
        document: Union[str, bytes, os.PathLike[str]],
        name: str = "text",
        title: Optional[str] = None,
        exclude_quotes: bool = False,
        exclude_bibliography: bool = False,
        min_words: int = 0,
        min_percent: float = 0.0,
    ) -> dict[str, Any]:
        """Checks a text (str), a file's bytes (named by `name`) or a file's path against
        every collection of the shards: the report as `Index.check` gives it.
        `ShardUnavailableError` when a shard does not answer."""
    def collections(self) -> list[dict[str, Any]]:
        """The collections with their documents summed over the shards."""

def build_shards(
    path: Union[str, os.PathLike[str]],
    shards: int,
    texts: Sequence[str],
    titles: Optional[Sequence[str]] = None,
    origins: Optional[Sequence[str]] = None,
    collection: str = "main",
    kind: str = "source",
    keep_texts: Optional[bool] = None,
    shingle_size: int = 3,
    stop_words: bool = True,
    stemming: bool = True,
    language: Optional[str] = None,
) -> dict[str, Any]:
    """Builds (or adds to) the shards of an index under `path`: each text gets the id one
    index holding the same documents in the same order would give it, in the shard
    owning that id. Returns what was added, as `Index.add`."""

def shard_path(path: Union[str, os.PathLike[str]], shard: int, shards: int) -> str:
    """The folder of shard `shard` of `shards` under `path` (`shard-SSS-of-NNN`, the
    engine's naming); `ValueError` when `shard >= shards`."""

def shard_of(doc: int, shards: int) -> int:
    """The shard (0 .. shards - 1) owning document `doc` (the engine's rule)."""

def row_digests(offsets: npt.NDArray[np.int64], data: npt.NDArray[np.uint8]) -> npt.NDArray[np.uint64]:
    """The digest (xxh3, 64 bits) of each row of an Arrow column handed over as its buffers,
    `offsets` (int64, n + 1) into `data` (uint8): uint64 (n,). `DedupPlan.cluster_rows`
    checks rows read again against them. In parallel, without the GIL."""

def connected_components(
    a: npt.NDArray[np.int64], b: npt.NDArray[np.int64]
) -> tuple[npt.NDArray[np.int64], npt.NDArray[np.int64]]:
    """The connected components of the graph of edges `(a[i], b[i])` (int64 arrays of one
    length), by union-find: `(vertices, components)`, every vertex of an edge (ascending,
    int64) and the smallest vertex of its component."""
