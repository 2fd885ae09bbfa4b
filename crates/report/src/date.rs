//! Dates of a report in UTC: the check's date in the PDF's header and creation date, and
//! a submission's date (RFC 3339). Written here rather than taken from a date crate: a
//! few lines of Howard Hinnant's days-to-civil cover what the report shows.

/// `unix_ms` as `YYYY-MM-DD HH:MM UTC` and as a PDF date.
pub(crate) fn civil_time(unix_ms: u64) -> String {
    let (y, m, d, hh, mm, _) = civil(unix_ms);
    format!("{y:04}-{m:02}-{d:02} {hh:02}:{mm:02} UTC")
}

/// Year, month, day, hour, minute, second (UTC) of `unix_ms` (proleptic Gregorian
/// calendar; Howard Hinnant's days-to-civil).
pub(crate) fn civil(unix_ms: u64) -> (u16, u8, u8, u8, u8, u8) {
    let secs = unix_ms / 1000;
    let days = (secs / 86_400) as i64;
    let rem = secs % 86_400;
    let z = days + 719_468;
    let era = z.div_euclid(146_097);
    let doe = z - era * 146_097;
    let yoe = (doe - doe / 1460 + doe / 36_524 - doe / 146_096) / 365;
    let y = yoe + era * 400;
    let doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    let mp = (5 * doy + 2) / 153;
    let d = doy - (153 * mp + 2) / 5 + 1;
    let m = if mp < 10 { mp + 3 } else { mp - 9 };
    let y = if m <= 2 { y + 1 } else { y };
    (
        u16::try_from(y).unwrap_or(u16::MAX),
        m as u8,
        d as u8,
        (rem / 3600) as u8,
        (rem % 3600 / 60) as u8,
        (rem % 60) as u8,
    )
}

/// Seconds since the Unix epoch as UTC RFC 3339 (`2026-12-01T10:00:00Z`).
pub fn rfc3339(unix_secs: u64) -> String {
    let (y, m, d, hh, mm, ss) = civil(unix_secs.saturating_mul(1000));
    format!("{y:04}-{m:02}-{d:02}T{hh:02}:{mm:02}:{ss:02}Z")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn rfc3339_dates() {
        assert_eq!(rfc3339(0), "1970-01-01T00:00:00Z");
        assert_eq!(rfc3339(951_782_400), "2000-02-29T00:00:00Z");
        assert_eq!(rfc3339(1_764_583_261), "2025-12-01T10:01:01Z");
        assert_eq!(rfc3339(4_102_444_799), "2099-12-31T23:59:59Z");
    }
}
