//! zarr v2 array metadata (`.zarray`, `.zattrs`) as the zarr v3 zarr.json that describes the
//! same stored chunks, so that one reader ([`crate::layout::open`]) serves both formats.
//!
//! - `dtype` becomes `data_type` and the `bytes` codec's endian; a dtype with no zarr v3
//!   numeric type here (`|b1`, `<M8[ns]`, `<c16`, `|S5`, structured, `|O`, ...) becomes a
//!   `data_type` the reader reports as unsupported, so that it falls back to zarrita.
//! - `order` "F" becomes a leading `transpose` with the axes reversed (0-d and 1-d chunks are
//!   the same in both orders, and have none).
//! - `filters` become array -> array codecs, in the same (encode) order: `fixedscaleoffset` and
//!   `astype` as `scale_offset` and `cast_value` where they decode exactly as numcodecs does,
//!   everything else as the codec table's name for the id, or `numcodecs.<id>` (unsupported:
//!   the reader falls back). Filters the table says are bytes -> bytes (numcodecs' `shuffle`)
//!   follow `bytes`, as they take the bytes the values are laid out in; numcodecs' defaults
//!   that differ from a v3 reader's are written out (a v2 `shuffle` without `elementsize` is 4).
//! - `compressor` becomes the codec of the codec table for its id ([`table::by_v2_id`]), or
//!   `numcodecs.<id>` for one outside it.
//! - `fill_value` stays as written (64-bit integers exactly); `null` becomes the data type's
//!   zero (see [`default_fill`]).

use crate::codec::bytes_to_bytes::BytesCodec;
use crate::codec::table::{self, Kind, Runs};
use crate::dtype::DataType;
use crate::error::{quoted, Error, Result};
use crate::json::{Map, Value};
use crate::types::ArrayType;

fn invalid(message: impl Into<String>) -> Error {
    Error::InvalidMetadata {
        message: format!(".zarray: {}", message.into()),
    }
}

/// A numeric v2 dtype: the zarr v3 type and whether its bytes are big-endian (never for
/// one-byte types).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
struct Numeric {
    dtype: DataType,
    big: bool,
}

/// Reads a v2 dtype string with a zarr v3 numeric type (see [`DataType::from_numpy`]).
fn numeric(s: &str) -> Option<Numeric> {
    DataType::from_numpy(s).map(|(dtype, big)| Numeric { dtype, big })
}

/// An array's v2 `dtype`, read.
enum Dtype {
    Numeric(Numeric),
    /// Any other dtype, as the zarr v3 `data_type` that stands for it (one [`DataType`] does
    /// not read, so that the reader reports it unsupported and falls back).
    Other {
        data_type: Value,
        bytes_endian: Option<&'static str>,
        default_fill: Value,
    },
}

fn read_dtype(value: &Value, object_codec: Option<&str>) -> Result<Dtype> {
    match value {
        Value::String(s) => Ok(match numeric(s) {
            Some(n) => Dtype::Numeric(n),
            None => {
                // Every other dtype through the registry, which knows its v3 form.
                let t = ArrayType::from_v2(s, object_codec)?;
                Dtype::Other {
                    default_fill: t.default_fill(),
                    data_type: t.to_v3(),
                    bytes_endian: t.byte_order(),
                }
            }
        }),
        // A structured dtype (a list of fields).
        Value::Array(_) => Err(Error::UnsupportedDataType {
            codec: "zarr-wasm-codecs",
            data_type: value.to_string(),
            reason: "structured data types are not read".to_string(),
        }),
        other => Err(invalid(format!(
            "dtype must be a string or a list of fields, got {other}"
        ))),
    }
}

/// The v3 fill value for a v2 `fill_value` of `null`.
///
/// zarr v2 allowed `null`, meaning "no fill value" (zarr-python 2 did not set a missing
/// chunk's elements then). zarr-python 3.4.2 reads a missing chunk of such an array as the
/// data type's default scalar (`zarr.core.chunk_utils.fill_value_or_default`:
/// `chunk_spec.dtype.default_scalar()`): checked by writing `<f8`, `<f4`, `<i2`, `|u1`, `<u8`
/// and `|b1` arrays with `zarr.create_array(..., fill_value=None, zarr_format=2)`, which keeps
/// `"fill_value": null` in `.zarray`, writing one of two chunks and reading the whole array:
/// the missing chunk reads as 0, 0.0 and False. So `null` becomes the type's default from the
/// registry ([`ArrayType::default_fill`]: zero, false, NaT, the empty string).
fn default_fill(dtype: &Dtype) -> Value {
    match dtype {
        Dtype::Numeric(n) if n.dtype.is_float() => Value::from(0.0),
        Dtype::Numeric(_) => Value::from(0u64),
        Dtype::Other { default_fill, .. } => default_fill.clone(),
    }
}

fn codec(name: &str, configuration: Map) -> Value {
    Value::object([
        ("name", Value::from(name)),
        ("configuration", Value::Object(configuration)),
    ])
}

fn config<const N: usize>(pairs: [(&str, Value); N]) -> Map {
    let mut map = Map::new();
    for (k, v) in pairs {
        map.insert(k.to_string(), v);
    }
    map
}

/// The zarr v3 name of a numcodecs id: the codec table's, or `numcodecs.<id>`.
fn v3_name_of(id: &str) -> String {
    table::by_v2_id(id).map_or_else(|| format!("numcodecs.{id}"), |r| r.v3_names[0].to_string())
}

/// A v2 codec's keys, with numcodecs' defaults written out where a zarr v3 reader would take
/// another (see [`BytesCodec::numcodecs_defaults`]).
fn v2_defaults(id: &str, rest: Map) -> Map {
    match BytesCodec::from_v2_id(id) {
        Some(c) => c.numcodecs_defaults(rest),
        None => rest,
    }
}

/// A numcodecs codec object (`{"id": ..., ...}`) split into its id and the other keys.
fn split_id<'a>(what: &str, value: &'a Value) -> Result<(&'a str, Map)> {
    let map = value.as_object().ok_or_else(|| {
        invalid(format!(
            "{what} must be an object with an \"id\", got {value}"
        ))
    })?;
    let id = map
        .get("id")
        .and_then(Value::as_str)
        .ok_or_else(|| invalid(format!("{what} {value} has no \"id\" string")))?;
    let mut rest = Map::new();
    for (k, v) in map.iter().filter(|(k, _)| k.as_str() != "id") {
        rest.insert(k.clone(), v.clone());
    }
    Ok((id, rest))
}

/// Whether `map` has only keys among `keys`.
fn only_keys(map: &Map, keys: &[&str]) -> bool {
    map.keys().all(|k| keys.contains(&k.as_str()))
}

/// A finite JSON number (as numcodecs' configurations give scale and offset).
fn finite_number(value: Option<&Value>) -> Option<&Value> {
    let v = value?;
    v.as_f64().filter(|x| x.is_finite()).map(|_| v)
}

/// Whether casting every value of `enc` to `dec` gives what numpy's `astype` gives: exact
/// conversions, and int64 and uint64 to float64, which both round to nearest, ties to even.
fn decodes_exactly(enc: DataType, dec: DataType) -> bool {
    match (enc.int_range(), dec.int_range()) {
        _ if enc == dec => true,
        (Some((elo, ehi)), Some((dlo, dhi))) => dlo <= elo && ehi <= dhi,
        (Some(_), None) => match dec {
            DataType::Float64 => true,
            DataType::Float32 => enc.size() <= 2,
            _ => enc.size() == 1,
        },
        (None, None) => enc.size() < dec.size(),
        (None, Some(_)) => false,
    }
}

/// An encode-only scalar_map for a float -> integer cast_value when the fill value is NaN or
/// infinite: the fill value must pass through the codecs on encode (a chain checks it), and
/// cast_value refuses to cast NaN or infinity to an integer. numcodecs' own result for such a
/// value is a C cast of NaN (undefined); 0 is stored instead. Decoding is unchanged, and a
/// missing chunk still reads as the fill value.
fn nonfinite_fill_map(fill: &Value) -> Option<(&'static str, Value)> {
    let pair = |from: &str| Value::Array(vec![Value::from(from), Value::from(0u64)]);
    let pairs = match fill.as_str()? {
        "NaN" => vec![pair("NaN")],
        "Infinity" | "-Infinity" => vec![pair("Infinity"), pair("-Infinity")],
        _ => return None,
    };
    Some((
        "scalar_map",
        Value::object([("encode", Value::Array(pairs))]),
    ))
}

/// A cast_value to `to` on encode, with the modes under which it casts as numpy's `astype`
/// does where numpy defines the result, in both directions.
fn cast(from: DataType, to: DataType, fill: &Value) -> Value {
    let mut c = config([("data_type", Value::from(to.name()))]);
    match (from.int_range(), to.int_range()) {
        // numpy truncates floats to integers (out-of-range values it leaves undefined).
        (None, Some(_)) => {
            c.insert("rounding".into(), Value::from("towards-zero"));
            c.insert("out_of_range".into(), Value::from("wrap"));
            if let Some((k, v)) = nonfinite_fill_map(fill) {
                c.insert(k.into(), v);
            }
        }
        // numpy wraps integers into a type that does not hold them all.
        (Some((flo, fhi)), Some((tlo, thi))) if flo < tlo || fhi > thi => {
            c.insert("out_of_range".into(), Value::from("wrap"));
        }
        // numpy makes a float beyond a narrower float type's range infinity, which is what
        // cast_value's "clamp" gives (either way: float32 -> float64 -> float32 decodes too).
        (None, None) if from != to => {
            c.insert("out_of_range".into(), Value::from("clamp"));
        }
        _ => {}
    }
    codec("cast_value", c)
}

/// `fixedscaleoffset` {offset, scale, dtype, astype}, where it decodes exactly as numcodecs:
/// `(enc.view(astype) / scale + offset).astype(dtype)`, the arithmetic in float64 (an integer
/// `enc` divided by a Python number is float64), for a float `dtype` and an integer `astype`.
///
/// - float64: `scale_offset` then `cast_value` to astype (nearest-even, wrap), zarr-extensions'
///   mapping.
/// - float32 and float16: the package's own `numcodecs.fixedscaleoffset` codec, since numcodecs
///   (numpy's rules for an array and a Python number) encodes `(x - offset) * scale` in the
///   array's own type and decodes in float64, which no chain of zarr-extensions codecs does both
///   of (see `codec::fixed_scale_offset`).
///
/// A float `astype` (numpy computes in that type) or an integer `dtype` is left to numcodecs.
fn fixed_scale_offset(rest: &Map, current: Option<Numeric>, fill: &Value) -> Option<Translated> {
    if !only_keys(rest, &["offset", "scale", "dtype", "astype"]) {
        return None;
    }
    let dtype = numeric(rest.get("dtype")?.as_str()?)?;
    let astype = match rest.get("astype") {
        None | Some(Value::Null) => dtype,
        Some(v) => numeric(v.as_str()?)?,
    };
    let offset = finite_number(rest.get("offset"))?;
    let scale = finite_number(rest.get("scale"))?;
    if Some(dtype) != current
        || !dtype.dtype.is_float()
        || astype.dtype.is_float()
        || scale.as_f64() == Some(0.0)
    {
        return None;
    }
    if dtype.dtype != DataType::Float64 {
        // numcodecs encodes in the array's type and decodes in float64: the package's codec of
        // the filter does both (see `codec::fixed_scale_offset`).
        let numpy = |n: Numeric| Value::from(ArrayType::numpy(n.dtype, n.big));
        return Some(Translated {
            codecs: vec![codec(
                "numcodecs.fixedscaleoffset",
                config([
                    ("offset", offset.clone()),
                    ("scale", scale.clone()),
                    ("dtype", numpy(dtype)),
                    ("astype", numpy(astype)),
                ]),
            )],
            stored: astype,
        });
    }
    let mut codecs = Vec::new();
    codecs.push(codec(
        "scale_offset",
        config([("offset", offset.clone()), ("scale", scale.clone())]),
    ));
    let mut to_int = config([
        ("data_type", Value::from(astype.dtype.name())),
        ("rounding", Value::from("nearest-even")),
        ("out_of_range", Value::from("wrap")),
    ]);
    if let Some((k, v)) = nonfinite_fill_map(fill) {
        to_int.insert(k.into(), v);
    }
    codecs.push(codec("cast_value", to_int));
    Some(Translated {
        codecs,
        stored: astype,
    })
}

/// `astype` {encode_dtype, decode_dtype}: numcodecs decodes `enc.view(encode_dtype)
/// .astype(decode_dtype)`; a `cast_value` to encode_dtype where that decoding is exact.
fn as_type(rest: &Map, current: Option<Numeric>, fill: &Value) -> Option<Translated> {
    if !only_keys(rest, &["encode_dtype", "decode_dtype"]) {
        return None;
    }
    let enc = numeric(rest.get("encode_dtype")?.as_str()?)?;
    let dec = numeric(rest.get("decode_dtype")?.as_str()?)?;
    if Some(dec) != current || !decodes_exactly(enc.dtype, dec.dtype) {
        return None;
    }
    Some(Translated {
        codecs: vec![cast(dec.dtype, enc.dtype, fill)],
        stored: enc,
    })
}

/// A zarr v3 codec list with zarr-python's `numcodecs.fixedscaleoffset` and `numcodecs.astype`
/// (numcodecs' filters, configured as in zarr v2) as the codecs their v2 filters become, where
/// those decode exactly as numcodecs does (see [`fixed_scale_offset`], [`as_type`]); each
/// other codec as it is. `dtype`: the array's numeric type, if it has one. (In zarr v3 the
/// byte order of the configurations' dtypes is not the stored one: `bytes` says that.)
pub(crate) fn numcodecs_filters_v3(
    codecs: &[Value],
    dtype: Option<DataType>,
    fill: &Value,
) -> Vec<Value> {
    let mut current = dtype;
    let mut out = Vec::with_capacity(codecs.len());
    for c in codecs {
        let name = c.get("name").and_then(Value::as_str).unwrap_or("");
        let rest = c.get("configuration").and_then(Value::as_object);
        let declared = |key: &str| rest?.get(key)?.as_str().and_then(numeric);
        let translated = match (name, rest, current) {
            ("numcodecs.fixedscaleoffset", Some(rest), Some(cur)) => declared("dtype")
                .filter(|d| d.dtype == cur)
                .and_then(|d| fixed_scale_offset(rest, Some(d), fill)),
            ("numcodecs.astype", Some(rest), Some(cur)) => declared("decode_dtype")
                .filter(|d| d.dtype == cur)
                .and_then(|d| as_type(rest, Some(d), fill)),
            _ => None,
        };
        match translated {
            Some(t) => {
                out.extend(t.codecs);
                current = Some(t.stored.dtype);
            }
            None => {
                // The codecs that keep the type, as the codec table says they run; a
                // cast_value's is its data_type; after any other, it is not known here.
                current = match table::by_v3_name(name).map(|r| r.runs) {
                    Some(Runs::ScaleOffset | Runs::BitRound | Runs::Transpose) => current,
                    Some(Runs::CastValue) => c
                        .at(&["configuration", "data_type"])
                        .and_then(Value::as_str)
                        .and_then(|n| DataType::from_name(n).ok()),
                    _ => None,
                };
                out.push(c.clone());
            }
        }
    }
    out
}

/// A filter's v3 codecs and the type it stores.
struct Translated {
    codecs: Vec<Value>,
    stored: Numeric,
}

/// A zarr v2 array's `.zarray` (and `.zattrs`, if any) as the zarr v3 zarr.json that describes
/// the same stored chunks, for `crate::layout::open` to read.
///
/// Malformed metadata (`zarr_format` not 2, `shape` and `chunks` not lists of non-negative
/// integers of one length, a dtype, order, separator, filter or compressor of the wrong form)
/// is an [`Error::InvalidMetadata`]; a well-formed array this package does not decode becomes
/// metadata that `open` reports unsupported.
pub fn to_v3(zarray: &Value, zattrs: Option<&Value>) -> Result<Value> {
    if !matches!(zarray, Value::Object(_)) {
        return Err(invalid(format!("must be an object, got {zarray}")));
    }
    if zarray.get("zarr_format").and_then(Value::as_u64) != Some(2) {
        return Err(invalid(format!(
            "zarr_format must be 2, got {}",
            zarray.get("zarr_format").unwrap_or(&Value::Null)
        )));
    }
    let dims = |name: &str| -> Result<&Vec<Value>> {
        let value = zarray
            .get(name)
            .ok_or_else(|| invalid(format!("no {}", quoted(name))))?;
        match value.as_array() {
            Some(list) if list.iter().all(|d| d.as_u64().is_some()) => Ok(list),
            _ => Err(invalid(format!(
                "{name} must be a list of non-negative integers, got {value}"
            ))),
        }
    };
    let shape = dims("shape")?;
    let chunks = dims("chunks")?;
    if shape.len() != chunks.len() {
        return Err(invalid(format!(
            "chunks {} and shape {} differ in length",
            Value::Array(chunks.clone()),
            Value::Array(shape.clone())
        )));
    }
    // An object dtype's filter says what its objects are (zarr-python: vlen-utf8, vlen-bytes).
    let object_codec = zarray
        .at(&["filters"])
        .and_then(Value::as_array)
        .and_then(|f| f.first())
        .and_then(|f| f.get("id"))
        .and_then(Value::as_str);
    let dtype = read_dtype(
        zarray.get("dtype").ok_or_else(|| invalid("no \"dtype\""))?,
        object_codec,
    )?;
    let fortran = match zarray.get("order") {
        None | Some(Value::Null) => false,
        Some(Value::String(s)) if s == "C" => false,
        Some(Value::String(s)) if s == "F" => true,
        Some(other) => {
            return Err(invalid(format!(
                "order must be \"C\" or \"F\", got {other}"
            )))
        }
    };
    let separator = match zarray.get("dimension_separator") {
        None | Some(Value::Null) => ".",
        Some(Value::String(s)) if s == "." || s == "/" => s.as_str(),
        Some(other) => {
            return Err(invalid(format!(
                "dimension_separator must be \".\" or \"/\", got {other}"
            )))
        }
    };
    let fill = match zarray.get("fill_value") {
        None | Some(Value::Null) => default_fill(&dtype),
        Some(v) => v.clone(),
    };
    let attributes = match zattrs {
        None | Some(Value::Null) => Value::Object(Map::new()),
        Some(v @ Value::Object(_)) => v.clone(),
        Some(other) => {
            return Err(Error::InvalidMetadata {
                message: format!(".zattrs must be an object, got {other}"),
            })
        }
    };

    let mut codecs = Vec::new();
    // Chunks stored in Fortran order are C-order chunks of the transposed array; a 0-d or 1-d
    // chunk is the same in both orders.
    if fortran && shape.len() > 1 {
        let axes = (0..shape.len() as u64).rev().map(Value::from).collect();
        codecs.push(codec("transpose", config([("order", Value::Array(axes))])));
    }
    // The type (and byte order) of the values at each step of the filters: what the bytes
    // codec finally lays out. `None` once a filter leaves it unknown.
    let (mut current, bytes_endian) = match &dtype {
        Dtype::Numeric(n) => (Some(*n), None),
        Dtype::Other { bytes_endian, .. } => (None, *bytes_endian),
    };
    let filters = match zarray.get("filters") {
        None | Some(Value::Null) => &[][..],
        Some(Value::Array(list)) => list.as_slice(),
        Some(other) => {
            return Err(invalid(format!(
                "filters must be a list or null, got {other}"
            )))
        }
    };
    // Bytes -> bytes filters, which follow `bytes`; once there is one, every later filter
    // must be one too (they all take bytes).
    let mut byte_filters = Vec::new();
    // A filter that takes the values and gives bytes (kerchunk's `grib`, whose chunks are
    // GRIB2 messages): the array -> bytes codec, in place of `bytes`; it must be the last.
    let mut serializer: Option<Value> = None;
    for filter in filters {
        let (id, rest) = split_id("a filter", filter)?;
        let name = v3_name_of(id);
        if serializer.is_some() {
            return Err(invalid(format!(
                "filter {} follows a filter that gives bytes; the package reads such a filter \
                 only as the last",
                quoted(id)
            )));
        }
        if table::kind_of(&name) == Some(Kind::ArrayToBytes) {
            if !byte_filters.is_empty() {
                return Err(invalid(format!(
                    "filter {} follows a filter that takes bytes",
                    quoted(id)
                )));
            }
            serializer = Some(codec(&name, rest));
            continue;
        }
        if table::kind_of(&name) == Some(Kind::BytesToBytes) {
            byte_filters.push(codec(&name, v2_defaults(id, rest)));
            continue;
        }
        if !byte_filters.is_empty() {
            return Err(invalid(format!(
                "filter {} follows a filter that takes bytes; the package reads filters that \
                 take bytes only after those that take values",
                quoted(id)
            )));
        }
        let translated = match id {
            "fixedscaleoffset" => fixed_scale_offset(&rest, current, &fill),
            "astype" => as_type(&rest, current, &fill),
            _ => None,
        };
        match translated {
            Some(t) => {
                codecs.extend(t.codecs);
                current = Some(t.stored);
            }
            None => {
                // numcodecs' delta, quantize and categorize hand on their `astype` (which
                // `bytes` then lays out, in its byte order).
                if id == "delta" || id == "quantize" || id == "categorize" {
                    let astype = rest.get("astype").or_else(|| rest.get("dtype"));
                    current = astype.and_then(Value::as_str).and_then(numeric).or(current);
                }
                codecs.push(codec(&name, rest))
            }
        }
    }
    let endian = match current {
        Some(n) if n.dtype.size() == 1 => None,
        Some(n) => Some(if n.big { "big" } else { "little" }),
        None => bytes_endian,
    };
    let compressor = match zarray.get("compressor") {
        None | Some(Value::Null) => None,
        Some(compressor) => {
            let (id, rest) = split_id("the compressor", compressor)?;
            Some((v3_name_of(id), v2_defaults(id, rest)))
        }
    };
    // A compressor that takes the array's values (an array -> bytes row of the table) is the
    // array -> bytes codec, in place of `bytes`.
    let serializes = compressor
        .as_ref()
        .is_some_and(|(name, _)| table::kind_of(name) == Some(Kind::ArrayToBytes));
    if let Some(serializer) = serializer {
        if serializes {
            return Err(invalid(
                "a compressor that takes values after a filter that gives bytes",
            ));
        }
        codecs.push(serializer);
    } else if !serializes {
        codecs.push(match endian {
            Some(e) => codec("bytes", config([("endian", Value::from(e))])),
            None => Value::object([("name", Value::from("bytes"))]),
        });
    } else if !byte_filters.is_empty() {
        return Err(invalid(
            "a filter that takes bytes before a compressor that takes values",
        ));
    }
    codecs.extend(byte_filters);
    if let Some((name, rest)) = compressor {
        codecs.push(codec(&name, rest));
    }

    let data_type = match dtype {
        Dtype::Numeric(n) => Value::from(n.dtype.name()),
        Dtype::Other { data_type, .. } => data_type,
    };
    Ok(Value::object([
        ("zarr_format", Value::from(3u64)),
        ("node_type", Value::from("array")),
        ("data_type", data_type),
        ("shape", Value::Array(shape.clone())),
        (
            "chunk_grid",
            Value::object([
                ("name", Value::from("regular")),
                (
                    "configuration",
                    Value::object([("chunk_shape", Value::Array(chunks.clone()))]),
                ),
            ]),
        ),
        (
            "chunk_key_encoding",
            Value::object([
                ("name", Value::from("v2")),
                (
                    "configuration",
                    Value::object([("separator", Value::from(separator))]),
                ),
            ]),
        ),
        ("fill_value", fill),
        ("codecs", Value::Array(codecs)),
        ("attributes", attributes),
    ]))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::json::parse;

    fn j(text: &str) -> Value {
        parse(text).expect("JSON")
    }

    /// A `.zarray` with `extra` members set over a small `<f8` array's.
    fn zarray(extra: &str) -> Value {
        let mut base = j(
            r#"{"zarr_format": 2, "shape": [10], "chunks": [5], "dtype": "<f8",
            "fill_value": 0.0, "order": "C", "filters": null, "compressor": null}"#,
        );
        if let (Value::Object(map), Value::Object(more)) = (&mut base, j(extra)) {
            for (k, v) in more.iter() {
                map.insert(k.clone(), v.clone());
            }
        }
        base
    }

    fn codecs(extra: &str) -> Value {
        to_v3(&zarray(extra), None)
            .expect("translates")
            .get("codecs")
            .cloned()
            .expect("codecs")
    }

    #[test]
    fn numeric_dtypes() {
        use DataType::*;
        let cases = [
            ("<f8", Some((Float64, false))),
            (">f8", Some((Float64, true))),
            ("<f4", Some((Float32, false))),
            (">f2", Some((Float16, true))),
            ("|i1", Some((Int8, false))),
            ("<i1", Some((Int8, false))),
            (">i1", Some((Int8, false))),
            ("|u1", Some((UInt8, false))),
            (">u2", Some((UInt16, true))),
            ("<i4", Some((Int32, false))),
            ("<i8", Some((Int64, false))),
            (">u8", Some((UInt64, true))),
            ("|i2", None),
            ("|f8", None),
            ("=f8", None),
            ("f8", None),
            ("<f16", None),
            ("|b1", None),
            ("<c8", None),
            ("", None),
            ("<", None),
            ("é", None),
        ];
        for (s, want) in cases {
            assert_eq!(numeric(s).map(|n| (n.dtype, n.big)), want, "{s:?}");
        }
    }

    #[test]
    fn exact_decoding_casts() {
        use DataType::*;
        let exact = [
            (Float32, Float64),
            (Float16, Float32),
            (Float16, Float64),
            (Int8, Int16),
            (UInt8, Int16),
            (UInt8, UInt64),
            (Int32, Int64),
            (UInt32, Int64),
            (Int16, Int16),
            (Int64, Float64),
            (UInt64, Float64),
            (Int16, Float32),
            (UInt8, Float16),
            (Float64, Float64),
        ];
        let inexact = [
            (Float64, Float32),
            (Float32, Float16),
            (Int8, UInt16),
            (Int16, Int8),
            (UInt16, Int16),
            (UInt64, Int64),
            (Int32, Float32),
            (Int16, Float16),
            (Float64, Int64),
            (Float16, Int32),
        ];
        for (enc, dec) in exact {
            assert!(decodes_exactly(enc, dec), "{enc} -> {dec}");
        }
        for (enc, dec) in inexact {
            assert!(!decodes_exactly(enc, dec), "{enc} -> {dec}");
        }
    }

    #[test]
    fn fill_value_null_is_zero() {
        let fill = |dtype: &str| {
            to_v3(
                &zarray(&format!(r#"{{"dtype": "{dtype}", "fill_value": null}}"#)),
                None,
            )
            .expect("translates")
            .get("fill_value")
            .cloned()
        };
        assert_eq!(fill("<f8"), Some(j("0.0")));
        assert_eq!(fill(">f2"), Some(j("0.0")));
        assert_eq!(fill("<i8"), Some(j("0")));
        assert_eq!(fill("|u1"), Some(j("0")));
        assert_eq!(fill("|b1"), Some(j("false")));
        // zarr-python 3.4.2's default_scalar(): NaT, the empty string, zero bytes, 0j.
        assert_eq!(fill("<M8[ns]"), Some(j("-9223372036854775808")));
        assert_eq!(fill("<U3"), Some(j(r#""""#)));
        assert_eq!(fill("|V4"), Some(j(r#""AAAAAA==""#)));
        assert_eq!(fill("<c8"), Some(j("[0.0, 0.0]")));
        // No fill_value member at all reads as null.
        let mut no_fill = Map::new();
        for (k, v) in zarray("{}").as_object().expect("object").iter() {
            if k != "fill_value" {
                no_fill.insert(k.clone(), v.clone());
            }
        }
        let no_fill = Value::Object(no_fill);
        let v3 = to_v3(&no_fill, None).expect("translates");
        assert_eq!(v3.get("fill_value"), Some(&j("0.0")));
    }

    #[test]
    fn compressors_take_the_tables_first_name() {
        let cases = [
            (
                r#"{"id": "zstd", "level": 3, "checksum": false}"#,
                r#"{"name": "zstd", "configuration": {"level": 3, "checksum": false}}"#,
            ),
            (
                r#"{"id": "gzip", "level": 1}"#,
                r#"{"name": "gzip", "configuration": {"level": 1}}"#,
            ),
            (
                r#"{"id": "zlib", "level": 1}"#,
                r#"{"name": "numcodecs.zlib", "configuration": {"level": 1}}"#,
            ),
            (
                r#"{"id": "lz4", "acceleration": 1}"#,
                r#"{"name": "numcodecs.lz4", "configuration": {"acceleration": 1}}"#,
            ),
            (
                r#"{"id": "blosc", "cname": "zstd", "clevel": 5, "shuffle": 2, "blocksize": 0}"#,
                r#"{"name": "blosc", "configuration": {"cname": "zstd", "clevel": 5, "shuffle": 2, "blocksize": 0}}"#,
            ),
            (
                r#"{"id": "crc32c"}"#,
                r#"{"name": "crc32c", "configuration": {}}"#,
            ),
            (
                r#"{"id": "lzma", "preset": 1}"#,
                r#"{"name": "numcodecs.lzma", "configuration": {"preset": 1}}"#,
            ),
        ];
        for (compressor, want) in cases {
            let got = codecs(&format!(r#"{{"compressor": {compressor}}}"#));
            let list = got.as_array().expect("list");
            assert_eq!(list.len(), 2, "{compressor}");
            assert_eq!(list.get(1), Some(&j(want)), "{compressor}");
        }
    }

    #[test]
    fn filters_in_order() {
        // fixedscaleoffset to uint16, then astype uint16 -> uint8 (exact back): the stored type
        // follows the filters, big-endian where the last one says so.
        let got = codecs(
            r#"{"filters": [
                {"id": "fixedscaleoffset", "offset": 1, "scale": 2, "dtype": "<f8", "astype": ">u2"},
                {"id": "astype", "encode_dtype": "|u1", "decode_dtype": ">u2"}]}"#,
        );
        assert_eq!(
            got,
            j(
                r#"[{"name": "scale_offset", "configuration": {"offset": 1, "scale": 2}},
                {"name": "cast_value", "configuration": {"data_type": "uint16",
                    "rounding": "nearest-even", "out_of_range": "wrap"}},
                {"name": "cast_value", "configuration": {"data_type": "uint8", "out_of_range": "wrap"}},
                {"name": "bytes"}]"#
            )
        );
        let got = codecs(
            r#"{"filters": [{"id": "fixedscaleoffset", "offset": 1, "scale": 2, "dtype": "<f8", "astype": ">i4"}]}"#,
        );
        assert_eq!(
            got.as_array().and_then(|l| l.last()),
            Some(&j(
                r#"{"name": "bytes", "configuration": {"endian": "big"}}"#
            ))
        );
        // astype on a big-endian array: the stored type's order.
        let got = to_v3(
            &zarray(r#"{"dtype": ">f8", "filters": [{"id": "astype", "encode_dtype": "<f4", "decode_dtype": ">f8"}]}"#),
            None,
        )
        .expect("translates");
        assert_eq!(
            got.get("codecs"),
            Some(&j(
                r#"[{"name": "cast_value", "configuration": {"data_type": "float32", "out_of_range": "clamp"}},
                {"name": "bytes", "configuration": {"endian": "little"}}]"#
            ))
        );
    }

    #[test]
    fn a_filter_that_gives_bytes_is_the_serializer() {
        // kerchunk's scan_grib: the message is the chunk, decoded by the `grib` filter.
        let got = codecs(r#"{"filters": [{"id": "grib", "var": "t2m", "dtype": "float64"}]}"#);
        assert_eq!(
            got,
            j(r#"[{"name": "grib", "configuration": {"var": "t2m", "dtype": "float64"}}]"#)
        );
        // ... with a bytes -> bytes compressor after it.
        let got = codecs(
            r#"{"filters": [{"id": "grib", "var": "t"}], "compressor": {"id": "zlib", "level": 1}}"#,
        );
        assert_eq!(
            got,
            j(
                r#"[{"name": "grib", "configuration": {"var": "t"}}, {"name": "numcodecs.zlib", "configuration": {"level": 1}}]"#
            )
        );
        for bad in [
            r#"{"filters": [{"id": "grib", "var": "t"}, {"id": "zlib", "level": 1}], "compressor": null}"#,
            r#"{"filters": [{"id": "grib", "var": "t"}, {"id": "delta", "dtype": "<f8"}]}"#,
            r#"{"filters": [{"id": "zlib", "level": 1}, {"id": "grib", "var": "t"}]}"#,
            r#"{"filters": [{"id": "grib", "var": "t"}], "compressor": {"id": "pcodec"}}"#,
        ] {
            let err = to_v3(&zarray(bad), None).unwrap_err();
            assert_eq!(err.code(), "INVALID_METADATA", "{bad}");
        }
    }

    #[test]
    fn filters_left_to_numcodecs() {
        let left = [
            // dtype other than the array's (type or byte order)
            r#"{"id": "fixedscaleoffset", "offset": 1, "scale": 2, "dtype": "<f4", "astype": "|u1"}"#,
            r#"{"id": "fixedscaleoffset", "offset": 1, "scale": 2, "dtype": ">f8", "astype": "|u1"}"#,
            // float astype, no astype (float), integer scale 0, missing or odd offset
            r#"{"id": "fixedscaleoffset", "offset": 1, "scale": 2, "dtype": "<f8", "astype": "<f2"}"#,
            r#"{"id": "fixedscaleoffset", "offset": 1, "scale": 2, "dtype": "<f8"}"#,
            r#"{"id": "fixedscaleoffset", "offset": 1, "scale": 0, "dtype": "<f8", "astype": "|u1"}"#,
            r#"{"id": "fixedscaleoffset", "scale": 2, "dtype": "<f8", "astype": "|u1"}"#,
            r#"{"id": "fixedscaleoffset", "offset": "NaN", "scale": 2, "dtype": "<f8", "astype": "|u1"}"#,
            r#"{"id": "fixedscaleoffset", "offset": 1, "scale": 2, "dtype": "<f8", "astype": "|u1", "x": 1}"#,
            r#"{"id": "fixedscaleoffset", "offset": 1, "scale": 2, "dtype": "<f8", "astype": "|b1"}"#,
            // astype decoding that rounds, or of another type than the array's
            r#"{"id": "astype", "encode_dtype": "<f8", "decode_dtype": "<f4"}"#,
            r#"{"id": "astype", "encode_dtype": "<f4", "decode_dtype": "<f4"}"#,
            r#"{"id": "astype", "encode_dtype": "<i4", "decode_dtype": "<f8", "x": 1}"#,
            r#"{"id": "astype", "encode_dtype": "<i4"}"#,
            r#"{"id": "bitround", "keepbits": 10}"#,
        ];
        for filter in left {
            let got = codecs(&format!(r#"{{"filters": [{filter}]}}"#));
            let mut config = j(filter);
            let id = config.get("id").and_then(Value::as_str).map(str::to_string);
            if let Value::Object(map) = &mut config {
                *map = {
                    let mut rest = Map::new();
                    for (k, v) in map.iter().filter(|(k, _)| *k != "id") {
                        rest.insert(k.clone(), v.clone());
                    }
                    rest
                };
            }
            let want = codec(
                &format!("numcodecs.{}", id.unwrap_or_default()),
                match config {
                    Value::Object(m) => m,
                    _ => Map::new(),
                },
            );
            assert_eq!(
                got.as_array().and_then(|l| l.first()),
                Some(&want),
                "{filter}"
            );
        }
    }

    /// Filters that take bytes (numcodecs' shuffle, a compressor given as a filter) follow
    /// `bytes`, before the compressor, with numcodecs' defaults written out.
    #[test]
    fn byte_filters_follow_bytes() {
        let got = codecs(
            r#"{"filters": [{"id": "shuffle", "elementsize": 8}, {"id": "zlib", "level": 1}],
                "compressor": {"id": "zstd", "level": 3}}"#,
        );
        let names: Vec<&str> = got
            .as_array()
            .unwrap()
            .iter()
            .map(|c| c.get("name").and_then(Value::as_str).unwrap())
            .collect();
        assert_eq!(
            names,
            ["bytes", "numcodecs.shuffle", "numcodecs.zlib", "zstd"]
        );
        let got = codecs(r#"{"compressor": {"id": "shuffle"}}"#);
        assert_eq!(
            got.as_array().unwrap()[1],
            j(r#"{"name": "numcodecs.shuffle", "configuration": {"elementsize": 4}}"#)
        );
        // A filter that takes values after one that takes bytes is refused.
        let zarray = zarray(r#"{"filters": [{"id": "shuffle"}, {"id": "delta", "dtype": "<f8"}]}"#);
        assert_eq!(to_v3(&zarray, None).unwrap_err().code(), "INVALID_METADATA");
    }

    #[test]
    fn casts_match_numpy_modes() {
        use DataType::*;
        let nan = Value::from("NaN");
        let zero = Value::from(0u64);
        assert_eq!(
            cast(Float64, Int16, &zero),
            j(
                r#"{"name": "cast_value", "configuration": {"data_type": "int16",
                "rounding": "towards-zero", "out_of_range": "wrap"}}"#
            )
        );
        assert_eq!(
            cast(Float32, UInt8, &nan),
            j(
                r#"{"name": "cast_value", "configuration": {"data_type": "uint8",
                "rounding": "towards-zero", "out_of_range": "wrap",
                "scalar_map": {"encode": [["NaN", 0]]}}}"#
            )
        );
        assert_eq!(
            cast(Float64, Int8, &Value::from("-Infinity")),
            j(
                r#"{"name": "cast_value", "configuration": {"data_type": "int8",
                "rounding": "towards-zero", "out_of_range": "wrap",
                "scalar_map": {"encode": [["Infinity", 0], ["-Infinity", 0]]}}}"#
            )
        );
        assert_eq!(
            cast(Int32, Int64, &zero),
            j(r#"{"name": "cast_value", "configuration": {"data_type": "int64"}}"#)
        );
        assert_eq!(
            cast(Int16, UInt16, &zero),
            j(
                r#"{"name": "cast_value", "configuration": {"data_type": "uint16", "out_of_range": "wrap"}}"#
            )
        );
        assert_eq!(
            cast(Float32, Float64, &nan),
            j(
                r#"{"name": "cast_value", "configuration": {"data_type": "float64", "out_of_range": "clamp"}}"#
            )
        );
        assert_eq!(
            cast(Float64, Float64, &nan),
            j(r#"{"name": "cast_value", "configuration": {"data_type": "float64"}}"#)
        );
    }

    #[test]
    fn other_dtypes_take_the_registrys_v3_form() {
        let v3 = |dtype: &str, filters: &str| {
            to_v3(
                &zarray(&format!(
                    r#"{{"dtype": {dtype}, "fill_value": null, "filters": {filters}}}"#
                )),
                None,
            )
        };
        let data_type = |dtype: &str| {
            v3(dtype, "null")
                .expect("translates")
                .get("data_type")
                .cloned()
                .unwrap()
        };
        let endian = |dtype: &str| {
            let meta = v3(dtype, "null").expect("translates");
            let first = meta.get("codecs").and_then(Value::as_array).unwrap()[0].clone();
            first.at(&["configuration", "endian"]).cloned()
        };
        // As zarr-python 3.4.2 writes the same numpy dtypes in zarr v3.
        assert_eq!(data_type(r#""|b1""#), j(r#""bool""#));
        assert_eq!(data_type(r#""<c8""#), j(r#""complex64""#));
        assert_eq!(
            data_type(r#"">M8[D]""#),
            j(r#"{"name": "numpy.datetime64", "configuration": {"unit": "D", "scale_factor": 1}}"#)
        );
        assert_eq!(
            data_type(r#""<U8""#),
            j(r#"{"name": "fixed_length_utf32", "configuration": {"length_bytes": 32}}"#)
        );
        assert_eq!(endian(r#"">U3""#), Some(j(r#""big""#)));
        assert_eq!(endian(r#"">c16""#), Some(j(r#""big""#)));
        assert_eq!(endian(r#""|S5""#), None);
        assert_eq!(
            v3(r#""|O""#, r#"[{"id": "vlen-utf8"}]"#)
                .expect("translates")
                .get("data_type"),
            Some(&j(r#""string""#))
        );
        // Read, or left to zarrita (strings of any length), or refused with a code.
        for dtype in [
            r#""|b1""#,
            r#""<M8[ns]""#,
            r#""|S5""#,
            r#""<U3""#,
            r#""<c16""#,
        ] {
            let opened = super::super::open(&v3(dtype, "null").expect("translates"));
            assert!(
                matches!(opened, Ok(super::super::Opened::Layout(_))),
                "{dtype}"
            );
        }
        let vlen = v3(r#""|O""#, r#"[{"id": "vlen-utf8"}]"#).expect("translates");
        assert!(matches!(
            super::super::open(&vlen),
            Ok(super::super::Opened::Unsupported(_))
        ));
        for (dtype, code) in [
            (r#""|O""#, "UNSUPPORTED_DATA_TYPE"),
            (r#"[["a", "<i4"]]"#, "UNSUPPORTED_DATA_TYPE"),
            (r#""float64x""#, "UNKNOWN_DATA_TYPE"),
            (r#""<M8[fortnight]""#, "INVALID_METADATA"),
        ] {
            assert_eq!(v3(dtype, "null").unwrap_err().code(), code, "{dtype}");
        }
    }
}
