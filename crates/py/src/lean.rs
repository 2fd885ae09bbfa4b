//! `tessera.LeanMinHash`: a MinHash frozen for storage, in datasketch's byte layout.

use pyo3::exceptions::{PyTypeError, PyValueError};
use pyo3::prelude::*;
use pyo3::pyclass_init::PyClassInitializer;
use pyo3::types::{PyBytes, PyTuple, PyType};

use crate::minhash::{MinHash, hasher, values_u32};

/// Bytes before the values: the seed (int64) and the number of values (int32).
const HEADER: usize = 12;

/// A byte order of Python's `struct` module, as datasketch's `byteorder` arguments take.
#[derive(Debug, Clone, Copy)]
enum Order {
    Little,
    Big,
}

impl Order {
    /// `@` and `=` are the machine's order (for this layout `@` adds no padding: the
    /// int32 count ends at byte 12, aligned for the uint32 values), `<` little, `>` and
    /// `!` big.
    fn parse(byteorder: &str) -> PyResult<Self> {
        let native = if cfg!(target_endian = "big") { Self::Big } else { Self::Little };
        match byteorder {
            "@" | "=" => Ok(native),
            "<" => Ok(Self::Little),
            ">" | "!" => Ok(Self::Big),
            other => {
                Err(PyValueError::new_err(format!("byteorder must be one of '@', '=', '<', '>', '!', not {other:?}")))
            }
        }
    }

    fn put_i64(self, out: &mut Vec<u8>, v: i64) {
        out.extend_from_slice(&match self {
            Self::Little => v.to_le_bytes(),
            Self::Big => v.to_be_bytes(),
        });
    }

    fn put_u32(self, out: &mut Vec<u8>, v: u32) {
        out.extend_from_slice(&match self {
            Self::Little => v.to_le_bytes(),
            Self::Big => v.to_be_bytes(),
        });
    }

    fn i64_at(self, b: &[u8]) -> i64 {
        let a: [u8; 8] = b[..8].try_into().expect("8 bytes");
        match self {
            Self::Little => i64::from_le_bytes(a),
            Self::Big => i64::from_be_bytes(a),
        }
    }

    fn u32_at(self, b: &[u8]) -> u32 {
        let a: [u8; 4] = b[..4].try_into().expect("4 bytes");
        match self {
            Self::Little => u32::from_le_bytes(a),
            Self::Big => u32::from_be_bytes(a),
        }
    }
}

/// A byte-addressed view of any object of the buffer protocol (bytearray, memoryview,
/// numpy array): `memoryview(buf).cast("B")`.
fn byte_view<'py>(buf: &Bound<'py, PyAny>) -> PyResult<Bound<'py, PyAny>> {
    let py = buf.py();
    let view = py.import("builtins")?.getattr("memoryview")?.call1((buf,))?;
    let format: String = view.getattr("format")?.extract()?;
    if format == "B" { Ok(view) } else { view.call_method1("cast", ("B",)) }
}

/// `view[start:end]` as bytes.
fn read(view: &Bound<'_, PyAny>, start: usize, end: usize) -> PyResult<Vec<u8>> {
    let slice = pyo3::types::PySlice::new(view.py(), start as isize, end as isize, 1);
    let bytes = view.get_item(slice)?.call_method0("tobytes")?;
    Ok(bytes.cast::<PyBytes>()?.as_bytes().to_vec())
}

/// A MinHash frozen for storage: its seed and values, without a hash function.
///
/// As datasketch's `LeanMinHash` (a subclass of MinHash: `jaccard`, `count`, `digest`,
/// `is_empty`, `merge`, `union`, and LSH, forest and `jaccard` with a MinHash take it).
/// `update` and `update_batch` raise TypeError. `serialize(buf)` writes datasketch's
/// byte layout of a LeanMinHash without a scheme (the one of datasketch before 2.0, which
/// datasketch 2 still reads, as scheme "legacy"): the seed as int64, the number of values
/// as int32, then each value as uint32, in `byteorder` (default "@": the machine's,
/// little-endian on x86-64 and aarch64), 12 + 4 * num_perm bytes. `merge` changes it, as
/// datasketch's does: do not merge a LeanMinHash that is a dict key.
///
/// Args:
///     minhash: the MinHash to freeze.
///     seed: with `hashvalues`, instead of `minhash`: the seed of the family they are of.
///     hashvalues: the values (below 2**32).
///     scheme: datasketch 2's; only None (Tessera has one family).
#[pyclass(module = "tessera._tessera", name = "LeanMinHash", extends = MinHash)]
pub struct LeanMinHash;

fn lean<'py>(py: Python<'py>, base: MinHash) -> PyResult<Bound<'py, LeanMinHash>> {
    Bound::new(py, PyClassInitializer::from(base).add_subclass(LeanMinHash))
}

fn base_of(seed: u64, mins: Vec<u32>) -> PyResult<MinHash> {
    Ok(MinHash::from_values(hasher(mins.len(), seed)?, mins))
}

#[pymethods]
impl LeanMinHash {
    #[new]
    #[pyo3(signature = (minhash = None, seed = None, hashvalues = None, scheme = None))]
    fn new(
        minhash: Option<PyRef<'_, MinHash>>,
        seed: Option<u64>,
        hashvalues: Option<&Bound<'_, PyAny>>,
        scheme: Option<&str>,
    ) -> PyResult<PyClassInitializer<Self>> {
        if let Some(s) = scheme {
            return Err(PyValueError::new_err(format!(
                "scheme {s:?}: tessera's MinHash has one hash family, not datasketch's schemes; leave scheme=None"
            )));
        }
        let base = match (minhash, seed, hashvalues) {
            (Some(m), _, _) => MinHash::from_values(std::sync::Arc::clone(&m.hasher), m.mins.clone()),
            (None, Some(seed), Some(values)) => base_of(seed, values_u32(values)?)?,
            _ => {
                return Err(PyValueError::new_err(
                    "Init parameters cannot be None: make sure to set either minhash or both of hash values and seed",
                ));
            }
        };
        Ok(PyClassInitializer::from(base).add_subclass(Self))
    }

    /// Not available on a LeanMinHash: raises TypeError.
    #[pyo3(text_signature = "($self, b)")]
    fn update(&self, _b: &Bound<'_, PyAny>) -> PyResult<()> {
        Err(PyTypeError::new_err("Cannot update a LeanMinHash"))
    }

    /// Not available on a LeanMinHash: raises TypeError.
    #[pyo3(text_signature = "($self, b)")]
    fn update_batch(&self, _b: &Bound<'_, PyAny>) -> PyResult<()> {
        Err(PyTypeError::new_err("Cannot update a LeanMinHash"))
    }

    /// A copy.
    #[pyo3(text_signature = "($self)")]
    fn copy<'py>(slf: PyRef<'py, Self>) -> PyResult<Bound<'py, LeanMinHash>> {
        let py = slf.py();
        let base = slf.as_super();
        lean(py, MinHash::from_values(std::sync::Arc::clone(&base.hasher), base.mins.clone()))
    }

    fn __copy__<'py>(slf: PyRef<'py, Self>) -> PyResult<Bound<'py, LeanMinHash>> {
        Self::copy(slf)
    }

    fn __deepcopy__<'py>(slf: PyRef<'py, Self>, _memo: &Bound<'_, PyAny>) -> PyResult<Bound<'py, LeanMinHash>> {
        Self::copy(slf)
    }

    /// Bytes `serialize` writes: 12 + 4 * num_perm (in every byte order).
    #[pyo3(signature = (byteorder = "@"))]
    fn bytesize(slf: PyRef<'_, Self>, byteorder: &str) -> PyResult<usize> {
        Order::parse(byteorder)?;
        Ok(HEADER + 4 * slf.as_super().mins.len())
    }

    /// Writes the layout (see the class) at the start of `buf`, a writable buffer
    /// (bytearray, memoryview, numpy array) of at least `bytesize()` bytes.
    /// `ValueError` when it is smaller or the seed does not fit an int64.
    #[pyo3(signature = (buf, byteorder = "@"))]
    fn serialize(slf: PyRef<'_, Self>, buf: &Bound<'_, PyAny>, byteorder: &str) -> PyResult<()> {
        let order = Order::parse(byteorder)?;
        let base = slf.as_super();
        let seed = i64::try_from(base.config().seed)
            .map_err(|_| PyValueError::new_err(format!("seed {} does not fit an int64", base.config().seed)))?;
        let n = i32::try_from(base.mins.len()).map_err(|_| PyValueError::new_err("too many hash values"))?;
        let mut out = Vec::with_capacity(HEADER + 4 * base.mins.len());
        order.put_i64(&mut out, seed);
        order.put_u32(&mut out, n as u32);
        for &v in &base.mins {
            order.put_u32(&mut out, v);
        }
        let view = byte_view(buf)?;
        if view.len()? < out.len() {
            return Err(PyValueError::new_err("The buffer does not have enough space for holding this MinHash."));
        }
        let slice = pyo3::types::PySlice::new(buf.py(), 0, out.len() as isize, 1);
        view.set_item(slice, PyBytes::new(buf.py(), &out))
    }

    /// Reads a LeanMinHash written by `serialize` (or by datasketch's LeanMinHash of the
    /// layout without a scheme) from the start of `buf`. `ValueError` for a buffer too
    /// short, a negative seed, or datasketch 2's layouts with a scheme (a negative count):
    /// their values are of datasketch's hash families, which Tessera's do not compare with.
    #[classmethod]
    #[pyo3(signature = (buf, byteorder = "@"))]
    fn deserialize<'py>(
        _cls: &Bound<'py, PyType>,
        buf: &Bound<'py, PyAny>,
        byteorder: &str,
    ) -> PyResult<Bound<'py, LeanMinHash>> {
        let order = Order::parse(byteorder)?;
        let view = byte_view(buf)?;
        let len = view.len()?;
        if len < HEADER {
            return Err(PyValueError::new_err(format!(
                "a LeanMinHash takes at least {HEADER} bytes, the buffer has {len}"
            )));
        }
        let head = read(&view, 0, HEADER)?;
        let seed = order.i64_at(&head);
        let n = order.u32_at(&head[8..]) as i32;
        if n < 0 {
            return Err(PyValueError::new_err(
                "a datasketch 2 LeanMinHash with a permutation scheme (negative count): its values are of \
                 datasketch's hash family, not tessera's",
            ));
        }
        let seed = u64::try_from(seed).map_err(|_| PyValueError::new_err(format!("negative seed {seed}")))?;
        let end = HEADER + 4 * n as usize;
        if len < end {
            return Err(PyValueError::new_err(format!("{n} hash values take {end} bytes, the buffer has {len}")));
        }
        let body = read(&view, HEADER, end)?;
        let mins = body.chunks_exact(4).map(|c| order.u32_at(c)).collect();
        lean(buf.py(), base_of(seed, mins)?)
    }

    /// datasketch's equality: a LeanMinHash of the same seed and values. (Defined again
    /// here because CPython inherits comparison and hash only together.)
    fn __eq__(slf: &Bound<'_, Self>, other: &Bound<'_, PyAny>) -> bool {
        MinHash::eq_impl(slf.as_super(), other)
    }

    /// The hash of `(seed, values)`: equal LeanMinHashes hash alike (dict keys, sets).
    fn __hash__(slf: PyRef<'_, Self>) -> PyResult<isize> {
        let py = slf.py();
        let base = slf.as_super();
        let values = PyTuple::new(py, &base.mins)?;
        (base.config().seed, values).into_pyobject(py)?.hash()
    }

    fn __repr__(slf: PyRef<'_, Self>) -> String {
        let base = slf.as_super();
        format!("LeanMinHash(num_perm={}, seed={})", base.mins.len(), base.config().seed)
    }

    /// Pickling: rebuilt from the seed and the values.
    fn __reduce__<'py>(slf: &Bound<'py, Self>) -> PyResult<Bound<'py, PyTuple>> {
        let py = slf.py();
        let this = slf.borrow();
        let base = this.as_super();
        let args = (py.None(), base.config().seed, base.mins.clone()).into_pyobject(py)?;
        PyTuple::new(py, [slf.get_type().into_any(), args.into_any()])
    }
}
