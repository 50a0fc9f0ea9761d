//! The Compressor class, the same in the encode and archive modules (each lib.rs includes this
//! file): one array's bytes -> bytes codecs, encoding.

use wasm_bindgen::prelude::*;

use zarr_wasm_codecs::codec::bytes_to_bytes::BytesChain;

use crate::common::{js_error, parse_json};

/// One array's bytes -> bytes codecs, encoding.
#[wasm_bindgen]
pub struct Compressor {
    chain: BytesChain,
}

#[wasm_bindgen]
impl Compressor {
    /// `codecs_json`: the bytes -> bytes codecs, zarr v3 metadata in encode order;
    /// `item_size`: the size of the elements they receive (a shuffle's default element size,
    /// blosc's type size).
    #[wasm_bindgen(constructor)]
    pub fn new(codecs_json: &str, item_size: usize) -> Result<Compressor, JsValue> {
        let list = parse_json(codecs_json, "codecs")?;
        let list = list.as_array().cloned().unwrap_or_default();
        let chain = BytesChain::from_v3(&list, item_size).map_err(js_error)?;
        Ok(Self { chain })
    }

    /// Encodes raw bytes through every codec, first first.
    pub fn encode(&self, raw: &[u8]) -> Result<Vec<u8>, JsValue> {
        self.chain.encode(raw).map_err(js_error)
    }
}
