//! numcodecs' `packbits` (zarr v2 filter `packbits`, zarr v3 `numcodecs.packbits`): a bool
//! chunk as one byte giving how many bits of the last byte are padding, then numpy's
//! `packbits` of the values (eight to a byte, the first the highest bit).
//!
//! The layout runs it after `bytes`, which lays a bool chunk out one byte a value.

use crate::error::{Error, Result};

const NAME: &str = "packbits";

/// Packs `values` (one byte each; any other than 0 is true, as numpy's `packbits` reads it).
pub fn encode(values: &[u8]) -> Vec<u8> {
    let mut out = Vec::with_capacity(1 + values.len().div_ceil(8));
    out.push(((8 - values.len() % 8) % 8) as u8);
    for group in values.chunks(8) {
        let byte = group
            .iter()
            .enumerate()
            .fold(0u8, |b, (i, &v)| b | (u8::from(v != 0) << (7 - i)));
        out.push(byte);
    }
    out
}

/// The values of a packed chunk, one byte (0 or 1) each.
pub fn decode(input: &[u8]) -> Result<Vec<u8>> {
    let (&padding, bits) = input
        .split_first()
        .ok_or_else(|| Error::corrupt(NAME, "the chunk is empty (it has no padding byte)"))?;
    if padding > 7 || (bits.is_empty() && padding != 0) {
        return Err(Error::corrupt(
            NAME,
            format!(
                "the padding byte says {padding} bits of the last byte are unused, with {} bytes \
                 of bits",
                bits.len()
            ),
        ));
    }
    let n = bits.len() * 8 - usize::from(padding);
    let mut out = Vec::with_capacity(bits.len() * 8);
    for &b in bits {
        out.extend((0..8).map(|i| (b >> (7 - i)) & 1));
    }
    out.truncate(n);
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn numcodecs_packs_five_values_in_one_byte() {
        // zarr-python 3.4.2's numcodecs.packbits chunk of [T, F, F, T, F] is 03 90.
        let v = [1u8, 0, 0, 1, 0];
        assert_eq!(encode(&v), [3, 0x90]);
        assert_eq!(decode(&[3, 0x90]).unwrap(), v);
        assert_eq!(encode(&[]), [0]);
        assert_eq!(decode(&[0]).unwrap(), Vec::<u8>::new());
        for bad in [&[][..], &[8, 0], &[1]] {
            assert_eq!(decode(bad).unwrap_err().code(), "CORRUPT_CHUNK");
        }
    }
}
