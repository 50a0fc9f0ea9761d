//! Template 5.41's Section 7: a PNG image of the coded integers.

use crate::error::{Error, Result};

/// The coded integers of a PNG image of `bits`-bit values, in raster order; `count` values are
/// expected.
pub(crate) fn decode(stream: &[u8], bits: u8, count: usize) -> Result<Vec<u32>> {
    let _ = (stream, bits, count);
    Err(Error::Unsupported { message: "grib: PNG (template 5.41) is not decoded yet".into() })
}
