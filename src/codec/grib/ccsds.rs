//! Template 5.42's Section 7: the coded integers in CCSDS 121.0-B (adaptive entropy coding).
//!
//! ecCodes 2.50 (`grib_accessor_class_data_ccsds_packing`) hands the section to libaec's
//! `aec_buffer_decode` with the message's `bitsPerValue`, `ccsdsBlockSize`, `ccsdsRsi` and
//! `ccsdsFlags`, less two: it clears `AEC_DATA_3BYTE` and sets `AEC_DATA_MSB` to the host's
//! byte order, so that libaec writes each sample as a native integer of 1, 2 or 4 bytes
//! (`ceil(bitsPerValue / 8)` bytes, 3 rounded up to 4), and reads the `numberOfValues`
//! integers from there. The flags kept shape the stream: `AEC_DATA_PREPROCESS` (ecCodes
//! writes 14, 3BYTE | MSB | PREPROCESS), `AEC_RESTRICTED`, `AEC_PAD_RSI`, and
//! `AEC_DATA_SIGNED`. With preprocessing, libaec sign-extends signed samples to 32 bits and
//! writes the integer's bytes (read back as unsigned: -1 in 12 bits is 0xFFFF); without it, a
//! sample is the stream's `bitsPerValue` bits as they stand (-1 in 12 bits is 0x0FFF).
//!
//! The decoder here reads the stream as libaec 1.1 does (CCSDS 121.0-B-3: blocks of
//! `ccsdsBlockSize` samples, each led by its coding option's id: a run of zero blocks, the
//! second extension, split samples with k = 0 (the fundamental sequence) to 29 low bits apart,
//! or the samples uncompressed; with preprocessing, the first block of every reference sample
//! interval starts with the interval's first sample as it stands). It stops at `count`
//! samples, as libaec stops when ecCodes' buffer is full. A stream that ends before `count`
//! samples is an error (libaec's output buffer, which ecCodes zeroes first, would keep zeros
//! there); where the stream runs out within a block, the samples before that point count, as
//! libaec writes them one at a time there. libaec's errors are errors here too: a run of zero
//! blocks past the end of its interval, a second-extension symbol above 90, and the
//! parameters its `aec_decode_init` refuses. (libaec's fast path also refuses some damaged
//! streams close to their end, for want of input past the block it reads; those decode here
//! to the integers libaec gives when more bytes follow.)

use crate::error::{Error, Result};

/// The section 5 parameters of template 5.42 that the stream needs.
#[derive(Debug, Clone, Copy)]
pub(crate) struct Params {
    /// Bits per value (octet 20).
    pub bits: u8,
    /// `ccsdsFlags` (libaec's flags).
    pub flags: u8,
    /// `ccsdsBlockSize`.
    pub block_size: u8,
    /// `ccsdsRsi` (reference sample interval).
    pub rsi: u16,
}

const WHAT: &str = "CCSDS (template 5.42)";

fn corrupt(message: impl std::fmt::Display) -> Error {
    Error::corrupt("grib", format!("{WHAT}: {message}"))
}

/// libaec's flags (libaec.h).
const SIGNED: u8 = 1;
const PREPROCESS: u8 = 8;
const RESTRICTED: u8 = 16;
const PAD_RSI: u8 = 32;
const NOT_ENFORCE: u8 = 64;

/// The `count` coded integers of an AEC stream.
pub(crate) fn decode(stream: &[u8], params: Params, count: usize) -> Result<Vec<u32>> {
    let Params {
        bits,
        flags,
        block_size,
        rsi,
    } = params;
    if bits == 0 {
        // A constant field: ecCodes reads no stream, every value is the reference value.
        return Ok(vec![0; count]);
    }
    // libaec's aec_decode_init refuses these.
    if bits > 32 {
        return Err(corrupt(format!("{bits} bits a value (32 at most)")));
    }
    if flags & RESTRICTED != 0 && (5..=8).contains(&bits) {
        return Err(corrupt(format!(
            "the restricted set of coding options with {bits} bits a value (4 at most)"
        )));
    }
    if flags & NOT_ENFORCE != 0 {
        if block_size % 2 != 0 {
            return Err(corrupt(format!("an odd block size, {block_size}")));
        }
    } else if !matches!(block_size, 8 | 16 | 32 | 64) {
        return Err(corrupt(format!(
            "block size {block_size} (8, 16, 32 or 64)"
        )));
    }
    if rsi == 0 || rsi > 4096 {
        return Err(corrupt(format!(
            "a reference sample interval of {rsi} (1 to 4096)"
        )));
    }
    if !matches!(block_size, 8 | 16 | 32 | 64) {
        return Err(Error::Unsupported {
            message: format!(
                "grib: {WHAT}: block size {block_size} (libaec's AEC_NOT_ENFORCE) is not read"
            ),
        });
    }
    let sample_bits = u32::from(bits);
    let id_len = match sample_bits {
        17.. => 5,
        9..=16 => 4,
        3..=4 if flags & RESTRICTED != 0 => 2,
        1..=2 if flags & RESTRICTED != 0 => 1,
        _ => 3,
    };
    let mut reader = Bits::new(stream);
    let stream = Stream {
        sample_bits,
        block: usize::from(block_size),
        id_len,
        uncompressed: (1 << id_len) - 1,
        rsi: usize::from(rsi),
    };
    let mut post = Post::new(sample_bits, flags);
    let preprocess = flags & PREPROCESS != 0;
    let interval = usize::from(rsi) * usize::from(block_size);
    let mut out = vec![0u32; count];
    // Samples written, and of them those of the current reference sample interval.
    let mut at = 0;
    let mut used = 0;
    loop {
        let reference = preprocess && used == 0;
        let mut block = None;
        if count - at >= stream.block {
            // libaec's fast path: the whole block fits in the output. A stream that ends
            // within the block is read again, sample by sample.
            let start = reader;
            let fast = stream.block(&mut reader, &mut out[at..], reference, used);
            if reader.overran() {
                reader = start;
            } else {
                block = Some(fast?);
            }
        }
        let block = match block {
            Some(block) => block,
            None => {
                // (On a copy, so that the reader stays in registers.)
                let mut copy = reader;
                let block = stream.block_to_end(&mut copy, &mut out[at..], reference, used);
                reader = copy;
                block?
            }
        };
        let written = &mut out[at..at + block.samples];
        post.apply(written, reference, block.zero);
        at += block.samples;
        used += block.samples;
        if !block.complete {
            break;
        }
        if used == interval {
            used = 0;
            if flags & PAD_RSI != 0 {
                reader.align();
            }
        }
    }
    if at < count {
        return Err(corrupt(format!(
            "the stream ends after {at} of {count} values"
        )));
    }
    Ok(out)
}

/// A big-endian bit reader over the stream, 64 bits at a time. Past the end it reads zeros,
/// and `overran` tells.
#[derive(Clone, Copy)]
struct Bits<'a> {
    data: &'a [u8],
    /// The next byte to load into `acc` (past the stream's end: zero bytes).
    next: usize,
    /// The unread bits, first bit highest; below the top `n`, zeros or the bits that follow.
    acc: u64,
    /// How many of `acc`'s bits are loaded (56 to 63 after a refill).
    n: u32,
}

impl<'a> Bits<'a> {
    fn new(data: &'a [u8]) -> Self {
        Bits {
            data,
            next: 0,
            acc: 0,
            n: 0,
        }
    }

    /// At least 56 bits loaded.
    #[inline(always)]
    fn refill(&mut self) {
        if let Some(bytes) = self.data.get(self.next..self.next + 8) {
            let word = u64::from_be_bytes(bytes.try_into().unwrap());
            self.acc |= word >> self.n;
            let loaded = (63 - self.n) >> 3;
            self.next += loaded as usize;
            self.n += loaded << 3;
        } else {
            *self = self.refill_at_end();
        }
    }

    /// Byte by byte, zeros past the end. (By value, so that the caller's reader stays in
    /// registers.)
    #[cold]
    #[inline(never)]
    fn refill_at_end(mut self) -> Self {
        while self.n < 56 {
            let byte = self.data.get(self.next).copied().unwrap_or(0);
            self.acc |= u64::from(byte) << (56 - self.n);
            self.next += 1;
            self.n += 8;
        }
        self
    }

    /// The next `k` bits, 1 to 32.
    #[inline(always)]
    fn get(&mut self, k: u32) -> u32 {
        if self.n < k {
            self.refill();
        }
        let v = (self.acc >> (64 - k)) as u32;
        self.acc <<= k;
        self.n -= k;
        v
    }

    /// A fundamental sequence: the count of zero bits before the next one bit.
    #[inline(always)]
    fn fs(&mut self) -> u32 {
        let zeros = self.acc.leading_zeros();
        if zeros < self.n {
            self.acc <<= zeros + 1;
            self.n -= zeros + 1;
            zeros
        } else {
            self.fs_across()
        }
    }

    /// A fundamental sequence past the loaded bits (all zeros). Inlined, so that the reader
    /// stays in registers.
    #[inline(always)]
    fn fs_across(&mut self) -> u32 {
        let mut zeros = 0u32;
        loop {
            zeros = zeros.wrapping_add(self.n);
            self.acc = 0;
            self.n = 0;
            if self.next > self.data.len() {
                // Past the end, where no one bit comes: `overran` tells.
                return zeros;
            }
            self.refill();
            let z = self.acc.leading_zeros();
            if z < self.n {
                self.acc <<= z + 1;
                self.n -= z + 1;
                return zeros.wrapping_add(z);
            }
        }
    }

    /// Whether more bits were read than the stream holds.
    fn overran(&self) -> bool {
        self.next as u64 * 8 > self.data.len() as u64 * 8 + u64::from(self.n)
    }

    /// The stream's unread bits.
    fn left(&self) -> u64 {
        (self.data.len() as u64 * 8 + u64::from(self.n)).saturating_sub(self.next as u64 * 8)
    }

    /// To the next byte boundary of the stream.
    fn align(&mut self) {
        let r = self.n % 8;
        self.acc <<= r;
        self.n -= r;
    }

    /// A fundamental sequence that ends within the stream.
    fn fs_within(&mut self) -> Option<u32> {
        let fs = self.fs();
        (!self.overran()).then_some(fs)
    }

    /// `out.len()` fundamental sequences, each shifted left by `k`: all those that end in the
    /// loaded bits at once, from the lowest one bit up, so that each takes a step of one
    /// instruction (clearing the lowest one bit) rather than a count and a shift.
    #[inline(always)]
    fn fs_run(&mut self, out: &mut [u32], k: u32) {
        let mut i = 0;
        while i < out.len() {
            self.refill();
            // The loaded bits alone; a one bit ends each sequence.
            let mut w = self.acc & !(u64::MAX >> self.n);
            let ones = w.count_ones() as usize;
            if ones == 0 {
                // A sequence longer than the loaded bits.
                out[i] = self.fs() << k;
                i += 1;
                continue;
            }
            let take = ones.min(out.len() - i);
            for _ in take..ones {
                // Those of the next block's parts, left.
                w &= w - 1;
            }
            // Bit p (from the lowest) ends a sequence of the zeros down from the one bit
            // above it (or from the top).
            let mut p = w.trailing_zeros();
            let used = 64 - p;
            for x in out[i..i + take].iter_mut().rev() {
                w &= w - 1;
                let above = w.trailing_zeros();
                *x = (above - p - 1) << k;
                p = above;
            }
            self.acc <<= used;
            self.n -= used;
            i += take;
        }
    }
}

/// The second extension's symbols: symbol m codes the pair of residuals (beta - b, b), with
/// m = beta (beta + 1) / 2 + b; `SE[m]` = (beta, b).
const SE: [(u8, u8); 91] = {
    let mut table = [(0, 0); 91];
    let (mut m, mut beta) = (0, 0);
    while beta <= 12 {
        let mut b = 0;
        while b <= beta {
            table[m] = (beta, b);
            m += 1;
            b += 1;
        }
        beta += 1;
    }
    table
};

/// A zero block's fundamental sequence + 1 that stands for the rest of the segment (ROS).
const ROS: u64 = 5;

/// What one coding option id (a block, or a run of zero blocks) wrote.
struct Block {
    samples: usize,
    /// false: the stream or the output ran out within it (libaec stops there).
    complete: bool,
    /// A run of zero blocks (its samples, after a reference sample, are zeros).
    zero: bool,
}

impl Block {
    fn full(samples: usize) -> Self {
        Block {
            samples,
            complete: true,
            zero: false,
        }
    }

    fn cut(samples: usize) -> Self {
        Block {
            samples,
            complete: false,
            zero: false,
        }
    }
}

struct Stream {
    sample_bits: u32,
    block: usize,
    /// Bits of a coding option id.
    id_len: u32,
    /// The id of an uncompressed block (all ones).
    uncompressed: u32,
    /// Blocks an interval.
    rsi: usize,
}

impl Stream {
    /// The samples of a run of zero blocks (after the reference sample), `used` samples into
    /// the interval.
    fn zero_run(&self, fs: u32, reference: bool, used: usize) -> Result<usize> {
        let block = self.block as u64;
        let mut blocks = u64::from(fs) + 1;
        if blocks == ROS {
            // To the end of the 64-block segment or of the interval.
            let done = used as u64 / block;
            blocks = (self.rsi as u64 - done).min(64 - done % 64);
        } else if blocks > ROS {
            blocks -= 1;
        }
        let samples = blocks * block - u64::from(reference);
        let left = (self.rsi * self.block - used) as u64 - u64::from(reference);
        if samples > left {
            return Err(corrupt(format!(
                "a run of {blocks} zero blocks past the end of its reference sample interval"
            )));
        }
        Ok(samples as usize)
    }

    /// One coding option's samples into `out` (at least a block long), the whole block read
    /// at once; the caller reads it again with `block_to_end` if the stream overran.
    #[inline(always)]
    fn block(
        &self,
        reader: &mut Bits,
        out: &mut [u32],
        reference: bool,
        used: usize,
    ) -> Result<Block> {
        let r = usize::from(reference);
        let n = self.block;
        let id = reader.get(self.id_len);
        if id == 0 {
            let second_extension = reader.get(1) == 1;
            if reference {
                out[0] = reader.get(self.sample_bits);
            }
            if second_extension {
                let out = &mut out[..n];
                let mut i = r;
                while i < n {
                    let m = reader.fs();
                    let Some(&(beta, b)) = SE.get(m as usize) else {
                        return Err(second_extension_symbol(m));
                    };
                    if i % 2 == 0 {
                        out[i] = u32::from(beta - b);
                        i += 1;
                    }
                    out[i] = u32::from(b);
                    i += 1;
                }
                Ok(Block::full(n))
            } else {
                let fs = reader.fs();
                let zeros = self.zero_run(fs, reference, used)?;
                let room = out.len() - r;
                let written = zeros.min(room);
                out[r..r + written].fill(0);
                Ok(Block {
                    samples: r + written,
                    complete: zeros <= room,
                    zero: true,
                })
            }
        } else if id == self.uncompressed {
            for x in &mut out[..n] {
                *x = reader.get(self.sample_bits);
            }
            Ok(Block::full(n))
        } else {
            let k = id - 1;
            let out = &mut out[..n];
            if reference {
                out[0] = reader.get(self.sample_bits);
            }
            reader.fs_run(&mut out[r..], k);
            if k > 0 {
                for x in &mut out[r..] {
                    *x |= reader.get(k);
                }
            }
            Ok(Block::full(n))
        }
    }

    /// One coding option's samples into `out` (the output's room), sample by sample as
    /// libaec's slow path reads them: it stops where the stream or the room ends.
    fn block_to_end(
        &self,
        reader: &mut Bits,
        out: &mut [u32],
        reference: bool,
        used: usize,
    ) -> Result<Block> {
        let room = out.len();
        let r = usize::from(reference);
        let n = self.block;
        let sample_bits = u64::from(self.sample_bits);
        if reader.left() < u64::from(self.id_len) {
            return Ok(Block::cut(0));
        }
        let id = reader.get(self.id_len);
        let low_entropy = id == 0;
        if low_entropy && reader.left() < 1 {
            return Ok(Block::cut(0));
        }
        let second_extension = low_entropy && reader.get(1) == 1;
        if reference && id != self.uncompressed {
            if reader.left() < sample_bits || room == 0 {
                return Ok(Block::cut(0));
            }
            out[0] = reader.get(self.sample_bits);
        }
        if second_extension {
            let mut i = r;
            while i < n {
                let Some(m) = reader.fs_within() else {
                    return Ok(Block::cut(i));
                };
                let Some(&(beta, b)) = SE.get(m as usize) else {
                    return Err(second_extension_symbol(m));
                };
                if i % 2 == 0 {
                    if i == room {
                        return Ok(Block::cut(i));
                    }
                    out[i] = u32::from(beta - b);
                    i += 1;
                }
                if i == room {
                    return Ok(Block::cut(i));
                }
                out[i] = u32::from(b);
                i += 1;
            }
            Ok(Block::full(n))
        } else if low_entropy {
            let Some(fs) = reader.fs_within() else {
                return Ok(Block::cut(r));
            };
            let zeros = self.zero_run(fs, reference, used)?;
            let written = zeros.min(room - r);
            out[r..r + written].fill(0);
            Ok(Block {
                samples: r + written,
                complete: zeros <= room - r,
                zero: true,
            })
        } else if id == self.uncompressed {
            for (i, x) in out.iter_mut().take(n).enumerate() {
                if reader.left() < sample_bits {
                    return Ok(Block::cut(i));
                }
                *x = reader.get(self.sample_bits);
            }
            Ok(if room < n {
                Block::cut(room)
            } else {
                Block::full(n)
            })
        } else {
            let k = id - 1;
            let mut high = [0u32; 64];
            for h in &mut high[r..n] {
                let Some(fs) = reader.fs_within() else {
                    return Ok(Block::cut(r));
                };
                *h = fs << k;
            }
            for i in r..n {
                if i == room || reader.left() < u64::from(k) {
                    return Ok(Block::cut(i));
                }
                out[i] = if k > 0 {
                    high[i] | reader.get(k)
                } else {
                    high[i]
                };
            }
            Ok(Block::full(n))
        }
    }
}

fn second_extension_symbol(m: u32) -> Error {
    corrupt(format!("a second-extension symbol of {m} (90 at most)"))
}

/// The samples as libaec writes them into ecCodes' integers: with preprocessing, the inverse
/// of the unit-delay predictor's mapping, from each interval's reference sample; and the
/// integer's width (1, 2 or 4 bytes).
struct Post {
    preprocess: bool,
    signed: bool,
    /// The integer's bits (1, 2 or 4 bytes).
    mask: u32,
    /// The largest sample (signed: the largest positive one).
    xmax: u32,
    /// The sign bit of a signed sample.
    sign: u32,
    /// The last sample, sign-extended to 32 bits.
    last: u32,
}

impl Post {
    fn new(bits: u32, flags: u8) -> Self {
        let signed = flags & SIGNED != 0;
        Post {
            preprocess: flags & PREPROCESS != 0,
            signed,
            mask: match bits.div_ceil(8) {
                1 => 0xFF,
                2 => 0xFFFF,
                _ => u32::MAX,
            },
            xmax: if signed {
                (1u32 << (bits - 1)) - 1
            } else {
                u32::MAX >> (32 - bits)
            },
            sign: 1 << (bits - 1),
            last: 0,
        }
    }

    /// Turns a block's samples (a run of zeros if `zero`) into integers.
    #[inline(always)]
    fn apply(&mut self, out: &mut [u32], reference: bool, zero: bool) {
        let mask = self.mask;
        if !self.preprocess {
            if mask != u32::MAX {
                for x in out {
                    *x &= mask;
                }
            }
            return;
        }
        let mut rest = out;
        if reference {
            let Some((first, tail)) = rest.split_first_mut() else {
                return;
            };
            let mut x = *first;
            if self.signed {
                x = (x ^ self.sign).wrapping_sub(self.sign);
            }
            self.last = x;
            *first = x & mask;
            rest = tail;
        }
        if zero {
            // A residual of zero repeats the last sample.
            rest.fill(self.last & mask);
            return;
        }
        let xmax = self.xmax;
        let mut last = self.last;
        if self.signed {
            for x in rest {
                let d = *x;
                let (bound, other) = if (last as i32) < 0 {
                    (
                        xmax.wrapping_add(last).wrapping_add(1),
                        d.wrapping_sub(xmax).wrapping_sub(1),
                    )
                } else {
                    (xmax.wrapping_sub(last), xmax.wrapping_sub(d))
                };
                last = if (d >> 1) + (d & 1) <= bound {
                    last.wrapping_add((d >> 1) ^ (d & 1).wrapping_neg())
                } else {
                    other
                };
                *x = last & mask;
            }
        } else {
            let half = xmax / 2 + 1;
            for chunk in rest.chunks_mut(64) {
                // Each residual first taken as the difference it stands for when it is within
                // the reach of the last sample's nearer end of the range (the usual case): a
                // chain of one addition a sample. A chunk where one is not is done again,
                // sample by sample.
                let mut residuals = [0u32; 64];
                residuals[..chunk.len()].copy_from_slice(chunk);
                let mut x = last;
                let mut within = true;
                for v in chunk.iter_mut() {
                    let d = *v;
                    let end = if x & half != 0 { xmax } else { 0 };
                    within &= (d >> 1) + (d & 1) <= end ^ x;
                    x = x.wrapping_add((d >> 1) ^ (d & 1).wrapping_neg());
                    *v = x & mask;
                }
                if within {
                    last = x;
                    continue;
                }
                for (v, &d) in chunk.iter_mut().zip(&residuals) {
                    // The distance to the nearer end of the range, from the upper half's end
                    // (xmax) or the lower one's (0).
                    let end = if last & half != 0 { xmax } else { 0 };
                    last = if (d >> 1) + (d & 1) <= end ^ last {
                        last.wrapping_add((d >> 1) ^ (d & 1).wrapping_neg())
                    } else {
                        end ^ d
                    };
                    *v = last & mask;
                }
            }
        }
        self.last = last;
    }
}

#[cfg(test)]
mod tests {
    use super::super::jpeg2000::fixtures::{self, Case};
    use super::*;

    fn cases() -> Vec<Case> {
        fixtures::cases(42)
    }

    fn params(case: &Case) -> Params {
        let (flags, block_size, rsi) = case.ccsds.unwrap();
        Params {
            bits: case.bits,
            flags,
            block_size,
            rsi,
        }
    }

    #[test]
    fn streams_decode_to_libaec_integers() {
        let cases = cases();
        assert!(cases.len() >= 10);
        for case in &cases {
            let got = decode(&case.stream, params(case), case.count)
                .unwrap_or_else(|e| panic!("{}: {e}", case.name));
            assert!(got == case.expected, "{}: differs from libaec", case.name);
        }
    }

    #[test]
    fn signed_samples_are_sign_extended_with_preprocessing_alone() {
        // ecCodes' integers of 0 to 4095 in 12 bits, read back through libaec as signed.
        let cases = cases();
        let case = |name: &str| cases.iter().find(|c| c.name == name).unwrap();
        let extended = case("ccsds_37x19_b12_signed");
        assert_eq!(extended.ccsds.unwrap().0, SIGNED | PREPROCESS);
        assert!(extended.expected.iter().any(|&x| x >= 0xF800));
        assert!(extended
            .expected
            .iter()
            .all(|&x| !(0x800..0xF800).contains(&x)));
        let raw = case("ccsds_37x19_b12_signed_unprocessed");
        assert_eq!(raw.ccsds.unwrap().0, SIGNED);
        assert!(raw.expected.iter().any(|&x| x >= 0x800));
        assert!(raw.expected.iter().all(|&x| x < 0x1000));
    }

    #[test]
    fn runs_of_zero_blocks_decode() {
        // Runs to the end of a 64-block segment or of the stream (ROS) among them.
        for name in ["ccsds_96x48_b12_runs", "ccsds_96x48_b12_runs_flags0"] {
            let cases = cases();
            let case = cases.iter().find(|c| c.name == name).unwrap();
            let got = decode(&case.stream, params(case), case.count).unwrap();
            assert!(got == case.expected, "{name}");
            let runs = case
                .expected
                .windows(200)
                .any(|w| w.iter().all(|&x| x == w[0]));
            assert!(runs, "{name}: no run of 200 equal values");
        }
    }

    #[test]
    fn a_stream_cut_within_a_block_gives_the_samples_before_the_cut() {
        // As libaec's slow path writes them, one at a time.
        let mut within = 0;
        for case in cases() {
            let p = params(&case);
            let s = &case.stream;
            for cut in [s.len() / 3, s.len() / 2, s.len() * 3 / 4] {
                let most = (0..=case.count)
                    .rev()
                    .find(|&n| decode(&s[..cut], p, n).is_ok())
                    .unwrap();
                let got = decode(&s[..cut], p, most).unwrap();
                assert!(got == case.expected[..most], "{} cut at {cut}", case.name);
                assert!(most < case.count, "{} cut at {cut}", case.name);
                if most % usize::from(p.block_size) != 0 {
                    within += 1;
                }
            }
        }
        assert!(within > 0);
    }

    #[test]
    fn a_constant_field_reads_no_stream() {
        let p = Params {
            bits: 0,
            flags: 14,
            block_size: 32,
            rsi: 128,
        };
        assert_eq!(decode(&[], p, 3).unwrap(), vec![0; 3]);
    }

    #[test]
    fn parameters_libaec_refuses_are_errors() {
        let case = &cases()[0];
        let p = params(case);
        for bad in [
            Params { bits: 33, ..p },
            Params {
                block_size: 12,
                ..p
            },
            Params {
                block_size: 7,
                flags: p.flags | NOT_ENFORCE,
                ..p
            },
            Params {
                bits: 6,
                flags: p.flags | RESTRICTED,
                ..p
            },
            Params { rsi: 0, ..p },
            Params { rsi: 4097, ..p },
        ] {
            let e = decode(&case.stream, bad, case.count).unwrap_err();
            assert_eq!(e.code(), "CORRUPT_CHUNK", "{bad:?}: {e}");
        }
    }

    #[test]
    fn damaged_streams_are_errors() {
        for case in cases() {
            let s = &case.stream;
            for cut in [0, 1, 2, s.len() / 3, s.len() / 2] {
                let e = decode(&s[..cut], params(&case), case.count).unwrap_err();
                assert_eq!(e.code(), "CORRUPT_CHUNK", "{} cut at {cut}: {e}", case.name);
            }
        }
        let p = Params {
            bits: 16,
            flags: 14,
            block_size: 32,
            rsi: 128,
        };
        for garbage in fixtures::garbage() {
            // Noise is a valid AEC stream as far as it goes: too short for 100,000 values.
            let e = decode(&garbage, p, 100_000).unwrap_err();
            assert_eq!(e.code(), "CORRUPT_CHUNK", "{e}");
        }
    }

    #[test]
    fn more_values_than_the_stream_holds_are_an_error() {
        let case = &cases()[0];
        let e = decode(&case.stream, params(case), case.count * 2 + 64).unwrap_err();
        assert_eq!(e.code(), "CORRUPT_CHUNK", "{e}");
    }

    #[test]
    fn mutated_streams_never_panic() {
        fixtures::mutate(&cases(), 1000, |case, stream| {
            if let Ok(v) = decode(stream, params(case), case.count) {
                assert_eq!(v.len(), case.count);
            }
        });
    }
}
