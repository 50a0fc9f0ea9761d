//! One section of a GRIB2 message, read by WMO octet numbers (1-based, as the templates in the
//! WMO manual and ecCodes' definitions number them), every read checked against the section's
//! own length so that a short section is refused rather than read into its neighbour.

use crate::error::{Error, Result};

/// ecCodes' `GRIB_MISSING_LONG`: a value it reads as "missing" wherever it stands, even when
/// the octets hold it as a real number.
pub(super) const MISSING_LONG: i64 = 0x7FFF_FFFF;

/// ecCodes' `GRIB_MISSING_DOUBLE`.
pub(super) const MISSING_DOUBLE: f64 = -1e100;

pub(super) fn corrupt(message: impl Into<String>) -> Error {
    Error::corrupt("grib", message)
}

pub(super) fn unsupported(message: impl std::fmt::Display) -> Error {
    Error::Unsupported {
        message: format!("grib: {message}"),
    }
}

#[derive(Clone, Copy, Debug)]
pub(super) struct Section<'a> {
    pub number: u8,
    /// The whole section, its 5-octet header included.
    pub bytes: &'a [u8],
}

impl<'a> Section<'a> {
    /// Refuses a section too short for the `octets` its template defines.
    pub fn require(&self, octets: usize, what: &str) -> Result<()> {
        if self.bytes.len() < octets {
            return Err(corrupt(format!(
                "section {} is {} octets long, too short for {what} ({octets} octets)",
                self.number,
                self.bytes.len()
            )));
        }
        Ok(())
    }

    fn octets<const N: usize>(&self, at: usize) -> Result<[u8; N]> {
        at.checked_sub(1)
            .and_then(|start| self.bytes.get(start..start + N))
            .and_then(|s| s.try_into().ok())
            .ok_or_else(|| {
                corrupt(format!(
                    "section {} ends before octet {}",
                    self.number,
                    at + N - 1
                ))
            })
    }

    pub fn u8(&self, at: usize) -> Result<u8> {
        Ok(self.octets::<1>(at)?[0])
    }

    pub fn u16(&self, at: usize) -> Result<u16> {
        Ok(u16::from_be_bytes(self.octets(at)?))
    }

    pub fn u32(&self, at: usize) -> Result<u32> {
        Ok(u32::from_be_bytes(self.octets(at)?))
    }

    /// An `unsigned[4]` key that may be "missing" (all ones), as ecCodes reads it.
    pub fn u32_or_missing(&self, at: usize) -> Result<i64> {
        let v = self.u32(at)?;
        Ok(if v == u32::MAX {
            MISSING_LONG
        } else {
            v as i64
        })
    }

    /// GRIB2 signed integers are sign and magnitude, not two's complement.
    pub fn i16(&self, at: usize) -> Result<i64> {
        let v = self.u16(at)?;
        let magnitude = (v & 0x7FFF) as i64;
        Ok(if v & 0x8000 != 0 {
            -magnitude
        } else {
            magnitude
        })
    }

    pub fn i32(&self, at: usize) -> Result<i64> {
        let v = self.u32(at)?;
        let magnitude = (v & 0x7FFF_FFFF) as i64;
        Ok(if v & 0x8000_0000 != 0 {
            -magnitude
        } else {
            magnitude
        })
    }

    /// The octets from `at` (1-based) to the section's end.
    pub fn rest(&self, at: usize) -> &'a [u8] {
        self.bytes.get(at.saturating_sub(1)..).unwrap_or(&[])
    }
}
