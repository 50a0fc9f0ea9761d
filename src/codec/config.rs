//! Each codec's configuration as a typed struct, read from its JSON apart from the codec's
//! kernel: the keys it may have (any other is refused, with the codec's name), the type of
//! each value, and the choices that do not depend on the array (mode names, the endian). A
//! codec then binds its configuration to the array's data type (its
//! scalars must be representable there) in its own module.
//!
//! They are read from this crate's JSON values (`json.rs`, numbers kept exactly as written)
//! rather than derived with serde: serde_json and serde-wasm-bindgen made the core wasm module
//! 31 KB larger gzipped for the same reading (docs/benchmark-history.md, "serde for the configurations").

use zarr_cast_value::{OutOfRangeMode, RoundingMode};

use crate::dtype::DataType;
use crate::error::{join, quoted, Error, Result};
use crate::json::{Map, Value};

const SCALE_OFFSET: &str = "scale_offset";
const CAST_VALUE: &str = "cast_value";
const BYTES: &str = "bytes";

/// A codec's configuration as an object (`None` and `null` read as empty), refusing keys other
/// than `allowed`.
pub(crate) fn config_object<'a>(
    codec: &'static str,
    configuration: Option<&'a Value>,
    allowed: &[&str],
) -> Result<Option<&'a Map>> {
    let map = match configuration {
        None | Some(Value::Null) => return Ok(None),
        Some(Value::Object(map)) => map,
        Some(other) => {
            return Err(Error::config(
                codec,
                format!("configuration must be an object, got {other}"),
            ))
        }
    };
    if let Some(key) = map.keys().find(|k| !allowed.contains(&k.as_str())) {
        return Err(Error::config(
            codec,
            format!(
                "unknown key {}; {codec} takes {}",
                quoted(key),
                join(allowed, ", ")
            ),
        ));
    }
    Ok(Some(map))
}

/// scale_offset's configuration: `offset` and `scale`, each a JSON scalar as written (a
/// number, or a string such as "NaN" or "0x7fc00000"), read in the array's type when bound.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct ScaleOffsetConfig {
    pub offset: Option<Value>,
    pub scale: Option<Value>,
}

impl ScaleOffsetConfig {
    /// Reads `configuration`: absent, `null` or an object with optional `offset` and `scale`.
    pub fn read(configuration: Option<&Value>) -> Result<Self> {
        let config = config_object(SCALE_OFFSET, configuration, &["offset", "scale"])?;
        let scalar = |name: &str| -> Result<Option<Value>> {
            match config.and_then(|c| c.get(name)) {
                None => Ok(None),
                Some(v @ (Value::Number(_) | Value::String(_) | Value::Bool(_))) => {
                    Ok(Some(v.clone()))
                }
                Some(v) => Err(Error::config(
                    SCALE_OFFSET,
                    format!("{name} must be a number or a string, got {v}"),
                )),
            }
        };
        Ok(Self {
            offset: scalar("offset")?,
            scale: scalar("scale")?,
        })
    }
}

/// cast_value's configuration: the target `data_type`, the `rounding` and `out_of_range`
/// modes, and the `scalar_map` as pairs of JSON scalars (read in their types when bound).
#[derive(Debug, Clone, PartialEq)]
pub struct CastValueConfig {
    pub data_type: DataType,
    pub rounding: RoundingMode,
    pub out_of_range: Option<OutOfRangeMode>,
    pub scalar_map: Option<ScalarMapConfig>,
}

/// A scalar_map: `encode` pairs (array value, stored value) and `decode` pairs (stored value,
/// array value), in configuration order, and the map as written (written back unchanged).
#[derive(Debug, Clone, PartialEq)]
pub struct ScalarMapConfig {
    pub encode: Vec<(Value, Value)>,
    pub decode: Vec<(Value, Value)>,
    pub written: Value,
}

impl CastValueConfig {
    /// Reads `configuration`, an object with `data_type` and optional `rounding`,
    /// `out_of_range` and `scalar_map`.
    pub fn read(configuration: Option<&Value>) -> Result<Self> {
        const KEYS: [&str; 4] = ["data_type", "rounding", "out_of_range", "scalar_map"];
        let config = config_object(CAST_VALUE, configuration, &KEYS)?.ok_or_else(|| {
            Error::config(CAST_VALUE, "a configuration with \"data_type\" is required")
        })?;
        let target_json = config.get("data_type").ok_or_else(|| {
            Error::config(CAST_VALUE, "\"data_type\" (the target type) is required")
        })?;
        let target = DataType::from_json(target_json).map_err(|e| match e {
            Error::UnsupportedDataType {
                data_type, reason, ..
            } => Error::UnsupportedDataType {
                codec: CAST_VALUE,
                data_type,
                reason,
            },
            other => Error::config(CAST_VALUE, format!("target data_type: {other}")),
        })?;
        let rounding = match config.get("rounding") {
            None | Some(Value::Null) => RoundingMode::NearestEven,
            Some(Value::String(s)) => s.parse().map_err(|_| {
                Error::config(
                    CAST_VALUE,
                    format!(
                        "rounding {} is not one of nearest-even, towards-zero, \
                         towards-positive, towards-negative, nearest-away",
                        quoted(s)
                    ),
                )
            })?,
            Some(other) => {
                return Err(Error::config(
                    CAST_VALUE,
                    format!("rounding must be a string, got {other}"),
                ))
            }
        };
        let out_of_range = match config.get("out_of_range") {
            None | Some(Value::Null) => None,
            Some(Value::String(s)) => Some(s.parse().map_err(|_| {
                Error::config(
                    CAST_VALUE,
                    format!(
                        "out_of_range {} is not one of clamp, wrap (or absent, to error)",
                        quoted(s)
                    ),
                )
            })?),
            Some(other) => {
                return Err(Error::config(
                    CAST_VALUE,
                    format!("out_of_range must be a string, got {other}"),
                ))
            }
        };
        if out_of_range == Some(OutOfRangeMode::Wrap) && target.is_float() {
            return Err(Error::config(
                CAST_VALUE,
                format!(
                    "out_of_range \"wrap\" is only valid for integer targets, and the target is \
                     {target}; use \"clamp\" or leave it out"
                ),
            ));
        }
        let scalar_map = match config.get("scalar_map") {
            None | Some(Value::Null) => None,
            Some(map) => Some(ScalarMapConfig::read(map)?),
        };
        Ok(Self {
            data_type: target,
            rounding,
            out_of_range,
            scalar_map,
        })
    }
}

impl ScalarMapConfig {
    /// Reads `{"encode": [[in, out], ...], "decode": [[in, out], ...]}`; an object
    /// `{"in": out}` per direction is also read.
    pub fn read(value: &Value) -> Result<Self> {
        let map = match value {
            Value::Object(_) => {
                config_object("cast_value scalar_map", Some(value), &["encode", "decode"])?
            }
            _ => None,
        }
        .ok_or_else(|| {
            Error::config(
                CAST_VALUE,
                format!(
                    "scalar_map must be an object with \"encode\" and/or \"decode\", got {value}"
                ),
            )
        })?;
        let direction = |name: &str| -> Result<Vec<(Value, Value)>> {
            match map.get(name) {
                None | Some(Value::Null) => Ok(Vec::new()),
                Some(Value::Array(pairs)) => {
                    let mut out = Vec::with_capacity(pairs.len());
                    for pair in pairs {
                        match pair.as_array().map(Vec::as_slice) {
                            Some([k, v]) => out.push((k.clone(), v.clone())),
                            _ => {
                                return Err(Error::config(
                                    CAST_VALUE,
                                    format!(
                                    "scalar_map {name} entry {pair} must be a [input, output] pair"
                                ),
                                ))
                            }
                        }
                    }
                    Ok(out)
                }
                Some(Value::Object(obj)) => Ok(obj
                    .iter()
                    .map(|(k, v)| (Value::from(k.as_str()), v.clone()))
                    .collect()),
                Some(other) => Err(Error::config(
                    CAST_VALUE,
                    format!(
                        "scalar_map {name} must be a list of [input, output] pairs, got {other}"
                    ),
                )),
            }
        };
        Ok(Self {
            encode: direction("encode")?,
            decode: direction("decode")?,
            written: value.clone(),
        })
    }
}

/// The byte order of stored elements.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Endian {
    Little,
    Big,
}

/// bytes' configuration: the endian, which 1-byte types may leave out.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct BytesConfig {
    pub endian: Option<Endian>,
}

impl BytesConfig {
    /// Reads `configuration`: absent, or `{"endian": "little" | "big"}`.
    pub fn read(configuration: Option<&Value>) -> Result<Self> {
        let config = config_object(BYTES, configuration, &["endian"])?;
        let endian = match config.and_then(|c| c.get("endian")) {
            None | Some(Value::Null) => None,
            Some(Value::String(s)) if s == "little" => Some(Endian::Little),
            Some(Value::String(s)) if s == "big" => Some(Endian::Big),
            Some(other) => {
                return Err(Error::config(
                    BYTES,
                    format!("endian must be \"little\" or \"big\", got {other}"),
                ))
            }
        };
        Ok(Self { endian })
    }
}
