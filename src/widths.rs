//! Float width conversions as the reference's hardware does them (x86: F16C for float16, and
//! NaNs that keep their sign and payload and become quiet), so that results do not depend on
//! the target. A leaf module: data types, arrays and arithmetic all build on it.

use half::f16;

/// f16 -> f32 as x86's F16C does it: exact; NaNs keep sign and payload and become quiet.
#[inline(always)]
pub fn f16_to_f32(v: f16) -> f32 {
    if v.is_nan() {
        let b = u32::from(v.to_bits());
        f32::from_bits(((b & 0x8000) << 16) | 0x7fc0_0000 | ((b & 0x01ff) << 13))
    } else {
        v.to_f32()
    }
}

/// f32 -> f16, nearest-even; NaNs keep sign and the top payload bits and become quiet.
#[inline(always)]
pub fn f32_to_f16(v: f32) -> f16 {
    if v.is_nan() {
        let b = v.to_bits();
        f16::from_bits((((b >> 16) & 0x8000) as u16) | 0x7e00 | (((b >> 13) & 0x01ff) as u16))
    } else {
        f16::from_f32(v)
    }
}

/// f32 -> f64, exactly; a NaN keeps its sign and payload (shifted up) and becomes quiet, as x86
/// hardware does, so that the result does not depend on the target.
pub fn f32_to_f64(v: f32) -> f64 {
    if v.is_nan() {
        let b = u64::from(v.to_bits());
        f64::from_bits(
            ((b & 0x8000_0000) << 32) | 0x7ff8_0000_0000_0000 | ((b & 0x003f_ffff) << 29),
        )
    } else {
        f64::from(v)
    }
}

/// f64 -> f32, nearest-even; a NaN keeps its sign and the top payload bits and becomes quiet.
pub fn f64_to_f32(v: f64) -> f32 {
    if v.is_nan() {
        let b = v.to_bits();
        f32::from_bits(
            (((b >> 32) & 0x8000_0000) as u32) | 0x7fc0_0000 | (((b >> 29) & 0x003f_ffff) as u32),
        )
    } else {
        v as f32
    }
}

/// f16 -> f64, exactly; NaNs as in [`f32_to_f64`].
pub fn f16_to_f64(v: f16) -> f64 {
    f32_to_f64(f16_to_f32(v))
}

/// f64 -> f16 as the reference computes it: rounded to f32 first, then to f16 (numpy and the
/// cast engine use x86's F16C conversion, which takes f32). That double rounding differs from
/// one correct rounding for values just off a float16 tie (1 + 2^-11 + 2^-40 gives 1.0), and
/// `half`'s own f64 path differs from both on wasm (it drops the low 32 mantissa bits), so the
/// two steps are spelled out. NaNs keep sign and top payload bits and become quiet.
#[inline(always)]
pub fn f64_to_f16(v: f64) -> f16 {
    f32_to_f16(f64_to_f32(v))
}
