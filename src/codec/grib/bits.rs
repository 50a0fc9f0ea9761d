//! Unsigned integers packed most significant bit first, as GRIB2 stores every packed field.
//!
//! [`BitStream`] is the hot loop's reader: it refills a 64-bit accumulator 32 bits at a time
//! from 4-octet words, so a value costs a compare, a shift and a mask, with no bounds check
//! (the caller checks once, up front, that the octets hold every value it will take; reading
//! past them gives zeros, never a panic). [`read_wide`] reads the rare fields wider than 32
//! bits exactly as ecCodes does, its quirk beyond 56 bits included.

/// Sequential reader of fields of 0 to 32 bits.
pub(super) struct BitStream<'a> {
    words: std::slice::Iter<'a, [u8; 4]>,
    /// The 1 to 3 octets after the last whole word, zero padded, then zeros.
    tail: u32,
    acc: u64,
    /// How many of `acc`'s low bits are still unread.
    have: u32,
}

impl<'a> BitStream<'a> {
    pub fn new(data: &'a [u8]) -> Self {
        let (words, rest) = data.as_chunks::<4>();
        let mut tail = [0u8; 4];
        tail[..rest.len()].copy_from_slice(rest);
        Self {
            words: words.iter(),
            tail: u32::from_be_bytes(tail),
            acc: 0,
            have: 0,
        }
    }

    /// The next `bits`-bit field (`bits` at most 32; 0 gives 0 and reads nothing).
    #[inline(always)]
    pub fn take(&mut self, bits: u32) -> u64 {
        debug_assert!(bits <= 32);
        if self.have < bits {
            let word = match self.words.next() {
                Some(w) => u32::from_be_bytes(*w),
                None => std::mem::take(&mut self.tail),
            };
            self.acc = (self.acc << 32) | word as u64;
            self.have += 32;
        }
        self.have -= bits;
        (self.acc >> self.have) & ((1u64 << bits) - 1)
    }
}

/// The `bits`-bit field (at most 64) at bit `pos` of `data`, as ecCodes'
/// `grib_decode_unsigned_long` and `grib_decode_array` read it: they gather whole octets into a
/// 64-bit integer, so a field that starts `u` bits before an octet boundary and needs 9 octets
/// (`bits - u > 56`) loses its `u` leading bits. Octets past `data` read as zeros.
pub(super) fn read_wide(data: &[u8], pos: u64, bits: u32) -> u64 {
    if bits == 0 {
        return 0;
    }
    let first = (pos / 8) as usize;
    let mut window = [0u8; 16];
    for (i, w) in window.iter_mut().enumerate() {
        *w = first
            .checked_add(i)
            .and_then(|j| data.get(j))
            .copied()
            .unwrap_or(0);
    }
    let skip = (pos % 8) as u32;
    let v = ((u128::from_be_bytes(window) << skip) >> (128 - bits)) as u64;
    let useful = 8 - skip;
    if bits > useful && bits - useful > 56 {
        v & ((1u64 << (bits - useful)) - 1)
    } else {
        v
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn pack(values: &[u64], bits: u32) -> Vec<u8> {
        let mut out = vec![0u8; (values.len() * bits as usize).div_ceil(8) + 1];
        let mut pos = 0usize;
        for &v in values {
            for b in (0..bits).rev() {
                if (v >> b) & 1 == 1 {
                    out[pos / 8] |= 0x80 >> (pos % 8);
                }
                pos += 1;
            }
        }
        out
    }

    #[test]
    fn stream_reads_every_width() {
        for bits in 0..=32u32 {
            let max = if bits == 0 { 0 } else { (1u64 << bits) - 1 };
            let values: Vec<u64> = (0..37u64)
                .map(|i| (i.wrapping_mul(0x9E37_79B9_7F4A_7C15) >> 7) & max)
                .collect();
            let data = pack(&values, bits);
            let mut s = BitStream::new(&data);
            let got: Vec<u64> = values.iter().map(|_| s.take(bits)).collect();
            assert_eq!(got, values, "{bits} bits");
            let wide: Vec<u64> = (0..values.len())
                .map(|i| read_wide(&data, (i as u64) * bits as u64, bits))
                .collect();
            assert_eq!(wide, values, "{bits} bits, wide reader");
        }
    }

    #[test]
    fn wide_reader_loses_leading_bits_as_ecc_does() {
        // 60 bits starting 3 bits into an octet: 5 useful bits, then 55 more need 7 octets,
        // 8 in all: nothing lost. Starting 4 bits in (4 useful, 56 more): still 8 octets. At 61
        // bits and 4 useful, 57 more need 8 octets, 9 in all: the 4 leading bits are lost.
        let data = [0xFFu8; 16];
        assert_eq!(read_wide(&data, 3, 60), (1 << 60) - 1);
        assert_eq!(read_wide(&data, 4, 60), (1 << 60) - 1);
        assert_eq!(read_wide(&data, 4, 61), (1 << 57) - 1);
        assert_eq!(read_wide(&data, 0, 64), u64::MAX);
    }
}
