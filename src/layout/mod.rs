//! An array's zarr.json, read exactly, split into what this package decodes in wasm and what
//! the JavaScript read and write path does around it: the chunk grid and chunk keys, the
//! bytes -> bytes codecs (run through zarrita's registry), and sharding's shard index.
//!
//! The chain handed to wasm is the array -> array codecs and the array -> bytes codec of one
//! chunk (an inner chunk when the array is sharded). A layout this path cannot run (a codec
//! such as `transpose`, a data type with no typed array, another chunk grid) is reported as
//! [`Opened::Unsupported`] with the reason, and the reader falls back to zarrita.

pub mod v2;
pub mod vlen;

use crate::array::ArrayData;
use crate::codec::bytes::{check_byte_length, ReadInt};
use crate::codec::bytes_to_bytes::{BytesChain, BytesCodec};
use crate::codec::region::{transposed_strides, Span};
use crate::codec::table::{self, Kind, Module, Runs};
use crate::codec::{codec_name_and_config, parse_shape, Chain, Endian};
use crate::dtype::{DataType, Scalar};
use crate::error::{quoted, Error, Result};
use crate::json::{Map, Value};
use crate::types::{ArrayType, Family};

/// How chunk coordinates become store keys.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct KeyEncoding {
    /// `"default"` (keys `c/0/1`) or `"v2"` (keys `0.1`).
    pub v2: bool,
    pub separator: String,
}

/// One level of sharding: the chunks its index lists, and the index.
#[derive(Debug, Clone)]
pub struct ShardLevel {
    /// The shape of the chunks its index lists (the next level's shards, or the inner chunks).
    pub chunk_shape: Vec<usize>,
    pub index_endian: Endian,
    /// The index's bytes -> bytes codecs (e.g. crc32c), in encode order.
    pub index_compressors: Vec<Value>,
    /// `None` where the compress module runs `index_compressors`, else why zarrita's registry
    /// does.
    pub index_fallback: Option<String>,
    pub index_at_end: bool,
    /// The dimensions in the order the index lists its chunks (C order over them), where a
    /// `transpose` before this level's `sharding_indexed` turned it; `None` for the array's.
    pub index_order: Option<Vec<usize>>,
}

/// Sharding's inner chunks and shard indexes: one level, or nested (a shard's inner chunks
/// are shards themselves, as zarr-python writes `sharding_indexed` inside `sharding_indexed`).
#[derive(Debug, Clone)]
pub struct ShardLayout {
    /// The innermost chunks' shape: what the chain decodes.
    pub inner_chunk_shape: Vec<usize>,
    /// The levels, outermost first; the last one's chunks are the inner chunks.
    pub levels: Vec<ShardLevel>,
}

/// What a read needs to find, fetch and decode an array's chunks.
#[derive(Debug, Clone)]
pub struct ArrayLayout {
    pub shape: Vec<u64>,
    /// The chunk grid's chunk shape (a shard's shape when sharded).
    pub grid_chunk_shape: Vec<usize>,
    pub key: KeyEncoding,
    /// The (inner) chunk's array -> array and array -> bytes codecs.
    pub chain: Chain,
    /// The (inner) chunk's bytes -> bytes codecs, in encode order.
    pub compressors: Vec<Value>,
    /// `None` where the compress module runs `compressors`, else why zarrita's registry does.
    pub compressors_fallback: Option<String>,
    /// An array -> bytes codec that the read path runs on whole chunks in a wasm module of its
    /// own (a [`Runs::WholeChunk`] row): a chunk's stream decodes to the chunk's values as
    /// little-endian bytes, which `chain` (ending in `bytes`, little-endian) then reads.
    pub serializer: Option<WholeChunk>,
    /// 2 for a zarr v2 array (translated by [`v2::to_v3`]), else 3.
    pub zarr_format: u8,
    /// A `transpose` codec's order: stored dimension `i` is the array's dimension `order[i]`
    /// (zarr v2's order "F" is the reversed axes). The other codecs are element-wise, so the
    /// chain decodes as if it were not there and only where elements lie changes.
    pub order: Option<Vec<usize>>,
    /// A `reshape` codec's output shape: the chunk shape the codecs after it see. It keeps the
    /// elements in C order, so only that shape changes (a whole-chunk serializer's).
    pub reshape: Option<Vec<usize>>,
    pub shard: Option<ShardLayout>,
    /// A rectilinear grid's chunk edges, per dimension as runs of (edge, count), as far as the
    /// array reaches; `grid_chunk_shape` is then the shape of the chunks this layout reads.
    pub edges: Option<Vec<Vec<(usize, u64)>>>,
    /// The array's data type, from the registry ([`crate::types`]).
    pub array_type: ArrayType,
    /// Lanes an item: above 1, `shape` and the chunk shapes end with a dimension of them.
    pub lanes: usize,
    /// One item's fill value, little-endian.
    pub fill_bytes: Vec<u8>,
    /// numcodecs' delta's `astype` (packbits' bytes), where the chain has one (the first of
    /// `compressors`): what the codecs after it receive.
    pub delta_astype: Option<DataType>,
}

/// A whole-chunk array -> bytes codec and the module that runs it.
#[derive(Debug, Clone)]
pub struct WholeChunk {
    pub codec: Value,
    pub module: Module,
}

/// An array's metadata, read.
#[derive(Debug, Clone)]
pub enum Opened {
    Layout(Box<ArrayLayout>),
    /// Metadata this path does not run, and why.
    Unsupported(String),
}

fn invalid(message: impl Into<String>) -> Error {
    Error::InvalidMetadata {
        message: message.into(),
    }
}

/// An array's metadata as zarr v3 zarr.json: a zarr.json as it is, or, for a zarr v2 array,
/// the text the JavaScript side builds from its files, `{"zarr_format": 2, "zarray": {...},
/// "zattrs": {...}}`, translated ([`v2::to_v3`]). A v2 array's attributes then carry the
/// `.zarray`'s fill value as `_FillValue` (where it is not null), as xarray decodes it
/// ([`crate::missing::with_v2_fill_value`]; the readers ignore attributes otherwise).
pub fn normalise(meta: Value) -> Result<Value> {
    let Some(zarray) = meta.get("zarray") else {
        return Ok(meta);
    };
    let v3 = v2::to_v3(zarray, meta.get("zattrs"))?;
    let Value::Object(mut map) = v3 else {
        return Ok(v3);
    };
    if let Some(fill) = zarray.get("fill_value") {
        let attributes = map.get("attributes").unwrap_or(&Value::Null);
        let dtype = zarray.get("dtype").and_then(Value::as_str);
        let attributes = crate::missing::with_v2_fill_value(attributes, fill, dtype);
        map.insert("attributes".to_string(), attributes);
    }
    Ok(Value::Object(map))
}

/// Reads a zarr v3 array's zarr.json.
pub fn open(meta: &Value) -> Result<Opened> {
    open_with(meta, None)
}

/// [`open`], for chunks of `chunk_shape` where the grid is rectilinear (chunks of several
/// shapes: one reader a shape); `None` for its first chunk's shape.
pub fn open_with(meta: &Value, chunk_shape: Option<&[usize]>) -> Result<Opened> {
    let field = |name: &str| {
        meta.get(name)
            .ok_or_else(|| invalid(format!("zarr.json has no {}", quoted(name))))
    };
    if meta.get("zarr_format").and_then(Value::as_u64) != Some(3) {
        return Ok(Opened::Unsupported("not a zarr v3 array".into()));
    }
    if field("node_type")?.as_str() != Some("array") {
        return Err(invalid(
            "zarr.json is not an array's (node_type is not \"array\")",
        ));
    }
    let array_type = ArrayType::from_v3(field("data_type")?)?;
    let Some((lane, lanes)) = array_type.lane() else {
        // strings and bytes of any length: zarrita's vlen codecs read them.
        return Ok(Opened::Unsupported(format!(
            "data type {}: items of no fixed size",
            array_type.name()
        )));
    };
    // (A zarr v2 array's fill value is read as v3 reads it: the translation keeps its form.)
    let fill_bytes = match meta.get("fill_value") {
        None | Some(Value::Null) => array_type.fill_bytes(&array_type.default_fill(), 3)?,
        Some(fill) => array_type.fill_bytes(fill, 3)?,
    };
    let mut shape = shape_of(meta)?;
    let grid = field("chunk_grid")?;
    // The regular grid, or zarr-extensions' `rectilinear` (which zarr-python 3.4.2 and zarrs
    // write): a reader reads chunks of one shape, `chunk_shape` (a rectilinear grid's first
    // chunk's unless given), and the JavaScript side makes one for each shape it meets.
    let (mut grid_chunk_shape, mut edges) = match grid.get("name").and_then(Value::as_str) {
        Some("regular") => {
            let chunks = parse_shape(
                grid.at(&["configuration", "chunk_shape"])
                    .ok_or_else(|| invalid("the regular chunk grid has no chunk_shape"))?,
            )?;
            if chunk_shape.is_some_and(|given| given != chunks.as_slice()) {
                return Err(invalid("a chunk shape was given for a regular chunk grid"));
            }
            (chunks, None)
        }
        Some("rectilinear") => {
            let edges = rectilinear_edges(grid, &shape)?;
            let chunks = match chunk_shape {
                Some(given) => {
                    let known = given.len() == edges.len()
                        && given
                            .iter()
                            .zip(&edges)
                            // (A dimension of length 0 has no chunks: any size reads none.)
                            .all(|(g, runs)| {
                                runs.is_empty() || runs.iter().any(|&(size, _)| size == *g)
                            });
                    if !known {
                        return Err(invalid(
                            "the chunk shape given is not one of the rectilinear grid's",
                        ));
                    }
                    given.to_vec()
                }
                None => edges
                    .iter()
                    .map(|runs| runs.first().map_or(1, |&(size, _)| size))
                    .collect(),
            };
            (chunks, Some(edges))
        }
        Some(name) => {
            return Err(Error::Unsupported {
                message: format!(
                    "the chunk grid {} is not read (\"regular\" and \"rectilinear\" are)",
                    quoted(name)
                ),
            })
        }
        None => return Err(invalid(format!("chunk_grid has no name: {grid}"))),
    };
    if grid_chunk_shape.len() != shape.len() || grid_chunk_shape.contains(&0) && !shape.contains(&0)
    {
        return Err(invalid("the chunk shape does not match the array's shape"));
    }
    let Some(key) = key_encoding(meta.get("chunk_key_encoding"))? else {
        // (zarrita knows the same two.)
        return Err(Error::Unsupported {
            message: "the chunk key encoding is not read (\"default\" and \"v2\" are)".into(),
        });
    };
    let codecs = field("codecs")?
        .as_array()
        .ok_or_else(|| invalid("codecs must be a list"))?;
    check_order(codecs)?;

    // Sharding, at any depth: each level's list is transposes, then one sharding_indexed
    // codec, whose codecs are the next level's list (or, with no sharding_indexed, the chain).
    // A transpose before a sharding_indexed codec turns the shard around: its index, its
    // inner chunks' shape and everything inside are in the transposed order, which `order`
    // (the dimensions of the array, in that order) follows down the levels.
    let ndim = shape.len();
    let mut order: Vec<usize> = (0..ndim).collect();
    let mut chunk_codecs = codecs.as_slice();
    let mut chunk_shape = grid_chunk_shape.clone();
    let mut levels = Vec::new();
    while let Some(at) = chunk_codecs
        .iter()
        .position(|c| runs_of(c) == Some(Runs::Sharding))
    {
        // (zarrita takes a sharding_indexed codec for the whole chain and drops the codecs
        // around it, reading such an array wrong: refused, not handed to zarr.get.)
        let around = |what: String| {
            Error::Unsupported {
            message: format!(
                "{what} sharding_indexed is not read (the package reads transposes before it;                  zarr.get would ignore the codec)"
            ),
        }
        };
        if at + 1 != chunk_codecs.len() {
            let (name, _) = codec_name_and_config(&chunk_codecs[at + 1])?;
            return Err(around(format!("the codec {} after", quoted(name))));
        }
        for codec in &chunk_codecs[..at] {
            let (name, config) = codec_name_and_config(codec)?;
            if runs_of(codec) != Some(Runs::Transpose) {
                return Err(around(format!("the codec {} before", quoted(name))));
            }
            if let Some(o) = transpose_order(config, ndim)? {
                order = o.iter().map(|&d| order[d]).collect();
            }
        }
        let config = chunk_codecs[at]
            .get("configuration")
            .ok_or_else(|| invalid("sharding_indexed has no configuration"))?;
        let (mut level, inner_codecs) = shard_level(config, &in_order(&chunk_shape, &order))?;
        // The level's chunk shape, given in the shard's order, in the array's.
        let mut inner = vec![0; ndim];
        for (i, &d) in order.iter().enumerate() {
            inner[d] = level.chunk_shape[i];
        }
        level.chunk_shape = inner;
        level.index_order = (!is_identity(&order)).then(|| order.clone());
        chunk_shape = level.chunk_shape.clone();
        levels.push(level);
        chunk_codecs = inner_codecs;
    }
    let mut shard = (!levels.is_empty()).then(|| ShardLayout {
        inner_chunk_shape: chunk_shape.clone(),
        levels,
    });
    // zarr-python's v3 numcodecs.fixedscaleoffset and numcodecs.astype, as their v2 filters.
    let fill = meta.get("fill_value").unwrap_or(&Value::Null);
    let chunk_codecs = v2::numcodecs_filters_v3(chunk_codecs, array_type.numeric(), fill);
    let mut split = match split_codecs(&chunk_codecs, &in_order(&chunk_shape, &order))? {
        Ok(split) => split,
        Err(reason) => return Ok(Opened::Unsupported(reason)),
    };
    if !is_identity(&order) {
        // The chain's own transpose (in the shard's order) after the shard's.
        if split.reshape.is_some() {
            return Ok(Opened::Unsupported(
                "reshape in a shard a transpose turned".into(),
            ));
        }
        let turned = match &split.order {
            Some(o) => o.iter().map(|&d| order[d]).collect(),
            None => order,
        };
        split.order = (!is_identity(&turned)).then_some(turned);
    }
    if edges.is_some() && (shard.is_some() || split.serializer.is_some()) {
        return Err(Error::Unsupported {
            message: format!(
                "{} with a rectilinear chunk grid is not read (its chunks of several shapes)",
                if shard.is_some() {
                    "sharding_indexed"
                } else {
                    "a codec that codes a chunk whole"
                }
            ),
        });
    }
    // An item of several lanes (a complex number's two parts, a string's code points) is read
    // as an array with one more dimension, of the lanes: each lane is one numeric value to the
    // codecs (`bytes` swaps each on its own), and a box of items is a box of lanes.
    if lanes > 1 {
        for dims in [&mut grid_chunk_shape, &mut chunk_shape] {
            dims.push(lanes);
        }
        shape.push(lanes as u64);
        if let Some(s) = shard.as_mut() {
            s.inner_chunk_shape.push(lanes);
            for level in &mut s.levels {
                level.chunk_shape.push(lanes);
                if let Some(order) = level.index_order.as_mut() {
                    order.push(order.len());
                }
            }
        }
        if let Some(order) = split.order.as_mut() {
            order.push(order.len());
        }
        if let Some(reshaped) = split.reshape.as_mut() {
            reshaped.push(lanes);
        }
        if let Some(edges) = edges.as_mut() {
            edges.push(vec![(lanes, 1)]);
        }
    }
    let chain = match array_type.numeric() {
        Some(dt) => {
            let fill = meta.get("fill_value").unwrap_or(&Value::Null);
            Chain::new(
                &Value::from(dt.name()),
                fill,
                &Value::Array(split.chain),
                &chunk_shape,
            )?
        }
        None => {
            // Only `bytes` (and `transpose`, in `order`) take these types: the numeric codecs
            // and the whole-chunk serializers do not.
            if let Some(codec) = split
                .chain
                .iter()
                .rev()
                .nth(1)
                .or(split.serializer.as_ref().map(|s| &s.codec))
            {
                let (name, _) = codec_name_and_config(codec)?;
                return Err(Error::UnsupportedDataType {
                    codec: table::by_v3_name(name).map_or("a codec", |r| r.v3_names[0]),
                    data_type: array_type.name(),
                    reason: "it codes numbers".to_string(),
                });
            }
            // The chain reads the lanes. Its fill value is the item's where an item is one
            // lane (bool's 0 or 1, a datetime's count), else zero: the item's is `fill_bytes`.
            let lane_fill = match lanes {
                1 => ArrayType::new(Family::Number(lane)).fill_json(&fill_bytes)?,
                _ => lane.default_scalar().to_json(),
            };
            Chain::new(
                &Value::from(lane.name()),
                &lane_fill,
                &Value::Array(split.chain),
                &chunk_shape,
            )?
        }
    };
    if let Some((codec, dtype, _)) = split.delta {
        if let BytesCodec::Categorize(_) = codec {
            // Its dtype must be the items' (numcodecs decodes to it).
            let dtype = split
                .compressors
                .first()
                .and_then(|c| c.at(&["configuration", "dtype"]))
                .and_then(Value::as_str)
                .unwrap_or("");
            let chars = |f: &Family| match f {
                Family::Utf32 { chars } => Some(*chars),
                _ => None,
            };
            let given = ArrayType::from_v2(dtype, None)
                .ok()
                .and_then(|t| chars(&t.family));
            if chars(&array_type.family).is_none() || given != chars(&array_type.family) {
                return Err(invalid(format!(
                    "categorize's dtype {} is not the array's items, {}",
                    quoted(dtype),
                    array_type.name()
                )));
            }
        }
        if codec == BytesCodec::PackBits && !matches!(array_type.family, Family::Bool) {
            return Err(invalid(format!(
                "packbits takes bool values, not {}",
                array_type.name()
            )));
        }
        if dtype != chain.encoded_data_type() {
            return Err(invalid(format!(
                "delta's dtype {dtype} is not the data type it receives, {}",
                chain.encoded_data_type()
            )));
        }
    }
    let compressors_fallback = BytesChain::not_in_wasm(&split.compressors)?;
    Ok(Opened::Layout(Box::new(ArrayLayout {
        delta_astype: split.delta.map(|(_, _, astype)| astype),
        array_type,
        lanes,
        fill_bytes,
        compressors_fallback,
        shape,
        grid_chunk_shape,
        key,
        chain,
        compressors: split.compressors,
        serializer: split.serializer,
        zarr_format: 3,
        order: split.order,
        reshape: split.reshape,
        shard,
        edges,
    })))
}

/// zarr.json's `shape`.
pub(crate) fn shape_of(meta: &Value) -> Result<Vec<u64>> {
    match meta
        .get("shape")
        .ok_or_else(|| invalid("zarr.json has no \"shape\""))?
    {
        Value::Array(dims) => dims
            .iter()
            .map(|d| {
                d.as_u64().ok_or_else(|| {
                    invalid(format!("shape entry {d} is not a non-negative integer"))
                })
            })
            .collect(),
        other => Err(invalid(format!("shape must be a list, got {other}"))),
    }
}

/// Reads an array's metadata as [`normalise`] takes it (zarr.json, or a zarr v2 array's
/// files joined), noting its zarr format in the layout.
pub fn open_any(meta: Value) -> Result<(Value, Opened)> {
    open_any_with(meta, None)
}

/// [`open_any`] for chunks of `chunk_shape` of a rectilinear grid (see [`open_with`]).
pub fn open_any_with(meta: Value, chunk_shape: Option<&[usize]>) -> Result<(Value, Opened)> {
    let v2 = meta.get("zarray").is_some();
    let meta = normalise(meta)?;
    let mut opened = open_with(&meta, chunk_shape)?;
    if let (true, Opened::Layout(layout)) = (v2, &mut opened) {
        layout.zarr_format = 2;
    }
    Ok((meta, opened))
}

/// The chunk key encoding; `None` for one this path does not know.
pub(crate) fn key_encoding(value: Option<&Value>) -> Result<Option<KeyEncoding>> {
    let Some(value) = value else {
        return Ok(Some(KeyEncoding {
            v2: false,
            separator: "/".into(),
        }));
    };
    let v2 = match value.get("name").and_then(Value::as_str) {
        Some("default") => false,
        Some("v2") => true,
        _ => return Ok(None),
    };
    let separator = match value.at(&["configuration", "separator"]) {
        None | Some(Value::Null) => if v2 { "." } else { "/" }.to_string(),
        Some(Value::String(s)) if s == "/" || s == "." => s.clone(),
        Some(other) => return Err(invalid(format!("chunk key separator {other}"))),
    };
    Ok(Some(KeyEncoding { v2, separator }))
}

/// How the codec table says a codec (its metadata) runs.
fn runs_of(codec: &Value) -> Option<Runs> {
    table::by_v3_name(codec.get("name")?.as_str()?).map(|r| r.runs)
}

/// Refuses a codec list whose known codecs are out of zarr v3's order (array -> array codecs,
/// exactly one array -> bytes codec, then bytes -> bytes codecs), as zarr-python does: such a
/// chain would otherwise be read as something it does not say (e.g. a whole-chunk codec before
/// `bytes`, read as raw bytes). A list of array -> array codecs alone is refused when the
/// chain is split (`split_codecs`); a list with a codec of unknown kind is left to the reader
/// that has it.
fn check_order(codecs: &[Value]) -> Result<()> {
    let mut serializer: Option<&str> = None;
    let mut known = true;
    for codec in codecs {
        let (name, _) = codec_name_and_config(codec)?;
        match (table::kind_of(name), serializer) {
            (None, _) => known = false,
            (Some(Kind::ArrayToArray), Some(before)) => {
                return Err(invalid(format!(
                    "codecs: the array -> array codec {name} comes after the array -> bytes \
                     codec {before}"
                )))
            }
            (Some(Kind::ArrayToBytes), Some(before)) => {
                return Err(invalid(format!(
                    "codecs has two array -> bytes codecs, {before} and {name}: a chain has \
                     exactly one"
                )))
            }
            (Some(Kind::ArrayToBytes), None) => serializer = Some(name),
            (Some(Kind::BytesToBytes), None) if known => {
                return Err(invalid(format!(
                    "codecs: the bytes -> bytes codec {name} comes before any array -> bytes \
                     codec (such as bytes)"
                )))
            }
            _ => {}
        }
    }
    Ok(())
}

/// A chunk's codec list as this path runs it (see [`split_codecs`]).
struct Split {
    /// The array -> array codecs and `bytes`.
    chain: Vec<Value>,
    /// The bytes -> bytes codecs after the array -> bytes codec.
    compressors: Vec<Value>,
    /// A `transpose`'s order.
    order: Option<Vec<usize>>,
    /// A `reshape`'s output shape.
    reshape: Option<Vec<usize>>,
    /// The array -> bytes codec when it is one run on whole chunks (see [`ArrayLayout`]).
    serializer: Option<WholeChunk>,
    /// numcodecs' delta or packbits, moved to the front of `compressors`: the codec, the type
    /// it receives and the type it stores (delta's `dtype` and `astype`; packbits' bools, as
    /// bytes, and bytes).
    delta: Option<(BytesCodec, DataType, DataType)>,
}

/// `bytes`, little-endian: how the chain reads what a whole-chunk serializer decodes to.
fn little_endian_bytes() -> Value {
    Value::object([
        ("name", Value::from("bytes")),
        (
            "configuration",
            Value::object([("endian", Value::from("little"))]),
        ),
    ])
}

/// Splits a chunk's codec list into the chain this package runs (its array -> array codecs
/// and `bytes`), the bytes -> bytes codecs after it, a `transpose`'s order, and a serializer
/// run on whole chunks, as the codec table says each runs; `Err` with the reason when the list
/// holds an array -> array or array -> bytes codec this path does not run.
fn split_codecs(
    codecs: &[Value],
    chunk_shape: &[usize],
) -> Result<std::result::Result<Split, String>> {
    let ndim = chunk_shape.len();
    let mut chain = Vec::new();
    let mut order: Option<Vec<usize>> = None;
    let mut reshape: Option<Vec<usize>> = None;
    // numcodecs' delta or packbits, which run on the bytes `bytes` lays out (the compress
    // module): it must be the last array -> array codec, and the only one of them, but for
    // categorize's codes, which a delta may follow.
    let mut delta: Option<(&Value, BytesCodec)> = None;
    let mut categorized: Option<(&Value, BytesCodec)> = None;
    for (i, codec) in codecs.iter().enumerate() {
        let (name, config) = codec_name_and_config(codec)?;
        let runs = table::by_v3_name(name).map(|r| r.runs);
        if let Some(Runs::Compress(
            c @ (BytesCodec::Delta(_) | BytesCodec::PackBits | BytesCodec::Categorize(_)),
        )) = runs
        {
            match delta {
                Some(found @ (_, BytesCodec::Categorize(_)))
                    if matches!(c, BytesCodec::Delta(_)) && categorized.is_none() =>
                {
                    categorized = Some(found);
                }
                Some((_, before)) => {
                    return Ok(Err(format!("{} before {}", before.name(), c.name())));
                }
                None => {}
            }
            delta = Some((codec, c));
            continue;
        }
        if let Some((_, before)) = delta.filter(|_| runs != Some(Runs::Bytes)) {
            return Ok(Err(format!(
                "the codec {} between {} and bytes",
                quoted(name),
                before.name()
            )));
        }
        if runs == Some(Runs::FixedScaleOffset) {
            check_fixed_scale_offset(config)?;
        }
        let serializer = match runs {
            // numcodecs' fixedscaleoffset: the package's own codec takes float32 and float16 to
            // an integer type (its translation gives it only those); any other is zarr.get's.
            // zarrita reads it as scale_offset and cast_value in float64, rounding to nearest:
            // numcodecs decodes integers by truncation, and float32 in float32 (numpy 2's
            // rules), so zarr.get would read other values. Refused, not handed on.
            Some(Runs::FixedScaleOffset) if !fixed_scale_offset_here(config) => {
                return Err(Error::Unsupported {
                    message:
                        "numcodecs.fixedscaleoffset is read from float64 (as scale_offset and \
                              cast_value), float32 or float16 to an integer type; zarr.get would \
                              decode this one otherwise than numcodecs"
                            .into(),
                })
            }
            Some(
                Runs::ScaleOffset
                | Runs::CastValue
                | Runs::BitRound
                | Runs::Quantize
                | Runs::FixedScaleOffset,
            ) => {
                chain.push(codec.clone());
                continue;
            }
            Some(Runs::Reshape) => {
                if order.is_some() || reshape.is_some() {
                    return Ok(Err("reshape after transpose or another reshape".into()));
                }
                reshape = Some(reshaped(config, chunk_shape)?);
                continue;
            }
            Some(Runs::Transpose) if reshape.is_some() => {
                return Ok(Err("transpose after reshape".into()))
            }
            Some(Runs::Transpose) => {
                match transpose_order(config, ndim)? {
                    // A second turns what the first made: stored dimension i is the first's
                    // dimension o[i].
                    Some(o) => {
                        let turned: Vec<usize> = match &order {
                            Some(first) => o.iter().map(|&d| first[d]).collect(),
                            None => o,
                        };
                        order = (!is_identity(&turned)).then_some(turned);
                    }
                    // The identity is left to zarr.get, as it always was (late-register.test.mjs
                    // reads it as a chain this path does not take).
                    None => return Ok(Err("a transpose that changes nothing".into())),
                }
                continue;
            }
            Some(Runs::Bytes) if delta.is_some() => {
                // The chain lays the values out little-endian for delta, which stores its
                // differences in the byte order `bytes` says.
                chain.push(little_endian_bytes());
                None
            }
            Some(Runs::Bytes) => {
                chain.push(codec.clone());
                None
            }
            Some(Runs::WholeChunk(module)) => {
                chain.push(little_endian_bytes());
                // (The configuration as the module's class takes it.)
                let config = crate::codec::whole_chunk_configuration(name, config);
                let mut meta = Map::new();
                meta.insert("name".into(), Value::from(name));
                if let Some(config) = config {
                    meta.insert("configuration".into(), config);
                }
                Some(WholeChunk {
                    codec: Value::Object(meta),
                    module,
                })
            }
            Some(Runs::Sharding) => return Ok(Err("sharding nested in a shard".into())),
            Some(Runs::Compress(_)) | Some(Runs::Elsewhere) | None => {
                return Ok(Err(format!(
                    "the package does not run the codec {} in place (a chain's array -> array \
                     and array -> bytes codecs must be the package's own)",
                    quoted(name)
                )))
            }
        };
        let mut compressors = codecs[i + 1..].to_vec();
        let mut delta_types = None;
        match delta {
            Some((d, c @ BytesCodec::Delta(_))) => {
                let big =
                    config.and_then(|c| c.get("endian")).and_then(Value::as_str) == Some("big");
                let (step, (dtype, astype)) = delta_step(d, big)?;
                compressors.insert(0, step);
                delta_types = Some((c, dtype, astype));
                if let Some((k, categorize)) = categorized {
                    // The codes categorize stores are what the delta takes (little-endian,
                    // as delta's dtype is laid out).
                    let (step, codes) = categorize_step(k, false)?;
                    if codes != dtype {
                        return Err(invalid(format!(
                            "delta's dtype {dtype} is not categorize's astype, {codes}"
                        )));
                    }
                    compressors.insert(0, step);
                    delta_types = Some((categorize, DataType::UInt32, astype));
                }
            }
            Some((k, c @ BytesCodec::Categorize(_))) => {
                // categorize takes the items' code points (uint32 lanes, laid out
                // little-endian) and stores codes of its astype, in the byte order `bytes`
                // says (numcodecs' astype is then that type in that order).
                let big =
                    config.and_then(|c| c.get("endian")).and_then(Value::as_str) == Some("big");
                let (step, astype) = categorize_step(k, big)?;
                compressors.insert(0, step);
                delta_types = Some((c, DataType::UInt32, astype));
            }
            Some((p, c)) => {
                // packbits takes bools (one byte each) and stores bytes.
                compressors.insert(0, p.clone());
                delta_types = Some((c, DataType::UInt8, DataType::UInt8));
            }
            None => {}
        }
        return Ok(Ok(Split {
            chain,
            compressors,
            order,
            reshape,
            serializer,
            delta: delta_types,
        }));
    }
    // No array -> bytes codec. zarr v3 requires exactly one, and zarr-python refuses a chain
    // without: so is one of array -> array codecs alone. An empty list is what zarrita's
    // zarr.create writes by default, which zarrita reads as little-endian bytes: read so.
    if !chain.is_empty() {
        return Err(invalid(
            "codecs has array -> array codecs but no array -> bytes codec (such as bytes): a \
             chain has exactly one",
        ));
    }
    if let Some((_, c)) = delta {
        return Ok(Err(format!("{} with no bytes codec after it", c.name())));
    }
    chain.push(little_endian_bytes());
    Ok(Ok(Split {
        chain,
        compressors: Vec::new(),
        order,
        reshape,
        serializer: None,
        delta: None,
    }))
}

/// numcodecs' fixedscaleoffset needs `offset`, `scale` and `dtype` (numcodecs, and so
/// zarr-python, cannot make the codec without them): a configuration without one is refused,
/// naming it, whichever reader would run it.
fn check_fixed_scale_offset(config: Option<&Value>) -> Result<()> {
    for field in ["offset", "scale", "dtype"] {
        if config.and_then(|c| c.get(field)).is_none_or(Value::is_null) {
            return Err(Error::config(
                "numcodecs.fixedscaleoffset",
                format!("its configuration has no {field} (offset, scale and dtype are required)"),
            ));
        }
    }
    Ok(())
}

/// Whether the package's own fixedscaleoffset codec takes this configuration: a float32 or
/// float16 `dtype` and an integer `astype`.
fn fixed_scale_offset_here(config: Option<&Value>) -> bool {
    let dtype = |key: &str| {
        config
            .and_then(|c| c.get(key))
            .and_then(Value::as_str)
            .and_then(DataType::from_numpy)
            .map(|(t, _)| t)
    };
    matches!(dtype("dtype"), Some(DataType::Float32 | DataType::Float16))
        && dtype("astype").is_some_and(|t| !t.is_float())
}

/// numcodecs' categorize as the compress module runs it, after `bytes`: its configuration with
/// `astype` in the byte order stored (`big`: the `bytes` codec's), and that type.
fn categorize_step(codec: &Value, big: bool) -> Result<(Value, DataType)> {
    let config = codec
        .get("configuration")
        .and_then(Value::as_object)
        .ok_or_else(|| invalid("categorize has no configuration"))?;
    let astype = config
        .get("astype")
        .and_then(Value::as_str)
        .and_then(DataType::from_numpy)
        .map(|(t, _)| t)
        .filter(|t| !t.is_float())
        .ok_or_else(|| invalid("categorize's astype must be an integer type"))?;
    let mut config = config.clone();
    config.insert("astype".into(), Value::from(ArrayType::numpy(astype, big)));
    Ok((
        Value::object([
            ("name", Value::from("numcodecs.categorize")),
            ("configuration", Value::Object(config)),
        ]),
        astype,
    ))
}

/// numcodecs' delta as the compress module runs it, after `bytes`: `dtype` as the chain lays
/// it out (little-endian), `astype` in the byte order stored (`big`: the `bytes` codec's);
/// and its two types.
fn delta_step(codec: &Value, big: bool) -> Result<(Value, (DataType, DataType))> {
    let config = codec.get("configuration");
    let given = |key: &str| config.and_then(|c| c.get(key)).and_then(Value::as_str);
    let dtype_text = given("dtype").ok_or_else(|| invalid("delta needs a dtype"))?;
    let astype_text = given("astype").unwrap_or(dtype_text);
    let ordered = |text: &str, big: bool| -> Result<(String, DataType)> {
        let t = ArrayType::from_v2(text, None)?;
        let dt = t
            .numeric()
            .ok_or_else(|| invalid(format!("delta: {} is not a number type", quoted(text))))?;
        Ok((ArrayType::numpy(dt, big), dt))
    };
    let (dtype, dt) = ordered(dtype_text, false)?;
    let (astype, at) = ordered(astype_text, big)?;
    let step = Value::object([
        ("name", Value::from("numcodecs.delta")),
        (
            "configuration",
            Value::object([
                ("dtype", Value::from(dtype)),
                ("astype", Value::from(astype)),
            ]),
        ),
    ]);
    Ok((step, (dt, at)))
}

/// The output shape of zarr-extensions' `reshape` for chunks of `input`: each entry of its
/// `shape` a size, a list of input dimensions (their product, which must line up with the
/// input's dimensions before and after them), or -1 (at most once: what the element count
/// leaves). A shape that cannot hold the chunk's elements is refused (INVALID_CONFIG).
fn reshaped(config: Option<&Value>, input: &[usize]) -> Result<Vec<usize>> {
    let bad = |message: String| Error::config("reshape", message);
    let list = config
        .and_then(|c| c.get("shape"))
        .and_then(Value::as_array)
        .ok_or_else(|| bad("shape must be a list".into()))?;
    let product = |dims: &[usize]| dims.iter().try_fold(1usize, |p, &d| p.checked_mul(d));
    let total = product(input).ok_or_else(|| bad("the chunk is too large".into()))?;
    let mut out: Vec<Option<usize>> = Vec::with_capacity(list.len());
    // Each output dimension given by input dimensions: its place, the first and last of them.
    let mut spans: Vec<(usize, usize, usize)> = Vec::new();
    let mut last_dim: Option<usize> = None;
    let mut free = None;
    for (i, entry) in list.iter().enumerate() {
        match entry {
            Value::Array(dims) => {
                let mut size = 1usize;
                let mut first = None;
                for d in dims {
                    let d = d
                        .as_u64()
                        .filter(|&d| d < input.len() as u64)
                        .map(|d| d as usize)
                        .ok_or_else(|| bad(format!("{d} is not a dimension of the chunk")))?;
                    if last_dim.is_some_and(|l| d <= l) {
                        return Err(bad(
                            "the input dimensions must be in increasing order".into(),
                        ));
                    }
                    last_dim = Some(d);
                    first.get_or_insert(d);
                    size *= input[d];
                }
                if let (Some(first), Some(last)) = (first, last_dim.filter(|_| !dims.is_empty())) {
                    spans.push((i, first, last));
                }
                out.push(Some(size));
            }
            v if v.as_i64() == Some(-1) => {
                if free.replace(i).is_some() {
                    return Err(bad("-1 may be given once".into()));
                }
                out.push(None);
            }
            v => match v
                .as_u64()
                .filter(|&n| n > 0)
                .and_then(|n| usize::try_from(n).ok())
            {
                Some(n) => out.push(Some(n)),
                None => {
                    return Err(bad(format!(
                        "an entry of shape must be a positive size, a list of dimensions or -1, got {v}"
                    )))
                }
            },
        }
    }
    let known = out
        .iter()
        .flatten()
        .try_fold(1usize, |p, &d| p.checked_mul(d))
        .ok_or_else(|| bad("the shape is too large".into()))?;
    if let Some(i) = free {
        if known == 0 || total % known != 0 {
            return Err(bad(format!("no size for -1 makes {} elements", total)));
        }
        out[i] = Some(total / known);
    }
    let out: Vec<usize> = out.into_iter().flatten().collect();
    if product(&out) != Some(total) {
        return Err(bad(format!(
            "the shape holds {} elements, the chunk {total}",
            product(&out).map_or("too many".to_string(), |n| n.to_string())
        )));
    }
    for (i, first, last) in spans {
        if product(&out[..i]) != product(&input[..first])
            || product(&out[i + 1..]) != product(&input[last + 1..])
        {
            return Err(bad(format!(
                "output dimension {i} does not line up with input dimensions {first} to {last}"
            )));
        }
    }
    Ok(out)
}

/// `dims` in `order`: entry `i` is `dims[order[i]]`.
fn in_order(dims: &[usize], order: &[usize]) -> Vec<usize> {
    order.iter().map(|&d| dims[d]).collect()
}

fn is_identity(order: &[usize]) -> bool {
    order.iter().enumerate().all(|(i, &d)| i == d)
}

/// A transpose codec's `order` (a permutation of the dimensions); `None` for the identity,
/// which changes nothing.
fn transpose_order(config: Option<&Value>, ndim: usize) -> Result<Option<Vec<usize>>> {
    let bad = || invalid("transpose's order must be a permutation of the dimensions");
    let list = config
        .and_then(|c| c.get("order"))
        .and_then(Value::as_array)
        .ok_or_else(bad)?;
    let order: Vec<usize> = list
        .iter()
        .map(|v| v.as_u64().map(|d| d as usize).ok_or_else(bad))
        .collect::<Result<_>>()?;
    let mut seen = vec![false; ndim];
    if order.len() != ndim
        || !order
            .iter()
            .all(|&d| d < ndim && !std::mem::replace(&mut seen[d], true))
    {
        return Err(bad());
    }
    Ok(order
        .iter()
        .enumerate()
        .any(|(i, &d)| i != d)
        .then_some(order))
}

/// One `sharding_indexed` codec's level inside chunks of `outer` (a shard, or the chunk of
/// the level above), and its codecs.
fn shard_level<'a>(config: &'a Value, outer: &[usize]) -> Result<(ShardLevel, &'a [Value])> {
    let inner = parse_shape(
        config
            .get("chunk_shape")
            .ok_or_else(|| invalid("sharding_indexed has no chunk_shape"))?,
    )?;
    let divides =
        inner.len() == outer.len() && inner.iter().zip(outer).all(|(&i, &g)| i > 0 && g % i == 0);
    if !divides {
        return Err(invalid(
            "sharding_indexed's chunk_shape must divide the shard shape",
        ));
    }
    let Some((index_endian, index_compressors)) = index_codecs(config.get("index_codecs"))? else {
        return Err(invalid(
            "sharding_indexed's index_codecs must begin with bytes (the index is uint64 values)",
        ));
    };
    let index_at_end = match config.get("index_location").and_then(Value::as_str) {
        None | Some("end") => true,
        Some("start") => false,
        Some(other) => return Err(invalid(format!("index_location {}", quoted(other)))),
    };
    let inner_codecs = config
        .get("codecs")
        .and_then(Value::as_array)
        .ok_or_else(|| invalid("sharding_indexed has no codecs list"))?;
    check_order(inner_codecs)?;
    let index_fallback = BytesChain::not_in_wasm(&index_compressors)?;
    let level = ShardLevel {
        chunk_shape: inner,
        index_endian,
        index_compressors,
        index_fallback,
        index_at_end,
        index_order: None,
    };
    Ok((level, inner_codecs.as_slice()))
}

/// zarr-extensions' rectilinear grid (`kind` "inline"): per dimension, its chunk edges as runs
/// of (edge, count), from an edge repeated (a regular axis) or a list of edges and `[edge,
/// count]` runs; cut at the chunk that reaches the array's end (the rest lie outside it), and
/// refused where they do not reach it.
fn rectilinear_edges(grid: &Value, shape: &[u64]) -> Result<Vec<Vec<(usize, u64)>>> {
    let config = grid
        .get("configuration")
        .ok_or_else(|| invalid("the rectilinear chunk grid has no configuration"))?;
    match config.get("kind").and_then(Value::as_str) {
        Some("inline") => {}
        other => {
            return Err(Error::Unsupported {
                message: format!(
                    "the rectilinear chunk grid's kind {} is not read (\"inline\" is)",
                    other.map_or("(none)".to_string(), quoted)
                ),
            })
        }
    }
    let dims = config
        .get("chunk_shapes")
        .and_then(Value::as_array)
        .filter(|d| d.len() == shape.len())
        .ok_or_else(|| invalid("chunk_shapes must be a list of one entry per dimension"))?;
    let positive = |v: &Value| v.as_u64().filter(|&n| n > 0 && n <= u32::MAX as u64);
    dims.iter()
        .zip(shape)
        .enumerate()
        .map(|(d, (spec, &len))| {
            let bad = |what: &str| invalid(format!("chunk_shapes[{d}]: {what}, got {spec}"));
            let given: Vec<(u64, u64)> = match spec {
                Value::Array(entries) => entries
                    .iter()
                    .map(|e| match e {
                        Value::Array(pair) if pair.len() == 2 => {
                            let edge = positive(&pair[0])
                                .ok_or_else(|| bad("an edge must be a positive integer"))?;
                            let count = pair[1].as_u64().ok_or_else(|| {
                                bad("a run's count must be a non-negative integer")
                            })?;
                            Ok((edge, count))
                        }
                        e => Ok((
                            positive(e).ok_or_else(|| {
                                bad("an edge must be a positive integer or [edge, count]")
                            })?,
                            1,
                        )),
                    })
                    .collect::<Result<_>>()?,
                e => {
                    let edge = positive(e)
                        .ok_or_else(|| bad("an edge must be a positive integer or a list"))?;
                    vec![(edge, len.div_ceil(edge))]
                }
            };
            let mut runs = Vec::new();
            let mut reached = 0u64;
            for (edge, count) in given {
                if reached >= len {
                    break;
                }
                let needed = (len - reached).div_ceil(edge).min(count);
                if needed > 0 {
                    runs.push((edge as usize, needed));
                    reached = reached.saturating_add(edge.saturating_mul(needed));
                }
            }
            if reached < len {
                return Err(bad(&format!(
                    "the edges end at {reached}, before the array's {len}"
                )));
            }
            Ok(runs)
        })
        .collect()
}

/// The shard index's codecs: `bytes` (its endian) and then bytes -> bytes codecs.
fn index_codecs(value: Option<&Value>) -> Result<Option<(Endian, Vec<Value>)>> {
    let default = [Value::object([
        ("name", Value::from("bytes")),
        (
            "configuration",
            Value::object([("endian", Value::from("little"))]),
        ),
    ])];
    let list = match value {
        None => &default[..],
        Some(Value::Array(list)) => list.as_slice(),
        Some(other) => return Err(invalid(format!("index_codecs must be a list, got {other}"))),
    };
    let Some((first, rest)) = list.split_first() else {
        return Err(invalid("index_codecs is empty"));
    };
    let (name, config) = codec_name_and_config(first)?;
    if name != "bytes" {
        return Ok(None);
    }
    let bytes = crate::codec::Bytes::new(config, DataType::UInt64)?;
    Ok(Some((bytes.endian(), rest.to_vec())))
}

/// A JSON text a JavaScript `JSON.parse` reads without rounding: integers beyond 2^53 in the
/// fill value and in codec configurations become decimal strings (which every scalar in them
/// accepts), everything else stays as written.
pub fn exact_for_javascript(meta: &Value) -> Value {
    let Value::Object(map) = meta else {
        return meta.clone();
    };
    let mut out = Map::new();
    for (key, value) in map.iter() {
        let value = match key.as_str() {
            "fill_value" | "codecs" => big_integers_as_strings(value),
            _ => value.clone(),
        };
        out.insert(key.clone(), value);
    }
    Value::Object(out)
}

fn big_integers_as_strings(value: &Value) -> Value {
    match value {
        Value::Number(n) => {
            let text = n.as_str();
            let integer = !text.contains(['.', 'e', 'E']);
            let digits = text.trim_start_matches('-');
            // 2^53 has 16 digits; anything with more, or 16 digits from 2^53 up, is beyond.
            let beyond = digits.len() > 16 || (digits.len() == 16 && digits >= "9007199254740992");
            if integer && beyond {
                Value::from(text)
            } else {
                value.clone()
            }
        }
        Value::Array(items) => Value::Array(items.iter().map(big_integers_as_strings).collect()),
        Value::Object(map) => {
            let mut out = Map::new();
            for (k, v) in map.iter() {
                out.insert(k.clone(), big_integers_as_strings(v));
            }
            Value::Object(out)
        }
        other => other.clone(),
    }
}

impl ArrayLayout {
    /// Inner chunks per shard (1 when not sharded).
    pub fn chunks_per_shard(&self) -> usize {
        match &self.shard {
            Some(s) => self
                .grid_chunk_shape
                .iter()
                .zip(&s.inner_chunk_shape)
                .map(|(g, i)| g / i)
                .product(),
            None => 1,
        }
    }

    pub fn data_type(&self) -> DataType {
        self.chain.data_type()
    }

    pub fn fill_value(&self) -> Scalar {
        self.chain.fill_value()
    }

    /// The shape of the (inner) chunk as its array -> bytes codec receives it: the chunk
    /// shape, in a `transpose`'s order, or as a `reshape` makes it.
    pub fn stored_chunk_shape(&self) -> Vec<usize> {
        if let Some(reshaped) = &self.reshape {
            return reshaped.clone();
        }
        let shape = self.chain.chunk_shape();
        match &self.order {
            Some(order) => order.iter().map(|&d| shape[d]).collect(),
            None => shape.to_vec(),
        }
    }

    /// Whether `set` writes the array on the package's own path: for a zarr v2 array no filter
    /// that takes values but bitround and quantize (numcodecs encodes the others with NumPy's
    /// rules, which `zarr.set` follows through zarrita); a `transpose` (or v2's order "F") only
    /// before a serializer that lays values out elementwise (the write permutes each chunk's
    /// values into the stored order, `order` in the JSON).
    pub fn writes_here(&self) -> bool {
        // (bitround and quantize are numcodecs' own rules, which their kernels here follow.)
        let numcodecs_rules = self.chain.array_codecs().iter().all(|c| {
            matches!(
                c,
                crate::codec::ArrayCodec::BitRound(_) | crate::codec::ArrayCodec::Quantize(_)
            )
        });
        (self.order.is_none() || self.serializer.is_none())
            && (self.zarr_format == 3 || numcodecs_rules)
    }

    /// The item size of what the (inner) chunk's bytes -> bytes codecs receive: the values
    /// the array -> bytes codec lays out, a whole item of lanes (a complex128's 16 bytes, as
    /// numcodecs' blosc takes the dtype's itemsize for its typesize).
    pub fn stored_item_size(&self) -> usize {
        match self.delta_astype {
            Some(astype) => astype.size(),
            None => self.chain.encoded_data_type().size() * self.lanes,
        }
    }

    /// The whole-chunk serializer as the JavaScript side builds it: the codec, its module, the
    /// data type it receives and the chunk shape it sees; null when there is none.
    fn serializer_json(&self) -> Value {
        let Some(s) = &self.serializer else {
            return Value::Null;
        };
        Value::object([
            ("codec", s.codec.clone()),
            ("module", Value::from(s.module.name())),
            (
                "data_type",
                Value::from(self.chain.encoded_data_type().name()),
            ),
            ("chunk_shape", dims_json(&self.stored_chunk_shape())),
        ])
    }

    /// What the JavaScript side needs, as JSON (the `Layout` type of js/): shapes, chunk
    /// keys, bytes -> bytes codecs and whether the compress module runs them (else why not),
    /// the shard index, and the fill value's little-endian bytes.
    pub fn to_json(&self) -> Value {
        let shard = match &self.shard {
            None => Value::Null,
            Some(s) => {
                let mut outer = &self.grid_chunk_shape;
                let mut levels = Vec::new();
                for level in &s.levels {
                    // Chunks per index: of this level's chunks in the chunk above.
                    let count: usize = outer
                        .iter()
                        .zip(&level.chunk_shape)
                        .map(|(g, i)| g / i)
                        .product();
                    outer = &level.chunk_shape;
                    let decoded = 16 * count;
                    levels.push(Value::object([
                        ("chunk_shape", dims_json(&level.chunk_shape)),
                        (
                            "index_endian",
                            Value::from(if level.index_endian == Endian::Big {
                                "big"
                            } else {
                                "little"
                            }),
                        ),
                        (
                            "index_codecs",
                            Value::Array(level.index_compressors.clone()),
                        ),
                        ("index_fallback", fallback_json(&level.index_fallback)),
                        ("index_decoded_bytes", Value::from(decoded as u64)),
                        // The index's stored size, where its codecs fix it (bytes, crc32c).
                        (
                            "index_bytes",
                            BytesChain::encoded_size_of(&level.index_compressors, decoded)
                                .map_or(Value::Null, |n| Value::from(n as u64)),
                        ),
                        ("index_at_end", Value::Bool(level.index_at_end)),
                        (
                            "index_order",
                            level.index_order.as_deref().map_or(Value::Null, dims_json),
                        ),
                    ]));
                }
                Value::object([
                    ("chunk_shape", dims_json(&s.inner_chunk_shape)),
                    ("levels", Value::Array(levels)),
                ])
            }
        };
        let fill_bytes = &self.fill_bytes;
        // (The chain's length counts lanes.)
        let chunk_bytes = self.chain.len() * self.chain.encoded_data_type().size();
        Value::object([
            ("data_type", Value::from(self.data_type().name())),
            ("array_data_type", self.array_type.describe()),
            ("lanes", Value::from(self.lanes as u64)),
            (
                "shape",
                Value::Array(self.shape.iter().map(|&x| Value::from(x)).collect()),
            ),
            ("chunk_shape", dims_json(&self.grid_chunk_shape)),
            ("key_v2", Value::Bool(self.key.v2)),
            ("key_separator", Value::from(self.key.separator.as_str())),
            ("codecs", Value::Array(self.compressors.clone())),
            ("codecs_fallback", fallback_json(&self.compressors_fallback)),
            // What the bytes -> bytes codecs receive, for those zarrita's registry runs.
            (
                "stored_data_type",
                Value::from(self.chain.encoded_data_type().name()),
            ),
            ("stored_chunk_shape", dims_json(&self.stored_chunk_shape())),
            (
                "stored_item_size",
                Value::from(self.stored_item_size() as u64),
            ),
            ("serializer", self.serializer_json()),
            // The size of one (inner) chunk after its bytes -> bytes codecs are undone, where
            // every chunk has the same (not before a whole-chunk serializer).
            (
                "decoded_bytes",
                if self.serializer.is_some() || self.edges.is_some() {
                    Value::Null
                } else {
                    Value::from(chunk_bytes as u64)
                },
            ),
            ("writes_here", Value::Bool(self.writes_here())),
            // A transpose's order (stored dimension i is dimension order[i]), lanes included.
            (
                "order",
                self.order.as_ref().map_or(Value::Null, |order| {
                    Value::Array(order.iter().map(|&d| Value::from(d as u64)).collect())
                }),
            ),
            ("shard", shard),
            (
                "edges",
                self.edges.as_ref().map_or(Value::Null, |edges| {
                    Value::Array(
                        edges
                            .iter()
                            .map(|runs| {
                                Value::Array(
                                    runs.iter()
                                        .map(|&(e, n)| {
                                            Value::Array(vec![
                                                Value::from(e as u64),
                                                Value::from(n),
                                            ])
                                        })
                                        .collect(),
                                )
                            })
                            .collect(),
                    )
                }),
            ),
            (
                "fill_bytes",
                Value::Array(
                    fill_bytes
                        .iter()
                        .map(|&b| Value::from(u64::from(b)))
                        .collect(),
                ),
            ),
        ])
    }
}

fn dims_json(d: &[usize]) -> Value {
    Value::Array(d.iter().map(|&x| Value::from(x as u64)).collect())
}

/// Why zarrita's registry runs a list of codecs, or null where the compress module does.
fn fallback_json(fallback: &Option<String>) -> Value {
    fallback.as_deref().map_or(Value::Null, Value::from)
}

/// A shard index (after its bytes -> bytes codecs) read into its `count` entries, each the
/// inner chunk's (offset, length) as numbers JavaScript holds exactly; an entry of the format's
/// missing marker (both 2^64 - 1) is (2^64, 2^64) as f64, which no other entry can be. An index
/// of another size, an entry half missing, or one reaching beyond 2^53 bytes is refused.
pub fn shard_index_entries(bytes: &[u8], endian: Endian, count: usize) -> Result<Vec<f64>> {
    let corrupt = |message: String| Error::CorruptChunk {
        codec: "sharding_indexed",
        message,
    };
    check_byte_length(bytes.len(), count.saturating_mul(2), DataType::UInt64)?;
    const EXACT: u64 = 1 << 53;
    let mut out = Vec::with_capacity(2 * count);
    for (i, entry) in bytes.chunks_exact(16).enumerate() {
        let offset = u64::read(&entry[..8], endian);
        let length = u64::read(&entry[8..], endian);
        match (offset, length) {
            (u64::MAX, u64::MAX) => out.extend([u64::MAX as f64; 2]),
            (u64::MAX, _) | (_, u64::MAX) => {
                return Err(corrupt(format!(
                    "inner chunk {i}'s index entry is half missing"
                )))
            }
            (o, l) if o.checked_add(l).is_none_or(|end| end > EXACT) => {
                return Err(corrupt(format!(
                    "inner chunk {i}'s index entry ({o}, {l}) reaches beyond 2^53 bytes"
                )))
            }
            (o, l) => out.extend([o as f64, l as f64]),
        }
    }
    Ok(out)
}

/// A box as (first, step, count) per dimension.
fn spans(region: &[u32]) -> Result<Vec<Span>> {
    if !region.len().is_multiple_of(3) {
        return Err(invalid("a chunk region needs three numbers per dimension"));
    }
    Ok(region
        .chunks_exact(3)
        .map(|s| Span {
            first: s[0] as usize,
            step: s[1] as usize,
            count: s[2] as usize,
        })
        .collect())
}

/// Decodes boxes of an array's chunks a tile at a time (see [`Chain::decode_region`]): one
/// stored chunk is held at a time, and each tile replaces the last.
#[derive(Debug)]
pub struct ChunkReader {
    pub layout: ArrayLayout,
    /// Where each dimension's elements lie in a stored chunk (in elements).
    strides: Vec<usize>,
    stored: Vec<u8>,
    region: Vec<Span>,
    count: usize,
    gather: Vec<u8>,
    tile: ArrayData,
}

impl ChunkReader {
    pub fn new(layout: ArrayLayout) -> Self {
        let tile = ArrayData::filled(layout.fill_value(), 0);
        let strides = match &layout.order {
            Some(order) => transposed_strides(layout.chain.chunk_shape(), order),
            None => layout.chain.c_strides(),
        };
        Self {
            layout,
            strides,
            stored: Vec::new(),
            region: Vec::new(),
            count: 0,
            gather: Vec::new(),
            tile,
        }
    }

    /// Takes one stored (inner) chunk, after its bytes -> bytes codecs, and the box of it to
    /// read: `region` holds (first, step, count) for each dimension. Returns the box's size.
    pub fn set_chunk(&mut self, stored: Vec<u8>, region: &[u32]) -> Result<usize> {
        self.count = 0;
        let spans = spans(region)?;
        self.count = self.layout.chain.check_region(&stored, &spans)?;
        self.stored = stored;
        self.region = spans;
        Ok(self.count)
    }

    /// Checks a stored chunk of `stored_len` bytes and a box of it as [`ChunkReader::set_chunk`]
    /// does (same errors), without taking the bytes; returns the box's size.
    pub fn check_chunk(&self, stored_len: usize, region: &[u32]) -> Result<usize> {
        self.layout
            .chain
            .check_region_len(stored_len, &spans(region)?)
    }

    /// The stored bytes of the box's elements `from .. from + n` (C order), undecoded.
    pub fn gather_tile(&mut self, from: usize, n: usize) -> Result<&[u8]> {
        if from.checked_add(n).is_none_or(|end| end > self.count) {
            return Err(invalid("a tile reaches past the chunk region"));
        }
        self.layout.chain.gather_region(
            &self.stored,
            &self.strides,
            &self.region,
            from,
            n,
            &mut self.gather,
        );
        Ok(&self.gather)
    }

    /// The box's elements `from .. from + n` (C order), decoded to the array's type.
    pub fn decode_tile(&mut self, from: usize, n: usize) -> Result<&ArrayData> {
        if from.checked_add(n).is_none_or(|end| end > self.count) {
            return Err(invalid("a tile reaches past the chunk region"));
        }
        self.layout.chain.decode_region(
            &self.stored,
            &self.strides,
            &self.region,
            from,
            n,
            &mut self.gather,
            &mut self.tile,
        )?;
        Ok(&self.tile)
    }
}

#[cfg(test)]
mod shard_index_tests {
    use super::*;

    /// The sharding spec's index: (offset, length) per inner chunk as uint64, both 2^64 - 1
    /// for a missing one.
    #[test]
    fn entries_exact_missing_and_refused() {
        let mut bytes = Vec::new();
        for v in [16u64, 100, u64::MAX, u64::MAX] {
            bytes.extend_from_slice(&v.to_le_bytes());
        }
        let got = shard_index_entries(&bytes, Endian::Little, 2).unwrap();
        assert_eq!(got, [16.0, 100.0, 2f64.powi(64), 2f64.powi(64)]);
        let big: Vec<u8> = bytes
            .chunks_exact(8)
            .flat_map(|c| u64::from_le_bytes(c.try_into().unwrap()).to_be_bytes())
            .collect();
        assert_eq!(shard_index_entries(&big, Endian::Big, 2).unwrap(), got);
        assert_eq!(
            shard_index_entries(&bytes, Endian::Little, 3)
                .unwrap_err()
                .code(),
            "CHUNK_LENGTH"
        );
        let mut half = bytes.clone();
        half[16..24].copy_from_slice(&7u64.to_le_bytes());
        assert_eq!(
            shard_index_entries(&half, Endian::Little, 2)
                .unwrap_err()
                .code(),
            "CORRUPT_CHUNK"
        );
        let mut far = bytes.clone();
        far[..8].copy_from_slice(&(1u64 << 53).to_le_bytes());
        assert_eq!(
            shard_index_entries(&far, Endian::Little, 2)
                .unwrap_err()
                .code(),
            "CORRUPT_CHUNK"
        );
    }
}
