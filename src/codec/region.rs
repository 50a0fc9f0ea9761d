//! Decoding part of a stored chunk: the elements of a box of the chunk, a tile at a time, so
//! that a read can place each decoded value straight into its output without decoding whole
//! chunks into intermediate arrays.
//!
//! Every codec this path runs is element-wise (`bytes`, `scale_offset`, `cast_value`), so the
//! stored elements of the box are gathered and decoded by exactly the steps of a whole-chunk
//! decode: the same values, bit for bit.

use super::Chain;
use crate::array::ArrayData;
use crate::error::{shape_text, Error, Result};

/// One dimension of a box within a chunk: the first index, the step and the number of indices,
/// in the chunk's own coordinates.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Span {
    pub first: usize,
    pub step: usize,
    pub count: usize,
}

impl Chain {
    /// Checks that `stored` is one whole chunk as the array -> bytes codec stores it, and that
    /// `region` (one span per dimension) lies inside the chunk. Returns the box's element count.
    pub fn check_region(&self, stored: &[u8], region: &[Span]) -> Result<usize> {
        self.check_region_len(stored.len(), region)
    }

    /// [`Chain::check_region`] for a stored chunk of `stored_len` bytes.
    pub fn check_region_len(&self, stored_len: usize, region: &[Span]) -> Result<usize> {
        if let super::Serializer::WholeChunk(w) = &self.serializer {
            return Err(Error::InvalidMetadata {
                message: format!(
                    "{}: a chunk coded as one stream does not decode in parts",
                    w.meta()
                ),
            });
        }
        super::bytes::check_byte_length(stored_len, self.len, self.encoded_data_type())?;
        let shape = &self.chunk_shape;
        let inside = region.len() == shape.len()
            && region.iter().zip(shape).all(|(s, &d)| {
                s.step >= 1
                    && (s.count == 0
                        || (s.count - 1)
                            .checked_mul(s.step)
                            .and_then(|x| x.checked_add(s.first))
                            .is_some_and(|last| last < d))
            });
        if !inside {
            return Err(Error::InvalidMetadata {
                message: format!(
                    "a selection reaches outside the chunk shape {}",
                    shape_text(shape)
                ),
            });
        }
        if let Some(fused) = &self.fused {
            fused.prepare(self.len);
        }
        Ok(region.iter().map(|s| s.count).product())
    }

    /// Decodes the elements `from .. from + n` of `region` (in C order of the box) of the
    /// stored chunk into `out`, replacing its values (its allocation is reused when it holds
    /// the array's type). `gather` is scratch space for the stored bytes of those elements.
    /// `strides`: where each dimension's elements lie in the stored chunk (in elements;
    /// [`Chain::c_strides`] unless a transpose laid it out in another order). Call
    /// [`Chain::check_region`] on the chunk and region first.
    #[allow(clippy::too_many_arguments)]
    pub fn decode_region(
        &self,
        stored: &[u8],
        strides: &[usize],
        region: &[Span],
        from: usize,
        n: usize,
        gather: &mut Vec<u8>,
        out: &mut ArrayData,
    ) -> Result<()> {
        self.gather_region(stored, strides, region, from, n, gather);
        if let Some(fused) = &self.fused {
            return fused.decode_into(gather, out);
        }
        let values = self.serializer.decode(gather, n)?;
        *out = self.decode_array(values)?;
        Ok(())
    }
}

impl Chain {
    /// The stored bytes of the elements `from .. from + n` of `region` (C order of the box),
    /// into `gather` (replacing what it held); `strides` as for [`Chain::decode_region`].
    /// Call [`Chain::check_region`] first.
    pub fn gather_region(
        &self,
        stored: &[u8],
        strides: &[usize],
        region: &[Span],
        from: usize,
        n: usize,
        gather: &mut Vec<u8>,
    ) {
        let size = self.encoded_data_type().size();
        gather.clear();
        gather_elements(stored, strides, region, from, n, size, gather);
    }

    /// The C-order strides of a chunk, in elements: where each dimension's elements lie when
    /// the chunk is stored as its codecs lay it out without a transpose.
    pub fn c_strides(&self) -> Vec<usize> {
        c_strides(&self.chunk_shape)
    }

    /// The byte order of the stored elements when the chain is `bytes` alone (no array ->
    /// array codec): its stored bytes are then the array's values themselves.
    pub fn plain_endian(&self) -> Option<super::bytes::Endian> {
        match &self.serializer {
            // (Codecs that decode to what is stored, bitround's, leave the bytes the values.)
            super::Serializer::Bytes(b)
                if self
                    .array_codecs
                    .iter()
                    .all(super::ArrayCodec::decodes_as_stored) =>
            {
                Some(b.endian())
            }
            _ => None,
        }
    }
}

/// C-order strides of `shape`, in elements.
pub fn c_strides(shape: &[usize]) -> Vec<usize> {
    let mut strides = vec![1usize; shape.len()];
    for k in (0..shape.len().saturating_sub(1)).rev() {
        strides[k] = strides[k + 1] * shape[k + 1];
    }
    strides
}

/// Where each dimension's elements lie in a chunk of `shape` stored transposed by `order`
/// (the transpose codec's: stored dimension `i` is dimension `order[i]`), in elements.
pub fn transposed_strides(shape: &[usize], order: &[usize]) -> Vec<usize> {
    let stored: Vec<usize> = order.iter().map(|&d| shape[d]).collect();
    let c = c_strides(&stored);
    let mut strides = vec![0; shape.len()];
    for (i, &d) in order.iter().enumerate() {
        strides[d] = c[i];
    }
    strides
}

/// Appends the stored bytes of the box elements `from .. from + n` to `out`: a contiguous run
/// of the innermost dimension at a time where its step and stride are 1.
fn gather_elements(
    stored: &[u8],
    strides: &[usize],
    region: &[Span],
    from: usize,
    n: usize,
    size: usize,
    out: &mut Vec<u8>,
) {
    let Some(last) = region.len().checked_sub(1) else {
        // A 0-d chunk has one element.
        if n > 0 {
            out.extend_from_slice(stored.get(..size).unwrap_or_default());
        }
        return;
    };
    // The box index of element `from`.
    let mut index = vec![0usize; region.len()];
    let mut rest = from;
    for k in (0..region.len()).rev() {
        let count = region[k].count.max(1);
        index[k] = rest % count;
        rest /= count;
    }
    let mut left = n;
    while left > 0 {
        let base: usize = (0..last)
            .map(|k| (region[k].first + index[k] * region[k].step) * strides[k])
            .sum();
        let span = region[last];
        let run = left.min(span.count - index[last]);
        let step = span.step * strides[last];
        let start = base + (span.first + index[last] * span.step) * strides[last];
        if step == 1 {
            out.extend_from_slice(
                stored
                    .get(start * size..(start + run) * size)
                    .unwrap_or_default(),
            );
        } else {
            for i in 0..run {
                let at = (start + i * step) * size;
                out.extend_from_slice(stored.get(at..at + size).unwrap_or_default());
            }
        }
        left -= run;
        // Next row of the box.
        index[last] += run;
        let mut k = last;
        while k > 0 && index[k] == region[k].count {
            index[k] = 0;
            k -= 1;
            index[k] += 1;
        }
    }
}
