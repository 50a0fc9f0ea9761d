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
use crate::widths::{f16_to_f32, f32_to_f16};

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
