//! The Decompressor class, the same in the compress and archive modules (each lib.rs includes
//! this file): one array's bytes -> bytes codecs, decoding.

use wasm_bindgen::prelude::*;

use zarr_wasm_codecs::codec::bytes_to_bytes::BytesChain;

use crate::common::{js_error, parse_json};

/// One array's bytes -> bytes codecs. Each decode replaces the last one's output, which stays
/// in wasm memory for JavaScript to view (`address`, the returned length) until the next call.
#[wasm_bindgen]
pub struct Decompressor {
    chain: BytesChain,
    /// The size a chunk must decode to, if every chunk has the same (what `decode` refuses
    /// otherwise, before allocating).
    expected: Option<usize>,
    out: Vec<u8>,
}

#[wasm_bindgen]
impl Decompressor {
    /// `codecs_json`: the bytes -> bytes codecs, zarr v3 metadata in encode order;
    /// `item_size`: the size of the elements they receive (a shuffle's default element size);
    /// `expected`: the decoded size of every chunk, if every chunk has the same.
    #[wasm_bindgen(constructor)]
    pub fn new(
        codecs_json: &str,
        item_size: usize,
        expected: Option<f64>,
    ) -> Result<Decompressor, JsValue> {
        let list = parse_json(codecs_json, "codecs")?;
        let list = list.as_array().cloned().unwrap_or_default();
        let chain = BytesChain::from_v3(&list, item_size).map_err(js_error)?;
        let expected = expected.filter(|&n| n >= 0.0).map(|n| n as usize);
        Ok(Self {
            chain,
            expected,
            out: Vec::new(),
        })
    }

    /// Decodes one chunk's stored bytes; returns the decoded length (the bytes are at
    /// `address`).
    pub fn decode(&mut self, stored: &[u8]) -> Result<usize, JsValue> {
        self.out = Vec::new();
        self.out = self.chain.decode(stored, self.expected).map_err(js_error)?;
        Ok(self.out.len())
    }

    /// Where the last decode's bytes are in wasm memory.
    #[wasm_bindgen(getter)]
    pub fn address(&self) -> usize {
        self.out.as_ptr() as usize
    }
}
