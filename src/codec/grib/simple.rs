//! Template 5.0 (simple packing): `count` integers of `bits` bits, back to back from the first
//! octet of Section 7's data, each scaled as (X * 2^E + R) * 10^-D (ecCodes'
//! `data_simple_packing`, `grib_decode_array`).

use super::bits::{read_wide, BitStream};
use super::scaling::Scaling;
use super::section::corrupt;
use crate::error::Result;

/// ecCodes reads integers of up to 64 bits (`sizeof(long) * 8`) and refuses wider ones.
const MAX_BITS: u32 = 64;

/// Appends the `count` values to `out`. `bits` 0 is a constant field: R at every point, with
/// no data at all.
pub(super) fn decode(
    data: &[u8],
    bits: u32,
    count: usize,
    scaling: Scaling,
    out: &mut Vec<f64>,
) -> Result<()> {
    if bits > MAX_BITS {
        return Err(corrupt(format!(
            "simple packing with {bits} bits per value (at most {MAX_BITS})"
        )));
    }
    if bits == 0 {
        out.resize(out.len() + count, scaling.reference);
        return Ok(());
    }
    check_room(data, bits, count, "the packed values")?;
    if bits <= 32 {
        let mut stream = BitStream::new(data);
        out.extend((0..count).map(|_| scaling.apply(stream.take(bits) as f64)));
    } else {
        out.extend(
            (0..count as u64).map(|i| scaling.apply(read_wide(data, i * bits as u64, bits) as f64)),
        );
    }
    Ok(())
}

/// Refuses `data` too short for `count` fields of `bits` bits. ecCodes checks only the whole
/// octets (`bits * count / 8`) and reads the last partial one from whatever follows; a
/// message that short was not written by any encoder, so it is refused here.
pub(super) fn check_room(data: &[u8], bits: u32, count: usize, what: &str) -> Result<()> {
    let needed = (bits as u128 * count as u128).div_ceil(8);
    if needed > data.len() as u128 {
        return Err(corrupt(format!(
            "section 7 holds {} octets of data, {what} need {needed} ({count} values of {bits} bits)",
            data.len()
        )));
    }
    Ok(())
}
