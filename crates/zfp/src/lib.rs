//! The zfp wasm module: the zfp array -> bytes codec on its own, so that readers of packed
//! integers never download it.

use wasm_bindgen::prelude::*;

use zarr_wasm_codecs::array::ArrayData;
use zarr_wasm_codecs::dtype::DataType;

#[path = "../../common.rs"]
#[allow(dead_code)]
mod common;
use common::{check_chunk_bytes, js_error, parse_json, to_typed_array, typed_array_bytes};

/// The zfp array -> bytes codec, in its own wasm module, so that readers of packed integers
/// never download it.
#[wasm_bindgen]
pub struct ZfpCodec {
    zfp: zarr_wasm_codecs::codec::zfp::Zfp,
    dtype: DataType,
    /// The values in one chunk.
    count: usize,
    /// The last decoded chunk's values, whose buffer the next decode reuses.
    out: ArrayData,
}

#[wasm_bindgen]
impl ZfpCodec {
    /// `configuration_json`: the codec's configuration; `data_type`: what it receives;
    /// `chunk_shape_json`: the (inner) chunk shape, C order.
    #[wasm_bindgen(constructor)]
    pub fn new(
        configuration_json: &str,
        data_type: &str,
        chunk_shape_json: &str,
    ) -> Result<ZfpCodec, JsValue> {
        let configuration = parse_json(configuration_json, "zfp configuration")?;
        let shape = parse_json(chunk_shape_json, "chunk shape")?;
        let shape = zarr_wasm_codecs::codec::parse_shape(&shape).map_err(js_error)?;
        let dtype = DataType::from_name(data_type).map_err(js_error)?;
        let zfp = zarr_wasm_codecs::codec::zfp::Zfp::new(Some(&configuration), dtype, &shape)
            .map_err(js_error)?;
        Ok(Self {
            zfp,
            dtype,
            count: shape.iter().product(),
            out: ArrayData::UInt8(Vec::new()),
        })
    }

    /// A typed array of the chunk's values -> a headerless zfp stream.
    pub fn encode(&self, data: &JsValue) -> Result<Vec<u8>, JsValue> {
        let bytes = typed_array_bytes(data, self.dtype)?;
        let values = ArrayData::from_le_bytes(self.dtype, &bytes).map_err(js_error)?;
        self.zfp.encode(&values).map_err(js_error)
    }

    /// A zfp stream -> a typed array of the chunk's values (decoded into the buffer
    /// `decodeBytes` uses, then copied out).
    pub fn decode(&mut self, bytes: &[u8]) -> Result<JsValue, JsValue> {
        self.zfp
            .decode_into(bytes, &mut self.out)
            .map_err(js_error)?;
        Ok(to_typed_array(&self.out))
    }

    /// A zfp stream -> the chunk's values as little-endian bytes, kept in wasm memory at
    /// `address` until the next `decode` or `decodeBytes`; returns their length (the
    /// package's own read path).
    #[wasm_bindgen(js_name = decodeBytes)]
    pub fn decode_bytes(&mut self, stored: &[u8]) -> Result<usize, JsValue> {
        // The last chunk's buffer is reused: chunks of one array have one shape.
        self.zfp
            .decode_into(stored, &mut self.out)
            .map_err(js_error)?;
        Ok(self.out.len() * self.dtype.size())
    }

    /// Where the last `decodeBytes`' bytes are in wasm memory.
    #[wasm_bindgen(getter)]
    pub fn address(&self) -> usize {
        // wasm memory is little-endian: the values are their little-endian bytes in place.
        self.out.as_ptr() as usize
    }

    /// The chunk's values as little-endian bytes -> a headerless zfp stream (the package's own
    /// write path).
    #[wasm_bindgen(js_name = encodeBytes)]
    pub fn encode_bytes(&self, raw: &[u8]) -> Result<Vec<u8>, JsValue> {
        check_chunk_bytes(raw, self.count, self.dtype)?;
        let values = ArrayData::from_le_bytes(self.dtype, raw).map_err(js_error)?;
        self.zfp.encode(&values).map_err(js_error)
    }
}
