//! numpy's datetime64 and timedelta64 units, and NaT.

/// A unit of numpy's datetime64 and timedelta64, with its name in metadata.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum TimeUnit {
    Year,
    Month,
    Week,
    Day,
    Hour,
    Minute,
    Second,
    Milli,
    Micro,
    Nano,
    Pico,
    Femto,
    Atto,
    /// numpy's unit-less datetime64 (only NaT has a meaning).
    Generic,
}

pub(super) const TIME_UNITS: [(&str, TimeUnit); 14] = [
    ("Y", TimeUnit::Year),
    ("M", TimeUnit::Month),
    ("W", TimeUnit::Week),
    ("D", TimeUnit::Day),
    ("h", TimeUnit::Hour),
    ("m", TimeUnit::Minute),
    ("s", TimeUnit::Second),
    ("ms", TimeUnit::Milli),
    ("us", TimeUnit::Micro),
    ("ns", TimeUnit::Nano),
    ("ps", TimeUnit::Pico),
    ("fs", TimeUnit::Femto),
    ("as", TimeUnit::Atto),
    ("generic", TimeUnit::Generic),
];

impl TimeUnit {
    pub fn name(self) -> &'static str {
        TIME_UNITS
            .iter()
            .find(|(_, u)| *u == self)
            .map_or("generic", |(n, _)| n)
    }

    /// A unit by its name; numpy's "μs" is "us".
    pub fn from_name(name: &str) -> Option<TimeUnit> {
        let name = if name == "μs" { "us" } else { name };
        TIME_UNITS.iter().find(|(n, _)| *n == name).map(|(_, u)| *u)
    }

    /// The unit in milliseconds, as `num / den` (`None` for the calendar units, years and
    /// months, whose length varies, and for generic).
    pub fn millis(self) -> Option<(i128, i128)> {
        Some(match self {
            TimeUnit::Week => (7 * 86_400_000, 1),
            TimeUnit::Day => (86_400_000, 1),
            TimeUnit::Hour => (3_600_000, 1),
            TimeUnit::Minute => (60_000, 1),
            TimeUnit::Second => (1000, 1),
            TimeUnit::Milli => (1, 1),
            TimeUnit::Micro => (1, 1000),
            TimeUnit::Nano => (1, 1_000_000),
            TimeUnit::Pico => (1, 1_000_000_000),
            TimeUnit::Femto => (1, 1_000_000_000_000),
            TimeUnit::Atto => (1, 1_000_000_000_000_000),
            TimeUnit::Year | TimeUnit::Month | TimeUnit::Generic => return None,
        })
    }
}

/// numpy's NaT: the smallest int64.
pub const NAT: i64 = i64::MIN;
