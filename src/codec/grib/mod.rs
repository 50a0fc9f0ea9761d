//! GRIB2 messages as zarr chunks: the codec kerchunk's `scan_grib` references name (numcodecs
//! id `grib`, zarr v2 filters; the same name in zarr v3) and gribberish's zarr v3 codec
//! `gribberish`. A chunk is one whole GRIB2 message; decoding gives the grid's values as
//! ecCodes 2.50 computes them (`values`), or its coordinates (`latitudes`, `longitudes`).
//!
//! kerchunk 0.2.10's `GRIBCodec` decodes a message with ecCodes, takes `values` (or, for `var`
//! `latitude` / `longitude`, `latitudes` / `longitudes`), sets every value equal to the
//! message's `missingValue` to NaN (values only), and casts to its `dtype` (float32 where none
//! is given for values, float64 for coordinates); zarr then casts into the array's data type.
//! gribberish's codec casts straight into the array's data type. Both are decode-only: a
//! write is refused.
//!
//! The message itself is read by [`message`]: its sections, the grid, the bitmap and every
//! data representation template in use.

use super::whole_chunk::WholeChunkCodec;
use crate::array::ArrayData;
use crate::dtype::DataType;
use crate::error::{Error, Result};
use crate::json::Value;

mod adjust;
mod bitmap;
mod bits;
mod ccsds;
mod complex;
mod grid;
mod ieee;
mod jpeg2000;
pub mod message;
mod png;
mod scaling;
mod section;
mod simple;

/// The codec's name in messages (kerchunk's, also the numcodecs id).
pub const NAME: &str = "grib";

/// The key gribberish's configuration is wrapped in (see
/// [`super::whole_chunk_configuration`]), so that the module's one class tells the two forms
/// apart.
pub const GRIBBERISH: &str = "gribberish";

/// What a chunk decodes to.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Var {
    /// The grid's values (any `var` but the two below).
    Values,
    Latitude,
    Longitude,
}

/// The grib codec bound to an array's data type and chunk length.
#[derive(Debug, Clone)]
pub struct Grib {
    var: Var,
    /// The type kerchunk's codec casts to before zarr casts into the array's type (none for
    /// gribberish's codec, which casts into the array's type at once).
    cast: Option<DataType>,
    /// The array's data type.
    data_type: DataType,
    /// gribberish's reordering of the grid (none for kerchunk's codec).
    options: adjust::Options,
    /// Values in a chunk.
    count: usize,
}

impl Grib {
    /// The codec from its configuration: kerchunk's (`var`, `dtype`) or, wrapped under
    /// [`GRIBBERISH`], gribberish's (`var`, `adjust_longitude_range`, `north_up`).
    pub fn new(configuration: Option<&Value>, data_type: DataType, count: usize) -> Result<Self> {
        if !data_type.is_float() {
            return Err(Error::UnsupportedDataType {
                codec: NAME,
                data_type: data_type.name().to_string(),
                reason: "a GRIB2 message decodes to floating-point values".to_string(),
            });
        }
        if let Some(inner) = configuration.and_then(|c| c.get(GRIBBERISH)) {
            return Self::gribberish(inner, data_type, count);
        }
        let config = configuration.and_then(Value::as_object);
        if let Some(map) = config {
            if let Some(key) = map.keys().find(|k| !matches!(k.as_str(), "var" | "dtype")) {
                return Err(Error::config(
                    NAME,
                    format!("unknown key {key:?} (kerchunk's grib codec takes var and dtype)"),
                ));
            }
        }
        let var = var_of(configuration.and_then(|c| c.get("var")))?;
        let cast = match configuration.and_then(|c| c.get("dtype")) {
            None | Some(Value::Null) => match var {
                Var::Values => DataType::Float32,
                _ => DataType::Float64,
            },
            Some(v) => match v.as_str().and_then(numpy_float) {
                Some(t) => t,
                None => {
                    return Err(Error::config(
                        NAME,
                        format!("dtype must be a float type such as \"float32\", got {v}"),
                    ))
                }
            },
        };
        Ok(Self {
            var,
            cast: Some(cast),
            options: adjust::Options::default(),
            data_type,
            count,
        })
    }

    fn gribberish(config: &Value, data_type: DataType, count: usize) -> Result<Self> {
        let mut options = adjust::Options::default();
        if let Some(map) = config.as_object() {
            for (key, value) in map.iter() {
                match key.as_str() {
                    "var" => {}
                    "adjust_longitude_range" | "north_up" => {
                        let on = match value {
                            Value::Bool(b) => *b,
                            Value::Null => false,
                            other => {
                                return Err(Error::config(
                                    GRIBBERISH,
                                    format!("{key} must be true or false, got {other}"),
                                ))
                            }
                        };
                        if key == "north_up" {
                            options.north_up = on;
                        } else {
                            options.adjust_longitude_range = on;
                        }
                    }
                    other => {
                        return Err(Error::config(GRIBBERISH, format!("unknown key {other:?}")))
                    }
                }
            }
        }
        let var = var_of(config.get("var"))?;
        Ok(Self {
            var,
            cast: None,
            options,
            data_type,
            count,
        })
    }

    /// The message's values (or coordinates), each through kerchunk's missing-value rule and
    /// cast, then `into` the array's type: one pass over the decoded values.
    fn decode_map<T>(&self, message: &[u8], into: impl Fn(f64) -> T) -> Result<Vec<T>> {
        let msg = message::Message::parse(message)?;
        // Counted from the headers before anything is decoded, so that a message claiming
        // more values than the chunk holds allocates nothing.
        let len = match self.var {
            Var::Values => msg.values_len()?,
            Var::Latitude | Var::Longitude => msg.points_len()?,
        };
        if len != self.count {
            return Err(Error::ChunkLength {
                what: "values",
                expected: self.count,
                actual: len,
            });
        }
        let mut values = match self.var {
            Var::Values => msg.values()?,
            Var::Latitude => msg.latitudes()?,
            Var::Longitude => msg.longitudes()?,
        };
        if self.cast.is_none() && self.var == Var::Longitude {
            // gribberish gives a projected grid's longitudes as its projection's inverse does,
            // in [-180, 180), where ecCodes gives [0, 360) (a regular grid's coordinates are
            // axes of their own in gribberish's references, never decoded from the message).
            for lon in values.iter_mut() {
                if *lon >= 180.0 {
                    *lon -= 360.0;
                }
            }
        }
        adjust::apply(msg.grid(), self.options, &mut values)?;
        if values.len() != self.count {
            return Err(Error::ChunkLength {
                what: "values",
                expected: self.count,
                actual: values.len(),
            });
        }
        // kerchunk sets every value equal to ecCodes' missingValue to NaN (missing points are
        // given as that value), then casts to its dtype.
        let missing_to_nan = self.var == Var::Values && self.cast.is_some();
        let to_f32 = self.cast == Some(DataType::Float32);
        Ok(values
            .into_iter()
            .map(|x| {
                let x = if missing_to_nan && x == message::MISSING_VALUE {
                    f64::NAN
                } else {
                    x
                };
                into(if to_f32 { x as f32 as f64 } else { x })
            })
            .collect())
    }
}

/// A numpy float type name (`float32`, `<f4`, `f8`, ...).
fn numpy_float(name: &str) -> Option<DataType> {
    match name.trim_start_matches(['<', '>', '=', '|']) {
        "float32" | "f4" => Some(DataType::Float32),
        "float64" | "f8" | "float" | "double" => Some(DataType::Float64),
        "float16" | "f2" => Some(DataType::Float16),
        _ => None,
    }
}

fn var_of(value: Option<&Value>) -> Result<Var> {
    match value {
        None | Some(Value::Null) => Ok(Var::Values),
        Some(v) => match v.as_str() {
            Some("latitude") => Ok(Var::Latitude),
            Some("longitude") => Ok(Var::Longitude),
            Some(_) => Ok(Var::Values),
            None => Err(Error::config(
                NAME,
                format!("var must be a string, got {v}"),
            )),
        },
    }
}

impl WholeChunkCodec for Grib {
    fn data_type(&self) -> DataType {
        self.data_type
    }

    fn encode_bytes(&self, _raw: &[u8]) -> Result<Vec<u8>> {
        Err(Error::Unsupported {
            message: "grib: GRIB2 messages are read only (kerchunk's and gribberish's codecs \
                      decode only); write the values with another codec"
                .to_string(),
        })
    }

    fn decode_into(&self, stream: &[u8], out: &mut ArrayData) -> Result<()> {
        *out = match self.data_type {
            DataType::Float64 => ArrayData::Float64(self.decode_map(stream, |x| x)?),
            DataType::Float32 => ArrayData::Float32(self.decode_map(stream, |x| x as f32)?),
            DataType::Float16 => ArrayData::Float16(self.decode_map(stream, half::f16::from_f64)?),
            _ => unreachable!("refused by Grib::new"),
        };
        Ok(())
    }
}
