//! Unpacking under budgets, enforced while the bytes arrive: a member is
//! never held in memory past its budget, whatever its headers declare.
//!
//! Three guards, each checked as every chunk comes out of the decoder:
//! - the member's own cap: at most [`ExtractConfig::max_bytes`]
//!   (crate::ExtractConfig::max_bytes) (the largest document accepted);
//! - the container's budget ([`UnpackLimits::max_total_bytes`]), shared by
//!   an archive, every archive nested in it, and the parts of an office
//!   document;
//! - the compression ratio ([`UnpackLimits::max_ratio`]) once more than
//!   [`RATIO_FLOOR`] came out: unpacked bytes so far over the packed bytes
//!   the decoder has consumed so far (counted by [`Counting`] under it, so
//!   a bomb trips after a few MiB, not after `packed * max_ratio` bytes).
//!   The decoder reads ahead, which makes the measured ratio lower, never
//!   higher, than the true one.
//!
//! Sizes an archive declares (ZIP central directory, 7z headers) refuse a
//! member before it is decoded; they can lie, so the guards above still
//! hold while reading.

use std::cell::Cell;
use std::io::{self, Read, Seek, SeekFrom};
use std::sync::Arc;
use std::sync::atomic::{AtomicU64, Ordering};

use crate::config::UnpackLimits;
use crate::sniff::HEAD_LEN;
use crate::{Error, ExtractConfig, Result};

/// Members smaller than this (unpacked) may compress as well as they like;
/// larger ones are held to [`UnpackLimits::max_ratio`].
pub(crate) const RATIO_FLOOR: u64 = 1 << 20;

/// Largest buffer reserved up front from a declared size (the declaration
/// may lie; past this the buffer grows as bytes really arrive).
const MAX_PREALLOC: u64 = 1 << 26;

/// The unpacking budget shared by a container and all containers inside
/// it: the bytes unpacked so far against
/// [`UnpackLimits::max_total_bytes`].
#[derive(Debug)]
pub(crate) struct Budget {
    pub(crate) limits: UnpackLimits,
    unpacked: Cell<u64>,
    /// Archives: the extraction settings whose text cap holds members without a magic
    /// number ([`ExtractConfig::text_read_cap`]).
    text: Option<ExtractConfig>,
}

/// How a member's packed size is known, for the ratio guard.
#[derive(Debug, Clone)]
pub(crate) enum Packed {
    /// Bytes read from the container's source, counted by a [`Counting`]
    /// reader; the member's packed bytes are the growth since it started.
    Counted(Arc<AtomicU64>),
    /// Not known (a member given whole by a library, RAR): no ratio guard
    /// beyond the caps.
    #[cfg_attr(not(any(test, feature = "rar")), allow(dead_code))]
    Unknown,
}

/// Which guard stopped a read.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Trip {
    /// The member's own cap (`max_bytes`).
    Member,
    /// A member without a magic number, past the bytes its text may come from.
    Text,
    /// The container's budget.
    Total,
    /// The compression ratio, measured while reading or declared.
    Ratio { unpacked: u64, packed: u64, declared: bool },
}

impl Budget {
    pub(crate) fn new(limits: &UnpackLimits) -> Self {
        Self { limits: limits.clone(), unpacked: Cell::new(0), text: None }
    }

    /// The budget of an archive: members without a magic number (text) are held to the
    /// text cap of `config` as they are read.
    pub(crate) fn for_archive(config: &ExtractConfig) -> Self {
        Self { text: Some(config.clone()), ..Self::new(&config.unpack) }
    }

    /// Bytes unpacked so far, all members together.
    #[cfg(test)]
    pub(crate) fn unpacked(&self) -> u64 {
        self.unpacked.get()
    }

    /// How many more bytes may be unpacked.
    pub(crate) fn left(&self) -> u64 {
        self.limits.max_total_bytes.saturating_sub(self.unpacked.get())
    }

    /// Refuses a member from its declared sizes, before decoding it: larger
    /// than `max_bytes` or than the budget left, or (with its packed size)
    /// over the ratio. `name` is the member's full name, for the error.
    ///
    /// # Errors
    ///
    /// [`Error::TooLarge`] or [`Error::Limit`] naming the member.
    pub(crate) fn check_declared(&self, name: &str, size: u64, packed: Option<u64>, max_bytes: u64) -> Result<()> {
        if size > max_bytes {
            return Err(Error::TooLarge { name: name.into(), size, limit: max_bytes });
        }
        if size > self.left() {
            return Err(self.error(name, Trip::Total));
        }
        if let Some(packed) = packed
            && size > RATIO_FLOOR
            && size / packed.max(1) > self.limits.max_ratio
        {
            return Err(self.error(name, Trip::Ratio { unpacked: size, packed, declared: true }));
        }
        Ok(())
    }

    /// Reads one member from `reader` under the guards (module
    /// documentation) and charges it to the budget. `name` is the member's
    /// full name (`archive!/member`) and `format` what to call a decoding
    /// failure (`"zip"`, `"7z"`, `"docx"`...); `size_hint` a declared size,
    /// used only to reserve memory.
    ///
    /// # Errors
    ///
    /// [`Error::TooLarge`] past `max_bytes`, [`Error::Limit`] past the
    /// budget or the ratio, [`Error::Malformed`] when the member cannot be
    /// decoded; each naming the member.
    pub(crate) fn read(
        &self,
        name: &str,
        format: &'static str,
        reader: impl Read,
        packed: Packed,
        max_bytes: u64,
        size_hint: Option<u64>,
    ) -> Result<Vec<u8>> {
        let mut guarded = self.guard(reader, packed, max_bytes);
        let reserve = size_hint.unwrap_or(0).min(guarded.cap).min(MAX_PREALLOC);
        let mut bytes = Vec::with_capacity(usize::try_from(reserve).unwrap_or(0));
        // The head first: a member without a magic number is text, read no further than
        // its text could come from.
        let mut result = (&mut guarded).take(HEAD_LEN as u64).read_to_end(&mut bytes);
        if result.is_ok() {
            if let Some(cap) = self.text.as_ref().and_then(|config| config.text_read_cap(&bytes)) {
                guarded.limit_text(cap);
            }
            result = guarded.read_to_end(&mut bytes);
        }
        let trip = guarded.trip;
        let read = guarded.read;
        self.unpacked.set(self.unpacked.get().saturating_add(read));
        match (result, trip) {
            (_, Some(Trip::Member)) => Err(Error::TooLarge { name: name.into(), size: read, limit: max_bytes }),
            (_, Some(Trip::Text)) => Err(self.text_error(name)),
            (_, Some(trip)) => Err(self.error(name, trip)),
            (Err(e), None) => Err(Error::Malformed { name: name.into(), format, reason: io_reason(&e) }),
            (Ok(_), None) => Ok(bytes),
        }
    }

    /// Wraps `reader` in the guards, for a caller that reads it itself
    /// (streaming); [`Guarded::finish`] charges the budget and names the
    /// guard that stopped it.
    pub(crate) fn guard<R: Read>(&self, reader: R, packed: Packed, max_bytes: u64) -> Guarded<R> {
        let start = match &packed {
            Packed::Counted(counter) => counter.load(Ordering::Relaxed),
            Packed::Unknown => 0,
        };
        Guarded {
            inner: reader,
            read: 0,
            cap: max_bytes.min(self.left()),
            member_cap: max_bytes,
            text_cap: None,
            packed,
            start,
            max_ratio: self.limits.max_ratio,
            trip: None,
        }
    }

    /// The error of a member stopped by the text cap, naming `name`.
    fn text_error(&self, name: &str) -> Error {
        Error::TextTooLarge { name: name.into(), limit: self.text.as_ref().map_or(0, |c| c.max_text_bytes) }
    }

    /// The error of a tripped guard, naming `name`.
    fn error(&self, name: &str, trip: Trip) -> Error {
        let limit = match trip {
            Trip::Member | Trip::Total | Trip::Text => {
                format!("unpacks to more than {} bytes (the unpack budget)", self.limits.max_total_bytes)
            }
            Trip::Ratio { unpacked, packed, declared } => format!(
                "unpacks {unpacked} bytes from {packed} ({}): compression ratio over {}:1, refused as a \
                 decompression bomb",
                if declared { "declared sizes" } else { "so far" },
                self.limits.max_ratio
            ),
        };
        Error::Limit { name: name.into(), limit }
    }

    /// The error of `guarded` when it stopped on a guard, naming `name`.
    pub(crate) fn tripped<R>(&self, name: &str, guarded: &Guarded<R>) -> Option<Error> {
        match guarded.trip? {
            Trip::Member => Some(Error::TooLarge { name: name.into(), size: guarded.read, limit: guarded.member_cap }),
            Trip::Text => Some(self.text_error(name)),
            trip => Some(self.error(name, trip)),
        }
    }

    /// Charges what `guarded` read to the budget.
    pub(crate) fn charge<R>(&self, guarded: &Guarded<R>) {
        self.unpacked.set(self.unpacked.get().saturating_add(guarded.read));
    }
}

/// A member read out of an archive, or why it could not be.
pub(crate) struct Member {
    /// Its clean label inside the archive (see [`clean_member_name`]).
    pub(crate) name: String,
    pub(crate) bytes: Result<Vec<u8>>,
}

/// A member name as a clean relative label: `/` separators, no leading `/`,
/// no `.` or `..` components.
pub(crate) fn clean_member_name(raw: &str) -> String {
    raw.replace('\\', "/")
        .split('/')
        .filter(|part| !part.is_empty() && *part != "." && *part != "..")
        .collect::<Vec<_>>()
        .join("/")
}

/// An I/O error as a sentence (no `Debug` formatting).
pub(crate) fn io_reason(e: &io::Error) -> String {
    match e.kind() {
        io::ErrorKind::UnexpectedEof => "the data ends too early (truncated)".to_owned(),
        _ => e.to_string(),
    }
}

/// A reader that fails as soon as one of the guards trips (see the module
/// documentation).
pub(crate) struct Guarded<R> {
    inner: R,
    /// Bytes given out so far.
    read: u64,
    /// Most bytes it may give out: the member cap or the budget left.
    cap: u64,
    member_cap: u64,
    /// The text cap, once the member's head showed no magic number.
    text_cap: Option<u64>,
    packed: Packed,
    /// The packed counter when this member started.
    start: u64,
    max_ratio: u64,
    trip: Option<Trip>,
}

impl<R> Guarded<R> {
    /// Bytes given out so far.
    pub(crate) fn given(&self) -> u64 {
        self.read
    }

    /// Lets `extra` more bytes through, up to the member's cap: for a
    /// member read again whose bytes were charged to the budget the first
    /// time.
    pub(crate) fn allow(&mut self, extra: u64) {
        self.cap = self.cap.saturating_add(extra).min(self.member_cap);
    }

    /// Holds the rest of the member to `cap` bytes in all (a member without a magic
    /// number, whose text this many bytes would already put over the text cap).
    fn limit_text(&mut self, cap: u64) {
        if cap < self.cap {
            self.cap = cap;
            self.text_cap = Some(cap);
        }
    }

    fn stop(&mut self, trip: Trip) -> io::Error {
        self.trip = Some(trip);
        io::Error::other("unpack limit reached")
    }
}

impl<R: Read> Read for Guarded<R> {
    fn read(&mut self, buf: &mut [u8]) -> io::Result<usize> {
        if self.trip.is_some() {
            return Err(io::Error::other("unpack limit reached"));
        }
        // One byte past the cap tells a member at the cap from one over it.
        let room = self.cap.saturating_add(1).saturating_sub(self.read);
        let want = usize::try_from(room).unwrap_or(usize::MAX).min(buf.len());
        let Some(buf) = buf.get_mut(..want) else { return Ok(0) };
        let n = self.inner.read(buf)?;
        self.read = self.read.saturating_add(n as u64);
        if self.read > self.cap {
            let trip = if self.text_cap == Some(self.cap) {
                Trip::Text
            } else if self.cap == self.member_cap {
                Trip::Member
            } else {
                Trip::Total
            };
            return Err(self.stop(trip));
        }
        if let Packed::Counted(counter) = &self.packed
            && self.read > RATIO_FLOOR
        {
            let packed = counter.load(Ordering::Relaxed).saturating_sub(self.start).max(1);
            if self.read / packed > self.max_ratio {
                let unpacked = self.read;
                return Err(self.stop(Trip::Ratio { unpacked, packed, declared: false }));
            }
        }
        Ok(n)
    }
}

/// Counts the bytes read through it: the packed side of a decoder, for the
/// ratio guard.
#[derive(Debug)]
pub(crate) struct Counting<R> {
    inner: R,
    count: Arc<AtomicU64>,
}

impl<R> Counting<R> {
    pub(crate) fn new(inner: R) -> Self {
        Self { inner, count: Arc::new(AtomicU64::new(0)) }
    }

    /// The shared count, to hand to [`Packed::Counted`].
    pub(crate) fn counter(&self) -> Arc<AtomicU64> {
        Arc::clone(&self.count)
    }
}

impl<R: Read> Read for Counting<R> {
    fn read(&mut self, buf: &mut [u8]) -> io::Result<usize> {
        let n = self.inner.read(buf)?;
        self.count.fetch_add(n as u64, Ordering::Relaxed);
        Ok(n)
    }
}

impl<R: Seek> Seek for Counting<R> {
    fn seek(&mut self, pos: SeekFrom) -> io::Result<u64> {
        self.inner.seek(pos)
    }
}

#[cfg(test)]
mod tests {
    use std::io::Cursor;

    use super::*;

    /// An endless source of zeros that counts how much was asked of it.
    struct Zeros {
        given: u64,
    }

    impl Read for Zeros {
        fn read(&mut self, buf: &mut [u8]) -> io::Result<usize> {
            buf.fill(0);
            self.given += buf.len() as u64;
            Ok(buf.len())
        }
    }

    #[test]
    fn reads_stop_at_the_member_cap_and_the_budget() {
        let budget = Budget::new(&UnpackLimits { max_total_bytes: 1000, ..UnpackLimits::default() });
        let bytes = budget.read("a.zip!/x", "zip", &b"hello"[..], Packed::Unknown, 10, None).unwrap();
        assert_eq!(bytes, b"hello");
        assert_eq!(budget.unpacked(), 5);
        let mut zeros = Zeros { given: 0 };
        let err = budget.read("a.zip!/y", "zip", &mut zeros, Packed::Unknown, 100, Some(u64::MAX)).unwrap_err();
        assert!(matches!(&err, Error::TooLarge { name, limit: 100, .. } if name == "a.zip!/y"), "{err}");
        assert!(zeros.given <= 101, "read {} bytes past a cap of 100", zeros.given);
        let mut zeros = Zeros { given: 0 };
        let err = budget.read("a.zip!/z", "zip", &mut zeros, Packed::Unknown, 10_000, None).unwrap_err();
        assert!(matches!(&err, Error::Limit { limit, .. } if limit.contains("1000 bytes")), "{err}");
        assert!(zeros.given <= 1000, "{}", zeros.given);
        assert!(budget.left() == 0 || budget.unpacked() > 1000);
    }

    #[test]
    fn the_ratio_trips_as_bytes_arrive() {
        let budget = Budget::new(&UnpackLimits::default());
        // 16 packed bytes "consumed" per 64 KiB out: far over 200:1.
        let source = Counting::new(Cursor::new(vec![0u8; 1 << 20]));
        let counter = source.counter();
        struct Inflate<R> {
            source: R,
            given: u64,
        }
        impl<R: Read> Read for Inflate<R> {
            fn read(&mut self, buf: &mut [u8]) -> io::Result<usize> {
                let mut packed = [0u8; 16];
                self.source.read_exact(&mut packed)?;
                let n = buf.len().min(1 << 16);
                buf[..n].fill(0);
                self.given += n as u64;
                Ok(n)
            }
        }
        let mut inflate = Inflate { source, given: 0 };
        let err =
            budget.read("b.zip!/zeros", "zip", &mut inflate, Packed::Counted(counter), u64::MAX, None).unwrap_err();
        assert!(
            matches!(&err, Error::Limit { name, limit } if name == "b.zip!/zeros" && limit.contains("ratio over 200:1")),
            "{err}"
        );
        assert!(inflate.given <= RATIO_FLOOR + (1 << 16), "read {} bytes", inflate.given);
    }

    #[test]
    fn declared_sizes_refuse_early() {
        let budget = Budget::new(&UnpackLimits { max_total_bytes: 1 << 30, ..UnpackLimits::default() });
        assert!(budget.check_declared("m", 10, Some(5), 100).is_ok());
        assert!(matches!(budget.check_declared("m", 101, None, 100), Err(Error::TooLarge { .. })));
        assert!(matches!(budget.check_declared("m", 2 << 30, None, u64::MAX), Err(Error::Limit { .. })));
        let err = budget.check_declared("m", 1 << 30, Some(1 << 20), u64::MAX).unwrap_err();
        assert!(err.to_string().contains("200:1"), "{err}");
    }

    #[test]
    fn truncation_is_a_sentence() {
        let e = io::Error::from(io::ErrorKind::UnexpectedEof);
        assert_eq!(io_reason(&e), "the data ends too early (truncated)");
    }
}
