//! The codec list of an array (or of a shard's inner chunks): zarr v3's order checked, and
//! split into the chain wasm runs, the bytes -> bytes steps before it (numcodecs' delta,
//! packbits, categorize) and the codecs zarrita's registry runs, with the reason.

use super::grid::is_identity;
use super::grid::reshaped;
use super::grid::transpose_order;
use super::invalid;
use super::WholeChunk;
use crate::codec::bytes_to_bytes::BytesCodec;
use crate::codec::codec_name_and_config;
use crate::codec::table::{self, Runs};
use crate::dtype::DataType;
use crate::error::{quoted, Error, Result};
use crate::json::{Map, Value};
use crate::types::ArrayType;

/// A chunk's codec list as this path runs it (see [`split_codecs`]).
pub(super) struct Split {
    /// The array -> array codecs and `bytes`.
    pub(super) chain: Vec<Value>,
    /// The bytes -> bytes codecs after the array -> bytes codec.
    pub(super) compressors: Vec<Value>,
    /// A `transpose`'s order.
    pub(super) order: Option<Vec<usize>>,
    /// A `reshape`'s output shape.
    pub(super) reshape: Option<Vec<usize>>,
    /// The array -> bytes codec when it is one run on whole chunks (see [`ArrayLayout`]).
    pub(super) serializer: Option<WholeChunk>,
    /// numcodecs' delta or packbits, moved to the front of `compressors`: the codec, the type
    /// it receives and the type it stores (delta's `dtype` and `astype`; packbits' bools, as
    /// bytes, and bytes).
    pub(super) delta: Option<(BytesCodec, DataType, DataType)>,
}

/// `bytes`, little-endian: how the chain reads what a whole-chunk serializer decodes to.
pub(super) fn little_endian_bytes() -> Value {
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
pub(super) fn split_codecs(
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
pub(super) fn check_fixed_scale_offset(config: Option<&Value>) -> Result<()> {
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
pub(super) fn fixed_scale_offset_here(config: Option<&Value>) -> bool {
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
pub(super) fn categorize_step(codec: &Value, big: bool) -> Result<(Value, DataType)> {
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
pub(super) fn delta_step(codec: &Value, big: bool) -> Result<(Value, (DataType, DataType))> {
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
