//! imagecodecs' `imagecodecs_lzf` (zarr v3 `imagecodecs_lzf`, `numcodecs.imagecodecs_lzf`): an
//! LZF stream as liblzf writes it, the chunk format of h5py's LZF filter (HDF5 filter 32000),
//! which VirtualiZarr maps to this codec. Decoded only.
//!
//! imagecodecs' `header` (true by default in its numcodecs and zarr codecs, `Lzf(header=True)`)
//! puts the decoded size in front of the stream as a 4-byte little-endian integer; h5py's
//! filter writes the stream alone (`header: false`).
//!
//! The decoder is written here from liblzf's format (lzf_d.c): each step begins with a control
//! byte. Below 32 it is a literal run of `ctrl + 1` bytes that follow it. Otherwise its top
//! three bits are a length (7: add the next byte) and its low five the high bits of a distance
//! whose low byte comes next: `len + 2` bytes are copied from `distance + 1` bytes back in the
//! output (overlapping copies repeat it, as a byte-by-byte copy does). The stream ends where the
//! input ends. (The `lzf` crate is deprecated by its author and `lzf-sys` binds the C library;
//! the decoder is small.) Every read and write is checked: a run or a copy past the end of the
//! stream, a distance before the start of the output, or an output longer than the chunk is a
//! damaged chunk (`CORRUPT_CHUNK`), as liblzf refuses them (EINVAL, E2BIG).

use super::check_declared;
use crate::error::{Error, Result};

const NAME: &str = "imagecodecs_lzf";

/// Decodes a chunk: its size header where `header` is set, then the LZF stream. `expected`:
/// the size the chunk must decode to, where known; without it the output may not exceed the
/// header's size or `limit`.
pub fn decode(
    input: &[u8],
    header: bool,
    expected: Option<usize>,
    limit: usize,
) -> Result<Vec<u8>> {
    let (declared, stream) = if header {
        let Some((head, stream)) = input.split_first_chunk::<4>() else {
            return Err(Error::corrupt(
                NAME,
                format!(
                    "{} bytes are too few for the 4-byte size header",
                    input.len()
                ),
            ));
        };
        let declared = u32::from_le_bytes(*head);
        let declared = usize::try_from(declared).unwrap_or(usize::MAX);
        check_declared(NAME, declared, expected, limit)?;
        (Some(declared), stream)
    } else {
        (None, input)
    };
    // The most the stream may write: the chunk's size, or else the header's, or the limit.
    let (cap, what) = match (expected, declared) {
        (Some(n), _) => (n, "the chunk's"),
        (None, Some(n)) => (n, "the header's"),
        (None, None) => (limit, "the limit of"),
    };
    let out = decompress(stream, cap, what)?;
    if let Some(n) = declared.filter(|&n| n != out.len()) {
        return Err(Error::corrupt(
            NAME,
            format!(
                "the stream decodes to {} bytes, but its header says {n}",
                out.len()
            ),
        ));
    }
    Ok(out)
}

/// Decodes one LZF stream into at most `cap` bytes (`what` says whose size that is, for the
/// message of a stream that decodes to more: "the chunk's"). No bytes are a stream of no
/// bytes, as imagecodecs writes and reads them (liblzf itself does not take them).
pub fn decompress(stream: &[u8], cap: usize, what: &str) -> Result<Vec<u8>> {
    let too_long = || {
        Error::corrupt(
            NAME,
            format!("the data decode to more than {what} {cap} bytes"),
        )
    };
    // LZF rarely compresses below a quarter: reserve for that much, up to the cap.
    let mut out: Vec<u8> = Vec::with_capacity(cap.min(stream.len().saturating_mul(4)));
    let mut at = 0;
    while let Some(&ctrl) = stream.get(at) {
        let start = at;
        at += 1;
        if ctrl < 32 {
            let run = usize::from(ctrl) + 1;
            let Some(literal) = stream.get(at..at + run) else {
                return Err(Error::corrupt(
                    NAME,
                    format!(
                        "the literal run of {run} bytes at byte {start} runs past the end of the \
                         {}-byte stream",
                        stream.len()
                    ),
                ));
            };
            if run > cap - out.len() {
                return Err(too_long());
            }
            out.extend_from_slice(literal);
            at += run;
        } else {
            let truncated = || {
                Error::corrupt(
                    NAME,
                    format!("the stream ends inside the back-reference at byte {start}"),
                )
            };
            let mut len = usize::from(ctrl >> 5);
            if len == 7 {
                len += usize::from(*stream.get(at).ok_or_else(truncated)?);
                at += 1;
            }
            let low = *stream.get(at).ok_or_else(truncated)?;
            at += 1;
            let len = len + 2;
            let distance = ((usize::from(ctrl & 0x1f) << 8) | usize::from(low)) + 1;
            let Some(from) = out.len().checked_sub(distance) else {
                return Err(Error::corrupt(
                    NAME,
                    format!(
                        "the back-reference at byte {start} reaches {distance} bytes back from \
                         output byte {}, before the start",
                        out.len()
                    ),
                ));
            };
            if len > cap - out.len() {
                return Err(too_long());
            }
            // Where source and destination overlap (distance < len), the bytes copied so far
            // repeat with period `distance`: copying from `from` what is already there, as
            // many times as it takes, writes what a byte-by-byte copy would.
            let mut left = len;
            while left > 0 {
                let n = left.min(out.len() - from);
                out.extend_from_within(from..from + n);
                left -= n;
            }
        }
    }
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    const BIG: usize = 1 << 20;

    #[test]
    fn literals_and_back_references() {
        // "abcabcabcX": a literal "abc", a copy of 6 from 3 back (overlapping), a literal "X".
        let stream = [2, b'a', b'b', b'c', 4 << 5, 2, 0, b'X'];
        assert_eq!(
            decompress(&stream, BIG, "").unwrap(),
            b"abcabcabcX".to_vec()
        );
        // A long copy: length 7 + 255 + 2 = 264 of one byte, from 1 back.
        let stream = [0, 7, 7 << 5, 255, 0];
        assert_eq!(decompress(&stream, BIG, "").unwrap(), vec![7u8; 265]);
        // Distance at its most (8192 bytes back).
        let mut stream = Vec::new();
        let mut want = Vec::new();
        for i in 0..256u32 {
            let chunk: Vec<u8> = (0..32).map(|j| (i * 31 + j) as u8).collect();
            stream.push(31);
            stream.extend_from_slice(&chunk);
            want.extend_from_slice(&chunk);
        }
        stream.extend_from_slice(&[(1 << 5) | 0x1f, 0xff]);
        want.extend_from_within(..3);
        assert_eq!(decompress(&stream, BIG, "").unwrap(), want);
    }

    #[test]
    fn damaged_streams_are_refused() {
        let corrupt = |stream: &[u8], cap: usize| {
            decompress(stream, cap, "the cap")
                .expect_err(&format!("{stream:?}"))
                .code()
        };
        // A literal run past the end; a back-reference before the start, and cut short.
        assert_eq!(decompress(&[], BIG, "").unwrap(), Vec::<u8>::new());
        assert_eq!(corrupt(&[3, 1, 2], BIG), "CORRUPT_CHUNK");
        assert_eq!(corrupt(&[0, 1, 1 << 5, 1], BIG), "CORRUPT_CHUNK");
        assert_eq!(corrupt(&[1 << 5, 0], BIG), "CORRUPT_CHUNK");
        assert_eq!(corrupt(&[0, 1, 1 << 5], BIG), "CORRUPT_CHUNK");
        assert_eq!(corrupt(&[0, 1, 7 << 5, 3], BIG), "CORRUPT_CHUNK");
        // More than the cap, by a literal or by a copy.
        assert_eq!(corrupt(&[2, 1, 2, 3], 2), "CORRUPT_CHUNK");
        assert_eq!(corrupt(&[0, 1, 1 << 5, 0], 3), "CORRUPT_CHUNK");
        assert_eq!(decompress(&[0, 1, 1 << 5, 0], 4, "").unwrap(), [1; 4]);
    }

    #[test]
    fn the_header_is_a_little_endian_size() {
        let stream = [4u8, 0, 0, 0, 0, 9, 1 << 5, 0];
        assert_eq!(decode(&stream, true, None, BIG).unwrap(), [9; 4]);
        assert_eq!(decode(&stream, true, Some(4), BIG).unwrap(), [9; 4]);
        // The header against the chunk's size, and against what the stream holds.
        assert_eq!(
            decode(&stream, true, Some(5), BIG).unwrap_err().code(),
            "CORRUPT_CHUNK"
        );
        let short = [5u8, 0, 0, 0, 0, 9, 1 << 5, 0];
        assert_eq!(
            decode(&short, true, None, BIG).unwrap_err().code(),
            "CORRUPT_CHUNK"
        );
        assert_eq!(
            decode(&[4, 0, 0], true, None, BIG).unwrap_err().code(),
            "CORRUPT_CHUNK"
        );
        // A header over the limit is refused before anything is decoded.
        let huge = [0u8, 0, 0, 0x80, 0, 9];
        assert_eq!(
            decode(&huge, true, None, BIG).unwrap_err().code(),
            "CORRUPT_CHUNK"
        );
        // Without the header the same bytes are a stream of their own.
        assert_eq!(decode(&stream[4..], false, None, BIG).unwrap(), [9; 4]);
    }
}
