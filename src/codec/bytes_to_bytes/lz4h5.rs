//! imagecodecs' `imagecodecs_lz4h5` (zarr v3 `imagecodecs_lz4h5`, `numcodecs.imagecodecs_lz4h5`):
//! the chunk format of the HDF5 LZ4 filter (HDF5 filter 32004, hdf5plugin's `LZ4`), which
//! VirtualiZarr maps to this codec. Decoded only.
//!
//! The format (hdf5_plugins' LZ4_HDF5_format.md, H5Zlz4.c, imagecodecs' `lz4h5_decode`): the
//! decoded size as a big-endian signed 64-bit integer, the decoded size of each block as a
//! big-endian signed 32-bit integer (more than 0; the last block may be smaller), then each
//! block: its stored size (big-endian signed 32-bit) and its bytes, an lz4 block (lz4_flex,
//! checked) or, where the stored size equals the block's decoded size, the bytes themselves.
//! A decoded size of 0 has no blocks. A header that declares another size than the chunk's, a
//! block size of 0 or less, a block that does not decode to its size, a stream that ends early
//! or has bytes after its last block is a damaged chunk (`CORRUPT_CHUNK`).

use super::{check_declared, lz4};
use crate::error::{Error, Result};

const NAME: &str = "imagecodecs_lz4h5";

fn corrupt(message: impl Into<String>) -> Error {
    Error::corrupt(NAME, message)
}

/// Decodes a chunk. `expected`: the size it must decode to, where known; without it the
/// header's size may not exceed `limit`.
pub fn decode(input: &[u8], expected: Option<usize>, limit: usize) -> Result<Vec<u8>> {
    let Some((head, mut rest)) = input.split_first_chunk::<12>() else {
        return Err(corrupt(format!(
            "{} bytes are too few for the 12-byte header",
            input.len()
        )));
    };
    let (total, block) = head.split_at(8);
    let total = i64::from_be_bytes(total.try_into().expect("8 bytes"));
    let block = i32::from_be_bytes(block.try_into().expect("4 bytes"));
    let total = u64::try_from(total)
        .map_err(|_| corrupt(format!("the header declares a negative size, {total}")))?;
    // (A size past the address space is past any limit.)
    check_declared(
        NAME,
        usize::try_from(total).unwrap_or(usize::MAX),
        expected,
        limit,
    )?;
    let total = total as usize;
    let block = usize::try_from(block)
        .ok()
        .filter(|&b| b > 0)
        .ok_or_else(|| corrupt(format!("the header's block size is {block}, not above 0")))?;
    let mut out = vec![0u8; total];
    let mut at = 0;
    let mut index = 0;
    while at < total {
        let n = block.min(total - at);
        let Some((size, after)) = rest.split_first_chunk::<4>() else {
            return Err(corrupt(format!(
                "the stream ends before block {index} (at decoded byte {at} of {total})"
            )));
        };
        let size = i32::from_be_bytes(*size);
        let size = usize::try_from(size)
            .ok()
            .filter(|&s| s > 0)
            .ok_or_else(|| corrupt(format!("block {index} says it holds {size} bytes")))?;
        if size > after.len() {
            return Err(corrupt(format!(
                "block {index} says it holds {size} bytes, but {} are left",
                after.len()
            )));
        }
        let (data, next) = after.split_at(size);
        let into = &mut out[at..at + n];
        if size == n {
            // Stored as it was: lz4 did not make it smaller.
            into.copy_from_slice(data);
        } else {
            lz4::block_into(data, into, NAME)?;
        }
        at += n;
        rest = next;
        index += 1;
    }
    if !rest.is_empty() {
        return Err(corrupt(format!(
            "{} bytes follow the last block",
            rest.len()
        )));
    }
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    const BIG: usize = 1 << 20;

    fn header(total: i64, block: i32) -> Vec<u8> {
        let mut h = total.to_be_bytes().to_vec();
        h.extend_from_slice(&block.to_be_bytes());
        h
    }

    /// A stream of `data` in blocks of `block` bytes, each lz4 unless stored raw.
    fn encode(data: &[u8], block: usize, raw: bool) -> Vec<u8> {
        let mut out = header(data.len() as i64, block as i32);
        for part in data.chunks(block) {
            let packed = lz4_flex::block::compress(part);
            let body = if raw || packed.len() >= part.len() {
                part.to_vec()
            } else {
                packed
            };
            out.extend_from_slice(&(body.len() as i32).to_be_bytes());
            out.extend_from_slice(&body);
        }
        out
    }

    #[test]
    fn blocks_lz4_and_raw() {
        let data: Vec<u8> = (0..1000u32).map(|i| (i / 7) as u8).collect();
        for (block, raw) in [(1000, false), (256, false), (300, true), (5000, false)] {
            let stream = encode(&data, block, raw);
            assert_eq!(decode(&stream, Some(1000), BIG).unwrap(), data, "{block}");
            assert_eq!(decode(&stream, None, BIG).unwrap(), data, "{block}");
        }
        // No bytes: the header alone.
        assert_eq!(
            decode(&header(0, 1), Some(0), BIG).unwrap(),
            Vec::<u8>::new()
        );
    }

    #[test]
    fn damaged_streams_are_refused() {
        let data: Vec<u8> = (0..1000u32).map(|i| (i / 7) as u8).collect();
        let good = encode(&data, 256, false);
        let refused = |stream: &[u8], expected: Option<usize>| {
            decode(stream, expected, BIG)
                .expect_err(&format!("{} bytes", stream.len()))
                .code()
        };
        assert_eq!(refused(&good[..11], Some(1000)), "CORRUPT_CHUNK");
        assert_eq!(
            refused(&good[..good.len() - 1], Some(1000)),
            "CORRUPT_CHUNK"
        );
        assert_eq!(refused(&good[..12], Some(1000)), "CORRUPT_CHUNK");
        let mut extra = good.clone();
        extra.push(0);
        assert_eq!(refused(&extra, Some(1000)), "CORRUPT_CHUNK");
        // Wrong sizes in the header: another total, negative, over the limit; a block size of
        // 0 or below.
        for (total, block) in [(999, 256), (1001, 256), (-1, 256), (1 << 40, 256)] {
            let mut s = header(total, block);
            s.extend_from_slice(&good[12..]);
            assert_eq!(refused(&s, Some(1000)), "CORRUPT_CHUNK", "{total} {block}");
            assert_eq!(
                refused(&s, None),
                "CORRUPT_CHUNK",
                "{total} {block} (unknown size)"
            );
        }
        for block in [0, -5, 255, 257] {
            let mut s = header(1000, block);
            s.extend_from_slice(&good[12..]);
            assert_eq!(refused(&s, Some(1000)), "CORRUPT_CHUNK", "block {block}");
        }
        // A block's stored size of 0, negative, or past the end.
        for size in [0i32, -1, 100_000] {
            let mut s = good.clone();
            s[12..16].copy_from_slice(&size.to_be_bytes());
            assert_eq!(refused(&s, Some(1000)), "CORRUPT_CHUNK", "size {size}");
        }
    }
}
