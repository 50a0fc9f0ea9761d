//! zstd (RFC 8878) through the C library (the `zstd` crate): zarr v3's `zstd` and numcodecs'
//! `zstd`, every level, with or without the frame checksum (which the library checks).

use std::cell::RefCell;

use zstd::zstd_safe::{self, DCtx, InBuffer, OutBuffer, ResetDirective};
#[cfg(feature = "compress")]
use zstd::zstd_safe::{CCtx, CParameter};

use super::check_declared;
use crate::error::{Error, Result};

const NAME: &str = "zstd";

thread_local! {
    /// One decompression context, reused: creating one allocates its tables.
    static CONTEXT: RefCell<Option<DCtx<'static>>> = const { RefCell::new(None) };
    /// One compression context, reused, likewise.
    #[cfg(feature = "compress")]
    static ENCODER: RefCell<Option<CCtx<'static>>> = const { RefCell::new(None) };
}

/// Compresses `input` into one frame, as numcodecs' `Zstd` does (level and checksum flag
/// set on a context, then `ZSTD_compress2`: the frame declares its content size).
#[cfg(feature = "compress")]
pub fn encode(input: &[u8], level: i32, checksum: bool) -> Result<Vec<u8>> {
    let refused = |code: usize| {
        Error::config(
            NAME,
            format!("zstd refused: {}", zstd_safe::get_error_name(code)),
        )
    };
    ENCODER.with(|cell| {
        let mut slot = cell.borrow_mut();
        let cctx = slot.get_or_insert_with(CCtx::create);
        cctx.reset(ResetDirective::SessionAndParameters)
            .map_err(refused)?;
        cctx.set_parameter(CParameter::CompressionLevel(level))
            .map_err(refused)?;
        cctx.set_parameter(CParameter::ChecksumFlag(checksum))
            .map_err(refused)?;
        let mut out = Vec::with_capacity(zstd_safe::compress_bound(input.len()));
        cctx.compress2(&mut out, input).map_err(refused)?;
        Ok(out)
    })
}

fn failed(code: usize) -> Error {
    Error::corrupt(NAME, zstd_safe::get_error_name(code).to_string())
}

/// Decodes one or more zstd frames. With `expected`, a declared content size that differs is
/// refused before the output is allocated, and the output is exactly that long.
pub fn decode(input: &[u8], expected: Option<usize>, limit: usize) -> Result<Vec<u8>> {
    let first = zstd_safe::get_frame_content_size(input)
        .map_err(|_| Error::corrupt(NAME, "not a zstd frame, or a truncated one"))?;
    // The first frame's declared size is the whole output's when it is the only frame.
    // (A damaged frame whose end cannot be found counts as the only one.)
    let single = !matches!(zstd_safe::find_frame_compressed_size(input), Ok(n) if n < input.len());
    let declared = first
        .filter(|_| single)
        .map(|size| usize::try_from(size).unwrap_or(usize::MAX));
    if let Some(size) = declared {
        check_declared(NAME, size, expected, limit)?;
    }
    CONTEXT.with(|cell| {
        let mut slot = cell.borrow_mut();
        let dctx = slot.get_or_insert_with(DCtx::create);
        match expected.or(declared) {
            Some(size) => {
                let mut out = Vec::with_capacity(size);
                // A frame that says nothing of its size may still be longer than `size`: the
                // library then stops with "Destination buffer is too small".
                dctx.decompress(&mut out, input).map_err(failed)?;
                Ok(out)
            }
            None => stream(dctx, input, limit),
        }
    })
}

/// Decodes zstd frames that must fill `out` exactly, into `out` (blosc's zstd streams, which
/// decode straight into the chunk). Errors carry `codec`'s name.
#[cfg(feature = "compress")]
pub(crate) fn decode_into(input: &[u8], out: &mut [u8], codec: &'static str) -> Result<()> {
    CONTEXT.with(|cell| {
        let mut slot = cell.borrow_mut();
        let dctx = slot.get_or_insert_with(DCtx::create);
        let n = dctx.decompress(out, input).map_err(|code| {
            Error::corrupt(
                codec,
                format!("zstd stream: {}", zstd_safe::get_error_name(code)),
            )
        })?;
        if n != out.len() {
            return Err(Error::corrupt(
                codec,
                format!("the zstd stream decodes to {n} bytes, not {}", out.len()),
            ));
        }
        Ok(())
    })
}

/// Decodes frames whose size no header gives, growing the output up to `limit`.
fn stream(dctx: &mut DCtx<'static>, input: &[u8], limit: usize) -> Result<Vec<u8>> {
    dctx.reset(ResetDirective::SessionOnly).map_err(failed)?;
    let mut out: Vec<u8> =
        Vec::with_capacity(input.len().saturating_mul(4).clamp(1 << 16, limit.max(1)));
    let mut source = InBuffer::around(input);
    loop {
        if out.len() == out.capacity() {
            if out.len() >= limit {
                return Err(Error::corrupt(
                    NAME,
                    format!("the data decode to more than the limit of {limit} bytes"),
                ));
            }
            let more = out.len().max(1 << 16).min(limit - out.len());
            out.reserve_exact(more);
        }
        let start = out.len();
        let hint = {
            let mut sink = OutBuffer::around_pos(&mut out, start);
            dctx.decompress_stream(&mut sink, &mut source)
                .map_err(failed)?
        };
        if hint == 0 && source.pos() == input.len() {
            // Every frame ended, and the input with them.
            return Ok(out);
        }
        if source.pos() == input.len() && out.len() < out.capacity() {
            return Err(Error::corrupt(NAME, "the frame is truncated"));
        }
    }
}
