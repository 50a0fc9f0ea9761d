//! Reading chunks: a shard index's entries, and the chunk reader that decodes boxes of
//! chunks a tile at a time.

use super::invalid;
use super::ArrayLayout;
use crate::array::ArrayData;
use crate::codec::bytes::{check_byte_length, ReadInt};
use crate::codec::region::{transposed_strides, Span};
use crate::codec::Endian;
use crate::dtype::DataType;
use crate::error::{Error, Result};

/// A shard index (after its bytes -> bytes codecs) read into its `count` entries, each the
/// inner chunk's (offset, length) as numbers JavaScript holds exactly; an entry of the format's
/// missing marker (both 2^64 - 1) is (2^64, 2^64) as f64, which no other entry can be. An index
/// of another size, an entry half missing, or one reaching beyond 2^53 bytes is refused.
pub fn shard_index_entries(bytes: &[u8], endian: Endian, count: usize) -> Result<Vec<f64>> {
    let corrupt = |message: String| Error::CorruptChunk {
        codec: "sharding_indexed",
        message,
    };
    check_byte_length(bytes.len(), count.saturating_mul(2), DataType::UInt64)?;
    const EXACT: u64 = 1 << 53;
    let mut out = Vec::with_capacity(2 * count);
    for (i, entry) in bytes.chunks_exact(16).enumerate() {
        let offset = u64::read(&entry[..8], endian);
        let length = u64::read(&entry[8..], endian);
        match (offset, length) {
            (u64::MAX, u64::MAX) => out.extend([u64::MAX as f64; 2]),
            (u64::MAX, _) | (_, u64::MAX) => {
                return Err(corrupt(format!(
                    "inner chunk {i}'s index entry is half missing"
                )))
            }
            (o, l) if o.checked_add(l).is_none_or(|end| end > EXACT) => {
                return Err(corrupt(format!(
                    "inner chunk {i}'s index entry ({o}, {l}) reaches beyond 2^53 bytes"
                )))
            }
            (o, l) => out.extend([o as f64, l as f64]),
        }
    }
    Ok(out)
}

/// A box as (first, step, count) per dimension.
pub(super) fn spans(region: &[u32]) -> Result<Vec<Span>> {
    if !region.len().is_multiple_of(3) {
        return Err(invalid("a chunk region needs three numbers per dimension"));
    }
    Ok(region
        .chunks_exact(3)
        .map(|s| Span {
            first: s[0] as usize,
            step: s[1] as usize,
            count: s[2] as usize,
        })
        .collect())
}

/// Decodes boxes of an array's chunks a tile at a time (see [`Chain::decode_region`]): one
/// stored chunk is held at a time, and each tile replaces the last.
#[derive(Debug)]
pub struct ChunkReader {
    pub layout: ArrayLayout,
    /// Where each dimension's elements lie in a stored chunk (in elements).
    strides: Vec<usize>,
    stored: Vec<u8>,
    region: Vec<Span>,
    count: usize,
    gather: Vec<u8>,
    tile: ArrayData,
}

impl ChunkReader {
    pub fn new(layout: ArrayLayout) -> Self {
        let tile = ArrayData::filled(layout.fill_value(), 0);
        let strides = match &layout.order {
            Some(order) => transposed_strides(layout.chain.chunk_shape(), order),
            None => layout.chain.c_strides(),
        };
        Self {
            layout,
            strides,
            stored: Vec::new(),
            region: Vec::new(),
            count: 0,
            gather: Vec::new(),
            tile,
        }
    }

    /// Takes one stored (inner) chunk, after its bytes -> bytes codecs, and the box of it to
    /// read: `region` holds (first, step, count) for each dimension. Returns the box's size.
    pub fn set_chunk(&mut self, stored: Vec<u8>, region: &[u32]) -> Result<usize> {
        self.count = 0;
        let spans = spans(region)?;
        self.count = self.layout.chain.check_region(&stored, &spans)?;
        self.stored = stored;
        self.region = spans;
        Ok(self.count)
    }

    /// Checks a stored chunk of `stored_len` bytes and a box of it as [`ChunkReader::set_chunk`]
    /// does (same errors), without taking the bytes; returns the box's size.
    pub fn check_chunk(&self, stored_len: usize, region: &[u32]) -> Result<usize> {
        self.layout
            .chain
            .check_region_len(stored_len, &spans(region)?)
    }

    /// The stored bytes of the box's elements `from .. from + n` (C order), undecoded.
    pub fn gather_tile(&mut self, from: usize, n: usize) -> Result<&[u8]> {
        if from.checked_add(n).is_none_or(|end| end > self.count) {
            return Err(invalid("a tile reaches past the chunk region"));
        }
        self.layout.chain.gather_region(
            &self.stored,
            &self.strides,
            &self.region,
            from,
            n,
            &mut self.gather,
        );
        Ok(&self.gather)
    }

    /// The box's elements `from .. from + n` (C order), decoded to the array's type.
    pub fn decode_tile(&mut self, from: usize, n: usize) -> Result<&ArrayData> {
        if from.checked_add(n).is_none_or(|end| end > self.count) {
            return Err(invalid("a tile reaches past the chunk region"));
        }
        self.layout.chain.decode_region(
            &self.stored,
            &self.strides,
            &self.region,
            from,
            n,
            &mut self.gather,
            &mut self.tile,
        )?;
        Ok(&self.tile)
    }
}

#[cfg(test)]
mod shard_index_tests {
    use super::*;

    /// The sharding spec's index: (offset, length) per inner chunk as uint64, both 2^64 - 1
    /// for a missing one.
    #[test]
    fn entries_exact_missing_and_refused() {
        let mut bytes = Vec::new();
        for v in [16u64, 100, u64::MAX, u64::MAX] {
            bytes.extend_from_slice(&v.to_le_bytes());
        }
        let got = shard_index_entries(&bytes, Endian::Little, 2).unwrap();
        assert_eq!(got, [16.0, 100.0, 2f64.powi(64), 2f64.powi(64)]);
        let big: Vec<u8> = bytes
            .chunks_exact(8)
            .flat_map(|c| u64::from_le_bytes(c.try_into().unwrap()).to_be_bytes())
            .collect();
        assert_eq!(shard_index_entries(&big, Endian::Big, 2).unwrap(), got);
        assert_eq!(
            shard_index_entries(&bytes, Endian::Little, 3)
                .unwrap_err()
                .code(),
            "CHUNK_LENGTH"
        );
        let mut half = bytes.clone();
        half[16..24].copy_from_slice(&7u64.to_le_bytes());
        assert_eq!(
            shard_index_entries(&half, Endian::Little, 2)
                .unwrap_err()
                .code(),
            "CORRUPT_CHUNK"
        );
        let mut far = bytes.clone();
        far[..8].copy_from_slice(&(1u64 << 53).to_le_bytes());
        assert_eq!(
            shard_index_entries(&far, Endian::Little, 2)
                .unwrap_err()
                .code(),
            "CORRUPT_CHUNK"
        );
    }
}
