//! A chunk's values, typed, and the element trait the kernels are generic over.

use half::f16;

use crate::dtype::{DataType, Scalar};
use crate::error::{Error, Result};

/// A chunk's values in C order.
#[derive(Debug, Clone, PartialEq)]
pub enum ArrayData {
    Int8(Vec<i8>),
    Int16(Vec<i16>),
    Int32(Vec<i32>),
    Int64(Vec<i64>),
    UInt8(Vec<u8>),
    UInt16(Vec<u16>),
    UInt32(Vec<u32>),
    UInt64(Vec<u64>),
    Float16(Vec<f16>),
    Float32(Vec<f32>),
    Float64(Vec<f64>),
}

/// Runs `$body` with `$T` bound to the Rust element type of the data type `$dt`.
#[macro_export]
#[doc(hidden)]
macro_rules! with_element_type {
    ($dt:expr, $T:ident => $body:expr) => {
        match $dt {
            $crate::dtype::DataType::Int8 => {
                type $T = i8;
                $body
            }
            $crate::dtype::DataType::Int16 => {
                type $T = i16;
                $body
            }
            $crate::dtype::DataType::Int32 => {
                type $T = i32;
                $body
            }
            $crate::dtype::DataType::Int64 => {
                type $T = i64;
                $body
            }
            $crate::dtype::DataType::UInt8 => {
                type $T = u8;
                $body
            }
            $crate::dtype::DataType::UInt16 => {
                type $T = u16;
                $body
            }
            $crate::dtype::DataType::UInt32 => {
                type $T = u32;
                $body
            }
            $crate::dtype::DataType::UInt64 => {
                type $T = u64;
                $body
            }
            $crate::dtype::DataType::Float16 => {
                type $T = ::half::f16;
                $body
            }
            $crate::dtype::DataType::Float32 => {
                type $T = f32;
                $body
            }
            $crate::dtype::DataType::Float64 => {
                type $T = f64;
                $body
            }
        }
    };
}

/// A Rust type that holds the elements of one zarr data type.
pub trait Element: Copy + Send + Sync + std::fmt::Debug + 'static {
    const DTYPE: DataType;
    /// One element from exactly `size_of::<Self>()` little-endian bytes.
    fn from_le_slice(bytes: &[u8]) -> Self;
    fn into_array(values: Vec<Self>) -> ArrayData;
    fn from_array(array: &ArrayData) -> Option<&[Self]>;
    fn to_scalar(self) -> Scalar;
    fn from_scalar(scalar: Scalar) -> Option<Self>;

    /// Reads little-endian element bytes (a whole number of elements).
    fn read_le(bytes: &[u8]) -> Vec<Self> {
        let size = std::mem::size_of::<Self>();
        // Allocated zeroed and written in place: at opt-level "z" a `push` per element is a
        // call per element.
        let zero = Self::from_le_slice(&[0; 8][..size]);
        let mut out = vec![zero; bytes.len() / size];
        for (o, c) in out.iter_mut().zip(bytes.chunks_exact(size)) {
            *o = Self::from_le_slice(c);
        }
        out
    }

    /// Writes the element's little-endian bytes into `dst` (exactly `size_of::<Self>()`).
    fn store_le(self, dst: &mut [u8]);

    fn write_le(values: &[Self], out: &mut Vec<u8>) {
        // Grown once and written in place (at opt-level "z" an append per element is a call
        // per element).
        let size = std::mem::size_of::<Self>();
        let start = out.len();
        out.resize(start + std::mem::size_of_val(values), 0);
        for (dst, &v) in out[start..].chunks_exact_mut(size).zip(values) {
            v.store_le(dst);
        }
    }
}

macro_rules! impl_element {
    ($T:ty, $variant:ident, $N:expr) => {
        impl Element for $T {
            const DTYPE: DataType = DataType::$variant;
            #[inline(always)]
            fn from_le_slice(bytes: &[u8]) -> Self {
                <$T>::from_le_bytes(bytes.try_into().unwrap_or([0; $N]))
            }
            #[inline(always)]
            fn store_le(self, dst: &mut [u8]) {
                if let Ok(d) = <&mut [u8; $N]>::try_from(dst) {
                    *d = self.to_le_bytes();
                }
            }
            fn into_array(values: Vec<Self>) -> ArrayData {
                ArrayData::$variant(values)
            }
            fn from_array(array: &ArrayData) -> Option<&[Self]> {
                match array {
                    ArrayData::$variant(v) => Some(v),
                    _ => None,
                }
            }
            fn to_scalar(self) -> Scalar {
                Scalar::$variant(self)
            }
            fn from_scalar(scalar: Scalar) -> Option<Self> {
                match scalar {
                    Scalar::$variant(v) => Some(v),
                    _ => None,
                }
            }
        }
    };
}

impl_element!(i8, Int8, 1);
impl_element!(i16, Int16, 2);
impl_element!(i32, Int32, 4);
impl_element!(i64, Int64, 8);
impl_element!(u8, UInt8, 1);
impl_element!(u16, UInt16, 2);
impl_element!(u32, UInt32, 4);
impl_element!(u64, UInt64, 8);
impl_element!(f16, Float16, 2);
impl_element!(f32, Float32, 4);
impl_element!(f64, Float64, 8);

impl ArrayData {
    pub fn data_type(&self) -> DataType {
        match self {
            ArrayData::Int8(_) => DataType::Int8,
            ArrayData::Int16(_) => DataType::Int16,
            ArrayData::Int32(_) => DataType::Int32,
            ArrayData::Int64(_) => DataType::Int64,
            ArrayData::UInt8(_) => DataType::UInt8,
            ArrayData::UInt16(_) => DataType::UInt16,
            ArrayData::UInt32(_) => DataType::UInt32,
            ArrayData::UInt64(_) => DataType::UInt64,
            ArrayData::Float16(_) => DataType::Float16,
            ArrayData::Float32(_) => DataType::Float32,
            ArrayData::Float64(_) => DataType::Float64,
        }
    }

    pub fn len(&self) -> usize {
        match self {
            ArrayData::Int8(v) => v.len(),
            ArrayData::Int16(v) => v.len(),
            ArrayData::Int32(v) => v.len(),
            ArrayData::Int64(v) => v.len(),
            ArrayData::UInt8(v) => v.len(),
            ArrayData::UInt16(v) => v.len(),
            ArrayData::UInt32(v) => v.len(),
            ArrayData::UInt64(v) => v.len(),
            ArrayData::Float16(v) => v.len(),
            ArrayData::Float32(v) => v.len(),
            ArrayData::Float64(v) => v.len(),
        }
    }

    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// Where the first value lies in memory: a host that views the values in place (JavaScript
    /// over wasm memory, which is little-endian) reads `len() * size` bytes from here.
    pub fn as_ptr(&self) -> *const u8 {
        match self {
            ArrayData::Int8(v) => v.as_ptr().cast(),
            ArrayData::Int16(v) => v.as_ptr().cast(),
            ArrayData::Int32(v) => v.as_ptr().cast(),
            ArrayData::Int64(v) => v.as_ptr().cast(),
            ArrayData::UInt8(v) => v.as_ptr(),
            ArrayData::UInt16(v) => v.as_ptr().cast(),
            ArrayData::UInt32(v) => v.as_ptr().cast(),
            ArrayData::UInt64(v) => v.as_ptr().cast(),
            ArrayData::Float16(v) => v.as_ptr().cast(),
            ArrayData::Float32(v) => v.as_ptr().cast(),
            ArrayData::Float64(v) => v.as_ptr().cast(),
        }
    }

    /// The values as a slice of `T`, or an error naming both types.
    pub fn typed<T: Element>(&self) -> Result<&[T]> {
        T::from_array(self).ok_or_else(|| self.wrong_type(T::DTYPE))
    }

    #[inline(never)]
    fn wrong_type(&self, expected: DataType) -> Error {
        Error::WrongArrayType {
            expected: expected.name().to_string(),
            actual: self.data_type().name().to_string(),
        }
    }

    /// Reads little-endian element bytes; the byte count must be a whole number of elements.
    pub fn from_le_bytes(dtype: DataType, bytes: &[u8]) -> Result<ArrayData> {
        Self::check_whole(dtype, bytes)?;
        Ok(crate::with_element_type!(dtype, T => T::into_array(T::read_le(bytes))))
    }

    /// Reads big-endian element bytes; the byte count must be a whole number of elements.
    pub fn from_be_bytes(dtype: DataType, bytes: &[u8]) -> Result<ArrayData> {
        Self::check_whole(dtype, bytes)?;
        let mut swapped = bytes.to_vec();
        swap_elements(&mut swapped, dtype.size());
        Self::from_le_bytes(dtype, &swapped)
    }

    fn check_whole(dtype: DataType, bytes: &[u8]) -> Result<()> {
        if !bytes.len().is_multiple_of(dtype.size()) {
            return Err(Error::ChunkLength {
                what: "bytes",
                expected: bytes.len() - bytes.len() % dtype.size(),
                actual: bytes.len(),
            });
        }
        Ok(())
    }

    pub fn to_le_bytes(&self) -> Vec<u8> {
        let mut out = Vec::new();
        match self {
            ArrayData::Int8(v) => Element::write_le(v, &mut out),
            ArrayData::Int16(v) => Element::write_le(v, &mut out),
            ArrayData::Int32(v) => Element::write_le(v, &mut out),
            ArrayData::Int64(v) => Element::write_le(v, &mut out),
            ArrayData::UInt8(v) => Element::write_le(v, &mut out),
            ArrayData::UInt16(v) => Element::write_le(v, &mut out),
            ArrayData::UInt32(v) => Element::write_le(v, &mut out),
            ArrayData::UInt64(v) => Element::write_le(v, &mut out),
            ArrayData::Float16(v) => Element::write_le(v, &mut out),
            ArrayData::Float32(v) => Element::write_le(v, &mut out),
            ArrayData::Float64(v) => Element::write_le(v, &mut out),
        }
        out
    }

    pub fn to_be_bytes(&self) -> Vec<u8> {
        let mut out = self.to_le_bytes();
        swap_elements(&mut out, self.data_type().size());
        out
    }

    /// A chunk of `len` copies of `value`.
    pub fn filled(value: Scalar, len: usize) -> ArrayData {
        let dtype = value.data_type();
        let one = value.to_le_bytes();
        let mut bytes = Vec::with_capacity(one.len() * len);
        for _ in 0..len {
            bytes.extend_from_slice(&one);
        }
        // A whole number of elements by construction.
        Self::from_le_bytes(dtype, &bytes).unwrap_or_else(|_| ArrayData::Float64(Vec::new()))
    }

    /// The element at `index` as a scalar.
    pub fn get(&self, index: usize) -> Option<Scalar> {
        match self {
            ArrayData::Int8(v) => v.get(index).map(|&x| Scalar::Int8(x)),
            ArrayData::Int16(v) => v.get(index).map(|&x| Scalar::Int16(x)),
            ArrayData::Int32(v) => v.get(index).map(|&x| Scalar::Int32(x)),
            ArrayData::Int64(v) => v.get(index).map(|&x| Scalar::Int64(x)),
            ArrayData::UInt8(v) => v.get(index).map(|&x| Scalar::UInt8(x)),
            ArrayData::UInt16(v) => v.get(index).map(|&x| Scalar::UInt16(x)),
            ArrayData::UInt32(v) => v.get(index).map(|&x| Scalar::UInt32(x)),
            ArrayData::UInt64(v) => v.get(index).map(|&x| Scalar::UInt64(x)),
            ArrayData::Float16(v) => v.get(index).map(|&x| Scalar::Float16(x)),
            ArrayData::Float32(v) => v.get(index).map(|&x| Scalar::Float32(x)),
            ArrayData::Float64(v) => v.get(index).map(|&x| Scalar::Float64(x)),
        }
    }
}

/// Reverses the bytes of each `size`-byte element (little <-> big endian).
fn swap_elements(bytes: &mut [u8], size: usize) {
    for element in bytes.chunks_exact_mut(size) {
        element.reverse();
    }
}
