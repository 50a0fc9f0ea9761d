//! What the wasm modules' boundaries share (each crate includes this file): errors as
//! JavaScript `Error`s with a stable `code`, metadata JSON text, typed arrays in and out, and
//! opening an array's zarr.json for a reader. Nothing here panics on input, so an
//! instance keeps working after any error.

use js_sys::{Reflect, Uint8Array};
use wasm_bindgen::prelude::*;
use wasm_bindgen::JsCast;

use zarr_wasm_codecs::array::ArrayData;
use zarr_wasm_codecs::dtype::DataType;
use zarr_wasm_codecs::error::{join, Error};
use zarr_wasm_codecs::json::Value;
use zarr_wasm_codecs::layout::ChunkReader;

pub(crate) fn js_error(e: Error) -> JsValue {
    let err = js_sys::Error::new(&e.to_string());
    // Setting a property on a fresh Error object cannot fail.
    let _ = Reflect::set(&err, &"code".into(), &e.code().into());
    if let Some(codec) = e.codec() {
        let _ = Reflect::set(&err, &"codec".into(), &codec.into());
    }
    err.into()
}

/// A shard index's entries (see `zarr_wasm_codecs::layout::shard_index_entries`): `count`
/// (offset, length) pairs, a missing inner chunk's as 2^64.
pub(crate) fn shard_index_entries(
    bytes: &[u8],
    little: bool,
    count: usize,
) -> Result<Vec<f64>, JsValue> {
    let endian = if little {
        zarr_wasm_codecs::codec::Endian::Little
    } else {
        zarr_wasm_codecs::codec::Endian::Big
    };
    zarr_wasm_codecs::layout::shard_index_entries(bytes, endian, count).map_err(js_error)
}

pub(crate) fn parse_json(text: &str, what: &str) -> Result<Value, JsValue> {
    zarr_wasm_codecs::json::parse(text).map_err(|e| {
        js_error(Error::InvalidMetadata {
            message: format!("{what} is not valid JSON: {e}"),
        })
    })
}

/// The element bytes of any typed array (a copy into wasm memory).
pub(crate) fn typed_array_bytes(value: &JsValue, expected: DataType) -> Result<Vec<u8>, JsValue> {
    let ctor = Reflect::get(value, &"constructor".into())
        .ok()
        .and_then(|c| Reflect::get(&c, &"name".into()).ok())
        .and_then(|n| n.as_string())
        .unwrap_or_default();
    let accepted = expected.typed_arrays();
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
pub(crate) fn to_typed_array(data: &ArrayData) -> JsValue {
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

/// An array's zarr.json read exactly: its chunk reader, or why this path does not run it.
/// `chunk_shape` (JSON, a list): the shape of the chunks to read, for a rectilinear grid's
/// chunks of other shapes than its first's (one reader a shape).
pub(crate) fn open_reader(
    zarr_json: &str,
    chunk_shape: Option<&str>,
) -> Result<(Value, Opened), JsValue> {
    let meta = parse_json(zarr_json, "zarr.json")?;
    let shape = match chunk_shape {
        None => None,
        Some(text) => {
            let list = parse_json(text, "chunk shape")?;
            let dims = list.as_array().and_then(|dims| {
                dims.iter()
                    .map(|d| d.as_u64().map(|d| d as usize))
                    .collect::<Option<Vec<usize>>>()
            });
            Some(dims.ok_or_else(|| {
                js_error(Error::InvalidMetadata {
                    message: format!("a chunk shape must be a list of sizes, got {text}"),
                })
            })?)
        }
    };
    let (meta, opened) =
        zarr_wasm_codecs::layout::open_any_with(meta, shape.as_deref()).map_err(js_error)?;
    let reader = match opened {
        zarr_wasm_codecs::layout::Opened::Layout(layout) => Ok(ChunkReader::new(*layout)),
        zarr_wasm_codecs::layout::Opened::Unsupported(reason) => Err(reason),
    };
    Ok((meta, reader))
}

pub(crate) fn unsupported(reason: &str) -> JsValue {
    js_error(Error::InvalidMetadata {
        message: format!("this array is read through zarrita ({reason})"),
    })
}

/// An array's reader, or why this path does not run the array (what `open_reader` gives).
pub(crate) type Opened = Result<ChunkReader, String>;

/// The reader, or the error that says the array is read through zarrita.
pub(crate) fn reader_of(opened: &mut Opened) -> Result<&mut ChunkReader, JsValue> {
    opened.as_mut().map_err(|reason| unsupported(reason))
}

/// The reader's layout as JSON text (shapes, chunk keys, bytes -> bytes codecs, shard index,
/// fill bytes).
pub(crate) fn layout_json(opened: &mut Opened) -> Result<String, JsValue> {
    Ok(reader_of(opened)?.layout.to_json().to_string())
}

/// The wasm class of a module whose codec codes a chunk as one stream (the codec table's
/// whole-chunk rows): `whole_chunk_class!(ClassName, Module::Name)` in the module's crate. The
/// zarrita adapter uses `encode`/`decode` (typed arrays), the package's own read and write
/// paths `decodeBytes`/`address`/`encodeBytes` (the values' little-endian bytes).
#[allow(unused_macros)]
macro_rules! whole_chunk_class {
    ($class:ident, $module:expr) => {
        #[wasm_bindgen]
        pub struct $class {
            codec: std::sync::Arc<dyn zarr_wasm_codecs::codec::whole_chunk::WholeChunkCodec>,
            /// The last decoded chunk's values, whose buffer the next decode may reuse.
            out: zarr_wasm_codecs::array::ArrayData,
        }

        #[wasm_bindgen]
        impl $class {
            /// `configuration_json`: the codec's configuration; `data_type`: what it
            /// receives; `chunk_shape_json`: the (inner) chunk shape, C order.
            #[wasm_bindgen(constructor)]
            pub fn new(
                configuration_json: &str,
                data_type: &str,
                chunk_shape_json: &str,
            ) -> Result<$class, JsValue> {
                let configuration = common::parse_json(configuration_json, "configuration")?;
                let shape = common::parse_json(chunk_shape_json, "chunk shape")?;
                let shape =
                    zarr_wasm_codecs::codec::parse_shape(&shape).map_err(common::js_error)?;
                let dtype = zarr_wasm_codecs::dtype::DataType::from_name(data_type)
                    .map_err(common::js_error)?;
                let codec = match zarr_wasm_codecs::codec::whole_chunk_codec(
                    $module,
                    Some(&configuration),
                    dtype,
                    &shape,
                ) {
                    Some(built) => built.map_err(common::js_error)?,
                    None => unreachable!("the module's crate builds the library with its feature"),
                };
                Ok(Self {
                    codec,
                    out: zarr_wasm_codecs::array::ArrayData::UInt8(Vec::new()),
                })
            }

            /// A typed array of the chunk's values -> its stream.
            pub fn encode(&self, data: &JsValue) -> Result<Vec<u8>, JsValue> {
                let bytes = common::typed_array_bytes(data, self.codec.data_type())?;
                self.codec.encode_bytes(&bytes).map_err(common::js_error)
            }

            /// A stream -> a typed array of the chunk's values (decoded into the buffer
            /// `decodeBytes` uses, then copied out).
            pub fn decode(&mut self, bytes: &[u8]) -> Result<JsValue, JsValue> {
                self.codec
                    .decode_into(bytes, &mut self.out)
                    .map_err(common::js_error)?;
                Ok(common::to_typed_array(&self.out))
            }

            /// A stream -> the chunk's values as little-endian bytes, kept in wasm memory at
            /// `address` until the next call; returns their length.
            #[wasm_bindgen(js_name = decodeBytes)]
            pub fn decode_bytes(&mut self, stored: &[u8]) -> Result<usize, JsValue> {
                self.codec
                    .decode_into(stored, &mut self.out)
                    .map_err(common::js_error)?;
                Ok(self.out.len() * self.codec.data_type().size())
            }

            /// Where the last `decodeBytes`' bytes are in wasm memory.
            #[wasm_bindgen(getter)]
            pub fn address(&self) -> usize {
                // wasm memory is little-endian: the values are their little-endian bytes.
                self.out.as_ptr() as usize
            }

            /// The chunk's values as little-endian bytes -> its stream.
            #[wasm_bindgen(js_name = encodeBytes)]
            pub fn encode_bytes(&self, raw: &[u8]) -> Result<Vec<u8>, JsValue> {
                self.codec.encode_bytes(raw).map_err(common::js_error)
            }
        }
    };
}

/// zarr.json with integers beyond 2^53 in the fill value and codec configurations as decimal
/// strings, so that `JSON.parse` keeps them exact; a zarr v2 array's joined files (see
/// `layout::normalise`) as the zarr.json they translate to.
pub(crate) fn exact_metadata_json(zarr_json: &str) -> Result<String, JsValue> {
    let meta = parse_json(zarr_json, "zarr.json")?;
    let meta = zarr_wasm_codecs::layout::normalise(meta).map_err(js_error)?;
    Ok(zarr_wasm_codecs::layout::exact_for_javascript(&meta).to_string())
}

/// A data type from the registry (`zarr_wasm_codecs::types`): a zarr v3 `data_type` (JSON
/// text) for `zarr_format` 3, or a zarr v2 `dtype` (JSON text of the string; `object_codec`,
/// the first filter's id, says what `|O` holds).
pub(crate) fn array_type(
    data_type_json: &str,
    zarr_format: u8,
    object_codec: Option<String>,
) -> Result<zarr_wasm_codecs::types::ArrayType, JsValue> {
    use zarr_wasm_codecs::types::ArrayType;
    let value = parse_json(data_type_json, "data type")?;
    match zarr_format {
        3 => ArrayType::from_v3(&value),
        2 => match value.as_str() {
            Some(dtype) => ArrayType::from_v2(dtype, object_codec.as_deref()),
            None => Err(Error::InvalidMetadata {
                message: format!("a zarr v2 dtype is a string such as \"<f8\", got {value}"),
            }),
        },
        other => Err(Error::InvalidMetadata {
            message: format!("zarr_format must be 2 or 3, got {other}"),
        }),
    }
    .map_err(js_error)
}
