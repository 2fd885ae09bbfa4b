//! Per-document record stores: an offset table and the records, in two sections.
//!
//! Offsets section: `doc_count + 1` u64 offsets (little-endian), relative to the start of
//! the records section; `offsets[0] == 0` and the last offset is the records section's
//! length. Record `i` is `records[offsets[i]..offsets[i + 1]]`: its payload followed by
//! the u32 crc32 of that payload. The offsets section is small (8 bytes per document) and
//! is verified whole when the segment is opened; each record's crc32 is checked whenever
//! the record is read. Snapshots, metadata and texts each use one such pair of sections.

use std::path::Path;

use crate::{Error, Result};

/// Bytes of the crc32 that ends every record.
const RECORD_CRC_LEN: usize = 4;

/// Builds one store in memory.
#[derive(Debug, Default)]
pub(crate) struct StoreWriter {
    /// End offset of every finished record.
    offsets: Vec<u64>,
    data: Vec<u8>,
}

impl StoreWriter {
    /// The buffer to append the next record's payload to; call
    /// [`StoreWriter::end_record`] after.
    pub(crate) fn buf(&mut self) -> &mut Vec<u8> {
        &mut self.data
    }

    /// Ends the record appended since the previous call: appends its crc32.
    pub(crate) fn end_record(&mut self) {
        let start = self.offsets.last().map_or(0, |&o| o as usize);
        let crc = crc32fast::hash(&self.data[start..]);
        self.data.extend_from_slice(&crc.to_le_bytes());
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

    /// Writes the offsets section.
    pub(crate) fn write_offsets(&self, out: &mut impl std::io::Write) -> std::io::Result<()> {
        let mut table = Vec::with_capacity((self.offsets.len() + 1) * 8);
        table.extend_from_slice(&0u64.to_le_bytes());
        for o in &self.offsets {
            table.extend_from_slice(&o.to_le_bytes());
        }
        out.write_all(&table)
    }

    /// Writes the records section.
    pub(crate) fn write_records(&self, out: &mut impl std::io::Write) -> std::io::Result<()> {
        out.write_all(&self.data)
    }
}

/// A read-only view of one store.
#[derive(Debug, Clone, Copy)]
pub(crate) struct Store<'a> {
    table: &'a [u8],
    data: &'a [u8],
    what: &'static str,
    file: &'a Path,
    /// Verify each record's crc32 when reading it (off only for fuzzing).
    checksums: bool,
}

impl<'a> Store<'a> {
    /// Checks the table's size (O(1); [`Store::check_table`] checks its entries).
    pub(crate) fn new(
        table: &'a [u8],
        data: &'a [u8],
        doc_count: u64,
        what: &'static str,
        file: &'a Path,
        checksums: bool,
    ) -> Result<Store<'a>> {
        let expected = doc_count.checked_add(1).and_then(|n| n.checked_mul(8));
        if expected != Some(table.len() as u64) {
            return Err(Error::corrupt(
                file,
                format!("{what} offsets section of {} bytes does not fit {doc_count} docs", table.len()),
            ));
        }
        Ok(Store { table, data, what, file, checksums })
    }

    fn offset(&self, i: usize) -> u64 {
        let b = &self.table[i * 8..i * 8 + 8];
        u64::from_le_bytes(b.try_into().expect("8 bytes"))
    }

    fn records(&self) -> usize {
        self.table.len() / 8 - 1
    }

    /// Checks every offset: the first is 0, each record holds at least its crc32, the
    /// last is the records' length. O(documents), run on open.
    pub(crate) fn check_table(&self) -> Result<()> {
        let n = self.records();
        if self.offset(0) != 0 || self.offset(n) != self.data.len() as u64 {
            return Err(Error::corrupt(self.file, format!("{} offsets do not span the records", self.what)));
        }
        for i in 0..n {
            if self.offset(i).saturating_add(RECORD_CRC_LEN as u64) > self.offset(i + 1) {
                return Err(Error::corrupt(self.file, format!("{} record {i} has bad offsets", self.what)));
            }
        }
        Ok(())
    }

    /// The payload of record `local`, after checking its crc32.
    pub(crate) fn get(&self, local: u32) -> Result<&'a [u8]> {
        let i = local as usize;
        if i >= self.records() {
            return Err(Error::corrupt(self.file, format!("{} store: no record {local}", self.what)));
        }
        let (start, end) = (self.offset(i), self.offset(i + 1));
        let record = usize::try_from(start)
            .ok()
            .zip(usize::try_from(end).ok())
            .and_then(|(s, e)| self.data.get(s..e))
            .filter(|r| r.len() >= RECORD_CRC_LEN)
            .ok_or_else(|| {
                Error::corrupt(self.file, format!("{} record {local} has bad offsets {start}..{end}", self.what))
            })?;
        let (payload, crc) = record.split_at(record.len() - RECORD_CRC_LEN);
        if self.checksums && crc32fast::hash(payload).to_le_bytes() != crc {
            return Err(Error::corrupt(self.file, format!("{} record {local} checksum mismatch", self.what)));
        }
        Ok(payload)
    }
}
