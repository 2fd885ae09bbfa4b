//! LEB128 varints and a bounds-checked byte cursor.
//!
//! A varint stores 7 bits per byte, low bits first; the high bit of a byte says another
//! byte follows. A u64 takes 1 to 10 bytes. Signed values are zigzag-mapped first
//! (`0, -1, 1, -2, ...` -> `0, 1, 2, 3, ...`) so small negative numbers stay short.

/// Appends `v` as a LEB128 varint.
#[inline]
pub(crate) fn put_varint(out: &mut Vec<u8>, mut v: u64) {
    while v >= 0x80 {
        out.push((v as u8) | 0x80);
        v >>= 7;
    }
    out.push(v as u8);
}

/// Zigzag mapping of a signed value.
#[inline]
pub(crate) fn zigzag(v: i64) -> u64 {
    ((v << 1) ^ (v >> 63)) as u64
}

/// Inverse of [`zigzag`].
#[inline]
pub(crate) fn unzigzag(v: u64) -> i64 {
    ((v >> 1) as i64) ^ -((v & 1) as i64)
}

/// Reads fields from a byte slice; every read returns `None` past the end or on a
/// malformed varint instead of panicking.
#[derive(Debug, Clone)]
pub(crate) struct ByteReader<'a> {
    bytes: &'a [u8],
    pos: usize,
}

impl<'a> ByteReader<'a> {
    pub(crate) fn new(bytes: &'a [u8]) -> ByteReader<'a> {
        ByteReader { bytes, pos: 0 }
    }

    /// Bytes not yet read.
    pub(crate) fn remaining(&self) -> usize {
        self.bytes.len() - self.pos
    }

    /// Reads a varint; `None` if it runs past the end, is longer than 10 bytes or
    /// overflows 64 bits.
    #[inline]
    pub(crate) fn varint(&mut self) -> Option<u64> {
        let mut v = 0u64;
        for i in 0..10 {
            let b = *self.bytes.get(self.pos)?;
            self.pos += 1;
            let low = u64::from(b & 0x7F);
            if i == 9 && low > 1 {
                return None;
            }
            v |= low << (7 * i);
            if b & 0x80 == 0 {
                return Some(v);
            }
        }
        None
    }

    /// Reads `n` raw bytes.
    pub(crate) fn bytes(&mut self, n: usize) -> Option<&'a [u8]> {
        let end = self.pos.checked_add(n)?;
        let s = self.bytes.get(self.pos..end)?;
        self.pos = end;
        Some(s)
    }

    /// Reads a little-endian u64.
    #[inline]
    pub(crate) fn u64_le(&mut self) -> Option<u64> {
        self.bytes(8).map(|b| u64::from_le_bytes(b.try_into().expect("8 bytes")))
    }

    /// Reads a little-endian u32.
    pub(crate) fn u32_le(&mut self) -> Option<u32> {
        self.bytes(4).map(|b| u32::from_le_bytes(b.try_into().expect("4 bytes")))
    }

    /// Reads one byte.
    pub(crate) fn u8(&mut self) -> Option<u8> {
        self.bytes(1).map(|b| b[0])
    }
}

#[cfg(test)]
#[allow(clippy::unwrap_used)] // unwrap is fine in tests
mod tests {
    use super::*;

    #[test]
    fn varints_round_trip() {
        let values = [0, 1, 127, 128, 300, u64::from(u32::MAX), u64::MAX - 1, u64::MAX];
        let mut buf = Vec::new();
        for &v in &values {
            put_varint(&mut buf, v);
        }
        let mut r = ByteReader::new(&buf);
        for &v in &values {
            assert_eq!(r.varint(), Some(v));
        }
        assert_eq!(r.varint(), None);
    }

    #[test]
    fn overlong_varints_are_refused() {
        assert_eq!(ByteReader::new(&[0xFF; 11]).varint(), None);
        assert_eq!(ByteReader::new(&[0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0x02]).varint(), None);
        assert_eq!(ByteReader::new(&[0x80]).varint(), None);
    }

    #[test]
    fn zigzag_round_trips() {
        for v in [0i64, -1, 1, -2, i64::MIN, i64::MAX] {
            assert_eq!(unzigzag(zigzag(v)), v);
        }
        assert_eq!(zigzag(-1), 1);
        assert_eq!(zigzag(1), 2);
    }
}
