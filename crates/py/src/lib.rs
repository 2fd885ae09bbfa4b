//! Tessera for Python: the `tessera._tessera` extension module.
//!
//! What it owns: the Python package's shapes (datasketch's `MinHash`/`MinHashLSH`,
//! `SimHash`, `Index`, the dedup kernels of the Spark job) over the engine. It must never
//! hold a default or rule of its own: signatures read the engine's (`DEDUP_DEFAULTS`),
//! errors carry the engine's messages.
//!
//! A thin surface over the engine (`tessera-engine`): sketches in the shapes users of
//! datasketch and rensa know ([`MinHash`](minhash::MinHash), [`MinHashLsh`](lsh::MinHashLsh),
//! [`SimHash`](simhash::SimHash), [`SimHashIndex`](simhash::SimHashIndex)), whole texts
//! through Tessera's own normalizer (`sketch`, `dedup`, the kernels of the Spark job and
//! the engine's rules for its inputs), the engine's dedup defaults (`DEDUP_DEFAULTS`) and
//! the index ([`Index`](index::Index)). Every rule is the engine's; this crate converts
//! arguments, releases the GIL around batches and turns errors into Python exceptions.
//! The Python package `tessera` (crates/py/python) re-exports it.
#![deny(missing_docs)]

use pyo3::prelude::*;

mod defaults;
mod errors;
mod forest;
mod hashed;
mod index;
mod kernels;
mod lean;
mod lsh;
mod minhash;
mod records;
mod redis_lsh;
mod rows;
mod settings;
mod shards;
mod simhash;

/// The extension module.
#[pymodule]
fn _tessera(m: &Bound<'_, PyModule>) -> PyResult<()> {
    m.add("TesseraError", m.py().get_type::<errors::TesseraError>())?;
    m.add("__version__", env!("CARGO_PKG_VERSION"))?;
    m.add("MAX_TEXT_BYTES", tessera_engine::DEFAULT_MAX_TEXT_BYTES)?;
    m.add_class::<minhash::MinHash>()?;
    m.add_class::<minhash::MinHashGenerator>()?;
    m.add_class::<lean::LeanMinHash>()?;
    m.add_class::<lsh::MinHashLsh>()?;
    m.add_class::<lsh::LshKeys>()?;
    m.add_class::<lsh::InsertionSession>()?;
    m.add_class::<lsh::DeletionSession>()?;
    m.add_class::<forest::MinHashLshForest>()?;
    m.add_class::<redis_lsh::RedisMinHashLsh>()?;
    m.add_class::<redis_lsh::RedisInsertionSession>()?;
    m.add("RedisConnectionError", redis_lsh::connection_error_type(m.py())?)?;
    m.add_class::<simhash::SimHash>()?;
    m.add_class::<simhash::SimHashIndex>()?;
    m.add_class::<kernels::DedupPlan>()?;
    m.add_class::<defaults::DedupDefaults>()?;
    m.add("DEDUP_DEFAULTS", defaults::DedupDefaults::new())?;
    m.add_class::<index::Index>()?;
    m.add("ShardUnavailableError", m.py().get_type::<errors::ShardUnavailableError>())?;
    m.add_class::<shards::Shard>()?;
    m.add_class::<shards::ShardedIndex>()?;
    m.add_function(wrap_pyfunction!(shards::build_shards, m)?)?;
    m.add_function(wrap_pyfunction!(shards::shard_of, m)?)?;
    m.add_function(wrap_pyfunction!(shards::shard_path, m)?)?;
    m.add_function(wrap_pyfunction!(kernels::sketch, m)?)?;
    m.add_function(wrap_pyfunction!(kernels::dedup_columns, m)?)?;
    m.add_function(wrap_pyfunction!(hashed::remove_lines, m)?)?;
    m.add_function(wrap_pyfunction!(hashed::read_rows, m)?)?;
    m.add_function(wrap_pyfunction!(hashed::exact_keys, m)?)?;
    m.add_function(wrap_pyfunction!(hashed::line_key_rows, m)?)?;
    m.add_function(wrap_pyfunction!(hashed::lines_outcome, m)?)?;
    m.add_function(wrap_pyfunction!(hashed::rewrite_jsonl, m)?)?;
    m.add_function(wrap_pyfunction!(kernels::connected_components, m)?)?;
    m.add_function(wrap_pyfunction!(kernels::row_digests, m)?)?;
    m.add_function(wrap_pyfunction!(records::record_format, m)?)?;
    m.add_function(wrap_pyfunction!(records::check_jsonl_fields, m)?)?;
    m.add_function(wrap_pyfunction!(records::spark_input_format, m)?)?;
    m.add_function(wrap_pyfunction!(records::spark_input_files, m)?)?;
    m.add_function(wrap_pyfunction!(records::check_record_columns, m)?)?;
    m.add_function(wrap_pyfunction!(hashed::lines_verdicts, m)?)?;
    m.add_function(wrap_pyfunction!(kernels::pair_components, m)?)?;
    m.add_function(wrap_pyfunction!(kernels::member_pairs, m)?)?;
    Ok(())
}
