//! gzip (RFC 1952) and zlib (RFC 1950) around deflate (RFC 1951), inflated by miniz_oxide:
//! zarr v3's and numcodecs' `gzip`, numcodecs' `zlib`, and blosc's zlib streams.

use miniz_oxide::inflate::core::inflate_flags::{
    TINFL_FLAG_COMPUTE_ADLER32, TINFL_FLAG_PARSE_ZLIB_HEADER,
    TINFL_FLAG_USING_NON_WRAPPING_OUTPUT_BUF,
};
use miniz_oxide::inflate::core::{decompress, DecompressorOxide};
use miniz_oxide::inflate::TINFLStatus;

use crate::error::{Error, Result};

/// Inflates one deflate stream (with a zlib header and its Adler-32 checked, if `zlib`) from
/// the start of `input`. Returns the output, at most `limit` bytes, and how many input bytes
/// the stream took. The output starts at `limit` bytes where that is the size the chunk must
/// have (`exact`), so that it is never reallocated.
fn inflate(
    input: &[u8],
    zlib: bool,
    exact: bool,
    limit: usize,
    codec: &'static str,
) -> Result<(Vec<u8>, usize)> {
    let mut flags = TINFL_FLAG_USING_NON_WRAPPING_OUTPUT_BUF;
    if zlib {
        flags |= TINFL_FLAG_PARSE_ZLIB_HEADER | TINFL_FLAG_COMPUTE_ADLER32;
    }
    let cap = if exact {
        limit
    } else {
        input
            .len()
            .saturating_mul(4)
            .clamp(1 << 16, limit.max(1 << 16))
            .min(limit)
    };
    let mut out = vec![0u8; cap];
    let mut state = Box::<DecompressorOxide>::default();
    let (mut read, mut written) = (0, 0);
    loop {
        let (status, r, w) = decompress(&mut state, &input[read..], &mut out, written, flags);
        read += r;
        written += w;
        match status {
            TINFLStatus::Done => {
                out.truncate(written);
                return Ok((out, read));
            }
            TINFLStatus::HasMoreOutput => {
                if out.len() >= limit {
                    return Err(Error::corrupt(
                        codec,
                        format!("the data decode to more than {limit} bytes"),
                    ));
                }
                let grown = out.len().saturating_mul(2).min(limit);
                out.resize(grown, 0);
            }
            TINFLStatus::NeedsMoreInput | TINFLStatus::FailedCannotMakeProgress => {
                return Err(Error::corrupt(codec, "the compressed data are truncated"));
            }
            TINFLStatus::Adler32Mismatch => {
                return Err(Error::corrupt(
                    codec,
                    "the Adler-32 checksum does not match (the chunk is damaged)",
                ));
            }
            TINFLStatus::Failed | TINFLStatus::BadParam => {
                return Err(Error::corrupt(codec, "the deflate data are invalid"));
            }
        }
    }
}

/// A zlib stream (header, deflate, Adler-32), which must take all of `input`.
pub fn unzlib(input: &[u8], expected: Option<usize>, limit: usize) -> Result<Vec<u8>> {
    zlib_as(input, expected, limit, "zlib")
}

/// [`unzlib`] with another codec's name in its errors (blosc's zlib streams).
pub fn zlib_as(
    input: &[u8],
    expected: Option<usize>,
    limit: usize,
    codec: &'static str,
) -> Result<Vec<u8>> {
    let (out, read) = inflate(
        input,
        true,
        expected.is_some(),
        expected.unwrap_or(limit),
        codec,
    )?;
    if read != input.len() {
        return Err(Error::corrupt(
            codec,
            format!("{} bytes follow the zlib stream", input.len() - read),
        ));
    }
    Ok(out)
}

thread_local! {
    static STATE: std::cell::RefCell<Option<Box<DecompressorOxide>>> =
        const { std::cell::RefCell::new(None) };
}

/// A zlib stream that must take all of `input` and fill `out` exactly, inflated into `out`
/// (blosc's zlib streams, which decode straight into the chunk).
pub(crate) fn zlib_into(input: &[u8], out: &mut [u8], codec: &'static str) -> Result<()> {
    let flags = TINFL_FLAG_USING_NON_WRAPPING_OUTPUT_BUF
        | TINFL_FLAG_PARSE_ZLIB_HEADER
        | TINFL_FLAG_COMPUTE_ADLER32;
    // One state, reset per stream: blosc chunks can hold thousands of small streams.
    let (status, read, written) = STATE.with(|cell| {
        let mut slot = cell.borrow_mut();
        let state = slot.get_or_insert_with(Box::<DecompressorOxide>::default);
        state.init();
        decompress(state, input, out, 0, flags)
    });
    match status {
        TINFLStatus::Done if read == input.len() && written == out.len() => Ok(()),
        TINFLStatus::Done if read != input.len() => Err(Error::corrupt(
            codec,
            format!("{} bytes follow the zlib stream", input.len() - read),
        )),
        TINFLStatus::Done => Err(Error::corrupt(
            codec,
            format!(
                "the zlib stream decodes to {written} bytes, not {}",
                out.len()
            ),
        )),
        TINFLStatus::HasMoreOutput => Err(Error::corrupt(
            codec,
            format!("the zlib stream decodes to more than {} bytes", out.len()),
        )),
        TINFLStatus::NeedsMoreInput | TINFLStatus::FailedCannotMakeProgress => {
            Err(Error::corrupt(codec, "the zlib stream is truncated"))
        }
        TINFLStatus::Adler32Mismatch => Err(Error::corrupt(
            codec,
            "the Adler-32 checksum does not match (the chunk is damaged)",
        )),
        TINFLStatus::Failed | TINFLStatus::BadParam => {
            Err(Error::corrupt(codec, "the deflate data are invalid"))
        }
    }
}

const GZIP: &str = "gzip";

/// A zlib stream (RFC 1950) of `input` at deflate level `level` (0 to 9), as numcodecs' `Zlib`
/// writes one (miniz_oxide's deflate; zlib's own finds other matches, and either reads both).
pub fn zlib(input: &[u8], level: u8) -> Vec<u8> {
    miniz_oxide::deflate::compress_to_vec_zlib(input, level.min(9))
}

/// Raw deflate (RFC 1951) of `input` at `level` (blosc's zlib streams are zlib streams: [`zlib`]).
fn deflate(input: &[u8], level: u8) -> Vec<u8> {
    miniz_oxide::deflate::compress_to_vec(input, level.min(9))
}

/// One gzip member of `input` at deflate level `level`, with the header Python's `gzip`
/// module writes for numcodecs' `GZip` (no name; XFL 2 at level 9, 4 at level 1; OS 255)
/// but a modification time of 0 (Python writes the clock's), so that the same bytes encode
/// to the same stream.
pub fn gzip(input: &[u8], level: u8) -> Vec<u8> {
    let xfl = match level {
        9 => 2,
        1 => 4,
        _ => 0,
    };
    let body = deflate(input, level);
    let mut out = Vec::with_capacity(18 + body.len());
    out.extend_from_slice(&[0x1f, 0x8b, 8, 0, 0, 0, 0, 0, xfl, 255]);
    out.extend_from_slice(&body);
    out.extend_from_slice(&crc32fast::hash(input).to_le_bytes());
    out.extend_from_slice(&(input.len() as u32).to_le_bytes());
    out
}
const FHCRC: u8 = 2;
const FEXTRA: u8 = 4;
const FNAME: u8 = 8;
const FCOMMENT: u8 = 16;

/// The length of the gzip member header at the start of `input` (RFC 1952, 2.3.1).
fn header_len(input: &[u8]) -> Result<usize> {
    let short = || Error::corrupt(GZIP, "the gzip header is truncated");
    if input.len() < 10 {
        return Err(short());
    }
    if input[0] != 0x1f || input[1] != 0x8b || input[2] != 8 {
        return Err(Error::corrupt(
            GZIP,
            "not gzip data (bad magic bytes or method)",
        ));
    }
    let flags = input[3];
    let mut at = 10;
    if flags & FEXTRA != 0 {
        let n = input.get(at..at + 2).ok_or_else(short)?;
        at += 2 + usize::from(u16::from_le_bytes([n[0], n[1]]));
    }
    for flag in [FNAME, FCOMMENT] {
        if flags & flag != 0 {
            let end = input
                .get(at..)
                .and_then(|rest| rest.iter().position(|&b| b == 0));
            at += end.ok_or_else(short)? + 1;
        }
    }
    if flags & FHCRC != 0 {
        at += 2;
    }
    if at > input.len() {
        return Err(short());
    }
    Ok(at)
}

/// gzip members, one after another (as gzip and Python's gzip.decompress read them); each
/// member's CRC-32 and size are checked.
pub fn gunzip(input: &[u8], expected: Option<usize>, limit: usize) -> Result<Vec<u8>> {
    let mut out = Vec::new();
    let mut rest = input;
    loop {
        let body = &rest[header_len(rest)?..];
        // Each member may fill what is left of the expected size (the sum is checked by the
        // caller), or of the limit.
        let room = expected.unwrap_or(limit).saturating_sub(out.len());
        let (member, read) = inflate(body, false, expected.is_some(), room, GZIP)?;
        let trailer = body
            .get(read..read + 8)
            .ok_or_else(|| Error::corrupt(GZIP, "the gzip trailer is truncated"))?;
        let crc = u32::from_le_bytes([trailer[0], trailer[1], trailer[2], trailer[3]]);
        let size = u32::from_le_bytes([trailer[4], trailer[5], trailer[6], trailer[7]]);
        let actual = crc32fast::hash(&member);
        if crc != actual {
            return Err(Error::Checksum {
                codec: GZIP,
                expected: crc,
                actual,
            });
        }
        if size != member.len() as u32 {
            return Err(Error::corrupt(
                GZIP,
                format!(
                    "the trailer says {size} bytes (mod 2^32), the data give {}",
                    member.len()
                ),
            ));
        }
        if out.is_empty() {
            out = member;
        } else {
            out.extend_from_slice(&member);
        }
        rest = &body[read + 8..];
        if rest.is_empty() {
            return Ok(out);
        }
    }
}
