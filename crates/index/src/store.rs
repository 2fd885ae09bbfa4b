//! Per-document record stores: an offset table followed by the records.
//!
//! Section layout (all little-endian): `doc_count + 1` u64 offsets, relative to the
//! start of the data that follows the table, then the records back to back. Record `i`
//! is `data[offsets[i]..offsets[i + 1]]`; `offsets[0] == 0` and the last offset is the
//! data length. Snapshots, metadata and texts each use one such section.

use std::path::Path;

use crate::{Error, Result};

/// Builds one store section in memory.
#[derive(Debug, Default)]
pub(crate) struct StoreWriter {
    offsets: Vec<u64>,
    data: Vec<u8>,
}

impl StoreWriter {
    /// The buffer to append the next record to; call [`StoreWriter::end_record`] after.
    pub(crate) fn buf(&mut self) -> &mut Vec<u8> {
        &mut self.data
    }

    /// Ends the record appended since the previous call.
    pub(crate) fn end_record(&mut self) {
        self.offsets.push(self.data.len() as u64);
    }

    /// Records so far.
    pub(crate) fn len(&self) -> usize {
        self.offsets.len()
    }

    /// Memory held, in bytes.
    pub(crate) fn heap_bytes(&self) -> usize {
        self.offsets.capacity() * 8 + self.data.capacity()
    }

    /// Writes the section: offset table, then data.
    pub(crate) fn write_to(&self, out: &mut impl std::io::Write) -> std::io::Result<()> {
        let mut table = Vec::with_capacity((self.offsets.len() + 1) * 8);
        table.extend_from_slice(&0u64.to_le_bytes());
        for o in &self.offsets {
            table.extend_from_slice(&o.to_le_bytes());
        }
        out.write_all(&table)?;
        out.write_all(&self.data)
    }
}

/// A read-only view of one store section.
#[derive(Debug, Clone, Copy)]
pub(crate) struct Store<'a> {
    table: &'a [u8],
    data: &'a [u8],
    what: &'static str,
    file: &'a Path,
}

impl<'a> Store<'a> {
    /// Checks the table's size and its first and last offsets.
    pub(crate) fn new(section: &'a [u8], doc_count: u64, what: &'static str, file: &'a Path) -> Result<Store<'a>> {
        let corrupt = |r: String| Error::corrupt(file, format!("{what} store: {r}"));
        let table_len = doc_count
            .checked_add(1)
            .and_then(|n| n.checked_mul(8))
            .filter(|&n| n <= section.len() as u64)
            .ok_or_else(|| corrupt(format!("section of {} bytes too short for {doc_count} docs", section.len())))?;
        let (table, data) = section.split_at(table_len as usize);
        let store = Store { table, data, what, file };
        if store.offset(0) != 0 || store.offset(doc_count as usize) != data.len() as u64 {
            return Err(corrupt("offset table does not span the data".into()));
        }
        Ok(store)
    }

    fn offset(&self, i: usize) -> u64 {
        let b = &self.table[i * 8..i * 8 + 8];
        u64::from_le_bytes(b.try_into().expect("8 bytes"))
    }

    /// Record `local`.
    pub(crate) fn get(&self, local: u32) -> Result<&'a [u8]> {
        let i = local as usize;
        if (i + 2) * 8 > self.table.len() {
            return Err(Error::corrupt(self.file, format!("{} store: no record {local}", self.what)));
        }
        let (start, end) = (self.offset(i), self.offset(i + 1));
        if start > end || end > self.data.len() as u64 {
            return Err(Error::corrupt(
                self.file,
                format!("{} store: record {local} has bad offsets {start}..{end}", self.what),
            ));
        }
        Ok(&self.data[start as usize..end as usize])
    }
}
