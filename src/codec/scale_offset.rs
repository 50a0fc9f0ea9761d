//! `scale_offset`: encode `(x - offset) * scale`, decode `x / scale + offset`, in the array's own
//! data type. Floats compute in their own precision; integers compute exactly and refuse results
//! that leave the type or that division cannot give exactly.

use half::f16;

use super::config::ScaleOffsetConfig;
use crate::array::{ArrayData, Element};
use crate::dtype::{DataType, Scalar};
use crate::error::{int_text, Error, Result};
use crate::float::{self, Float};
use crate::json::{Map, Value};

const CODEC: &str = "scale_offset";

/// A scale_offset codec bound to the data type of the array it transforms.
#[derive(Debug, Clone)]
pub struct ScaleOffset {
    dtype: DataType,
    /// The JSON scalars as configured, kept to write the configuration back unchanged.
    offset_json: Option<Value>,
    scale_json: Option<Value>,
    offset: Scalar,
    scale: Scalar,
}

impl ScaleOffset {
    /// Reads `configuration` (absent, `null` or an object with optional `offset` and `scale`)
    /// for an array of `dtype`.
    pub fn new(configuration: Option<&Value>, dtype: DataType) -> Result<Self> {
        Self::from_config(ScaleOffsetConfig::read(configuration)?, dtype)
    }

    /// Binds a configuration to an array of `dtype`: offset and scale must be representable
    /// there, and the scale non-zero.
    pub fn from_config(config: ScaleOffsetConfig, dtype: DataType) -> Result<Self> {
        let bind =
            |name: &str, given: Option<Value>, default: i64| -> Result<(Option<Value>, Scalar)> {
                let Some(v) = given else {
                    return Ok((None, Scalar::from_json(dtype, &Value::from(default))?));
                };
                let scalar = Scalar::from_json(dtype, &v).map_err(|e| {
                    e.in_context(&format!("scale_offset {name} "), |e| {
                        Error::config(
                            CODEC,
                            format!("{name} {v} is not representable in {dtype}: {e}"),
                        )
                    })
                })?;
                Ok((Some(v), scalar))
            };
        let (offset_json, offset) = bind("offset", config.offset, 0)?;
        let (scale_json, scale) = bind("scale", config.scale, 1)?;
        let is_zero = scale
            .as_i128()
            .map_or_else(|| scale.as_f64().is_some_and(|v| v == 0.0), |v| v == 0);
        if is_zero {
            return Err(Error::config(CODEC, "scale must be non-zero"));
        }
        Ok(Self {
            dtype,
            offset_json,
            scale_json,
            offset,
            scale,
        })
    }

    pub fn data_type(&self) -> DataType {
        self.dtype
    }

    pub fn offset(&self) -> Scalar {
        self.offset
    }

    pub fn scale(&self) -> Scalar {
        self.scale
    }

    /// The codec's metadata, omitting default values as the reference does.
    pub fn to_json(&self) -> Value {
        let is_default = |v: &Option<Value>, scalar: Scalar, default: i64| {
            v.is_none() || Scalar::from_json(self.dtype, &Value::from(default)).ok() == Some(scalar)
        };
        let mut config = Map::new();
        if !is_default(&self.offset_json, self.offset, 0) {
            config.insert(
                "offset".into(),
                self.offset_json.clone().unwrap_or(Value::Null),
            );
        }
        if !is_default(&self.scale_json, self.scale, 1) {
            config.insert(
                "scale".into(),
                self.scale_json.clone().unwrap_or(Value::Null),
            );
        }
        let mut out = Map::new();
        out.insert("name".into(), Value::from(CODEC));
        if !config.is_empty() {
            out.insert("configuration".into(), Value::Object(config));
        }
        Value::Object(out)
    }

    /// True when encode and decode are the identity (offset 0, scale 1).
    pub fn is_identity(&self) -> bool {
        let zero = self.dtype.default_scalar();
        let one = Scalar::from_json(self.dtype, &Value::from(1i64)).ok();
        self.offset == zero && Some(self.scale) == one
    }

    pub fn encode(&self, data: &ArrayData) -> Result<ArrayData> {
        self.run(data, Direction::Encode)
    }

    pub fn decode(&self, data: &ArrayData) -> Result<ArrayData> {
        self.run(data, Direction::Decode)
    }

    /// Encodes one value (the fill value on its way down the chain).
    pub fn encode_scalar(&self, value: Scalar) -> Result<Scalar> {
        let out = self.encode(&ArrayData::filled(value, 1))?;
        out.get(0).ok_or_else(|| Error::InvalidMetadata {
            message: "scale_offset produced no fill value".into(),
        })
    }

    fn run(&self, data: &ArrayData, dir: Direction) -> Result<ArrayData> {
        if data.data_type() != self.dtype {
            return Err(Error::WrongArrayType {
                expected: self.dtype.name().into(),
                actual: data.data_type().name().into(),
            });
        }
        macro_rules! int {
            ($T:ty) => {
                int_kernel::<$T>(data.typed()?, self.offset, self.scale, dir).map(<$T>::into_array)
            };
        }
        macro_rules! flt {
            ($T:ty) => {
                Ok(<$T>::into_array(float_kernel::<$T>(
                    data.typed()?,
                    self.offset,
                    self.scale,
                    dir,
                )))
            };
        }
        match self.dtype {
            DataType::Int8 => int!(i8),
            DataType::Int16 => int!(i16),
            DataType::Int32 => int!(i32),
            DataType::Int64 => int!(i64),
            DataType::UInt8 => int!(u8),
            DataType::UInt16 => int!(u16),
            DataType::UInt32 => int!(u32),
            DataType::UInt64 => int!(u64),
            DataType::Float16 => flt!(f16),
            DataType::Float32 => flt!(f32),
            DataType::Float64 => flt!(f64),
        }
    }
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Direction {
    Encode,
    Decode,
}

/// Decodes one float: `x / scale + offset` in `T`, with the reference's NaN results.
#[inline(always)]
pub(crate) fn decode_float<T: Float>(x: T, offset: T, scale: T) -> T {
    float::add(float::div(x, scale), offset)
}

#[inline(always)]
fn encode_float<T: Float>(x: T, offset: T, scale: T) -> T {
    float::mul(float::sub(x, offset), scale)
}

fn float_kernel<T: Float>(values: &[T], offset: Scalar, scale: Scalar, dir: Direction) -> Vec<T> {
    // The codec was validated for T, so both scalars are T values.
    let (Some(offset), Some(scale)) = (T::from_scalar(offset), T::from_scalar(scale)) else {
        return Vec::new();
    };
    // Allocated and written in place: at opt-level "z" a `push` per element is a call per
    // element.
    let mut out = values.to_vec();
    match dir {
        Direction::Encode => {
            for x in out.iter_mut() {
                *x = encode_float(*x, offset, scale);
            }
        }
        Direction::Decode => {
            for x in out.iter_mut() {
                *x = decode_float(*x, offset, scale);
            }
        }
    }
    out
}

/// Integer element types, computed exactly in i128.
trait Int: Element {
    fn to_i128(self) -> i128;
    /// `v`, which is in the type's range.
    fn narrow(v: i128) -> Self;
}

macro_rules! impl_int {
    ($($T:ty),*) => {$(
        impl Int for $T {
            #[inline(always)]
            fn to_i128(self) -> i128 {
                self as i128
            }
            #[inline(always)]
            fn narrow(v: i128) -> Self {
                v as $T
            }
        }
    )*};
}
impl_int!(i8, i16, i32, i64, u8, u16, u32, u64);

/// Values per step of the integer kernel.
const BLOCK: usize = 256;

/// The integer kernel: each type's values are widened to i128 a block at a time, and one
/// function does the arithmetic and the range checks for all types.
fn int_kernel<T: Int>(
    values: &[T],
    offset: Scalar,
    scale: Scalar,
    dir: Direction,
) -> Result<Vec<T>> {
    let offset = offset.as_i128().unwrap_or(0);
    let scale = scale.as_i128().unwrap_or(1);
    if dir == Direction::Decode {
        // As the reference does: exactness over the whole chunk first, then range.
        for &x in values {
            if x.to_i128() % scale != 0 {
                return Err(inexact(T::DTYPE, x.to_i128(), scale));
            }
        }
    }
    let mut out = Vec::with_capacity(values.len());
    let mut wide = [0i128; BLOCK];
    for chunk in values.chunks(BLOCK) {
        let wide = &mut wide[..chunk.len()];
        for (slot, &x) in wide.iter_mut().zip(chunk) {
            *slot = x.to_i128();
        }
        int_block(wide, offset, scale, dir, T::DTYPE)?;
        for &y in wide.iter() {
            out.push(T::narrow(y));
        }
    }
    Ok(out)
}

/// `(x - offset) * scale` or `x / scale + offset` (exact, checked before) for each value, in
/// place; every result must be in `dtype`'s range.
fn int_block(
    values: &mut [i128],
    offset: i128,
    scale: i128,
    dir: Direction,
    dtype: DataType,
) -> Result<()> {
    let (lo, hi) = dtype.int_range().unwrap_or((0, 0));
    for v in values.iter_mut() {
        let x = *v;
        let y = match dir {
            Direction::Encode => (x - offset).checked_mul(scale),
            Direction::Decode => Some(x / scale + offset),
        };
        *v = y.filter(|y| (lo..=hi).contains(y)).ok_or_else(|| {
            let value = match dir {
                Direction::Encode => format!(
                    "({} - {}) * {}",
                    int_text(x),
                    int_text(offset),
                    int_text(scale)
                ),
                Direction::Decode => format!(
                    "{} / {} + {}",
                    int_text(x),
                    int_text(scale),
                    int_text(offset)
                ),
            };
            out_of_range(dtype, value, offset, scale)
        })?;
    }
    Ok(())
}

#[cold]
#[inline(never)]
fn out_of_range(dtype: DataType, value: String, offset: i128, scale: i128) -> Error {
    let (lo, hi) = dtype.int_range().unwrap_or((0, 0));
    Error::Overflow {
        codec: CODEC,
        message: format!(
            "{value} is outside the {dtype} range [{}, {}] (offset {}, scale {}); choose an \
             offset and scale that keep every value in range",
            int_text(lo),
            int_text(hi),
            int_text(offset),
            int_text(scale)
        ),
    }
}

#[cold]
#[inline(never)]
fn inexact(dtype: DataType, x: i128, scale: i128) -> Error {
    Error::InexactDivision {
        message: format!(
            "stored value {} is not a multiple of scale {}, so decoding it would need a \
             fraction that {dtype} cannot hold",
            int_text(x),
            int_text(scale)
        ),
    }
}
