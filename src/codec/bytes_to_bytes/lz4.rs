//! numcodecs' `lz4`: the decoded size as a 4-byte little-endian integer, then one lz4 block
//! (lz4_flex, with bounds-checked decoding). Blosc's lz4 and lz4hc streams are plain blocks
//! ([`block_into`]).

use super::check_declared;
use crate::error::{Error, Result};

const NAME: &str = "lz4";

/// Encodes `input` as numcodecs' lz4 does: its size (32-bit little-endian), then one lz4
/// block (lz4_flex's compressor; numcodecs' C lz4 finds other matches, and either reads both).
pub fn encode_numcodecs(input: &[u8]) -> Result<Vec<u8>> {
    if i32::try_from(input.len()).is_err() {
        return Err(Error::config(
            NAME,
            format!("{} bytes are over lz4's limit of 2^31 - 1", input.len()),
        ));
    }
    Ok(lz4_flex::block::compress_prepend_size(input))
}

/// Decodes numcodecs' size-prefixed lz4 block.
pub fn decode_numcodecs(input: &[u8], expected: Option<usize>, limit: usize) -> Result<Vec<u8>> {
    let Some((head, block)) = input.split_first_chunk::<4>() else {
        return Err(Error::corrupt(
            NAME,
            format!(
                "{} bytes are too few for the 4-byte size header",
                input.len()
            ),
        ));
    };
    let declared = i32::from_le_bytes(*head);
    let declared = usize::try_from(declared).map_err(|_| {
        Error::corrupt(
            NAME,
            format!("the header declares a negative size, {declared}"),
        )
    })?;
    check_declared(NAME, declared, expected, limit)?;
    let mut out = vec![0; declared];
    block_into(block, &mut out, NAME)?;
    Ok(out)
}

/// Decodes one lz4 block that must fill `out` exactly.
pub fn block_into(block: &[u8], out: &mut [u8], codec: &'static str) -> Result<()> {
    let n = lz4_flex::block::decompress_into(block, out)
        .map_err(|e| Error::corrupt(codec, format!("lz4 block: {e}")))?;
    if n != out.len() {
        return Err(Error::corrupt(
            codec,
            format!("the lz4 block decodes to {n} bytes, not {}", out.len()),
        ));
    }
    Ok(())
}
