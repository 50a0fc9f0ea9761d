//! The pcodec wasm module: `numcodecs.pcodec` (the `pco` crate) on its own, so that only
//! readers of arrays that use it download it.

use wasm_bindgen::prelude::*;

use zarr_wasm_codecs::array::ArrayData;
use zarr_wasm_codecs::codec::pcodec::Pcodec;
use zarr_wasm_codecs::dtype::DataType;

#[path = "../../common.rs"]
#[allow(dead_code)]
mod common;
use common::{check_chunk_bytes, js_error, parse_json, to_typed_array, typed_array_bytes};

/// `numcodecs.pcodec` for one array's chunks: a pco stream per chunk, of the chunk's values in
/// C order.
#[wasm_bindgen]
pub struct PcodecCodec {
    pcodec: Pcodec,
    dtype: DataType,
    /// The values in one chunk.
    count: usize,
    /// The last `decodeBytes`' values.
    out: ArrayData,
}

#[wasm_bindgen]
impl PcodecCodec {
    /// `configuration_json`: the codec's configuration (`{}` for numcodecs' defaults);
    /// `data_type`: what it receives; `chunk_shape_json`: the (inner) chunk shape.
    #[wasm_bindgen(constructor)]
    pub fn new(
        configuration_json: &str,
        data_type: &str,
        chunk_shape_json: &str,
    ) -> Result<PcodecCodec, JsValue> {
        let configuration = parse_json(configuration_json, "pcodec configuration")?;
        let shape = parse_json(chunk_shape_json, "chunk shape")?;
        let shape = zarr_wasm_codecs::codec::parse_shape(&shape).map_err(js_error)?;
        let dtype = DataType::from_name(data_type).map_err(js_error)?;
        let pcodec = Pcodec::new(Some(&configuration), dtype).map_err(js_error)?;
        Ok(Self {
            pcodec,
            dtype,
            count: shape.iter().product(),
            out: ArrayData::UInt8(Vec::new()),
        })
    }

    /// A typed array of the chunk's values -> its pco stream.
    pub fn encode(&self, data: &JsValue) -> Result<Vec<u8>, JsValue> {
        let bytes = typed_array_bytes(data, self.dtype)?;
        if bytes.len() != self.count * self.dtype.size() {
            return Err(js_error(zarr_wasm_codecs::error::Error::ChunkLength {
                what: "elements",
                expected: self.count,
                actual: bytes.len() / self.dtype.size(),
            }));
        }
        self.pcodec.encode(&bytes).map_err(js_error)
    }

    /// A pco stream -> a typed array of the chunk's values.
    pub fn decode(&self, bytes: &[u8]) -> Result<JsValue, JsValue> {
        let values = self
            .pcodec
            .decode_values(bytes, self.count)
            .map_err(js_error)?;
        Ok(to_typed_array(&values))
    }

    /// A pco stream -> the chunk's values as little-endian bytes, kept in wasm memory at
    /// `address` until the next call; returns their length (the package's own read path).
    #[wasm_bindgen(js_name = decodeBytes)]
    pub fn decode_bytes(&mut self, stored: &[u8]) -> Result<usize, JsValue> {
        self.out = ArrayData::UInt8(Vec::new());
        self.out = self
            .pcodec
            .decode_values(stored, self.count)
            .map_err(js_error)?;
        Ok(self.out.len() * self.dtype.size())
    }

    /// Where the last `decodeBytes`' bytes are in wasm memory.
    #[wasm_bindgen(getter)]
    pub fn address(&self) -> usize {
        // wasm memory is little-endian: the values are their little-endian bytes in place.
        self.out.as_ptr() as usize
    }

    /// The chunk's values as little-endian bytes -> its pco stream (the package's own write
    /// path).
    #[wasm_bindgen(js_name = encodeBytes)]
    pub fn encode_bytes(&self, raw: &[u8]) -> Result<Vec<u8>, JsValue> {
        check_chunk_bytes(raw, self.count, self.dtype)?;
        self.pcodec.encode(raw).map_err(js_error)
    }
}
