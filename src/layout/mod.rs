//! An array's zarr.json, read exactly, split into what this package decodes in wasm and what
//! the JavaScript read and write path does around it: the chunk grid and chunk keys, the
//! bytes -> bytes codecs (run through zarrita's registry), and sharding's shard index.
//!
//! The chain handed to wasm is the array -> array codecs and the array -> bytes codec of one
//! chunk (an inner chunk when the array is sharded). A layout this path cannot run (a codec
//! such as `transpose`, a data type with no typed array, another chunk grid) is reported as
//! [`Opened::Unsupported`] with the reason, and the reader falls back to zarrita.

mod codecs;
mod grid;
mod javascript;
mod reader;
pub mod v2;
pub mod vlen;

pub(crate) use grid::key_encoding;
pub use javascript::exact_for_javascript;
pub use reader::{shard_index_entries, ChunkReader};

use crate::codec::bytes_to_bytes::{BytesChain, BytesCodec};
use crate::codec::table::{self, Kind, Module, Runs};
use crate::codec::{codec_name_and_config, parse_shape, Chain, Endian};
use crate::dtype::{DataType, Scalar};
use crate::error::{quoted, Error, Result};
use crate::json::Value;
use crate::types::{ArrayType, Family};
use codecs::split_codecs;
use grid::in_order;
use grid::is_identity;
use grid::rectilinear_edges;
use grid::shard_level;
use grid::transpose_order;

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
