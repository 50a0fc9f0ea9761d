//! numcodecs' `lzma` (zarr v3 `numcodecs.lzma`): Python's `lzma.compress` / `lzma.decompress`
//! with numcodecs' `format`, `check` and `preset`, through lzma-rust2 (pure Rust): xz streams
//! (FORMAT_XZ, numcodecs' default, with any of xz's checks), .lzma files (FORMAT_ALONE) and
//! bare LZMA2 streams (FORMAT_RAW), with filter chains of an optional delta filter and LZMA2
//! (others are refused when the codec is configured).

use std::io::Write;

use lzma_rust2::{
    CheckType, FilterConfig, Lzma2Options, Lzma2Reader, Lzma2Writer, LzmaOptions, LzmaReader,
    LzmaWriter, XzOptions, XzReader, XzWriter,
};

use super::{read_stream, LzmaParams};
use crate::error::{Error, Result};

const NAME: &str = "lzma";

/// The most memory a stream's header may ask the decoder for, in KiB (256 MiB: preset 9's
/// dictionary is 64 MiB), so that a damaged header cannot make it allocate gigabytes.
const MEMORY_KB: u32 = 1 << 18;

fn check_type(check: u8) -> CheckType {
    match check {
        0 => CheckType::None,
        1 => CheckType::Crc32,
        10 => CheckType::Sha256,
        _ => CheckType::Crc64,
    }
}

/// Compresses `input` as Python's `lzma.compress(input, format, check, preset)` does, in
/// lzma-rust2's encoder (another encoder than liblzma's, so other bytes; liblzma decodes them).
/// The LZMA options of a preset, with a filter chain's dictionary size.
fn lzma_options(p: LzmaParams) -> LzmaOptions {
    let mut options = LzmaOptions::with_preset(p.preset.into());
    if p.dict_size != 0 {
        options.dict_size = p.dict_size;
    }
    options
}

/// The dictionary size a bare LZMA2 stream of these settings was written with.
fn dict_size(p: LzmaParams) -> u32 {
    lzma_options(p).dict_size
}

/// liblzma's delta filter (one byte at a time, `dist` bytes apart; the first `dist` against 0).
fn delta_encode(dist: usize, bytes: &mut [u8]) {
    for i in (dist..bytes.len()).rev() {
        bytes[i] = bytes[i].wrapping_sub(bytes[i - dist]);
    }
}

fn delta_decode(dist: usize, bytes: &mut [u8]) {
    for i in dist..bytes.len() {
        bytes[i] = bytes[i].wrapping_add(bytes[i - dist]);
    }
}

pub fn encode(input: &[u8], p: LzmaParams) -> Result<Vec<u8>> {
    let failed = |_| Error::config(NAME, "the lzma encoder failed");
    let out = Vec::with_capacity(input.len() / 2 + 64);
    if p.raw {
        let mut bytes = input.to_vec();
        if p.delta != 0 {
            delta_encode(p.delta.into(), &mut bytes);
        }
        let options = Lzma2Options {
            lzma_options: lzma_options(p),
            ..Lzma2Options::default()
        };
        let mut w = Lzma2Writer::new(out, options);
        w.write_all(&bytes).map_err(failed)?;
        return w.finish().map_err(failed);
    }
    if p.xz {
        let mut options = XzOptions::with_preset(p.preset.into());
        options.lzma_options = lzma_options(p);
        if p.delta != 0 {
            options
                .filters
                .push(FilterConfig::new_delta(p.delta.into()));
        }
        options.set_check_sum_type(check_type(p.check));
        let mut w = XzWriter::new(out, options).map_err(failed)?;
        w.write_all(input).map_err(failed)?;
        w.finish().map_err(failed)
    } else {
        let options = LzmaOptions::with_preset(p.preset.into());
        let mut w =
            LzmaWriter::new_use_header(out, &options, Some(input.len() as u64)).map_err(failed)?;
        w.write_all(input).map_err(failed)?;
        w.finish().map_err(failed)
    }
}

/// Decodes one stream of `input` in the configured format, its check verified.
pub fn decode(
    input: &[u8],
    p: LzmaParams,
    expected: Option<usize>,
    limit: usize,
) -> Result<Vec<u8>> {
    if input.is_empty() {
        return Err(Error::corrupt(NAME, "the chunk is empty"));
    }
    if p.raw {
        let reader = Lzma2Reader::new_mem_limit(input, dict_size(p), MEMORY_KB, None)
            .map_err(|_| Error::corrupt(NAME, "the LZMA2 dictionary is too large"))?;
        let mut out = read_stream(reader, NAME, "LZMA2", expected, limit)?;
        if p.delta != 0 {
            delta_decode(p.delta.into(), &mut out);
        }
        return Ok(out);
    }
    if p.xz {
        let reader = XzReader::new_mem_limit(input, true, MEMORY_KB);
        read_stream(reader, NAME, "xz", expected, limit)
    } else {
        let reader = LzmaReader::new_mem_limit(input, MEMORY_KB, None)
            .map_err(|_| Error::corrupt(NAME, "the .lzma header is invalid"))?;
        read_stream(reader, NAME, ".lzma", expected, limit)
    }
}
