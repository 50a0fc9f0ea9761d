//! The crate's one error type. Every variant carries enough context to say what to change.

use std::fmt;

/// An error from building or running a codec chain.
#[derive(Debug, Clone, PartialEq)]
pub enum Error {
    /// A data type name that is not a zarr v3 data type this package knows.
    UnknownDataType { name: String },
    /// A real data type that a codec cannot work with (complex, bool, ...).
    UnsupportedDataType {
        codec: &'static str,
        data_type: String,
        reason: String,
    },
    /// A codec name this package does not implement.
    UnknownCodec { name: String },
    /// Codec metadata that is malformed or invalid for the array.
    InvalidConfig {
        codec: &'static str,
        message: String,
    },
    /// A JSON scalar (fill value, scale, offset, scalar_map entry) that is not a value of its type.
    InvalidScalar {
        data_type: String,
        value: String,
        reason: String,
    },
    /// Array metadata (data type, fill value, shape) that is malformed.
    InvalidMetadata { message: String },
    /// CF time in a calendar that numpy's dates cannot hold (noleap, 360_day, julian, ...).
    UnsupportedCalendar { calendar: String },
    /// Metadata no reader at hand reads right: refused rather than read wrong.
    Unsupported { message: String },
    /// A value that cannot be cast to the target type under the configured modes.
    Cast {
        codec: &'static str,
        message: String,
    },
    /// Integer arithmetic whose result leaves the array's data type.
    Overflow {
        codec: &'static str,
        message: String,
    },
    /// Integer decoding that would need a fractional result.
    InexactDivision { message: String },
    /// A chunk whose byte or element count does not match its shape and data type.
    ChunkLength {
        what: &'static str,
        expected: usize,
        actual: usize,
    },
    /// A chunk whose values are not of the type the codec expects.
    WrongArrayType { expected: String, actual: String },
    /// An integer beyond 2^53 given as a JSON float, which cannot be trusted to be the integer
    /// that was written (JavaScript's JSON.parse rounds such integers before this package
    /// sees them).
    InexactNumber {
        context: String,
        value: String,
        data_type: String,
    },
    /// Compressed bytes that do not decode: truncated, damaged, or declaring another size than
    /// the chunk must have.
    CorruptChunk {
        codec: &'static str,
        message: String,
    },
    /// A value a codec cannot hold (a lossy mode and NaN or an infinity).
    NonFinite {
        codec: &'static str,
        index: usize,
        value: String,
        reason: &'static str,
    },
    /// A stored checksum that does not match the bytes it covers.
    Checksum {
        codec: &'static str,
        expected: u32,
        actual: u32,
    },
}

impl Error {
    /// The codec the error is about, where it is one (what JavaScript sees as `error.codec`):
    /// none for an error of the metadata, a chunk's length or the package itself.
    pub fn codec(&self) -> Option<&str> {
        match self {
            Error::UnsupportedDataType { codec, .. }
            | Error::InvalidConfig { codec, .. }
            | Error::Cast { codec, .. }
            | Error::Overflow { codec, .. }
            | Error::CorruptChunk { codec, .. }
            | Error::NonFinite { codec, .. }
            | Error::Checksum { codec, .. } => {
                Some(*codec).filter(|c| !matches!(*c, "zarr-wasm-codecs" | "getDecoded"))
            }
            Error::InexactDivision { .. } => Some("scale_offset"),
            Error::UnknownCodec { name } => Some(name),
            _ => None,
        }
    }

    /// A stable, machine-readable code (what JavaScript sees as `error.code`).
    pub fn code(&self) -> &'static str {
        match self {
            Error::UnknownDataType { .. } => "UNKNOWN_DATA_TYPE",
            Error::UnsupportedDataType { .. } => "UNSUPPORTED_DATA_TYPE",
            Error::UnknownCodec { .. } => "UNKNOWN_CODEC",
            Error::InvalidConfig { .. } => "INVALID_CONFIG",
            Error::InvalidScalar { .. } => "INVALID_SCALAR",
            Error::InvalidMetadata { .. } => "INVALID_METADATA",
            Error::UnsupportedCalendar { .. } => "UNSUPPORTED_CALENDAR",
            Error::Unsupported { .. } => "UNSUPPORTED",
            Error::Cast { .. } => "CAST",
            Error::Overflow { .. } => "OVERFLOW",
            Error::InexactDivision { .. } => "INEXACT_DIVISION",
            Error::ChunkLength { .. } => "CHUNK_LENGTH",
            Error::WrongArrayType { .. } => "WRONG_ARRAY_TYPE",
            Error::InexactNumber { .. } => "INEXACT_NUMBER",
            Error::CorruptChunk { .. } => "CORRUPT_CHUNK",
            Error::Checksum { .. } => "CHECKSUM",
            Error::NonFinite { .. } => "NON_FINITE",
        }
    }

    /// Puts `context` (where the value stands) in front of an [`Error::InexactNumber`], and
    /// wraps any other error with `wrap`: an inexact number keeps its own code however deep it
    /// was found.
    pub(crate) fn in_context(self, context: &str, wrap: impl FnOnce(Error) -> Error) -> Error {
        match self {
            Error::InexactNumber {
                context: inner,
                value,
                data_type,
            } => Error::InexactNumber {
                context: format!("{context}{inner}"),
                value,
                data_type,
            },
            other => wrap(other),
        }
    }

    /// A chunk a kernel cannot decode (used by the kernels of the modules that have them).
    pub fn corrupt(codec: &'static str, message: impl Into<String>) -> Self {
        Error::CorruptChunk {
            codec,
            message: message.into(),
        }
    }

    pub(crate) fn config(codec: &'static str, message: impl Into<String>) -> Self {
        Error::InvalidConfig {
            codec,
            message: message.into(),
        }
    }
}

impl fmt::Display for Error {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Error::UnknownDataType { name } => write!(
                f,
                "unknown data type {}: expected one of int8, int16, int32, int64, uint8, \
                 uint16, uint32, uint64, float16, float32, float64",
                quoted(name)
            ),
            Error::UnsupportedDataType {
                codec,
                data_type,
                reason,
            } => write!(
                f,
                "{codec} codec does not support data type {data_type}: {reason}"
            ),
            Error::UnknownCodec { name } => write!(
                f,
                "unknown codec {}: the package's codec table does not have it",
                quoted(name)
            ),
            Error::InvalidConfig { codec, message } => {
                write!(f, "invalid {codec} configuration: {message}")
            }
            Error::InvalidScalar {
                data_type,
                value,
                reason,
            } => write!(f, "{value} is not a valid {data_type} value: {reason}"),
            Error::InvalidMetadata { message } => write!(f, "invalid array metadata: {message}"),
            Error::Unsupported { message } => f.write_str(message),
            Error::UnsupportedCalendar { calendar } => write!(
                f,
                "CF time in the calendar {} is not read as dates (the calendars read are \
                 standard, gregorian and proleptic_gregorian): read the numbers with get",
                quoted(calendar)
            ),
            Error::Cast { codec, message } => write!(f, "{codec}: {message}"),
            Error::Overflow { codec, message } => write!(f, "{codec}: {message}"),
            Error::InexactDivision { message } => write!(f, "scale_offset: {message}"),
            Error::ChunkLength {
                what,
                expected,
                actual,
            } => write!(
                f,
                "chunk has {actual} {what} but its shape and data type need {expected}"
            ),
            Error::WrongArrayType { expected, actual } => write!(
                f,
                "chunk holds {actual} values but this codec expects {expected} values"
            ),
            Error::InexactNumber {
                context,
                value,
                data_type,
            } => write!(
                f,
                "{context}{value} is read as {data_type} but came as a floating-point number \
                 beyond 2^53, which need not be the integer zarr.json holds (JavaScript's \
                 JSON.parse rounds such integers). Read the array with this package's get, set \
                 or getDecoded, or open it with its open(): they read zarr.json's integers \
                 exactly. In metadata built by hand, give the value as a bigint or a decimal \
                 string"
            ),
            Error::CorruptChunk { codec, message } => write!(f, "{codec}: {message}"),
            Error::NonFinite {
                codec,
                index,
                value,
                reason,
            } => write!(f, "{codec}: element {index} of the chunk is {value}: {reason}"),
            Error::Checksum {
                codec,
                expected,
                actual,
            } => write!(
                f,
                "{codec}: the stored checksum is {expected:#010x} but the bytes give {actual:#010x} \
                 (the chunk is damaged)"
            ),
        }
    }
}

impl std::error::Error for Error {}

pub type Result<T, E = Error> = std::result::Result<T, E>;

/// A name or key as it appears in messages: a JSON string literal.
pub(crate) fn quoted(s: &str) -> String {
    crate::json::Value::from(s).to_string()
}

/// `items` separated by `sep`.
pub fn join(items: &[&str], sep: &str) -> String {
    let mut out = String::new();
    for (i, item) in items.iter().enumerate() {
        if i > 0 {
            out.push_str(sep);
        }
        out.push_str(item);
    }
    out
}

/// An integer as `{}` writes it. (Through i64 or u64, where every integer in the crate's
/// messages fits, so that core's 128-bit formatting is not linked.)
pub(crate) fn int_text(v: i128) -> String {
    if let Ok(v) = i64::try_from(v) {
        return v.to_string();
    }
    if let Ok(v) = u64::try_from(v) {
        return v.to_string();
    }
    let mut digits = Vec::new();
    let mut m = v.unsigned_abs();
    while m > 0 {
        digits.push(char::from(b'0' + (m % 10) as u8));
        m /= 10;
    }
    if v < 0 {
        digits.push('-');
    }
    digits.iter().rev().collect()
}

/// A chunk shape as messages show it: `[2, 3]`.
pub(crate) fn shape_text(shape: &[usize]) -> String {
    let dims: Vec<String> = shape.iter().map(usize::to_string).collect();
    let dims: Vec<&str> = dims.iter().map(String::as_str).collect();
    format!("[{}]", join(&dims, ", "))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn helpers_write_what_core_writes() {
        for v in [
            0,
            1,
            -1,
            i128::from(i64::MIN),
            i128::from(i64::MAX),
            i128::from(u64::MAX),
            i128::from(u64::MAX) + 1,
            i128::from(i64::MIN) - 1,
            i128::MIN,
            i128::MAX,
        ] {
            assert_eq!(int_text(v), v.to_string());
        }
        assert_eq!(shape_text(&[]), format!("{:?}", [0usize; 0]));
        assert_eq!(shape_text(&[2, 3, 4]), format!("{:?}", [2usize, 3, 4]));
        assert_eq!(join(&["a", "b", "c"], ", "), ["a", "b", "c"].join(", "));
        assert_eq!(quoted("sideways"), format!("{:?}", "sideways"));
        assert_eq!(quoted("a\"b\\c\n"), "\"a\\\"b\\\\c\\n\"");
    }
}
