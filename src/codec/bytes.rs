//! `bytes`: the array -> bytes codec that lays elements out in C order, little or big endian.

use super::config::BytesConfig;
pub use super::config::Endian;
use crate::json::{Map, Value};

use crate::array::ArrayData;
use crate::dtype::DataType;
use crate::error::{Error, Result};

const CODEC: &str = "bytes";

#[derive(Debug, Clone)]
pub struct Bytes {
    dtype: DataType,
    endian: Endian,
    /// Whether the configuration named the endian (single-byte types may leave it out).
    explicit: bool,
}

impl Bytes {
    /// Reads the configuration (absent, or `{"endian": "little" | "big"}`) for elements of
    /// `dtype`. Single-byte types may leave the endian out; wider ones must give it.
    pub fn new(configuration: Option<&Value>, dtype: DataType) -> Result<Self> {
        Self::from_config(BytesConfig::read(configuration)?, dtype)
    }

    /// Binds a configuration to elements of `dtype`.
    pub fn from_config(config: BytesConfig, dtype: DataType) -> Result<Self> {
        let endian = config.endian;
        if endian.is_none() && dtype.size() > 1 {
            return Err(Error::config(
                CODEC,
                format!(
                    "\"endian\" (\"little\" or \"big\") is required for the multi-byte type {dtype}"
                ),
            ));
        }
        Ok(Self {
            dtype,
            endian: endian.unwrap_or(Endian::Little),
            explicit: endian.is_some(),
        })
    }

    pub fn endian(&self) -> Endian {
        self.endian
    }

    pub fn to_json(&self) -> Value {
        let mut out = Map::new();
        out.insert("name".into(), Value::from(CODEC));
        if self.explicit || self.dtype.size() > 1 {
            let mut config = Map::new();
            let endian = match self.endian {
                Endian::Little => "little",
                Endian::Big => "big",
            };
            config.insert("endian".into(), Value::from(endian));
            out.insert("configuration".into(), Value::Object(config));
        }
        Value::Object(out)
    }

    pub fn encode(&self, data: &ArrayData) -> Vec<u8> {
        match self.endian {
            Endian::Little => data.to_le_bytes(),
            Endian::Big => data.to_be_bytes(),
        }
    }

    /// Reads a chunk of exactly `len` elements.
    pub fn decode(&self, bytes: &[u8], len: usize) -> Result<ArrayData> {
        check_byte_length(bytes.len(), len, self.dtype)?;
        match self.endian {
            Endian::Little => ArrayData::from_le_bytes(self.dtype, bytes),
            Endian::Big => ArrayData::from_be_bytes(self.dtype, bytes),
        }
    }
}

pub(crate) fn check_byte_length(actual: usize, len: usize, dtype: DataType) -> Result<()> {
    let expected = len.saturating_mul(dtype.size());
    if actual != expected {
        return Err(Error::ChunkLength {
            what: "bytes",
            expected,
            actual,
        });
    }
    Ok(())
}

/// Reads one integer from its stored bytes.
pub(crate) trait ReadInt: Sized {
    fn read(bytes: &[u8], endian: Endian) -> Self;
}

macro_rules! impl_read_int {
    ($($T:ty),*) => {$(
        impl ReadInt for $T {
            #[inline(always)]
            fn read(bytes: &[u8], endian: Endian) -> Self {
                let mut b = [0u8; std::mem::size_of::<$T>()];
                b.copy_from_slice(bytes);
                match endian {
                    Endian::Little => <$T>::from_le_bytes(b),
                    Endian::Big => <$T>::from_be_bytes(b),
                }
            }
        }
    )*};
}
impl_read_int!(i8, i16, i32, i64, u8, u16, u32, u64);

/// Stored integers of type `I`, widened to `W`, one per slot of `out`.
pub(crate) fn widen<I: ReadInt + Into<W>, W>(bytes: &[u8], endian: Endian, out: &mut [W]) {
    for (c, slot) in bytes.chunks_exact(std::mem::size_of::<I>()).zip(out) {
        *slot = I::read(c, endian).into();
    }
}
