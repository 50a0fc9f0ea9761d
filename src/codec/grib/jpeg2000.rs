//! Template 5.40's Section 7: a JPEG 2000 codestream of the coded integers.

use crate::error::{Error, Result};

/// The coded integers of a JPEG 2000 codestream, in raster order; `count` values are expected
/// (the image's width x height must equal it: the grid's points, or with a bitmap the present
/// points as one row).
pub(crate) fn decode(stream: &[u8], count: usize) -> Result<Vec<u32>> {
    let _ = (stream, count);
    Err(Error::Unsupported { message: "grib: JPEG 2000 (template 5.40) is not decoded yet".into() })
}
