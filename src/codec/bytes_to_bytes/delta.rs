//! numcodecs' `delta` (zarr v2 filter `delta`, zarr v3 `numcodecs.delta`), run on a chunk's
//! bytes: the stored values are `astype` differences, the first one the first value itself;
//! decoding is numpy's `np.cumsum(enc, out=dec)`, which converts each difference to `dtype`
//! and sums in `dtype` (checked against numcodecs 0.17.1: float32 differences of a float64
//! array are summed in float64), integers wrapping. Encoding is numcodecs' `enc[0] = arr[0];
//! enc[1:] = np.diff(arr)`: differences in `dtype`, then converted to `astype`.
//!
//! The layout runs it after `bytes` (it is the last array -> array codec before it): the chain
//! serializes `dtype` values little-endian, and this step turns them into `astype` values in
//! the byte order stored, and back.

use crate::codec::table::DeltaParams;
use crate::dtype::DataType;
use crate::error::{Error, Result};

/// A value on its way between the two types: integers exactly, floats as f64.
#[derive(Clone, Copy)]
enum Num {
    Int(i128),
    Float(f64),
}

fn read(dt: DataType, big: bool, b: &[u8]) -> Num {
    macro_rules! get {
        ($t:ty) => {{
            let a: [u8; std::mem::size_of::<$t>()] = b.try_into().unwrap_or_default();
            if big {
                <$t>::from_be_bytes(a)
            } else {
                <$t>::from_le_bytes(a)
            }
        }};
    }
    match dt {
        DataType::Int8 => Num::Int(get!(i8).into()),
        DataType::UInt8 => Num::Int(get!(u8).into()),
        DataType::Int16 => Num::Int(get!(i16).into()),
        DataType::UInt16 => Num::Int(get!(u16).into()),
        DataType::Int32 => Num::Int(get!(i32).into()),
        DataType::UInt32 => Num::Int(get!(u32).into()),
        DataType::Int64 => Num::Int(get!(i64).into()),
        DataType::UInt64 => Num::Int(get!(u64).into()),
        DataType::Float16 => Num::Float(half::f16::from_bits(get!(u16)).to_f64()),
        DataType::Float32 => Num::Float(get!(f32).into()),
        DataType::Float64 => Num::Float(get!(f64)),
    }
}

/// `v` as a value of `dt`, as numpy converts it: integers wrap, floats round to nearest.
fn convert(dt: DataType, v: Num) -> Num {
    match (dt.is_float(), v) {
        (false, Num::Int(i)) => {
            let bits = 8 * dt.size() as u32;
            let m = i.rem_euclid(1i128 << bits);
            Num::Int(if dt.is_signed_int() && m >= 1i128 << (bits - 1) {
                m - (1i128 << bits)
            } else {
                m
            })
        }
        (true, Num::Int(i)) => Num::Float(round_to(
            dt,
            match dt {
                // One rounding from the integer, as numpy's int -> float32 cast.
                DataType::Float32 => f64::from(i as f32),
                _ => i as f64,
            },
        )),
        (true, Num::Float(f)) => Num::Float(round_to(dt, f)),
        // Floats to integers: refused when the codec is configured.
        (false, Num::Float(f)) => Num::Int(f as i128),
    }
}

fn round_to(dt: DataType, f: f64) -> f64 {
    match dt {
        DataType::Float16 => half::f16::from_f64(f).to_f64(),
        DataType::Float32 => f64::from(f as f32),
        _ => f,
    }
}

/// `a + b` (or `a - b`) in `dt`: floats rounded once to `dt` (float16 through float32, as
/// numpy's half arithmetic), integers wrapping.
fn combine(dt: DataType, a: Num, b: Num, subtract: bool) -> Num {
    match (a, b) {
        (Num::Int(x), Num::Int(y)) => convert(dt, Num::Int(if subtract { x - y } else { x + y })),
        (Num::Float(x), Num::Float(y)) => {
            let r = match dt {
                DataType::Float16 | DataType::Float32 => {
                    let (x, y) = (x as f32, y as f32);
                    f64::from(if subtract { x - y } else { x + y })
                }
                _ => {
                    if subtract {
                        x - y
                    } else {
                        x + y
                    }
                }
            };
            Num::Float(round_to(dt, r))
        }
        _ => a,
    }
}

fn write(dt: DataType, big: bool, v: Num, out: &mut Vec<u8>) {
    macro_rules! put {
        ($x:expr) => {{
            let x = $x;
            if big {
                out.extend_from_slice(&x.to_be_bytes())
            } else {
                out.extend_from_slice(&x.to_le_bytes())
            }
        }};
    }
    let (i, f) = match v {
        Num::Int(i) => (i, i as f64),
        Num::Float(f) => (f as i128, f),
    };
    match dt {
        DataType::Int8 => put!(i as i8),
        DataType::UInt8 => put!(i as u8),
        DataType::Int16 => put!(i as i16),
        DataType::UInt16 => put!(i as u16),
        DataType::Int32 => put!(i as i32),
        DataType::UInt32 => put!(i as u32),
        DataType::Int64 => put!(i as i64),
        DataType::UInt64 => put!(i as u64),
        DataType::Float16 => put!(half::f16::from_f64(f).to_bits()),
        DataType::Float32 => put!(f as f32),
        DataType::Float64 => put!(f),
    }
}

/// Refuses bytes that are not whole values of `size` bytes.
fn check(input: &[u8], size: usize) -> Result<()> {
    if !input.len().is_multiple_of(size) {
        return Err(Error::corrupt(
            "delta",
            format!("{} bytes are not whole values of {size} bytes", input.len()),
        ));
    }
    Ok(())
}

/// One type for both, the common case: a running sum (or difference) in the type itself,
/// integers wrapping; `None` for two types.
fn same_type(p: DeltaParams, input: &[u8], decode: bool) -> Option<Vec<u8>> {
    if p.dtype != p.astype {
        return None;
    }
    let (from_big, to_big) = if decode {
        (p.astype_big, p.dtype_big)
    } else {
        (p.dtype_big, p.astype_big)
    };
    let mut out = Vec::with_capacity(input.len());
    macro_rules! run {
        ($t:ty, $add:expr, $sub:expr, $zero:expr) => {{
            const N: usize = std::mem::size_of::<$t>();
            let mut last: $t = $zero;
            let mut first = true;
            for b in input.chunks_exact(N) {
                let a: [u8; N] = b.try_into().unwrap_or([0; N]);
                let x = if from_big {
                    <$t>::from_be_bytes(a)
                } else {
                    <$t>::from_le_bytes(a)
                };
                let y = if decode {
                    // (The first value as it is: 0 + -0.0 would be 0.0.)
                    last = if first { x } else { $add(last, x) };
                    first = false;
                    last
                } else {
                    let d = $sub(x, last);
                    last = x;
                    d
                };
                out.extend_from_slice(&if to_big {
                    y.to_be_bytes()
                } else {
                    y.to_le_bytes()
                });
            }
        }};
    }
    match p.dtype {
        DataType::Float64 => run!(f64, |a: f64, b: f64| a + b, |a: f64, b: f64| a - b, 0.0),
        DataType::Float32 => run!(f32, |a: f32, b: f32| a + b, |a: f32, b: f32| a - b, 0.0),
        DataType::Int8 => run!(i8, i8::wrapping_add, i8::wrapping_sub, 0),
        DataType::UInt8 => run!(u8, u8::wrapping_add, u8::wrapping_sub, 0),
        DataType::Int16 => run!(i16, i16::wrapping_add, i16::wrapping_sub, 0),
        DataType::UInt16 => run!(u16, u16::wrapping_add, u16::wrapping_sub, 0),
        DataType::Int32 => run!(i32, i32::wrapping_add, i32::wrapping_sub, 0),
        DataType::UInt32 => run!(u32, u32::wrapping_add, u32::wrapping_sub, 0),
        DataType::Int64 => run!(i64, i64::wrapping_add, i64::wrapping_sub, 0),
        DataType::UInt64 => run!(u64, u64::wrapping_add, u64::wrapping_sub, 0),
        // float16 sums round through float32: the general path.
        DataType::Float16 => return None,
    }
    Some(out)
}

/// `astype` differences (in their stored byte order) to `dtype` values (in `dtype`'s).
pub fn decode(p: DeltaParams, input: &[u8]) -> Result<Vec<u8>> {
    let size = p.astype.size();
    check(input, size)?;
    if let Some(out) = same_type(p, input, true) {
        return Ok(out);
    }
    let mut out = Vec::with_capacity(input.len() / size * p.dtype.size());
    let mut sum: Option<Num> = None;
    for b in input.chunks_exact(size) {
        let v = convert(p.dtype, read(p.astype, p.astype_big, b));
        let next = match sum {
            None => v,
            Some(s) => combine(p.dtype, s, v, false),
        };
        write(p.dtype, p.dtype_big, next, &mut out);
        sum = Some(next);
    }
    Ok(out)
}

/// `dtype` values (in `dtype`'s byte order) to `astype` differences (in the order stored).
pub fn encode(p: DeltaParams, input: &[u8]) -> Result<Vec<u8>> {
    let size = p.dtype.size();
    check(input, size)?;
    if let Some(out) = same_type(p, input, false) {
        return Ok(out);
    }
    let mut out = Vec::with_capacity(input.len() / size * p.astype.size());
    let mut previous: Option<Num> = None;
    for b in input.chunks_exact(size) {
        let v = read(p.dtype, p.dtype_big, b);
        let d = match previous {
            None => v,
            Some(prev) => combine(p.dtype, v, prev, true),
        };
        write(p.astype, p.astype_big, convert(p.astype, d), &mut out);
        previous = Some(v);
    }
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn p(dtype: DataType, astype: DataType) -> DeltaParams {
        DeltaParams {
            dtype,
            astype,
            dtype_big: false,
            astype_big: false,
        }
    }

    /// numcodecs' own example: Delta(dtype="i2", astype="i1") encodes 100, 102, ..., 118 as
    /// 100, 2, 2, ... and decodes them back.
    #[test]
    fn numcodecs_docstring_example() {
        let values: Vec<u8> = (100i16..120)
            .step_by(2)
            .flat_map(i16::to_le_bytes)
            .collect();
        let codec = p(DataType::Int16, DataType::Int8);
        let enc = encode(codec, &values).unwrap();
        assert_eq!(enc, [100u8, 2, 2, 2, 2, 2, 2, 2, 2, 2]);
        assert_eq!(decode(codec, &enc).unwrap(), values);
    }

    #[test]
    fn part_values_are_corrupt() {
        let e = decode(p(DataType::Float64, DataType::Float32), &[0; 7]).unwrap_err();
        assert_eq!(e.code(), "CORRUPT_CHUNK");
    }
}
