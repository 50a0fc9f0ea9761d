//! Arrays of strings and of bytes of any length: zarr v3 `string` with `vlen-utf8` and
//! `variable_length_bytes` (or `bytes`) with `vlen-bytes`, and zarr v2 `|O` with that filter,
//! as zarr-python 3.4.2 writes them, then bytes -> bytes codecs (compressors, checksums).
//!
//! A chunk is numcodecs' vlen framing: the item count (uint32, little-endian), then each
//! item as its byte length (uint32, little-endian) and its bytes (UTF-8 for strings). The
//! JavaScript side turns items into strings or byte arrays and places them; this module reads
//! the metadata, checks a chunk's framing (every length within the chunk, the count the
//! chunk's), and frames the items a write encodes.

use crate::codec::bytes_to_bytes::BytesChain;
use crate::codec::table::{self, Kind};
use crate::codec::{codec_name_and_config, parse_shape};
use crate::error::{quoted, Error, Result};
use crate::json::Value;
use crate::types::{ArrayType, Family};

use super::{key_encoding, KeyEncoding};

/// A string or bytes array's chunks, as the JavaScript side reads and writes them.
#[derive(Debug, Clone)]
pub struct VlenLayout {
    /// Strings (UTF-8), or bytes.
    pub utf8: bool,
    pub shape: Vec<u64>,
    pub chunk_shape: Vec<usize>,
    pub key: KeyEncoding,
    /// The bytes -> bytes codecs after the vlen codec, in encode order.
    pub compressors: Vec<Value>,
    /// `None` where the compress module runs `compressors`, else why zarrita's registry does.
    pub compressors_fallback: Option<String>,
    /// The fill value's bytes (a string's UTF-8).
    pub fill: Vec<u8>,
}

fn invalid(message: impl Into<String>) -> Error {
    Error::InvalidMetadata {
        message: message.into(),
    }
}

/// The layout of a zarr v3 array of strings or bytes of any length (metadata as
/// [`super::normalise`] gives it); `None` for an array of another data type, or one whose
/// codecs are zarrita's to read (sharding).
pub fn open_vlen(meta: &Value) -> Result<Option<VlenLayout>> {
    if meta.get("zarr_format").and_then(Value::as_u64) != Some(3) {
        return Ok(None);
    }
    let Some(data_type) = meta.get("data_type") else {
        return Ok(None);
    };
    let array_type = ArrayType::from_v3(data_type)?;
    let utf8 = match array_type.family {
        Family::String => true,
        Family::Bytes => false,
        _ => return Ok(None),
    };
    let fill = match meta.get("fill_value") {
        None | Some(Value::Null) => Vec::new(),
        Some(fill) => array_type.fill_bytes(fill, 3)?,
    };
    let shape = super::shape_of(meta)?;
    let grid = meta
        .get("chunk_grid")
        .ok_or_else(|| invalid("zarr.json has no \"chunk_grid\""))?;
    if grid.get("name").and_then(Value::as_str) != Some("regular") {
        return Err(Error::Unsupported {
            message: "strings and bytes of any length are read on a regular chunk grid only".into(),
        });
    }
    let chunk_shape = parse_shape(
        grid.at(&["configuration", "chunk_shape"])
            .ok_or_else(|| invalid("the regular chunk grid has no chunk_shape"))?,
    )?;
    if chunk_shape.len() != shape.len() || (chunk_shape.contains(&0) && !shape.contains(&0)) {
        return Err(invalid("the chunk shape does not match the array's shape"));
    }
    let Some(key) = key_encoding(meta.get("chunk_key_encoding"))? else {
        return Err(Error::Unsupported {
            message: "the chunk key encoding is not read (\"default\" and \"v2\" are)".into(),
        });
    };
    let codecs = meta
        .get("codecs")
        .and_then(Value::as_array)
        .ok_or_else(|| invalid("codecs must be a list"))?;
    let want = if utf8 { "vlen-utf8" } else { "vlen-bytes" };
    let mut list = codecs.iter();
    let first = match list.next() {
        Some(c) => codec_name_and_config(c)?.0,
        None => {
            return Err(invalid(format!(
                "codecs is empty: {} items need {want}",
                array_type.name()
            )))
        }
    };
    match first {
        // (zarrita reads sharded strings with its own codecs.)
        "sharding_indexed" => return Ok(None),
        // (A zarr v2 filter's translation names it as numcodecs does.)
        f if f == want || f.strip_prefix("numcodecs.") == Some(want) => {}
        other => {
            return Err(Error::Unsupported {
                message: format!(
                    "{} items are read with {want} as the array -> bytes codec, not {}",
                    array_type.name(),
                    quoted(other)
                ),
            })
        }
    }
    let mut compressors = Vec::new();
    for (i, codec) in list.enumerate() {
        let (name, _) = codec_name_and_config(codec)?;
        // (A zarr v2 array's translation lays out `bytes` after the object filter.)
        if i == 0 && name == "bytes" {
            continue;
        }
        if table::kind_of(name) != Some(Kind::BytesToBytes) {
            return Err(invalid(format!(
                "codecs: {} after {want}, which only bytes -> bytes codecs may follow",
                quoted(name)
            )));
        }
        compressors.push(codec.clone());
    }
    let compressors_fallback = BytesChain::not_in_wasm(&compressors)?;
    Ok(Some(VlenLayout {
        utf8,
        shape,
        chunk_shape,
        key,
        compressors,
        compressors_fallback,
        fill,
    }))
}

impl VlenLayout {
    /// As JSON for the JavaScript side (`VlenLayout` in js/reading/vlen.ts); the fill value's bytes
    /// as a list.
    pub fn to_json(&self) -> Value {
        let dims = |d: &[usize]| Value::Array(d.iter().map(|&x| Value::from(x as u64)).collect());
        Value::object([
            ("utf8", Value::Bool(self.utf8)),
            (
                "shape",
                Value::Array(self.shape.iter().map(|&x| Value::from(x)).collect()),
            ),
            ("chunk_shape", dims(&self.chunk_shape)),
            ("key_v2", Value::Bool(self.key.v2)),
            ("key_separator", Value::from(self.key.separator.as_str())),
            ("codecs", Value::Array(self.compressors.clone())),
            (
                "codecs_fallback",
                self.compressors_fallback
                    .as_deref()
                    .map_or(Value::Null, Value::from),
            ),
            (
                "fill",
                Value::Array(
                    self.fill
                        .iter()
                        .map(|&b| Value::from(u64::from(b)))
                        .collect(),
                ),
            ),
        ])
    }
}

fn corrupt(message: String) -> Error {
    Error::CorruptChunk {
        codec: "vlen",
        message,
    }
}

/// Where each of a chunk's `count` items lies in its framing (`bytes`, its bytes -> bytes
/// codecs undone): `count` (start, length) pairs. A count other than the chunk's, a length
/// past the end, or bytes left over are refused (CORRUPT_CHUNK), as numcodecs refuses them.
pub fn vlen_items(bytes: &[u8], count: usize) -> Result<Vec<u32>> {
    let u32_at = |at: usize| -> Option<usize> {
        let b = bytes.get(at..at.checked_add(4)?)?;
        Some(u32::from_le_bytes([b[0], b[1], b[2], b[3]]) as usize)
    };
    let stored =
        u32_at(0).ok_or_else(|| corrupt(format!("{} bytes hold no item count", bytes.len())))?;
    if stored != count {
        return Err(corrupt(format!(
            "the chunk holds {stored} items, not the chunk's {count}"
        )));
    }
    if bytes.len() > u32::MAX as usize {
        return Err(corrupt("a chunk of 4 GiB or more".into()));
    }
    let mut out = Vec::with_capacity(2 * count);
    let mut at = 4usize;
    for i in 0..count {
        let len = u32_at(at).ok_or_else(|| {
            corrupt(format!(
                "item {i}: the chunk ends before its length ({} bytes)",
                bytes.len()
            ))
        })?;
        let start = at + 4;
        if len > bytes.len() - start {
            return Err(corrupt(format!(
                "item {i}: {len} bytes from byte {start}, past the chunk's end ({} bytes)",
                bytes.len()
            )));
        }
        out.extend([start as u32, len as u32]);
        at = start + len;
    }
    if at != bytes.len() {
        return Err(corrupt(format!(
            "{} bytes after the last item",
            bytes.len() - at
        )));
    }
    Ok(out)
}

/// numcodecs' framing of items given as their byte `lengths` and their bytes one after
/// another (`data`).
pub fn vlen_frame(lengths: &[u32], data: &[u8]) -> Result<Vec<u8>> {
    let total: u64 = lengths.iter().map(|&l| u64::from(l)).sum();
    if total != data.len() as u64 {
        return Err(Error::ChunkLength {
            what: "item bytes",
            expected: usize::try_from(total).unwrap_or(usize::MAX),
            actual: data.len(),
        });
    }
    let count = u32::try_from(lengths.len()).map_err(|_| corrupt("too many items".into()))?;
    let mut out = Vec::with_capacity(4 + 4 * lengths.len() + data.len());
    out.extend_from_slice(&count.to_le_bytes());
    let mut at = 0usize;
    for &len in lengths {
        out.extend_from_slice(&len.to_le_bytes());
        out.extend_from_slice(&data[at..at + len as usize]);
        at += len as usize;
    }
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// zarr-python 3.4.2's chunk of ["a", "héllo"] (vlen-utf8, before zstd).
    const CHUNK: &[u8] = b"\x02\x00\x00\x00\x01\x00\x00\x00a\x06\x00\x00\x00h\xc3\xa9llo";

    #[test]
    fn framing_reads_and_writes_numcodecs_chunks() {
        assert_eq!(vlen_items(CHUNK, 2).unwrap(), [8, 1, 13, 6]);
        assert_eq!(vlen_frame(&[1, 6], "ahéllo".as_bytes()).unwrap(), CHUNK);
        for (bytes, count) in [
            (CHUNK, 3),
            (&CHUNK[..CHUNK.len() - 1], 2),
            (&[CHUNK, b"x"].concat()[..], 2),
            (&CHUNK[..2], 2),
        ] {
            assert_eq!(
                vlen_items(bytes, count).unwrap_err().code(),
                "CORRUPT_CHUNK"
            );
        }
        assert_eq!(vlen_frame(&[2], b"a").unwrap_err().code(), "CHUNK_LENGTH");
    }
}
