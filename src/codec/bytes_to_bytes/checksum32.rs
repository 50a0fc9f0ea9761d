//! The 32-bit checksum codecs: zarr v3's `crc32c` (shard indexes carry it by default) and
//! numcodecs' `crc32`, `adler32`, `crc32c` and `fletcher32` (zarr v3 `numcodecs.*`). Each
//! stores the bytes and their checksum as 4 little-endian bytes, after them or (numcodecs'
//! `location: "start"`) before them; a checksum that does not match is `CHECKSUM`.

use crate::codec::table::{Checksum, Place};
use crate::error::{Error, Result};

impl Checksum {
    fn of(self, data: &[u8]) -> u32 {
        match self {
            Checksum::Crc32c => ::crc32c::crc32c(data),
            Checksum::Crc32 => {
                let mut h = crc32fast::Hasher::new();
                h.update(data);
                h.finalize()
            }
            Checksum::Adler32 => adler2::adler32_slice(data),
            Checksum::Fletcher32 => fletcher32(data),
        }
    }
}

/// HDF5's Fletcher-32 (H5_checksum_fletcher32, which numcodecs' `fletcher32` follows): sums of
/// big-endian 16-bit words, folded every 360 words so that 32 bits never overflow; an odd
/// last byte is a word's high byte.
fn fletcher32(data: &[u8]) -> u32 {
    let fold = |s: u32| (s & 0xffff) + (s >> 16);
    let (mut sum1, mut sum2) = (0u32, 0u32);
    let words = data.chunks_exact(2);
    let odd = words.remainder().first().copied();
    let mut n = 0;
    for w in words {
        sum1 += u32::from(u16::from_be_bytes([w[0], w[1]]));
        sum2 += sum1;
        n += 1;
        if n == 360 {
            (sum1, sum2, n) = (fold(sum1), fold(sum2), 0);
        }
    }
    if n > 0 {
        (sum1, sum2) = (fold(sum1), fold(sum2));
    }
    if let Some(b) = odd {
        sum1 += u32::from(b) << 8;
        sum2 += sum1;
        (sum1, sum2) = (fold(sum1), fold(sum2));
    }
    // The second reduction, then the two sums side by side (as HDF5 writes it, in u32).
    let (sum1, sum2) = (fold(sum1), fold(sum2));
    sum2.wrapping_shl(16) | sum1
}

/// The bytes without their checksum, once the checksum matches them.
pub fn strip<'a>(
    sum: Checksum,
    place: Place,
    input: &'a [u8],
    codec: &'static str,
) -> Result<&'a [u8]> {
    let split = match place {
        Place::End => input
            .split_last_chunk::<4>()
            .map(|(data, sum)| (data, *sum)),
        Place::Start => input
            .split_first_chunk::<4>()
            .map(|(sum, data)| (data, *sum)),
    };
    let Some((data, stored)) = split else {
        return Err(Error::corrupt(
            codec,
            format!("{} bytes are too few for a 4-byte checksum", input.len()),
        ));
    };
    let expected = u32::from_le_bytes(stored);
    let actual = sum.of(data);
    if expected != actual {
        return Err(Error::Checksum {
            codec,
            expected,
            actual,
        });
    }
    Ok(data)
}

/// The bytes with their checksum where `place` says.
pub fn append(sum: Checksum, place: Place, input: &[u8]) -> Vec<u8> {
    let bytes = sum.of(input).to_le_bytes();
    let mut out = Vec::with_capacity(input.len() + 4);
    if place == Place::Start {
        out.extend_from_slice(&bytes);
    }
    out.extend_from_slice(input);
    if place == Place::End {
        out.extend_from_slice(&bytes);
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    /// RFC 3720 (iSCSI), B.4: 32 bytes of zeros have CRC-32C 0x8a9136aa.
    #[test]
    fn rfc_3720_example() {
        let mut stored = vec![0u8; 32];
        stored.extend_from_slice(&0x8a91_36aau32.to_le_bytes());
        let strip_end =
            |s: &[u8]| strip(Checksum::Crc32c, Place::End, s, "crc32c").map(<[u8]>::to_vec);
        assert_eq!(strip_end(&stored).unwrap(), vec![0u8; 32]);
        assert_eq!(append(Checksum::Crc32c, Place::End, &[0u8; 32]), stored);
        stored[3] = 1;
        assert_eq!(strip_end(&stored).unwrap_err().code(), "CHECKSUM");
    }

    /// The check values of the CRC catalogue ("123456789"): CRC-32 0xcbf43926; and Adler-32's
    /// of "Wikipedia", 0x11e60398 (RFC 1950's algorithm).
    #[test]
    fn check_values() {
        assert_eq!(Checksum::Crc32.of(b"123456789"), 0xcbf4_3926);
        assert_eq!(Checksum::Crc32c.of(b"123456789"), 0xe306_9283);
        assert_eq!(Checksum::Adler32.of(b"Wikipedia"), 0x11e6_0398);
    }
}
