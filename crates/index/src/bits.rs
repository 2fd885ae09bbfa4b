//! A minimal bit writer and a bounds-checked bit reader.
//!
//! Bits are packed LSB-first into `u64` words that are stored little-endian, so bit `i`
//! of a stream is bit `i % 8` of byte `i / 8`. The reader never indexes past its slice:
//! every read checks against a limit and answers `None` instead of panicking, which the
//! callers turn into [`crate::Error::Corrupt`] naming the file.

/// Appends bit fields to a growing vector of words.
#[derive(Debug, Default)]
pub(crate) struct BitWriter {
    words: Vec<u64>,
    cur: u64,
    used: u32,
}

impl BitWriter {
    /// A writer with room reserved for about `bits` bits.
    pub(crate) fn with_capacity(bits: usize) -> BitWriter {
        BitWriter { words: Vec::with_capacity(bits / 64 + 1), ..BitWriter::default() }
    }

    /// Number of bits written so far.
    pub(crate) fn bit_len(&self) -> u64 {
        self.words.len() as u64 * 64 + u64::from(self.used)
    }

    /// Writes the low `n` bits of `value` (`n <= 64`; higher bits of `value` are ignored).
    #[inline]
    pub(crate) fn write(&mut self, value: u64, n: u32) {
        debug_assert!(n <= 64);
        if n == 0 {
            return;
        }
        let v = if n == 64 { value } else { value & ((1u64 << n) - 1) };
        self.cur |= v << self.used;
        let space = 64 - self.used;
        if n >= space {
            self.words.push(self.cur);
            // `space` is 64 only when `used` was 0; then all of `v` went into the word.
            self.cur = if space == 64 { 0 } else { v >> space };
            self.used = n - space;
        } else {
            self.used += n;
        }
    }

    /// Writes `q` one-bits followed by a zero bit (`q <= 63`).
    #[inline]
    pub(crate) fn write_unary(&mut self, q: u32) {
        debug_assert!(q <= 63);
        self.write((1u64 << q) - 1, q + 1);
    }

    /// Writes `n` one-bits and no terminator (`n <= 64`).
    #[inline]
    pub(crate) fn write_ones(&mut self, n: u32) {
        self.write(u64::MAX, n);
    }

    /// Writes one-bits up to the next byte boundary (0 to 7 of them).
    pub(crate) fn pad_to_byte(&mut self) {
        self.write_ones((8 - self.used % 8) % 8);
    }

    /// The words written, the last one zero-padded.
    pub(crate) fn finish(mut self) -> Vec<u64> {
        if self.used > 0 {
            self.words.push(self.cur);
        }
        self.words
    }
}

/// Reads bit fields from a byte slice between a start and an end bit position.
#[derive(Debug, Clone)]
pub(crate) struct BitReader<'a> {
    bytes: &'a [u8],
    pos: u64,
    end: u64,
}

impl<'a> BitReader<'a> {
    /// A reader of bits `[start, end)` of `bytes`, or `None` if that range is not inside
    /// the slice.
    pub(crate) fn new(bytes: &'a [u8], start: u64, end: u64) -> Option<BitReader<'a>> {
        let len_bits = (bytes.len() as u64).checked_mul(8)?;
        (start <= end && end <= len_bits).then_some(BitReader { bytes, pos: start, end })
    }

    /// True once every bit up to the end has been read.
    #[cfg(test)]
    pub(crate) fn at_end(&self) -> bool {
        self.pos >= self.end
    }

    /// The 64 bits starting at byte `pos / 8`, shifted so that bit `pos` is bit 0: at
    /// least 57 meaningful bits. Bytes past the slice read as zero.
    #[inline]
    fn peek(&self) -> u64 {
        // `pos <= end <= len * 8`, so the byte index fits in usize.
        let byte = (self.pos >> 3) as usize;
        let word = match self.bytes.get(byte..byte + 8) {
            Some(b) => u64::from_le_bytes(b.try_into().expect("slice of 8 bytes")),
            None => {
                let mut buf = [0u8; 8];
                let tail = self.bytes.get(byte..).unwrap_or(&[]);
                buf[..tail.len()].copy_from_slice(tail);
                u64::from_le_bytes(buf)
            }
        };
        word >> (self.pos & 7)
    }

    /// The next bits without consuming them: bit 0 is the next bit; at least 57 bits
    /// are meaningful, but only [`BitReader::remaining`] of them belong to the stream.
    #[inline]
    pub(crate) fn window(&self) -> u64 {
        self.peek()
    }

    /// Bits left before the end.
    #[inline]
    pub(crate) fn remaining(&self) -> u64 {
        self.end - self.pos
    }

    /// Consumes `n` bits seen through [`BitReader::window`] (`n <= remaining`).
    #[inline]
    pub(crate) fn consume(&mut self, n: u32) {
        debug_assert!(u64::from(n) <= self.remaining());
        self.pos += u64::from(n);
    }

    /// Reads `n <= 64` bits, or `None` if fewer than `n` remain.
    #[inline]
    pub(crate) fn read(&mut self, n: u32) -> Option<u64> {
        debug_assert!(n <= 64);
        if n == 0 {
            return Some(0);
        }
        if self.end - self.pos < u64::from(n) {
            return None;
        }
        if n <= 56 {
            let v = self.peek() & ((1u64 << n) - 1);
            self.pos += u64::from(n);
            Some(v)
        } else {
            let lo = self.peek() & 0xFFFF_FFFF;
            self.pos += 32;
            let hi = self.peek() & ((1u64 << (n - 32)) - 1);
            self.pos += u64::from(n - 32);
            Some(lo | (hi << 32))
        }
    }

    /// Reads a run of one-bits ended by a zero bit, or `cap` one-bits without a zero
    /// (`cap <= 56`). Returns the number of one-bits, or `None` if the stream ends first.
    #[inline]
    pub(crate) fn read_unary_capped(&mut self, cap: u32) -> Option<u32> {
        debug_assert!(cap <= 56);
        let ones = self.peek().trailing_ones().min(cap);
        let used = if ones < cap { ones + 1 } else { cap };
        if self.end - self.pos < u64::from(used) {
            return None;
        }
        self.pos += u64::from(used);
        Some(ones)
    }
}

/// Words as little-endian bytes.
pub(crate) fn words_to_bytes(words: &[u64]) -> Vec<u8> {
    words.iter().flat_map(|w| w.to_le_bytes()).collect()
}

/// `ceil(log2(n))`: bits needed to write any value below `n` (0 for `n <= 1`).
pub(crate) fn bits_for_count(n: u64) -> u32 {
    if n <= 1 { 0 } else { 64 - (n - 1).leading_zeros() }
}

#[cfg(test)]
#[allow(clippy::unwrap_used)] // unwrap is fine in tests
mod tests {
    use super::*;

    #[test]
    fn round_trip_mixed_widths() {
        let fields: Vec<(u64, u32)> = (0..2000u64)
            .map(|i| {
                let n = (i % 65) as u32;
                let v = i.wrapping_mul(0x9E37_79B9_7F4A_7C15);
                (if n == 64 { v } else { v & ((1u64 << n) - 1) }, n)
            })
            .collect();
        let mut w = BitWriter::default();
        for &(v, n) in &fields {
            w.write(v, n);
            w.write_unary((v % 7) as u32);
        }
        let len = w.bit_len();
        let bytes = words_to_bytes(&w.finish());
        let mut r = BitReader::new(&bytes, 0, len).unwrap();
        for &(v, n) in &fields {
            assert_eq!(r.read(n), Some(v));
            assert_eq!(r.read_unary_capped(32), Some((v % 7) as u32));
        }
        assert!(r.at_end());
        assert_eq!(r.read(1), None);
    }

    #[test]
    fn reader_refuses_out_of_range() {
        let bytes = [0xFFu8; 3];
        assert!(BitReader::new(&bytes, 0, 25).is_none());
        let mut r = BitReader::new(&bytes, 0, 24).unwrap();
        assert_eq!(r.read_unary_capped(32), None);
        assert_eq!(r.read_unary_capped(20), Some(20));
        assert_eq!(r.read(5), None);
        assert_eq!(r.read(4), Some(0xF));
    }

    #[test]
    fn bits_for_count_is_ceil_log2() {
        assert_eq!(bits_for_count(0), 0);
        assert_eq!(bits_for_count(1), 0);
        assert_eq!(bits_for_count(2), 1);
        assert_eq!(bits_for_count(3), 2);
        assert_eq!(bits_for_count(4), 2);
        assert_eq!(bits_for_count(5), 3);
        assert_eq!(bits_for_count(u64::MAX), 64);
    }
}
