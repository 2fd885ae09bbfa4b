//! Converting byte offsets (what Tessera's spans hold) to the character offsets PAN's
//! annotations use.

/// Byte-to-character offset conversion for one text, in `O(log n)` per query.
#[derive(Debug, Clone)]
pub struct CharOffsets {
    /// Byte offset of every character start, then the text length.
    starts: Vec<usize>,
}

impl CharOffsets {
    /// Indexes `text`.
    pub fn new(text: &str) -> Self {
        let mut starts: Vec<usize> = text.char_indices().map(|(i, _)| i).collect();
        starts.push(text.len());
        CharOffsets { starts }
    }

    /// Number of characters of the text.
    pub fn char_len(&self) -> u64 {
        (self.starts.len() - 1) as u64
    }

    /// Character offset of byte offset `byte`: the number of characters that start
    /// before it. A byte inside a character maps to the character after it; a byte
    /// past the end maps to the character count.
    pub fn char_of(&self, byte: usize) -> u64 {
        let chars = self.starts.len() - 1;
        self.starts.partition_point(|&b| b < byte).min(chars) as u64
    }

    /// The PAN (offset, length) in characters of the byte range `[start, end)`.
    pub fn char_span(&self, start: usize, end: usize) -> (u64, u64) {
        let s = self.char_of(start);
        let e = self.char_of(end.max(start));
        (s, e - s)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn multibyte() {
        let text = "a\u{e9}b\u{20ac}c"; // a(1) é(2) b(1) €(3) c(1)
        let o = CharOffsets::new(text);
        assert_eq!(o.char_len(), 5);
        assert_eq!(o.char_of(0), 0);
        assert_eq!(o.char_of(1), 1);
        assert_eq!(o.char_of(3), 2);
        assert_eq!(o.char_of(4), 3);
        assert_eq!(o.char_of(7), 4);
        assert_eq!(o.char_of(8), 5);
        assert_eq!(o.char_of(100), 5);
        assert_eq!(o.char_span(3, 8), (2, 3));
        assert_eq!(CharOffsets::new("").char_len(), 0);
    }
}
