//! The array -> bytes codecs that code a chunk as one stream (the codec table's
//! [`Runs::WholeChunk`](super::table::Runs) rows): what the chain and each such codec's wasm
//! module need of one, so that a module's class is one macro (`crates/common.rs`) and the
//! chain runs them all alike ([`super::whole_chunk_codec`] builds one).

#[cfg(feature = "whole-chunk")]
use std::sync::Arc;

use crate::array::ArrayData;
use crate::dtype::DataType;
use crate::error::{Error, Result};
use crate::json::Value;

/// A whole-chunk codec bound to one array's chunks: the values it receives and their count.
// Not Debug: a vtable entry for it would link the formatting machinery into every module.
pub trait WholeChunkCodec: Send + Sync {
    /// The data type it receives.
    fn data_type(&self) -> DataType;
    /// The stream of a chunk's values, given as their little-endian bytes (checked to be one
    /// chunk's).
    fn encode_bytes(&self, raw: &[u8]) -> Result<Vec<u8>>;
    /// A stream's values into `out`, reusing its buffer where the codec can (one array's
    /// chunks have one shape). A stream of another count of values is refused.
    fn decode_into(&self, stream: &[u8], out: &mut ArrayData) -> Result<()>;
}

/// A chain's whole-chunk array -> bytes codec, with its metadata as written. In a build without
/// any such codec the type has no values, so that the chain's arms for it compile to nothing.
#[cfg(feature = "whole-chunk")]
#[derive(Clone)]
pub struct WholeChunkSerializer {
    codec: Arc<dyn WholeChunkCodec>,
    meta: Value,
}

#[cfg(not(feature = "whole-chunk"))]
#[derive(Clone)]
pub enum WholeChunkSerializer {}

#[cfg(feature = "whole-chunk")]
impl WholeChunkSerializer {
    pub(crate) fn new(codec: Arc<dyn WholeChunkCodec>, meta: Value) -> Self {
        Self { codec, meta }
    }

    pub(crate) fn encode(&self, data: &ArrayData) -> Result<Vec<u8>> {
        self.codec.encode_bytes(&data.to_le_bytes())
    }

    pub(crate) fn decode(&self, bytes: &[u8]) -> Result<ArrayData> {
        let mut out = ArrayData::UInt8(Vec::new());
        self.codec.decode_into(bytes, &mut out)?;
        Ok(out)
    }

    pub(crate) fn meta(&self) -> &Value {
        &self.meta
    }
}

#[cfg(not(feature = "whole-chunk"))]
impl WholeChunkSerializer {
    pub(crate) fn encode(&self, _: &ArrayData) -> Result<Vec<u8>> {
        match *self {}
    }

    pub(crate) fn decode(&self, _: &[u8]) -> Result<ArrayData> {
        match *self {}
    }

    pub(crate) fn meta(&self) -> &Value {
        match *self {}
    }
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
