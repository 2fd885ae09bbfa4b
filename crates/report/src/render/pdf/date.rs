//! The date of the check: as shown in the header and as the PDF's creation date.

/// `unix_ms` as `YYYY-MM-DD HH:MM UTC` and as a PDF date.
pub(super) fn civil_time(unix_ms: u64) -> String {
    let (y, m, d, hh, mm, _) = civil(unix_ms);
    format!("{y:04}-{m:02}-{d:02} {hh:02}:{mm:02} UTC")
}

/// Year, month, day, hour, minute, second (UTC) of `unix_ms` (proleptic Gregorian
/// calendar; Howard Hinnant's days-to-civil).
pub(super) fn civil(unix_ms: u64) -> (u16, u8, u8, u8, u8, u8) {
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
