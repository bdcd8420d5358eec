//! The current date and time in UTC as RFC 3339 (ISO 8601), to the second.

use std::time::SystemTime;

/// e.g. `2026-11-21T01:12:33Z`.
pub fn utc_now() -> String {
    format_utc(SystemTime::now())
}

fn format_utc(t: SystemTime) -> String {
    humantime::format_rfc3339_seconds(t).to_string()
}

#[cfg(test)]
mod tests {
    use super::{format_utc, utc_now};
    use std::time::{Duration, UNIX_EPOCH};

    #[test]
    fn known_dates() {
        let at = |secs| format_utc(UNIX_EPOCH + Duration::from_secs(secs));
        assert_eq!(at(0), "1970-01-01T00:00:00Z");
        assert_eq!(at(951_782_400), "2000-02-29T00:00:00Z");
        assert_eq!(at(1_709_210_096), "2024-02-29T12:34:56Z");
        assert_eq!(at(4_102_444_799), "2099-12-31T23:59:59Z");
    }

    #[test]
    fn now_is_whole_seconds() {
        let now = utc_now();
        assert_eq!(now.len(), "2026-11-21T01:12:33Z".len(), "{now}");
        assert!(now.ends_with('Z') && !now.contains('.'), "{now}");
    }
}
