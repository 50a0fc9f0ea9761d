//! Template 5.42's Section 7: the coded integers in CCSDS 121.0-B (adaptive entropy coding).

use crate::error::{Error, Result};

/// The section 5 parameters of template 5.42 that the stream needs.
#[derive(Debug, Clone, Copy)]
pub(crate) struct Params {
    /// Bits per value (octet 20).
    pub bits: u8,
    /// `ccsdsFlags` (libaec's flags).
    pub flags: u8,
    /// `ccsdsBlockSize`.
    pub block_size: u8,
    /// `ccsdsRsi` (reference sample interval).
    pub rsi: u16,
}

/// The `count` coded integers of an AEC stream.
pub(crate) fn decode(stream: &[u8], params: Params, count: usize) -> Result<Vec<u32>> {
    let _ = (stream, params, count);
    Err(Error::Unsupported { message: "grib: CCSDS (template 5.42) is not decoded yet".into() })
}
