//! The array -> bytes codecs that code a chunk as one stream (the codec table's
//! [`Runs::WholeChunk`](super::table::Runs) rows): what the chain and each such codec's wasm
//! module need of one, so that a module's class is one macro (`crates/common.rs`) and the
//! chain runs them all alike ([`super::whole_chunk_codec`] builds one).

use crate::array::ArrayData;
use crate::dtype::DataType;
use crate::error::{Error, Result};

/// A whole-chunk codec bound to one array's chunks: the values it receives and their count.
// Not Debug: a vtable entry for it would link the formatting machinery into every module.
pub trait WholeChunkCodec: Send + Sync {
    /// The data type it receives.
    fn data_type(&self) -> DataType;
    /// The values in one chunk.
    fn len(&self) -> usize;
    fn is_empty(&self) -> bool {
        self.len() == 0
    }
    /// The stream of a chunk's values, given as their little-endian bytes (checked to be one
    /// chunk's).
    fn encode_bytes(&self, raw: &[u8]) -> Result<Vec<u8>>;
    /// A stream's values into `out`, reusing its buffer where the codec can (one array's
    /// chunks have one shape). A stream of another count of values is refused.
    fn decode_into(&self, stream: &[u8], out: &mut ArrayData) -> Result<()>;
}

/// Refuses the little-endian bytes of a chunk's values that are not `count` values of `dtype`.
pub fn check_chunk_bytes(raw: &[u8], count: usize, dtype: DataType) -> Result<()> {
    let expected = count * dtype.size();
    if raw.len() != expected {
        return Err(Error::ChunkLength {
            what: "bytes",
            expected,
            actual: raw.len(),
        });
    }
    Ok(())
}
