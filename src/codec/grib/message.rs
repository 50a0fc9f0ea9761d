//! One GRIB2 message: its sections, grid, bitmap and data (written in full by the GRIB
//! decoder's own change; this file holds the interface the codec uses).

use crate::error::{Error, Result};

/// ecCodes' default `missingValue`, which it gives for a missing point.
pub const MISSING_VALUE: f64 = 9999.0;

/// A GRIB2 message, its sections located and checked.
pub struct Message<'a> {
    bytes: &'a [u8],
}

impl<'a> Message<'a> {
    /// Locates and checks the sections of one whole GRIB2 message.
    pub fn parse(bytes: &'a [u8]) -> Result<Self> {
        Ok(Self { bytes })
    }

    /// The grid's values as ecCodes gives `values` (missing points NaN).
    pub fn values(&self) -> Result<Vec<f64>> {
        Err(not_yet(self.bytes))
    }

    /// The grid points' latitudes as ecCodes gives `latitudes`.
    pub fn latitudes(&self) -> Result<Vec<f64>> {
        Err(not_yet(self.bytes))
    }

    /// The grid points' longitudes as ecCodes gives `longitudes`.
    pub fn longitudes(&self) -> Result<Vec<f64>> {
        Err(not_yet(self.bytes))
    }
}

fn not_yet(_: &[u8]) -> Error {
    Error::Unsupported { message: "grib: not decoded yet".to_string() }
}
