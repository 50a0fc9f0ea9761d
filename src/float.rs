//! Float arithmetic with the NaN results of the reference's hardware.
//!
//! IEEE 754 fixes every finite and infinite result, but leaves NaN payloads to the platform, and
//! WebAssembly may return any NaN. The reference (numpy on x86-64) returns a NaN operand, made
//! quiet, or, for an invalid operation such as `inf - inf`, the "default NaN" with the sign bit
//! set. When both operands are NaN, its `array - scalar` and `array / scalar` return the array's
//! NaN, but `array + scalar` and `array * scalar` return the scalar's (numpy's loops for the
//! commutative operations put the scalar first); the reference fixtures pin this down. Doing
//! the same here makes native and wasm results bit-identical to it. The common case pays one
//! well-predicted branch: only a NaN result looks at the operands.

use half::f16;

use crate::array::Element;

/// A float element type with IEEE basic arithmetic.
pub trait Float: Element + PartialOrd {
    fn is_nan(self) -> bool;
    /// The same NaN with its quiet bit set.
    fn quiet(self) -> Self;
    /// x86's default NaN for invalid operations (negative, quiet, zero payload).
    fn default_nan() -> Self;
    fn raw_add(self, rhs: Self) -> Self;
    fn raw_sub(self, rhs: Self) -> Self;
    fn raw_mul(self, rhs: Self) -> Self;
    fn raw_div(self, rhs: Self) -> Self;
}

/// The result of an operation on (`first`, `second`), where `first` is the NaN operand that
/// wins when both are NaN.
#[inline(always)]
fn nan_result<T: Float>(first: T, second: T, r: T) -> T {
    if !r.is_nan() {
        r
    } else if first.is_nan() {
        first.quiet()
    } else if second.is_nan() {
        second.quiet()
    } else {
        T::default_nan()
    }
}

/// `array + scalar`.
#[inline(always)]
pub fn add<T: Float>(a: T, b: T) -> T {
    nan_result(b, a, a.raw_add(b))
}
/// `array - scalar`.
#[inline(always)]
pub fn sub<T: Float>(a: T, b: T) -> T {
    nan_result(a, b, a.raw_sub(b))
}
/// `array * scalar`.
#[inline(always)]
pub fn mul<T: Float>(a: T, b: T) -> T {
    nan_result(b, a, a.raw_mul(b))
}
/// `array / scalar`.
#[inline(always)]
pub fn div<T: Float>(a: T, b: T) -> T {
    nan_result(a, b, a.raw_div(b))
}

macro_rules! impl_float {
    ($T:ty, $quiet_bit:expr, $default_nan:expr) => {
        impl Float for $T {
            #[inline(always)]
            fn is_nan(self) -> bool {
                <$T>::is_nan(self)
            }
            #[inline(always)]
            fn quiet(self) -> Self {
                <$T>::from_bits(self.to_bits() | $quiet_bit)
            }
            #[inline(always)]
            fn default_nan() -> Self {
                <$T>::from_bits($default_nan)
            }
            #[inline(always)]
            fn raw_add(self, rhs: Self) -> Self {
                self + rhs
            }
            #[inline(always)]
            fn raw_sub(self, rhs: Self) -> Self {
                self - rhs
            }
            #[inline(always)]
            fn raw_mul(self, rhs: Self) -> Self {
                self * rhs
            }
            #[inline(always)]
            fn raw_div(self, rhs: Self) -> Self {
                self / rhs
            }
        }
    };
}

impl_float!(f64, 0x0008_0000_0000_0000, 0xfff8_0000_0000_0000);
impl_float!(f32, 0x0040_0000, 0xffc0_0000);

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

/// numpy computes float16 arithmetic in float32 and rounds each result back to float16, which
/// for +, -, *, / equals the correctly rounded float16 operation.
macro_rules! f16_via_f32 {
    ($name:ident, $op:ident) => {
        #[inline(always)]
        fn $name(self, rhs: Self) -> Self {
            f32_to_f16($op(f16_to_f32(self), f16_to_f32(rhs)))
        }
    };
}

impl Float for f16 {
    #[inline(always)]
    fn is_nan(self) -> bool {
        f16::is_nan(self)
    }
    #[inline(always)]
    fn quiet(self) -> Self {
        f16::from_bits(self.to_bits() | 0x0200)
    }
    #[inline(always)]
    fn default_nan() -> Self {
        f16::from_bits(0xfe00)
    }
    f16_via_f32!(raw_add, add);
    f16_via_f32!(raw_sub, sub);
    f16_via_f32!(raw_mul, mul);
    f16_via_f32!(raw_div, div);
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
