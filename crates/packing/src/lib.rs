//! The packing wasm module: the packing planner and decoded reads (missing values to NaN, CF
//! scale_factor and add_offset), loaded only by the calls that need them.

use wasm_bindgen::prelude::*;
use zarr_wasm_codecs::error::Error;
use zarr_wasm_codecs::missing::MaskAndScale;

use zarr_wasm_codecs::array::ArrayData;
use zarr_wasm_codecs::dtype::DataType;
use zarr_wasm_codecs::json::Value;
use zarr_wasm_codecs::layout::ChunkReader;

#[path = "../../panic_hook.rs"]
mod panic_hook;

#[path = "../../common.rs"]
#[allow(dead_code)]
mod common;
use common::{
    array_type, js_error, layout_json, open_reader, parse_json, reader_of, typed_array_bytes,
    unsupported, Opened,
};

/// zarr.json with integers beyond 2^53 as decimal strings (as the core module's): what the
/// package's `open` reads an array's metadata with where its reads need this module alone.
#[wasm_bindgen(js_name = exactMetadataJson)]
pub fn exact_metadata_json(zarr_json: &str) -> Result<String, JsValue> {
    common::exact_metadata_json(zarr_json)
}

/// The registry's description of a data type (as the core module's `dataTypeJson`).
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

/// Refuses, as the core module's `ArrayReader` does when it is built, metadata no reader may
/// read as it stands (codecs out of order, a malformed data type or configuration, a fill
/// value the type cannot hold).
#[wasm_bindgen(js_name = checkArrayMetadata)]
pub fn check_array_metadata(zarr_json: &str) -> Result<(), JsValue> {
    open_reader(zarr_json, None).map(|_| ())
}

/// Decodes a chunk of an array's values as its attributes ask (missing values to NaN, CF
/// scale_factor and add_offset; see `zarr_wasm_codecs::missing`) into a Float64Array.
#[wasm_bindgen(js_name = maskAndScale)]
pub fn mask_and_scale(
    attributes_json: &str,
    data_type: &str,
    data: &JsValue,
) -> Result<js_sys::Float64Array, JsValue> {
    let attributes = parse_json(attributes_json, "attributes")?;
    let dtype = DataType::from_name(data_type).map_err(js_error)?;
    let decode = zarr_wasm_codecs::missing::MaskAndScale::from_attributes(dtype, &attributes)
        .map_err(js_error)?;
    let bytes = typed_array_bytes(data, dtype)?;
    let values = ArrayData::from_le_bytes(dtype, &bytes).map_err(js_error)?;
    let out = decode.decode(&values).map_err(js_error)?;
    Ok(js_sys::Float64Array::from(out.as_slice()))
}

/// A shard index's entries, as the core module's `shardIndexEntries` (a `getDecoded` of a
/// sharded array reads its indexes here, with no core module).
#[wasm_bindgen(js_name = shardIndexEntries)]
pub fn shard_index_entries(bytes: &[u8], little: bool, count: usize) -> Result<Vec<f64>, JsValue> {
    common::shard_index_entries(bytes, little, count)
}

/// The packing plan for a typed array of data, as JSON text (see `zarr_wasm_codecs::plan`).
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
    let plan = zarr_wasm_codecs::plan::plan_for_data(&values, &options).map_err(js_error)?;
    Ok(plan.to_json().to_string())
}

/// The packing plan for a range, `{"min", "max", "data_type"}`, as JSON text.
#[wasm_bindgen(js_name = planPackingForRange)]
pub fn plan_packing_for_range(range_json: &str, options_json: &str) -> Result<String, JsValue> {
    let range = parse_json(range_json, "range")?;
    let options = plan_options(options_json)?;
    let plan = zarr_wasm_codecs::plan::plan_for_range(&range, &options).map_err(js_error)?;
    Ok(plan.to_json().to_string())
}

fn plan_options(options_json: &str) -> Result<zarr_wasm_codecs::plan::PlanOptions, JsValue> {
    let options = parse_json(options_json, "planPacking options")?;
    zarr_wasm_codecs::plan::PlanOptions::from_json(&options).map_err(js_error)
}

/// `ArrayReader`'s decoded twin, for `getDecoded`: each tile is decoded as the array's
/// attributes ask (missing values to NaN, CF scale_factor and add_offset) into float64 before
/// JavaScript places it.
#[wasm_bindgen]
pub struct DecodedReader {
    reader: Opened,
    mask: zarr_wasm_codecs::missing::MaskAndScale,
    decoded: Vec<f64>,
}

#[wasm_bindgen]
impl DecodedReader {
    /// `chunk_shape` (JSON): for a rectilinear grid, the shape of the chunks this reader reads.
    #[wasm_bindgen(constructor)]
    pub fn new(zarr_json: &str, chunk_shape: Option<String>) -> Result<DecodedReader, JsValue> {
        let (meta, reader) = open_reader(zarr_json, chunk_shape.as_deref())?;
        // (A zarr v2 array's attributes carry its .zarray fill value, which xarray masks too:
        // see `layout::normalise`.)
        let attributes = meta.get("attributes").cloned().unwrap_or(Value::Null);
        let mask = match &reader {
            // The array's data type from the registry: times, bool and numbers decode.
            Ok(r) => MaskAndScale::for_array(&r.layout.array_type, &attributes),
            Err(reason) => match DataType::from_json(meta.get("data_type").unwrap_or(&Value::Null))
            {
                Ok(dtype) => MaskAndScale::from_attributes(dtype, &attributes),
                // Strings and bytes of any length (read through zarrita): not numbers.
                Err(Error::UnsupportedDataType { data_type, .. }) => {
                    Err(Error::UnsupportedDataType {
                        codec: "getDecoded",
                        data_type,
                        reason: "an item is not one number (read it with get)".to_string(),
                    })
                }
                Err(_) => return Err(unsupported(reason)),
            },
        }
        .map_err(js_error)?;
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
        reader_of(&mut self.reader)
    }

    #[wasm_bindgen(getter, js_name = layoutJson)]
    pub fn layout_json(&mut self) -> Result<String, JsValue> {
        layout_json(&mut self.reader)
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
        let reader = reader_of(&mut self.reader)?;
        // A plain 8- or 16-bit array (`bytes` alone): its stored bytes go through the
        // decoding table in one pass.
        if let (Some(endian), true) = (
            reader.layout.chain.plain_endian(),
            self.mask.decodes_bytes(n),
        ) {
            let little = endian == zarr_wasm_codecs::codec::bytes::Endian::Little;
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
