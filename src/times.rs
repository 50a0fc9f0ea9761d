//! Times as milliseconds since 1970-01-01 (durations as milliseconds), for decoded reads: an
//! array of numpy.datetime64 / numpy.timedelta64 counts, and CF's time coordinates, numbers
//! with `units: "<unit> since <date>"` and a `calendar`, decoded as xarray decodes them for the
//! calendars it reads with numpy's proleptic Gregorian dates (standard, gregorian,
//! proleptic_gregorian); another calendar is refused, naming it.

use crate::error::{quoted, Error, Result};
use crate::json::Map;
use crate::types::{TimeUnit, NAT};

/// Days from 1970-01-01 to the first of `month` (1-12) of `year`, proleptic Gregorian.
pub fn days_from_civil(year: i64, month: i64) -> i64 {
    let y = if month <= 2 { year - 1 } else { year };
    let era = y.div_euclid(400);
    let yoe = y - era * 400;
    let mp = (month + 9) % 12;
    let doy = (153 * mp + 2) / 5;
    let doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;
    era * 146_097 + doe - 719_468
}

/// `count` units of `scale * unit` as milliseconds (since the epoch for a datetime64, a
/// duration for a timedelta64), correctly rounded to f64; NaT is NaN. `None` where no such
/// number exists: generic units, and years or months of a timedelta (their length varies).
pub fn time_millis(count: i64, unit: TimeUnit, scale: u32, delta: bool) -> Option<f64> {
    if count == NAT {
        return Some(f64::NAN);
    }
    let n = i128::from(count) * i128::from(scale);
    match (unit, delta) {
        (TimeUnit::Year, false) => {
            let days = days_from_civil(1970 + n as i64, 1);
            return Some((i128::from(days) * 86_400_000) as f64);
        }
        (TimeUnit::Month, false) => {
            let (years, month) = (n.div_euclid(12), n.rem_euclid(12));
            let days = days_from_civil(1970 + years as i64, month as i64 + 1);
            return Some((i128::from(days) * 86_400_000) as f64);
        }
        _ => {}
    }
    let (num, den) = unit.millis()?;
    Some(ratio(n * num, den))
}

/// `whole / den` (`den` a power of ten) correctly rounded to f64: the magnitude's integer part
/// exactly, then its fraction (no cancellation, both of one sign). A decimal fraction is never
/// a rounding midpoint of the sum unless it is exact in binary, so the sum rounds correctly.
fn ratio(whole: i128, den: i128) -> f64 {
    if den == 1 {
        return whole as f64;
    }
    let magnitude = whole.unsigned_abs();
    let (q, r) = (magnitude / den as u128, magnitude % den as u128);
    let v = q as f64 + r as f64 / den as f64;
    if whole < 0 {
        -v
    } else {
        v
    }
}

/// CF's "<unit> since <date>": a value in units, as milliseconds since 1970-01-01.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct CfTime {
    /// Nanoseconds a unit.
    unit_ns: i128,
    /// The reference date, in nanoseconds since 1970-01-01.
    epoch_ns: i128,
}

impl CfTime {
    /// The CF time of an array's attributes (`units`, `calendar`); `None` where `units` is not
    /// "<unit> since <date>".
    pub fn from_attributes(attrs: Option<&Map>) -> Result<Option<CfTime>> {
        let text = |key: &str| attrs.and_then(|a| a.get(key)).and_then(|v| v.as_str());
        let Some(units) = text("units") else {
            return Ok(None);
        };
        let Some((unit, since)) = split_since(units) else {
            return Ok(None);
        };
        let invalid = |why: &str| Error::InvalidMetadata {
            message: format!("attribute units {}: {why}", quoted(units)),
        };
        // xarray: lower case, plural, one of these.
        let mut unit = unit.trim().to_ascii_lowercase();
        if !unit.ends_with('s') {
            unit.push('s');
        }
        let unit_ns: i128 = match unit.as_str() {
            "nanoseconds" => 1,
            "microseconds" => 1_000,
            "milliseconds" => 1_000_000,
            "seconds" => 1_000_000_000,
            "minutes" => 60_000_000_000,
            "hours" => 3_600_000_000_000,
            "days" => 86_400_000_000_000,
            _ => {
                return Err(invalid(
                    "the unit is not one of days, hours, minutes, seconds, milliseconds, \
                     microseconds, nanoseconds",
                ))
            }
        };
        let (epoch_ns, date) =
            parse_epoch(since).ok_or_else(|| invalid("the reference date is not a date"))?;
        let calendar = text("calendar").unwrap_or("standard").to_ascii_lowercase();
        match calendar.as_str() {
            "proleptic_gregorian" => {}
            // Before the Gregorian reform these calendars are Julian (xarray reads them with
            // cftime then, not numpy's dates).
            "standard" | "gregorian" if date >= (1582, 10, 15) => {}
            "standard" | "gregorian" => {
                return Err(Error::UnsupportedCalendar {
                    calendar: format!("{calendar} with a reference date before 1582-10-15"),
                })
            }
            _ => return Err(Error::UnsupportedCalendar { calendar }),
        }
        Ok(Some(CfTime { unit_ns, epoch_ns }))
    }

    /// A value in units (after any masking and scaling; NaN stays NaN) as milliseconds since
    /// 1970-01-01: exact arithmetic, rounded once, for integral values.
    pub fn millis(&self, v: f64) -> f64 {
        if v.is_nan() {
            return v;
        }
        if v.fract() == 0.0 && v.abs() < 9.2e18 {
            return ratio(v as i128 * self.unit_ns + self.epoch_ns, 1_000_000);
        }
        v * (self.unit_ns as f64 / 1e6) + self.epoch_ns as f64 / 1e6
    }
}

/// "days since 1800-01-01" as ("days", "1800-01-01").
fn split_since(units: &str) -> Option<(&str, &str)> {
    let lower = units.to_ascii_lowercase();
    let at = lower.find(" since ")?;
    Some((units.get(..at)?, units.get(at + 7..)?.trim()))
}

/// A CF reference date: "1800-01-01", "1970-01-01 00:00:00", "2000-01-01T00:00:00Z",
/// "1990-1-1 06:00:00.5 +01:00", "2000-01-01 00:00:00 UTC": nanoseconds since 1970-01-01
/// (the offset taken off), and the calendar date as written.
fn parse_epoch(text: &str) -> Option<(i128, (i64, i64, i64))> {
    let text = text.trim();
    let (date, rest) = match text.find([' ', 'T']) {
        Some(at) => (text.get(..at)?, text.get(at + 1..)?.trim()),
        None => (text, ""),
    };
    let (negative, date) = match date.strip_prefix('-') {
        Some(d) => (true, d),
        None => (false, date),
    };
    let mut parts = date.split('-');
    let year: i64 = parts.next()?.parse().ok()?;
    let year = if negative { -year } else { year };
    let month: i64 = parts.next()?.parse().ok()?;
    let day: i64 = parts.next().unwrap_or("1").parse().ok()?;
    if parts.next().is_some() || !(1..=12).contains(&month) || !(1..=31).contains(&day) {
        return None;
    }
    // The time of day, then a zone: "Z", "UTC", "+hh:mm", "-hh", "+hhmm".
    let zone_at = rest
        .find(['Z', 'U', '+'])
        .or_else(|| rest.get(1..)?.find('-').map(|i| i + 1));
    let (clock, zone) = match zone_at {
        Some(at) => (rest.get(..at)?.trim(), rest.get(at..)?.trim()),
        None => (rest, ""),
    };
    let mut ns: i128 = 0;
    if !clock.is_empty() {
        let mut fields = clock.split(':');
        let hours: i128 = fields.next()?.parse().ok()?;
        let minutes: i128 = fields.next().unwrap_or("0").parse().ok()?;
        let seconds = fields.next().unwrap_or("0");
        let (whole, fraction) = seconds.split_once('.').unwrap_or((seconds, ""));
        let whole: i128 = whole.parse().ok()?;
        if fields.next().is_some()
            || fraction.len() > 9
            || !fraction.bytes().all(|b| b.is_ascii_digit())
        {
            return None;
        }
        let fraction_ns: i128 = format!("{fraction:0<9}").parse().ok()?;
        ns = ((hours * 60 + minutes) * 60 + whole) * 1_000_000_000 + fraction_ns;
    }
    let offset_minutes: i128 = match zone {
        "" | "Z" | "UTC" | "utc" => 0,
        z => {
            let sign = match z.as_bytes().first()? {
                b'+' => 1,
                b'-' => -1,
                _ => return None,
            };
            let digits: String = z.get(1..)?.chars().filter(|c| *c != ':').collect();
            let (h, m) = match digits.len() {
                1 | 2 => (digits.parse::<i128>().ok()?, 0),
                4 => (
                    digits.get(..2)?.parse().ok()?,
                    digits.get(2..)?.parse().ok()?,
                ),
                _ => return None,
            };
            sign * (h * 60 + m)
        }
    };
    let days = i128::from(days_from_civil(year, month)) + i128::from(day - 1);
    let epoch = days * 86_400_000_000_000 + ns - offset_minutes * 60_000_000_000;
    Some((epoch, (year, month, day)))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn civil_days_and_calendar_units() {
        // numpy: np.datetime64("2000-03-01", "D").astype(int) == 11017, 1800-01-01 is -62091.
        assert_eq!(days_from_civil(2000, 3), 11017);
        assert_eq!(days_from_civil(1970, 1), 0);
        assert_eq!(days_from_civil(1800, 1), -62091);
        // 51 years after 1970 is 2021-01-01; 13 months after 1970-01 is 1971-02-01.
        assert_eq!(
            time_millis(51, TimeUnit::Year, 1, false),
            Some(1609459200000.0)
        );
        assert_eq!(
            time_millis(13, TimeUnit::Month, 1, false),
            Some(34214400000.0)
        );
        assert_eq!(time_millis(1, TimeUnit::Year, 1, true), None);
        assert!(time_millis(NAT, TimeUnit::Second, 1, false)
            .unwrap()
            .is_nan());
        assert_eq!(time_millis(1_500, TimeUnit::Micro, 1, false), Some(1.5));
        assert_eq!(time_millis(-1, TimeUnit::Nano, 1, false), Some(-0.000001));
    }

    fn cf(units: &str, calendar: Option<&str>) -> Result<Option<CfTime>> {
        let mut attrs = Map::new();
        attrs.insert("units".into(), units.into());
        if let Some(c) = calendar {
            attrs.insert("calendar".into(), c.into());
        }
        CfTime::from_attributes(Some(&attrs))
    }

    #[test]
    fn cf_units_and_reference_dates() {
        // numpy: np.datetime64("1800-01-01T00:00") is -5364662400000 ms.
        let days = cf("days since 1800-01-01", None).unwrap().unwrap();
        assert_eq!(days.millis(0.0), -5364662400000.0);
        assert_eq!(days.millis(62091.0), 0.0);
        let t = cf("hours since 1970-01-01 00:00:00", Some("gregorian"))
            .unwrap()
            .unwrap();
        assert_eq!(t.millis(1.5), 5_400_000.0);
        assert!(t.millis(f64::NAN).is_nan());
        let z = cf("seconds since 2000-01-01T00:00:00+01:00", None)
            .unwrap()
            .unwrap();
        assert_eq!(z.millis(0.0), 946681200000.0);
        let m = cf("minute since 1990-1-1 06:00", Some("proleptic_gregorian"))
            .unwrap()
            .unwrap();
        assert_eq!(m.millis(-360.0), 631152000000.0);
        assert_eq!(cf("K", None).unwrap(), None);
        let e = cf("days since 1800-01-01", Some("noleap")).unwrap_err();
        assert_eq!(e.code(), "UNSUPPORTED_CALENDAR");
        assert!(e.to_string().contains("noleap"), "{e}");
        let e = cf("days since 1500-01-01", Some("standard")).unwrap_err();
        assert_eq!(e.code(), "UNSUPPORTED_CALENDAR");
        assert!(cf("days since 1500-01-01", Some("proleptic_gregorian")).is_ok());
        assert_eq!(
            cf("fortnights since 2000-01-01", None).unwrap_err().code(),
            "INVALID_METADATA"
        );
        assert_eq!(
            cf("days since yesterday", None).unwrap_err().code(),
            "INVALID_METADATA"
        );
    }
}
