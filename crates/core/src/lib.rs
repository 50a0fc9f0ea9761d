//! The core wasm module: scale_offset and cast_value for zarrita's codec pipeline, whole codec
//! chains, and the package's own read and write path (`ArrayReader`). Codecs are built once
//! from their metadata; chunks then cross the boundary as typed arrays.

use js_sys::Reflect;
use wasm_bindgen::prelude::*;

use zarr_wasm_codecs::array::ArrayData;
use zarr_wasm_codecs::codec::pipeline::{DecodeMode, PipelineCodec};
use zarr_wasm_codecs::codec::Chain;
use zarr_wasm_codecs::dtype::{DataType, Scalar};
use zarr_wasm_codecs::error::Error;
use zarr_wasm_codecs::layout::ChunkReader;

#[path = "../../panic_hook.rs"]
mod panic_hook;

#[path = "../../common.rs"]
#[allow(dead_code)]
mod common;
use common::{
    array_type, js_error, layout_json, open_reader, parse_json, reader_of, to_typed_array,
    typed_array_bytes, Opened,
};

/// A scalar as the JavaScript value zarrita uses: a number, or a bigint for 64-bit integers.
fn scalar_to_js(s: Scalar) -> JsValue {
    match s {
        Scalar::Int64(v) => JsValue::from(v),
        Scalar::UInt64(v) => JsValue::from(v),
        other => match other.as_i128() {
            Some(i) => JsValue::from(i as f64),
            None => JsValue::from(other.as_f64().unwrap_or(f64::NAN)),
        },
    }
}

/// One array -> array codec of an array's codec list, for zarrita's pipeline (see
/// `zarr_wasm_codecs::codec::pipeline` for when a pair decodes in one pass).
#[wasm_bindgen]
pub struct ArrayToArrayCodec {
    inner: PipelineCodec,
    /// Elements in a chunk (the chunk shape's product).
    len: usize,
}

#[wasm_bindgen]
impl ArrayToArrayCodec {
    /// `codecs_json`: the array's (or shard's) codec list; `index`: this codec's place in it;
    /// `data_type`/`fill_value_json`: what the previous codecs hand it on the encode path.
    #[wasm_bindgen(constructor)]
    pub fn new(
        codecs_json: &str,
        index: usize,
        data_type: &str,
        fill_value_json: &str,
        chunk_len: usize,
    ) -> Result<ArrayToArrayCodec, JsValue> {
        let codecs = parse_json(codecs_json, "codecs")?;
        let list = codecs.as_array().cloned().unwrap_or_default();
        let input = DataType::from_name(data_type).map_err(js_error)?;
        let fill = parse_json(fill_value_json, "fill value")?;
        let inner = PipelineCodec::new(&list, index, input, &fill).map_err(js_error)?;
        Ok(Self {
            inner,
            len: chunk_len,
        })
    }

    /// The data type this codec's encode produces.
    #[wasm_bindgen(getter, js_name = encodedDataType)]
    pub fn encoded_data_type(&self) -> String {
        self.inner.codec.encoded_type().name().to_string()
    }

    /// The fill value after this codec, as zarrita holds scalars (number or bigint).
    #[wasm_bindgen(getter, js_name = encodedFillValue)]
    pub fn encoded_fill_value(&self) -> JsValue {
        scalar_to_js(self.inner.encoded_fill)
    }

    /// Encodes a typed array of the input type; returns a typed array of the encoded type.
    pub fn encode(&self, data: &JsValue) -> Result<JsValue, JsValue> {
        let bytes = self.chunk_bytes(data, self.inner.input)?;
        let values = ArrayData::from_le_bytes(self.inner.input, &bytes).map_err(js_error)?;
        let out = self.inner.codec.encode(&values).map_err(js_error)?;
        Ok(to_typed_array(&out))
    }

    /// Decodes a typed array of the encoded type back to the input type.
    pub fn decode(&self, data: &JsValue) -> Result<JsValue, JsValue> {
        let encoded = self.inner.codec.encoded_type();
        if let DecodeMode::PassThrough = self.inner.decode {
            // The fused decode after this codec has produced the chunk: only its length is
            // checked, without copying it into wasm memory.
            let len = Reflect::get(data, &"length".into())
                .ok()
                .and_then(|v| v.as_f64())
                .unwrap_or(-1.0);
            self.check_len(len as usize)?;
            return Ok(data.clone());
        }
        let bytes = self.chunk_bytes(data, encoded)?;
        match &self.inner.decode {
            DecodeMode::PassThrough => Ok(data.clone()),
            DecodeMode::Fused(fused) => {
                let out = fused.decode(&bytes, self.len).map_err(js_error)?;
                Ok(to_typed_array(&out))
            }
            DecodeMode::Codec => {
                let values = ArrayData::from_le_bytes(encoded, &bytes).map_err(js_error)?;
                let out = self.inner.codec.decode(&values).map_err(js_error)?;
                Ok(to_typed_array(&out))
            }
        }
    }

    /// A chunk's element bytes, refusing a chunk whose length is not the chunk shape's.
    fn chunk_bytes(&self, data: &JsValue, dtype: DataType) -> Result<Vec<u8>, JsValue> {
        let bytes = typed_array_bytes(data, dtype)?;
        self.check_len(bytes.len() / dtype.size())?;
        Ok(bytes)
    }

    fn check_len(&self, actual: usize) -> Result<(), JsValue> {
        if actual != self.len {
            return Err(js_error(Error::ChunkLength {
                what: "elements",
                expected: self.len,
                actual,
            }));
        }
        Ok(())
    }
}

/// A whole codec chain (array -> array codecs and bytes) over one chunk shape.
#[wasm_bindgen]
pub struct CodecChain {
    chain: Chain,
}

#[wasm_bindgen]
impl CodecChain {
    /// `metadata_json`: `{"data_type", "fill_value", "codecs", "chunk_shape"}` or a zarr v3
    /// array's zarr.json.
    #[wasm_bindgen(constructor)]
    pub fn new(metadata_json: &str) -> Result<CodecChain, JsValue> {
        let meta = parse_json(metadata_json, "array metadata")?;
        let chain = Chain::from_metadata(&meta).map_err(js_error)?;
        Ok(Self { chain })
    }

    /// Stored chunk bytes -> a typed array of the array's values.
    pub fn decode(&self, bytes: &[u8]) -> Result<JsValue, JsValue> {
        let out = self.chain.decode(bytes).map_err(js_error)?;
        Ok(to_typed_array(&out))
    }

    /// A typed array of the array's values -> stored chunk bytes. Nothing is returned unless
    /// every element encodes.
    pub fn encode(&self, values: &JsValue) -> Result<Vec<u8>, JsValue> {
        let dtype = self.chain.data_type();
        let bytes = typed_array_bytes(values, dtype)?;
        let data = ArrayData::from_le_bytes(dtype, &bytes).map_err(js_error)?;
        self.chain.encode(&data).map_err(js_error)
    }

    #[wasm_bindgen(getter, js_name = encodedFillValue)]
    pub fn encoded_fill_value(&self) -> JsValue {
        scalar_to_js(self.chain.encoded_fill_value())
    }

    #[wasm_bindgen(getter, js_name = fillValueRoundTrips)]
    pub fn fill_value_round_trips(&self) -> bool {
        self.chain.fill_value_round_trips()
    }

    #[wasm_bindgen(getter, js_name = codecsJson)]
    pub fn codecs_json(&self) -> String {
        self.chain.codecs_json().to_string()
    }
}

/// The address in wasm memory of a chunk's first value, for a JavaScript view of it.
fn data_address(data: &ArrayData) -> usize {
    match data {
        ArrayData::Int8(v) => v.as_ptr() as usize,
        ArrayData::Int16(v) => v.as_ptr() as usize,
        ArrayData::Int32(v) => v.as_ptr() as usize,
        ArrayData::Int64(v) => v.as_ptr() as usize,
        ArrayData::UInt8(v) => v.as_ptr() as usize,
        ArrayData::UInt16(v) => v.as_ptr() as usize,
        ArrayData::UInt32(v) => v.as_ptr() as usize,
        ArrayData::UInt64(v) => v.as_ptr() as usize,
        ArrayData::Float16(v) => v.as_ptr() as usize,
        ArrayData::Float32(v) => v.as_ptr() as usize,
        ArrayData::Float64(v) => v.as_ptr() as usize,
    }
}

/// A shard index's entries (see `zarr_wasm_codecs::layout::shard_index_entries`): `count`
/// (offset, length) pairs, a missing inner chunk's as 2^64.
#[wasm_bindgen(js_name = shardIndexEntries)]
pub fn shard_index_entries(bytes: &[u8], little: bool, count: usize) -> Result<Vec<f64>, JsValue> {
    common::shard_index_entries(bytes, little, count)
}

/// The layout of an array of strings or bytes of any length (see
/// `zarr_wasm_codecs::layout::vlen`), as JSON, from its metadata text (zarr.json, or a zarr v2
/// array's joined files); `undefined` for an array of another type, or one zarrita reads.
#[wasm_bindgen(js_name = vlenLayoutJson)]
pub fn vlen_layout_json(zarr_json: &str) -> Result<Option<String>, JsValue> {
    let meta = parse_json(zarr_json, "zarr.json")?;
    let meta = zarr_wasm_codecs::layout::normalise(meta).map_err(js_error)?;
    let layout = zarr_wasm_codecs::layout::vlen::open_vlen(&meta).map_err(js_error)?;
    Ok(layout.map(|l| l.to_json().to_string()))
}

/// Where each of a vlen chunk's `count` items lies: (start, length) pairs (CORRUPT_CHUNK for
/// framing that is not the chunk's).
#[wasm_bindgen(js_name = vlenItems)]
pub fn vlen_items(bytes: &[u8], count: usize) -> Result<Vec<u32>, JsValue> {
    zarr_wasm_codecs::layout::vlen::vlen_items(bytes, count).map_err(js_error)
}

/// numcodecs' vlen framing of items given as their byte lengths and their bytes in a row.
#[wasm_bindgen(js_name = vlenFrame)]
pub fn vlen_frame(lengths: &[u32], data: &[u8]) -> Result<Vec<u8>, JsValue> {
    zarr_wasm_codecs::layout::vlen::vlen_frame(lengths, data).map_err(js_error)
}

/// zarr.json with integers beyond 2^53 in the fill value and codec configurations as decimal
/// strings, so that `JSON.parse` keeps them exact; a zarr v2 array's joined files (see
/// `layout::normalise`) as the zarr.json they translate to.
#[wasm_bindgen(js_name = exactMetadataJson)]
pub fn exact_metadata_json(zarr_json: &str) -> Result<String, JsValue> {
    common::exact_metadata_json(zarr_json)
}

/// The package's read and write path for one array, built from its zarr.json text (so 64-bit
/// integers in it are exact): decodes boxes of stored chunks a tile at a time into wasm
/// memory, from where JavaScript places them into the output; encodes whole chunks.
#[wasm_bindgen]
pub struct ArrayReader {
    reader: Opened,
}

#[wasm_bindgen]
impl ArrayReader {
    /// `chunk_shape` (JSON): for a rectilinear grid, the shape of the chunks this reader reads.
    #[wasm_bindgen(constructor)]
    pub fn new(zarr_json: &str, chunk_shape: Option<String>) -> Result<ArrayReader, JsValue> {
        let (_, reader) = open_reader(zarr_json, chunk_shape.as_deref())?;
        Ok(Self { reader })
    }

    /// Why this array is not read on this path (`undefined` when it is).
    #[wasm_bindgen(getter)]
    pub fn fallback(&self) -> Option<String> {
        self.reader.as_ref().err().cloned()
    }

    fn inner(&mut self) -> Result<&mut ChunkReader, JsValue> {
        reader_of(&mut self.reader)
    }

    /// The chain, for whole chunks: their elements in the order they are stored, a
    /// `transpose`'s where there is one (the write lays values out in it, the layout's `order`).
    fn whole_chunks(&mut self) -> Result<&Chain, JsValue> {
        Ok(&self.inner()?.layout.chain)
    }

    /// Shapes, chunk keys, bytes -> bytes codecs, shard index, fill bytes (JSON text).
    #[wasm_bindgen(getter, js_name = layoutJson)]
    pub fn layout_json(&mut self) -> Result<String, JsValue> {
        layout_json(&mut self.reader)
    }

    /// One stored (inner) chunk and the box of it to read; returns the box's size.
    #[wasm_bindgen(js_name = setChunk)]
    pub fn set_chunk(&mut self, stored: Vec<u8>, region: &[u32]) -> Result<usize, JsValue> {
        self.inner()?.set_chunk(stored, region).map_err(js_error)
    }

    /// Whether a chunk's stored bytes are its values as they are (`bytes` alone, little
    /// endian, after codecs that decode to what is stored, bitround's): a caller may then
    /// place them itself, after `checkChunk`.
    #[wasm_bindgen(getter, js_name = storedAsValues)]
    pub fn stored_as_values(&self) -> bool {
        self.reader.as_ref().is_ok_and(|r| {
            r.layout.order.is_none()
                && r.layout.chain.plain_endian()
                    == Some(zarr_wasm_codecs::codec::bytes::Endian::Little)
        })
    }

    /// Whether values are stored as they are (`bytes` alone, little endian, no array -> array
    /// codec at all): a write may then store their bytes without encoding them.
    #[wasm_bindgen(getter, js_name = writtenAsValues)]
    pub fn written_as_values(&self) -> bool {
        self.stored_as_values()
            && self
                .reader
                .as_ref()
                .is_ok_and(|r| r.layout.chain.array_codecs().is_empty())
    }

    /// Checks a stored chunk's byte length and a box of it as `setChunk` does (the same
    /// errors), without taking the bytes; returns the box's size.
    #[wasm_bindgen(js_name = checkChunk)]
    pub fn check_chunk(&mut self, byte_length: usize, region: &[u32]) -> Result<usize, JsValue> {
        self.inner()?
            .check_chunk(byte_length, region)
            .map_err(js_error)
    }

    /// Decodes the box's elements `from .. from + n`; returns their address in wasm memory.
    #[wasm_bindgen(js_name = decodeTile)]
    pub fn decode_tile(&mut self, from: usize, n: usize) -> Result<usize, JsValue> {
        let tile = self.inner()?.decode_tile(from, n).map_err(js_error)?;
        Ok(data_address(tile))
    }

    /// A whole chunk's stored bytes (before bytes -> bytes codecs) -> a typed array, in the
    /// order they are stored (see `whole_chunks`).
    #[wasm_bindgen(js_name = decodeChunk)]
    pub fn decode_chunk(&mut self, stored: &[u8]) -> Result<JsValue, JsValue> {
        let out = self.whole_chunks()?.decode(stored).map_err(js_error)?;
        Ok(to_typed_array(&out))
    }

    /// A typed array of a whole chunk, in the order it is stored (see `whole_chunks`) -> its
    /// stored bytes (before bytes -> bytes codecs). Nothing is returned unless every element
    /// encodes.
    #[wasm_bindgen(js_name = encodeChunk)]
    pub fn encode_chunk(&mut self, values: &JsValue) -> Result<Vec<u8>, JsValue> {
        let chain = self.whole_chunks()?;
        let bytes = typed_array_bytes(values, chain.data_type())?;
        let data = ArrayData::from_le_bytes(chain.data_type(), &bytes).map_err(js_error)?;
        chain.encode(&data).map_err(js_error)
    }
}

/// The registry's description of a data type (`ArrayType::describe`), as JSON.
#[wasm_bindgen(js_name = dataTypeJson)]
pub fn data_type_json(
    data_type_json: &str,
    zarr_format: u8,
    object_codec: Option<String>,
) -> Result<String, JsValue> {
    Ok(array_type(data_type_json, zarr_format, object_codec)?
        .describe()
        .to_string())
}

/// A JSON scalar (fill value) of a data type (its zarr v3 `data_type`) as one item's
/// little-endian bytes, by the scalar rules of `zarr_format`.
#[wasm_bindgen(js_name = fillValueBytes)]
pub fn fill_value_bytes(
    data_type_json: &str,
    zarr_format: u8,
    fill_json: &str,
) -> Result<Vec<u8>, JsValue> {
    let t = array_type(data_type_json, 3, None)?;
    let fill = parse_json(fill_json, "fill value")?;
    t.fill_bytes(&fill, zarr_format).map_err(js_error)
}

/// One item's little-endian bytes as the JSON scalar zarr-python writes (the same in both
/// formats), for a data type given as its zarr v3 `data_type`.
#[wasm_bindgen(js_name = fillValueJson)]
pub fn fill_value_json(data_type_json: &str, bytes: &[u8]) -> Result<String, JsValue> {
    let t = array_type(data_type_json, 3, None)?;
    Ok(t.fill_json(bytes).map_err(js_error)?.to_string())
}
