//! numcodecs' `bz2` (zarr v3 `numcodecs.bz2`): Python's `bz2.compress(data, level)` and
//! `bz2.decompress`, through the bzip2 crate over libbz2-rs-sys (libbzip2 1.0.8 in Rust).

use std::io::Write;

use bzip2::read::MultiBzDecoder;
use bzip2::write::BzEncoder;
use bzip2::Compression;

use super::read_stream;
use crate::error::{Error, Result};

pub(crate) const NAME: &str = "bz2";

/// One bzip2 stream at `level` (1 to 9, the block size in 100 kB), as Python's
/// `bz2.compress` writes it.
pub fn encode(input: &[u8], level: u8) -> Result<Vec<u8>> {
    let mut enc = BzEncoder::new(
        Vec::with_capacity(input.len() / 2 + 64),
        Compression::new(level.into()),
    );
    enc.write_all(input)
        .and_then(|_| enc.finish())
        .map_err(|_| Error::config(NAME, "the bzip2 encoder failed"))
}

/// Every bzip2 stream of `input`, one after another (as Python's `bz2.decompress` reads
/// them), each block's CRC and the stream's checked. `codec`: the codec's name in errors
/// (numcodecs' `bz2`, or imagecodecs' `imagecodecs_bz2`, whose `bz2_decode` reads the same).
pub fn decode(
    input: &[u8],
    codec: &'static str,
    expected: Option<usize>,
    limit: usize,
) -> Result<Vec<u8>> {
    if input.is_empty() {
        return Err(Error::corrupt(codec, "the chunk is empty"));
    }
    read_stream(MultiBzDecoder::new(input), codec, "bzip2", expected, limit)
}
