//! `cast_value`: value conversion between data types. The element conversions are the
//! reference's own engine (`zarr-cast-value`); this module binds the configuration (read in
//! `config.rs`) to the source type, types the scalar_map, and dispatches each (source, target)
//! pair to the engine.

use half::f16;
use zarr_cast_value::{
    convert_float_to_float, convert_float_to_int, convert_int_to_float, convert_int_to_int,
    CastError, CastFloat, CastInt, CastInto, FloatToFloatConfig, FloatToIntConfig,
    IntToFloatConfig, IntToIntConfig, MapEntry,
};

pub use zarr_cast_value::{OutOfRangeMode, RoundingMode};

use super::bytes::widen;
use super::bytes::Endian;
use super::config::CastValueConfig;
use crate::array::{ArrayData, Element};
use crate::decimal::display_f64;
use crate::dtype::{DataType, Scalar};
use crate::error::{int_text, Error, Result};
use crate::json::{Map, Value};

const CODEC: &str = "cast_value";

/// A cast_value codec bound to the data type of the array it converts (its source).
#[derive(Debug, Clone)]
pub struct CastValue {
    source: DataType,
    target: DataType,
    rounding: RoundingMode,
    out_of_range: Option<OutOfRangeMode>,
    /// (source value, target value) pairs, in configuration order.
    encode_map: Vec<(Scalar, Scalar)>,
    /// (target value, source value) pairs, in configuration order.
    decode_map: Vec<(Scalar, Scalar)>,
    /// The scalar_map as configured, written back unchanged.
    scalar_map_json: Option<Value>,
}

pub(crate) fn rounding_name(mode: RoundingMode) -> &'static str {
    match mode {
        RoundingMode::NearestEven => "nearest-even",
        RoundingMode::TowardsZero => "towards-zero",
        RoundingMode::TowardsPositive => "towards-positive",
        RoundingMode::TowardsNegative => "towards-negative",
        RoundingMode::NearestAway => "nearest-away",
    }
}

impl CastValue {
    /// Reads `configuration` for an array whose data type is `source`.
    pub fn new(configuration: Option<&Value>, source: DataType) -> Result<Self> {
        Self::from_config(CastValueConfig::read(configuration)?, source)
    }

    /// Binds a configuration to an array whose data type is `source`: each scalar_map entry
    /// must be representable in its side's type.
    pub fn from_config(config: CastValueConfig, source: DataType) -> Result<Self> {
        let target = config.data_type;
        let (encode_map, decode_map, scalar_map_json) = match config.scalar_map {
            None => (Vec::new(), Vec::new(), None),
            Some(map) => (
                bind_map(&map.encode, "encode", source, target)?,
                bind_map(&map.decode, "decode", target, source)?,
                Some(map.written),
            ),
        };
        Ok(Self {
            source,
            target,
            rounding: config.rounding,
            out_of_range: config.out_of_range,
            encode_map,
            decode_map,
            scalar_map_json,
        })
    }

    pub fn source(&self) -> DataType {
        self.source
    }

    pub fn target(&self) -> DataType {
        self.target
    }

    pub fn rounding(&self) -> RoundingMode {
        self.rounding
    }

    pub fn out_of_range(&self) -> Option<OutOfRangeMode> {
        self.out_of_range
    }

    pub fn decode_map(&self) -> &[(Scalar, Scalar)] {
        &self.decode_map
    }

    /// The codec's metadata, omitting defaults as the reference does.
    pub fn to_json(&self) -> Value {
        let mut config = Map::new();
        config.insert("data_type".into(), Value::from(self.target.name()));
        if self.rounding != RoundingMode::NearestEven {
            config.insert("rounding".into(), Value::from(rounding_name(self.rounding)));
        }
        if let Some(mode) = self.out_of_range {
            let name = match mode {
                OutOfRangeMode::Clamp => "clamp",
                OutOfRangeMode::Wrap => "wrap",
            };
            config.insert("out_of_range".into(), Value::from(name));
        }
        if let Some(map) = &self.scalar_map_json {
            config.insert("scalar_map".into(), map.clone());
        }
        let mut out = Map::new();
        out.insert("name".into(), Value::from(CODEC));
        out.insert("configuration".into(), Value::Object(config));
        Value::Object(out)
    }

    /// Converts a chunk of the source type to the target type.
    pub fn encode(&self, data: &ArrayData) -> Result<ArrayData> {
        self.check_type(data, self.source)?;
        cast_array(data, self.target, self.settings(&self.encode_map))
            .map_err(|e| self.cast_error(e, self.source, self.target))
    }

    /// Converts a chunk of the target type back to the source type.
    pub fn decode(&self, data: &ArrayData) -> Result<ArrayData> {
        self.check_type(data, self.target)?;
        cast_array(data, self.source, self.settings(&self.decode_map))
            .map_err(|e| self.cast_error(e, self.target, self.source))
    }

    /// Encodes one value (the fill value on its way down the chain).
    pub fn encode_scalar(&self, value: Scalar) -> Result<Scalar> {
        let out = self.encode(&ArrayData::filled(value, 1))?;
        out.get(0).ok_or_else(|| Error::InvalidMetadata {
            message: "cast_value produced no fill value".into(),
        })
    }

    /// Decodes one value.
    pub fn decode_scalar(&self, value: Scalar) -> Result<Scalar> {
        let out = self.decode(&ArrayData::filled(value, 1))?;
        out.get(0).ok_or_else(|| Error::InvalidMetadata {
            message: "cast_value produced no value".into(),
        })
    }

    fn settings<'a>(&self, map: &'a [(Scalar, Scalar)]) -> Settings<'a> {
        Settings {
            map,
            rounding: self.rounding,
            out_of_range: self.out_of_range,
        }
    }

    fn check_type(&self, data: &ArrayData, expected: DataType) -> Result<()> {
        if data.data_type() == expected {
            Ok(())
        } else {
            Err(Error::WrongArrayType {
                expected: expected.name().into(),
                actual: data.data_type().name().into(),
            })
        }
    }

    fn cast_error(&self, e: CastError, from: DataType, to: DataType) -> Error {
        cast_error(&e, from, to)
    }
}

/// The engine's error as an [`Error`], in the engine's words.
pub(crate) fn cast_error(e: &CastError, from: DataType, to: DataType) -> Error {
    let message = match *e {
        CastError::NanOrInf { value } => format!(
            "Cannot cast {} to integer type without scalar_map",
            display_f64(value)
        ),
        CastError::OutOfRange { value, lo, hi } => format!(
            "Value {} out of range [{}, {}]. Set out_of_range='clamp' or \
             out_of_range='wrap' to handle this.",
            display_f64(value),
            int_text(lo),
            int_text(hi)
        ),
        CastError::FloatOutOfRange { value, lo, hi } => format!(
            "Value {} out of range [{}, {}]. Set out_of_range='clamp' to map it to ±Infinity.",
            display_f64(value),
            display_f64(lo),
            display_f64(hi)
        ),
        CastError::LengthMismatch { src_len, dst_len } => {
            format!("Source has {src_len} elements but destination has {dst_len}")
        }
    };
    Error::Cast {
        codec: CODEC,
        message: format!("casting {from} to {to}: {message}"),
    }
}

/// One direction of a scalar_map, bound to its types: (input, output) pairs in configuration
/// order, each side a scalar of its own type.
fn bind_map(
    pairs: &[(Value, Value)],
    name: &str,
    from: DataType,
    to: DataType,
) -> Result<Vec<(Scalar, Scalar)>> {
    let parse = |x: &Value, dt: DataType, side: &str| {
        Scalar::from_json(dt, x).map_err(|e| {
            e.in_context(&format!("cast_value scalar_map {name} {side} "), |e| {
                Error::config(
                    CODEC,
                    format!("scalar_map {name} {side} {x} is not representable in {dt}: {e}"),
                )
            })
        })
    };
    let mut out = Vec::with_capacity(pairs.len());
    for (k, v) in pairs {
        out.push((parse(k, from, "key")?, parse(v, to, "value")?));
    }
    Ok(out)
}

/// What a conversion needs besides its data: the direction's map and the modes.
#[derive(Clone, Copy)]
pub(crate) struct Settings<'a> {
    pub map: &'a [(Scalar, Scalar)],
    pub rounding: RoundingMode,
    pub out_of_range: Option<OutOfRangeMode>,
}

impl Settings<'_> {
    /// The map typed for one (source, target) pair. Entries were parsed in these types, so
    /// every one converts.
    pub(crate) fn entries<S: Element, D: Element>(&self) -> Vec<MapEntry<S, D>> {
        let mut out = Vec::with_capacity(self.map.len());
        for &(s, t) in self.map {
            if let (Some(src), Some(tgt)) = (S::from_scalar(s), D::from_scalar(t)) {
                out.push(MapEntry { src, tgt });
            }
        }
        out
    }
}

/// An integer type that converts to every data type.
pub(crate) trait IntSource:
    Element
    + CastInt
    + CastInto<i8>
    + CastInto<i16>
    + CastInto<i32>
    + CastInto<i64>
    + CastInto<u8>
    + CastInto<u16>
    + CastInto<u32>
    + CastInto<u64>
    + CastInto<f16>
    + CastInto<f32>
    + CastInto<f64>
{
}
impl<T> IntSource for T where
    T: Element
        + CastInt
        + CastInto<i8>
        + CastInto<i16>
        + CastInto<i32>
        + CastInto<i64>
        + CastInto<u8>
        + CastInto<u16>
        + CastInto<u32>
        + CastInto<u64>
        + CastInto<f16>
        + CastInto<f32>
        + CastInto<f64>
{
}

/// A float type that converts to every data type.
pub(crate) trait FloatSource:
    Element
    + CastFloat
    + CastInto<i8>
    + CastInto<i16>
    + CastInto<i32>
    + CastInto<i64>
    + CastInto<u8>
    + CastInto<u16>
    + CastInto<u32>
    + CastInto<u64>
    + CastInto<f16>
    + CastInto<f32>
    + CastInto<f64>
{
}
impl<T> FloatSource for T where
    T: Element
        + CastFloat
        + CastInto<i8>
        + CastInto<i16>
        + CastInto<i32>
        + CastInto<i64>
        + CastInto<u8>
        + CastInto<u16>
        + CastInto<u32>
        + CastInto<u64>
        + CastInto<f16>
        + CastInto<f32>
        + CastInto<f64>
{
}

/// Converts `data` to `target` with the engine's slice functions. The output is built in a
/// fresh buffer and returned only when every element converted.
///
/// Integer sources are widened to int64 (uint64 stays) and float sources to float64 first, so
/// the engine is instantiated for 3 source types instead of 11: its rules depend only on the
/// value (the scalar_map keys are widened with it), so the results are the same. Widening a
/// float is exact; the pairs that only move NaN bits (float32 -> float32, float16 -> float16,
/// float16 -> float32) keep their own path so a NaN payload crosses no extra conversion.
pub(crate) fn cast_array(
    data: &ArrayData,
    target: DataType,
    s: Settings<'_>,
) -> Result<ArrayData, CastError> {
    let widened_map;
    match (data, target) {
        (ArrayData::Float64(v), DataType::Float16) => f64_to_f16(v, s),
        (ArrayData::Float64(v), _) => from_float(v, target, s),
        (ArrayData::Float32(v), DataType::Float32) => from_float(v, target, s),
        (ArrayData::Float16(v), DataType::Float16 | DataType::Float32) => from_float(v, target, s),
        (ArrayData::UInt64(v), _) => from_int(v, target, s),
        (ArrayData::Int64(v), _) => from_int(v, target, s),
        (ArrayData::Float32(_) | ArrayData::Float16(_), _) => {
            widened_map = widen_keys(s.map);
            let values = widen_floats(data);
            let s = Settings {
                map: &widened_map,
                ..s
            };
            cast_array(&ArrayData::Float64(values), target, s)
        }
        _ => {
            widened_map = widen_keys(s.map);
            let values = widen_ints(data);
            from_int(
                &values,
                target,
                Settings {
                    map: &widened_map,
                    ..s
                },
            )
        }
    }
}

/// The scalar_map with its source keys widened as the values are (to int64 or float64).
pub(crate) fn widen_keys(map: &[(Scalar, Scalar)]) -> Vec<(Scalar, Scalar)> {
    map.iter()
        .map(|&(k, v)| {
            let k = match (k.as_i128(), k.as_f64()) {
                (Some(i), _) => i64::try_from(i).map_or(k, Scalar::Int64),
                (_, Some(f)) => Scalar::Float64(f),
                _ => k,
            };
            (k, v)
        })
        .collect()
}

fn widen_floats(data: &ArrayData) -> Vec<f64> {
    let mut out = Vec::with_capacity(data.len());
    match data {
        ArrayData::Float32(v) => {
            for &x in v {
                out.push(crate::widths::f32_to_f64(x));
            }
        }
        ArrayData::Float16(v) => {
            for &x in v {
                out.push(crate::widths::f16_to_f64(x));
            }
        }
        _ => {}
    }
    out
}

/// Integers of the narrower types as int64 (through the fused decode's readers).
fn widen_ints(data: &ArrayData) -> Vec<i64> {
    let bytes = data.to_le_bytes();
    let mut out = vec![0i64; data.len()];
    let widen: fn(&[u8], Endian, &mut [i64]) = match data {
        ArrayData::Int8(_) => widen::<i8, i64>,
        ArrayData::Int16(_) => widen::<i16, i64>,
        ArrayData::Int32(_) => widen::<i32, i64>,
        ArrayData::UInt8(_) => widen::<u8, i64>,
        ArrayData::UInt16(_) => widen::<u16, i64>,
        ArrayData::UInt32(_) => widen::<u32, i64>,
        _ => return Vec::new(),
    };
    widen(&bytes, Endian::Little, &mut out);
    out
}

/// float64 -> float16. The engine's steps (scalar_map, nearest value, directed adjustment,
/// overflow), with the nearest value computed as the reference's platform computes it: through
/// float32 (see [`crate::widths::f64_to_f16`]). The engine takes its nearest value from `half`,
/// whose f64 conversion differs between x86 and wasm, so this pair cannot be left to it.
fn f64_to_f16(src: &[f64], s: Settings<'_>) -> Result<ArrayData, CastError> {
    let entries = s.entries::<f64, f16>();
    let mut out = Vec::with_capacity(src.len());
    for &x in src {
        let mapped = entries
            .iter()
            .find(|e| {
                if e.src.is_nan() {
                    x.is_nan()
                } else {
                    x == e.src
                }
            })
            .map(|e| e.tgt);
        out.push(match mapped {
            Some(t) => t,
            None => f64_to_f16_element(x, s.rounding, s.out_of_range)?,
        });
    }
    Ok(ArrayData::Float16(out))
}

fn f64_to_f16_element(
    x: f64,
    rounding: RoundingMode,
    out_of_range: Option<OutOfRangeMode>,
) -> Result<f16, CastError> {
    let overflow = |out_of_range: Option<OutOfRangeMode>| match out_of_range {
        Some(OutOfRangeMode::Clamp) => Ok(if x < 0.0 {
            f16::NEG_INFINITY
        } else {
            f16::INFINITY
        }),
        _ => Err(CastError::FloatOutOfRange {
            value: x,
            lo: f16::MIN.to_f64(),
            hi: f16::MAX.to_f64(),
        }),
    };
    let nearest = crate::widths::f64_to_f16(x);
    let nearest_f64 = nearest.to_f64();
    if rounding == RoundingMode::NearestEven || x == nearest_f64 {
        if nearest.is_infinite() && x.is_finite() {
            return overflow(out_of_range);
        }
        return Ok(nearest);
    }
    // Inexact, or NaN (every comparison below is false for NaN, which passes unchanged).
    let result = match rounding {
        RoundingMode::NearestEven => nearest,
        RoundingMode::TowardsZero if nearest_f64.abs() > x.abs() => {
            if x >= 0.0 {
                CastFloat::next_down(nearest)
            } else {
                CastFloat::next_up(nearest)
            }
        }
        RoundingMode::TowardsZero => nearest,
        RoundingMode::TowardsPositive if nearest_f64 < x => CastFloat::next_up(nearest),
        RoundingMode::TowardsPositive => nearest,
        RoundingMode::TowardsNegative if nearest_f64 > x => CastFloat::next_down(nearest),
        RoundingMode::TowardsNegative => nearest,
        RoundingMode::NearestAway => {
            let candidate = if x > nearest_f64 {
                CastFloat::next_up(nearest)
            } else {
                CastFloat::next_down(nearest)
            };
            let mid = (nearest_f64 + candidate.to_f64()) / 2.0;
            if mid == x && candidate.to_f64().abs() > nearest_f64.abs() {
                candidate
            } else {
                nearest
            }
        }
    };
    if result.is_infinite() || nearest.is_infinite() {
        // As the engine decides it: overflow when the result is infinite, or when a
        // towards-zero step came back from an infinite nearest value of a value at or beyond
        // MAX + ulp(MAX).
        let max = f16::MAX.to_f64();
        let ulp_of_max = max - CastFloat::next_down(f16::MAX).to_f64();
        if result.is_infinite() || x.abs() >= max + ulp_of_max {
            return overflow(out_of_range);
        }
    }
    Ok(result)
}

/// The engine's element conversion over a slice, one loop per (source, target) pair. (The
/// engine's own slice functions repeat the loop per rounding mode and per SIMD path; one loop
/// keeps the wasm module small, and each element goes through the same function.)
#[inline(never)]
fn convert_each<S: Copy, D: Copy + Default>(
    src: &[S],
    f: impl Fn(S) -> Result<D, CastError>,
) -> Result<Vec<D>, CastError> {
    // Allocated and written in place: at opt-level "z" a `push` per element is a call per
    // element.
    let mut out = vec![D::default(); src.len()];
    for (o, &x) in out.iter_mut().zip(src) {
        *o = f(x)?;
    }
    Ok(out)
}

/// Expands to a `match` on the target data type, calling `$int!(T)` for integer targets and
/// `$float!(T)` for float ones.
macro_rules! by_target {
    ($target:expr, $int:ident, $float:ident) => {
        match $target {
            DataType::Int8 => $int!(i8),
            DataType::Int16 => $int!(i16),
            DataType::Int32 => $int!(i32),
            DataType::Int64 => $int!(i64),
            DataType::UInt8 => $int!(u8),
            DataType::UInt16 => $int!(u16),
            DataType::UInt32 => $int!(u32),
            DataType::UInt64 => $int!(u64),
            DataType::Float16 => $float!(f16),
            DataType::Float32 => $float!(f32),
            DataType::Float64 => $float!(f64),
        }
    };
}

fn from_int<S: IntSource>(
    src: &[S],
    target: DataType,
    s: Settings<'_>,
) -> Result<ArrayData, CastError> {
    macro_rules! to_int {
        ($D:ty) => {{
            let config = IntToIntConfig {
                map_entries: s.entries::<S, $D>(),
                out_of_range: s.out_of_range,
            };
            <$D>::into_array(convert_each(src, |x| convert_int_to_int(x, &config))?)
        }};
    }
    macro_rules! to_float {
        ($D:ty) => {{
            let config = IntToFloatConfig {
                map_entries: s.entries::<S, $D>(),
                rounding: s.rounding,
                out_of_range: s.out_of_range,
            };
            <$D>::into_array(convert_each(src, |x| convert_int_to_float(x, &config))?)
        }};
    }
    Ok(by_target!(target, to_int, to_float))
}

fn from_float<S: FloatSource>(
    src: &[S],
    target: DataType,
    s: Settings<'_>,
) -> Result<ArrayData, CastError> {
    macro_rules! to_int {
        ($D:ty) => {{
            let config = FloatToIntConfig {
                map_entries: s.entries::<S, $D>(),
                rounding: s.rounding,
                out_of_range: s.out_of_range,
            };
            <$D>::into_array(convert_each(src, |x| convert_float_to_int(x, &config))?)
        }};
    }
    macro_rules! to_float {
        ($D:ty) => {{
            let config = FloatToFloatConfig {
                map_entries: s.entries::<S, $D>(),
                rounding: s.rounding,
                out_of_range: s.out_of_range,
            };
            <$D>::into_array(convert_each(src, |x| convert_float_to_float(x, &config))?)
        }};
    }
    Ok(by_target!(target, to_int, to_float))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn cast_errors_keep_the_engines_words() {
        let errors = [
            CastError::NanOrInf { value: f64::NAN },
            CastError::NanOrInf {
                value: f64::NEG_INFINITY,
            },
            CastError::OutOfRange {
                value: 300.5,
                lo: -128,
                hi: 127,
            },
            CastError::OutOfRange {
                value: 1e300,
                lo: 0,
                hi: u64::MAX.into(),
            },
            CastError::FloatOutOfRange {
                value: -1e-7,
                lo: f64::from(f16::MIN),
                hi: f64::from(f16::MAX),
            },
            CastError::LengthMismatch {
                src_len: 3,
                dst_len: 4,
            },
        ];
        for e in errors {
            let ours = cast_error(&e, DataType::Float64, DataType::Int8).to_string();
            assert_eq!(ours, format!("cast_value: casting float64 to int8: {e}"));
        }
    }
}
