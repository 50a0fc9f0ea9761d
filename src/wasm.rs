//! The only file that knows about JavaScript: wasm-bindgen exports that build codecs once from
//! their metadata and then move whole chunks across the boundary as typed arrays.
//!
//! Errors become JavaScript `Error`s with a stable `code` and the Rust message. Nothing here
//! panics on input, so the instance keeps working after any error.

use js_sys::{Reflect, Uint8Array};
use wasm_bindgen::prelude::*;
#[cfg(not(feature = "packing-module"))]
use wasm_bindgen::JsCast;

use crate::array::ArrayData;
#[cfg(not(any(feature = "zfp-module", feature = "packing-module")))]
use crate::codec::{codec_name_and_config, ArrayCodec, Chain, FusedDecode, ScaleOffset};
use crate::dtype::DataType;
#[cfg(not(any(feature = "zfp-module", feature = "packing-module")))]
use crate::dtype::Scalar;
use crate::error::{join, Error};
use crate::json::Value;
#[cfg(not(feature = "zfp-module"))]
use crate::layout::ChunkReader;

#[wasm_bindgen(start)]
fn start() {
    std::panic::set_hook(Box::new(console_error_panic_hook::hook));
}

fn js_error(e: Error) -> JsValue {
    let err = js_sys::Error::new(&e.to_string());
    // Setting a property on a fresh Error object cannot fail.
    let _ = Reflect::set(&err, &"code".into(), &e.code().into());
    err.into()
}

fn parse_json(text: &str, what: &str) -> Result<Value, JsValue> {
    crate::json::parse(text).map_err(|e| {
        js_error(Error::InvalidMetadata {
            message: format!("{what} is not valid JSON: {e}"),
        })
    })
}

/// The element bytes of any typed array (a copy into wasm memory).
fn typed_array_bytes(value: &JsValue, expected: DataType) -> Result<Vec<u8>, JsValue> {
    let ctor = Reflect::get(value, &"constructor".into())
        .ok()
        .and_then(|c| Reflect::get(&c, &"name".into()).ok())
        .and_then(|n| n.as_string())
        .unwrap_or_default();
    let accepted: &[&str] = match expected {
        DataType::Int8 => &["Int8Array"],
        DataType::Int16 => &["Int16Array"],
        DataType::Int32 => &["Int32Array"],
        DataType::Int64 => &["BigInt64Array"],
        DataType::UInt8 => &["Uint8Array", "Uint8ClampedArray"],
        DataType::UInt16 => &["Uint16Array"],
        DataType::UInt32 => &["Uint32Array"],
        DataType::UInt64 => &["BigUint64Array"],
        DataType::Float16 => &["Float16Array", "Uint16Array"],
        DataType::Float32 => &["Float32Array"],
        DataType::Float64 => &["Float64Array"],
    };
    if !accepted.contains(&ctor.as_str()) {
        return Err(js_error(Error::WrongArrayType {
            expected: format!("{expected} ({})", join(accepted, " or ")),
            actual: if ctor.is_empty() {
                "non-typed-array".into()
            } else {
                ctor
            },
        }));
    }
    let field = |name: &str| Reflect::get(value, &name.into()).ok();
    let buffer = field("buffer").unwrap_or(JsValue::UNDEFINED);
    let offset = field("byteOffset").and_then(|v| v.as_f64()).unwrap_or(0.0) as u32;
    let length = field("byteLength").and_then(|v| v.as_f64()).unwrap_or(0.0) as u32;
    Ok(Uint8Array::new_with_byte_offset_and_length(&buffer, offset, length).to_vec())
}

/// A typed array holding `data` (a copy out of wasm memory). float16 becomes a Float16Array
/// where the engine has one, else a Uint16Array of the bits.
#[cfg(not(feature = "packing-module"))]
fn to_typed_array(data: &ArrayData) -> JsValue {
    match data {
        ArrayData::Int8(v) => js_sys::Int8Array::from(v.as_slice()).into(),
        ArrayData::Int16(v) => js_sys::Int16Array::from(v.as_slice()).into(),
        ArrayData::Int32(v) => js_sys::Int32Array::from(v.as_slice()).into(),
        ArrayData::Int64(v) => js_sys::BigInt64Array::from(v.as_slice()).into(),
        ArrayData::UInt8(v) => js_sys::Uint8Array::from(v.as_slice()).into(),
        ArrayData::UInt16(v) => js_sys::Uint16Array::from(v.as_slice()).into(),
        ArrayData::UInt32(v) => js_sys::Uint32Array::from(v.as_slice()).into(),
        ArrayData::UInt64(v) => js_sys::BigUint64Array::from(v.as_slice()).into(),
        ArrayData::Float16(v) => {
            let bits: Vec<u16> = v.iter().map(|x| x.to_bits()).collect();
            let array = js_sys::Uint16Array::from(bits.as_slice());
            let ctor = Reflect::get(&js_sys::global(), &"Float16Array".into())
                .ok()
                .and_then(|c| c.dyn_into::<js_sys::Function>().ok());
            match ctor {
                Some(ctor) => Reflect::construct(&ctor, &js_sys::Array::of1(&array.buffer()))
                    .unwrap_or_else(|_| array.into()),
                None => array.into(),
            }
        }
        ArrayData::Float32(v) => js_sys::Float32Array::from(v.as_slice()).into(),
        ArrayData::Float64(v) => js_sys::Float64Array::from(v.as_slice()).into(),
    }
}

/// A scalar as the JavaScript value zarrita uses: a number, or a bigint for 64-bit integers.
#[cfg(not(any(feature = "zfp-module", feature = "packing-module")))]
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

/// One array -> array codec of an array's codec list, for zarrita's pipeline.
#[cfg(not(any(feature = "zfp-module", feature = "packing-module")))]
///
/// When a scale_offset is followed by a cast_value that stores floats as integers, the pair
/// decodes in one pass: the cast_value runs both steps and the scale_offset passes its chunk
/// through. Both sides reach that decision through [`fused_pair`], so they always agree.
#[wasm_bindgen]
pub struct ArrayToArrayCodec {
    codec: ArrayCodec,
    input: DataType,
    /// Elements in a chunk (the chunk shape's product).
    len: usize,
    encoded_fill: Scalar,
    decode: DecodeMode,
}

#[cfg(not(any(feature = "zfp-module", feature = "packing-module")))]
enum DecodeMode {
    Codec,
    PassThrough,
    Fused(FusedDecode),
}

/// The fused decode of the scale_offset at `index` and the cast_value after it, if any.
#[cfg(not(any(feature = "zfp-module", feature = "packing-module")))]
fn fused_pair(codecs: &[Value], index: usize, dtype: DataType) -> Option<FusedDecode> {
    let (so_name, so_config) = codec_name_and_config(codecs.get(index)?).ok()?;
    let (cv_name, cv_config) = codec_name_and_config(codecs.get(index + 1)?).ok()?;
    if so_name != "scale_offset" || cv_name != "cast_value" {
        return None;
    }
    let so = ScaleOffset::new(so_config, dtype).ok()?;
    let cv = crate::codec::CastValue::new(cv_config, dtype).ok()?;
    let mut little = crate::json::Map::new();
    little.insert("endian".into(), Value::from("little"));
    let little = Value::Object(little);
    let bytes = crate::codec::Bytes::new(Some(&little), cv.target()).ok()?;
    FusedDecode::plan(
        dtype,
        &[ArrayCodec::ScaleOffset(so), ArrayCodec::CastValue(cv)],
        &bytes,
    )
}

#[cfg(not(any(feature = "zfp-module", feature = "packing-module")))]
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
        let this = list.get(index).ok_or_else(|| {
            js_error(Error::InvalidMetadata {
                message: format!("codec index {index} is outside the codec list"),
            })
        })?;
        let input = DataType::from_name(data_type).map_err(js_error)?;
        let fill = match parse_json(fill_value_json, "fill value")? {
            Value::Null => input.default_scalar(),
            v => Scalar::from_json(input, &v)
                .map_err(|e| js_error(e.in_context("fill_value ", |e| e)))?,
        };
        let (name, config) = codec_name_and_config(this).map_err(js_error)?;
        let codec = ArrayCodec::new(name, config, input)
            .unwrap_or_else(|| {
                Err(Error::UnknownCodec {
                    name: name.to_string(),
                })
            })
            .map_err(js_error)?;
        let encoded_fill = codec.encode_fill(fill).map_err(js_error)?;
        let decode = match codec {
            ArrayCodec::ScaleOffset(_) if fused_pair(&list, index, input).is_some() => {
                DecodeMode::PassThrough
            }
            ArrayCodec::CastValue(_) => match index.checked_sub(1) {
                Some(prev) => {
                    fused_pair(&list, prev, input).map_or(DecodeMode::Codec, DecodeMode::Fused)
                }
                None => DecodeMode::Codec,
            },
            _ => DecodeMode::Codec,
        };
        Ok(Self {
            codec,
            input,
            len: chunk_len,
            encoded_fill,
            decode,
        })
    }

    /// The data type this codec's encode produces.
    #[wasm_bindgen(getter, js_name = encodedDataType)]
    pub fn encoded_data_type(&self) -> String {
        self.codec.encoded_type().name().to_string()
    }

    /// The fill value after this codec, as zarrita holds scalars (number or bigint).
    #[wasm_bindgen(getter, js_name = encodedFillValue)]
    pub fn encoded_fill_value(&self) -> JsValue {
        scalar_to_js(self.encoded_fill)
    }

    /// Whether decode is done by the next codec in one pass (this one passes chunks through).
    #[wasm_bindgen(getter, js_name = decodePassesThrough)]
    pub fn decode_passes_through(&self) -> bool {
        matches!(self.decode, DecodeMode::PassThrough)
    }

    /// Encodes a typed array of the input type; returns a typed array of the encoded type.
    pub fn encode(&self, data: &JsValue) -> Result<JsValue, JsValue> {
        let bytes = self.chunk_bytes(data, self.input)?;
        let values = ArrayData::from_le_bytes(self.input, &bytes).map_err(js_error)?;
        let out = self.codec.encode(&values).map_err(js_error)?;
        Ok(to_typed_array(&out))
    }

    /// Decodes a typed array of the encoded type back to the input type.
    pub fn decode(&self, data: &JsValue) -> Result<JsValue, JsValue> {
        let encoded = self.codec.encoded_type();
        if let DecodeMode::PassThrough = self.decode {
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
        match &self.decode {
            DecodeMode::PassThrough => Ok(data.clone()),
            DecodeMode::Fused(fused) => {
                let out = fused.decode(&bytes, self.len).map_err(js_error)?;
                Ok(to_typed_array(&out))
            }
            DecodeMode::Codec => {
                let values = ArrayData::from_le_bytes(encoded, &bytes).map_err(js_error)?;
                let out = self.codec.decode(&values).map_err(js_error)?;
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
#[cfg(not(any(feature = "zfp-module", feature = "packing-module")))]
#[wasm_bindgen]
pub struct CodecChain {
    chain: Chain,
}

#[cfg(not(any(feature = "zfp-module", feature = "packing-module")))]
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

/// Decodes a chunk of an array's values as its attributes ask (missing values to NaN, CF
/// scale_factor and add_offset; see `crate::missing`) into a Float64Array.
#[cfg(feature = "packing-module")]
#[wasm_bindgen(js_name = maskAndScale)]
pub fn mask_and_scale(
    attributes_json: &str,
    data_type: &str,
    data: &JsValue,
) -> Result<js_sys::Float64Array, JsValue> {
    let attributes = parse_json(attributes_json, "attributes")?;
    let dtype = DataType::from_name(data_type).map_err(js_error)?;
    let decode =
        crate::missing::MaskAndScale::from_attributes(dtype, &attributes).map_err(js_error)?;
    let bytes = typed_array_bytes(data, dtype)?;
    let values = ArrayData::from_le_bytes(dtype, &bytes).map_err(js_error)?;
    let out = decode.decode(&values).map_err(js_error)?;
    Ok(js_sys::Float64Array::from(out.as_slice()))
}

/// The packing plan for a typed array of data, as JSON text (see `crate::plan`).
#[cfg(feature = "packing-module")]
#[wasm_bindgen(js_name = planPackingForData)]
pub fn plan_packing_for_data(
    data: &JsValue,
    data_type: &str,
    options_json: &str,
) -> Result<String, JsValue> {
    let dtype = DataType::from_name(data_type).map_err(js_error)?;
    let bytes = typed_array_bytes(data, dtype)?;
    let values = ArrayData::from_le_bytes(dtype, &bytes).map_err(js_error)?;
    let options = plan_options(options_json)?;
    let plan = crate::plan::plan_for_data(&values, &options).map_err(js_error)?;
    Ok(plan.to_json().to_string())
}

/// The packing plan for a range, `{"min", "max", "data_type"}`, as JSON text.
#[cfg(feature = "packing-module")]
#[wasm_bindgen(js_name = planPackingForRange)]
pub fn plan_packing_for_range(range_json: &str, options_json: &str) -> Result<String, JsValue> {
    let range = parse_json(range_json, "range")?;
    let options = plan_options(options_json)?;
    let plan = crate::plan::plan_for_range(&range, &options).map_err(js_error)?;
    Ok(plan.to_json().to_string())
}

#[cfg(feature = "packing-module")]
fn plan_options(options_json: &str) -> Result<crate::plan::PlanOptions, JsValue> {
    let options = parse_json(options_json, "planPacking options")?;
    crate::plan::PlanOptions::from_json(&options).map_err(js_error)
}

/// The zfp array -> bytes codec, in its own wasm module (built with the "zfp-module" feature),
/// so that readers of packed integers never download it.
#[cfg(feature = "zfp-module")]
#[wasm_bindgen]
pub struct ZfpCodec {
    zfp: crate::codec::zfp::Zfp,
    dtype: DataType,
}

#[cfg(feature = "zfp-module")]
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
        let shape = crate::codec::parse_shape(&shape).map_err(js_error)?;
        let dtype = DataType::from_name(data_type).map_err(js_error)?;
        let zfp =
            crate::codec::zfp::Zfp::new(Some(&configuration), dtype, &shape).map_err(js_error)?;
        Ok(Self { zfp, dtype })
    }

    /// A typed array of the chunk's values -> a headerless zfp stream.
    pub fn encode(&self, data: &JsValue) -> Result<Vec<u8>, JsValue> {
        let bytes = typed_array_bytes(data, self.dtype)?;
        let values = ArrayData::from_le_bytes(self.dtype, &bytes).map_err(js_error)?;
        self.zfp.encode(&values).map_err(js_error)
    }

    /// A zfp stream -> a typed array of the chunk's values.
    pub fn decode(&self, bytes: &[u8]) -> Result<JsValue, JsValue> {
        let out = self.zfp.decode(bytes).map_err(js_error)?;
        Ok(to_typed_array(&out))
    }
}

/// The address in wasm memory of a chunk's first value, for a JavaScript view of it.
#[cfg(not(any(feature = "zfp-module", feature = "packing-module")))]
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

/// An array's zarr.json read exactly: its chunk reader, or why this path does not run it.
#[cfg(not(feature = "zfp-module"))]
fn open_reader(zarr_json: &str) -> Result<(Value, Result<ChunkReader, String>), JsValue> {
    let meta = parse_json(zarr_json, "zarr.json")?;
    let opened = crate::layout::open(&meta).map_err(js_error)?;
    let reader = match opened {
        crate::layout::Opened::Layout(layout) => Ok(ChunkReader::new(*layout)),
        crate::layout::Opened::Unsupported(reason) => Err(reason),
    };
    Ok((meta, reader))
}

#[cfg(not(feature = "zfp-module"))]
fn unsupported(reason: &str) -> JsValue {
    js_error(Error::InvalidMetadata {
        message: format!("this array is read through zarrita ({reason})"),
    })
}

/// zarr.json with integers beyond 2^53 in the fill value and codec configurations as decimal
/// strings, so that `JSON.parse` keeps them exact.
#[cfg(not(any(feature = "zfp-module", feature = "packing-module")))]
#[wasm_bindgen(js_name = exactMetadataJson)]
pub fn exact_metadata_json(zarr_json: &str) -> Result<String, JsValue> {
    let meta = parse_json(zarr_json, "zarr.json")?;
    Ok(crate::layout::exact_for_javascript(&meta).to_string())
}

/// The package's read and write path for one array, built from its zarr.json text (so 64-bit
/// integers in it are exact): decodes boxes of stored chunks a tile at a time into wasm
/// memory, from where JavaScript places them into the output; encodes whole chunks.
#[cfg(not(any(feature = "zfp-module", feature = "packing-module")))]
#[wasm_bindgen]
pub struct ArrayReader {
    reader: Result<ChunkReader, String>,
}

#[cfg(not(any(feature = "zfp-module", feature = "packing-module")))]
#[wasm_bindgen]
impl ArrayReader {
    #[wasm_bindgen(constructor)]
    pub fn new(zarr_json: &str) -> Result<ArrayReader, JsValue> {
        let (_, reader) = open_reader(zarr_json)?;
        Ok(Self { reader })
    }

    /// Why this array is not read on this path (`undefined` when it is).
    #[wasm_bindgen(getter)]
    pub fn fallback(&self) -> Option<String> {
        self.reader.as_ref().err().cloned()
    }

    fn inner(&mut self) -> Result<&mut ChunkReader, JsValue> {
        self.reader.as_mut().map_err(|reason| unsupported(reason))
    }

    /// Shapes, chunk keys, bytes -> bytes codecs, shard index, fill bytes (JSON text).
    #[wasm_bindgen(getter, js_name = layoutJson)]
    pub fn layout_json(&mut self) -> Result<String, JsValue> {
        Ok(self.inner()?.layout.to_json().to_string())
    }

    /// One stored (inner) chunk and the box of it to read; returns the box's size.
    #[wasm_bindgen(js_name = setChunk)]
    pub fn set_chunk(&mut self, stored: Vec<u8>, region: &[u32]) -> Result<usize, JsValue> {
        self.inner()?.set_chunk(stored, region).map_err(js_error)
    }

    /// Whether a chunk's stored bytes are its values as they are (`bytes` alone, little
    /// endian): a caller may then place them itself, after `checkChunk`.
    #[wasm_bindgen(getter, js_name = storedAsValues)]
    pub fn stored_as_values(&self) -> bool {
        self.reader.as_ref().is_ok_and(|r| {
            r.layout.chain.plain_endian() == Some(crate::codec::bytes::Endian::Little)
        })
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

    /// A whole chunk's stored bytes (before bytes -> bytes codecs) -> a typed array.
    #[wasm_bindgen(js_name = decodeChunk)]
    pub fn decode_chunk(&mut self, stored: &[u8]) -> Result<JsValue, JsValue> {
        let out = self
            .inner()?
            .layout
            .chain
            .decode(stored)
            .map_err(js_error)?;
        Ok(to_typed_array(&out))
    }

    /// A typed array of a whole chunk -> its stored bytes (before bytes -> bytes codecs).
    /// Nothing is returned unless every element encodes.
    #[wasm_bindgen(js_name = encodeChunk)]
    pub fn encode_chunk(&mut self, values: &JsValue) -> Result<Vec<u8>, JsValue> {
        let chain = &self.inner()?.layout.chain;
        let bytes = typed_array_bytes(values, chain.data_type())?;
        let data = ArrayData::from_le_bytes(chain.data_type(), &bytes).map_err(js_error)?;
        chain.encode(&data).map_err(js_error)
    }
}

/// `ArrayReader`'s decoded twin, for `getDecoded`: each tile is decoded as the array's
/// attributes ask (missing values to NaN, CF scale_factor and add_offset) into float64 before
/// JavaScript places it.
#[cfg(feature = "packing-module")]
#[wasm_bindgen]
pub struct DecodedReader {
    reader: Result<ChunkReader, String>,
    mask: crate::missing::MaskAndScale,
    decoded: Vec<f64>,
}

#[cfg(feature = "packing-module")]
#[wasm_bindgen]
impl DecodedReader {
    #[wasm_bindgen(constructor)]
    pub fn new(zarr_json: &str) -> Result<DecodedReader, JsValue> {
        let (meta, reader) = open_reader(zarr_json)?;
        let dtype = DataType::from_json(meta.get("data_type").unwrap_or(&Value::Null));
        let mask = match (&reader, dtype) {
            (Ok(r), _) => r.layout.data_type(),
            (Err(_), Ok(dtype)) => dtype,
            (Err(reason), Err(_)) => return Err(unsupported(reason)),
        };
        let attributes = meta.get("attributes").unwrap_or(&Value::Null);
        let mask =
            crate::missing::MaskAndScale::from_attributes(mask, attributes).map_err(js_error)?;
        Ok(Self {
            reader,
            mask,
            decoded: Vec::new(),
        })
    }

    #[wasm_bindgen(getter)]
    pub fn fallback(&self) -> Option<String> {
        self.reader.as_ref().err().cloned()
    }

    fn inner(&mut self) -> Result<&mut ChunkReader, JsValue> {
        self.reader.as_mut().map_err(|reason| unsupported(reason))
    }

    #[wasm_bindgen(getter, js_name = layoutJson)]
    pub fn layout_json(&mut self) -> Result<String, JsValue> {
        Ok(self.inner()?.layout.to_json().to_string())
    }

    /// The fill value, decoded (what a missing chunk reads as).
    #[wasm_bindgen(getter, js_name = decodedFill)]
    pub fn decoded_fill(&mut self) -> Result<f64, JsValue> {
        let fill = self.inner()?.layout.fill_value();
        let out = self
            .mask
            .decode(&ArrayData::filled(fill, 1))
            .map_err(js_error)?;
        Ok(out.first().copied().unwrap_or(f64::NAN))
    }

    #[wasm_bindgen(js_name = setChunk)]
    pub fn set_chunk(&mut self, stored: Vec<u8>, region: &[u32]) -> Result<usize, JsValue> {
        self.inner()?.set_chunk(stored, region).map_err(js_error)
    }

    /// Decodes and then masks and scales the box's elements `from .. from + n` into float64;
    /// returns their address in wasm memory.
    #[wasm_bindgen(js_name = decodeTile)]
    pub fn decode_tile(&mut self, from: usize, n: usize) -> Result<usize, JsValue> {
        let reader = self.reader.as_mut().map_err(|reason| unsupported(reason))?;
        // A plain 8- or 16-bit array (`bytes` alone): its stored bytes go through the
        // decoding table in one pass.
        if let (Some(endian), true) = (
            reader.layout.chain.plain_endian(),
            self.mask.decodes_bytes(n),
        ) {
            let little = endian == crate::codec::bytes::Endian::Little;
            let bytes = reader.gather_tile(from, n).map_err(js_error)?;
            if self
                .mask
                .decode_bytes_into(bytes, little, &mut self.decoded)
            {
                return Ok(self.decoded.as_ptr() as usize);
            }
        }
        let tile = reader.decode_tile(from, n).map_err(js_error)?;
        // Float64 values with nothing to mask or scale are their own decoding.
        if let (true, ArrayData::Float64(values)) = (self.mask.is_identity(), tile) {
            return Ok(values.as_ptr() as usize);
        }
        self.mask
            .decode_into(tile, &mut self.decoded)
            .map_err(js_error)?;
        Ok(self.decoded.as_ptr() as usize)
    }
}
