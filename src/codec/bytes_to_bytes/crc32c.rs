//! The `crc32c` codec (zarr v3; shard indexes carry it by default): the bytes, then their
//! CRC-32C (Castagnoli) as 4 little-endian bytes.

use crate::error::{Error, Result};

const NAME: &str = "crc32c";

/// The bytes before the checksum, once the checksum matches them.
pub fn strip(input: &[u8]) -> Result<&[u8]> {
    let Some((data, sum)) = input.split_last_chunk::<4>() else {
        return Err(Error::corrupt(
            NAME,
            format!("{} bytes are too few for a 4-byte checksum", input.len()),
        ));
    };
    let expected = u32::from_le_bytes(*sum);
    let actual = ::crc32c::crc32c(data);
    if expected != actual {
        return Err(Error::Checksum {
            codec: NAME,
            expected,
            actual,
        });
    }
    Ok(data)
}

/// The bytes with their checksum appended.
pub fn append(input: &[u8]) -> Vec<u8> {
    let mut out = Vec::with_capacity(input.len() + 4);
    out.extend_from_slice(input);
    out.extend_from_slice(&::crc32c::crc32c(input).to_le_bytes());
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
        assert_eq!(strip(&stored).unwrap(), &[0u8; 32][..]);
        assert_eq!(append(&[0u8; 32]), stored);
        stored[3] = 1;
        assert_eq!(strip(&stored).unwrap_err().code(), "CHECKSUM");
    }
}
