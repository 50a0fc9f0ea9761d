//! zfp decoding, every mode: fixed rate, fixed precision, fixed accuracy, expert parameters and
//! reversible (lossless), for float32, float64, int32 and int64 fields of 1 to 4 dimensions,
//! written for wasm from zfp's description of its format (Lindstrom, "Fixed-Rate Compressed
//! Floating-Point Arrays", 2014, and zfp's documentation of its algorithm): each 4^d block is a
//! common exponent (floats), its integer coefficients coded one bit plane at a time with group
//! tests, in an order of increasing sequency, then the inverse of zfp's decorrelating lifting
//! transform along each dimension (of its reversible lifting in reversible mode). zfp-rs, which
//! encodes, is the reference these functions are tested against (tests/zfp_kernel.rs).
//!
//! In wasm, the hot steps of int32 blocks (float32 fields) run in SIMD (simd128, enabled on the
//! kernel's own functions alone): the deposit of up to 16 significant coefficients' bits, the
//! gather of the coefficients into rows, the inverse transform and the conversion to floats.
//!
//! A stream that ends before the field does is an error (CHUNK_LENGTH): where zfp-rs and the C
//! library find it (a block's padding that reaches a word past the stream's end), and also, on
//! purpose, where a block needs bits past the stream's last byte: zfp reads whole 64-bit words,
//! so a stream cut inside its last word there decodes the missing bits as zeros.

use std::ops::Range;

use crate::error::{Error, Result};

/// zfp's codec parameters (its "expert mode"): every mode is a setting of them, reversible a
/// `minexp` below -1074.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Params {
    pub minbits: u32,
    pub maxbits: u32,
    pub maxprec: u32,
    pub minexp: i32,
}

/// Reads a zfp stream, least significant bit of each little-endian 64-bit word first, as zfp
/// writes it; bytes past the stream's end read as zeros (the caller checks the position
/// against the stream's length). Each read looks at the 57 or more bits from the current
/// position on, loaded afresh from the bytes, so that its only state is the position.
struct Reader<'a> {
    bytes: &'a [u8],
    /// The position of the next bit to read.
    pos: u64,
    /// Whether a seek has landed inside a word past the stream's (zero-padded) last word,
    /// where zfp reads past the end of its buffer.
    overread: bool,
}

/// How many of the bits [`Reader::peek`] returns are the stream's (at least).
const PEEKED: u32 = 57;

impl<'a> Reader<'a> {
    fn new(bytes: &'a [u8]) -> Self {
        Self {
            bytes,
            pos: 0,
            overread: false,
        }
    }

    /// The bits from the position on, the next one lowest: [`PEEKED`] of them or more.
    #[inline(always)]
    fn peek(&self) -> u64 {
        let byte = usize::try_from(self.pos / 8).unwrap_or(usize::MAX);
        let word = match self.bytes.get(byte..).and_then(|b| b.first_chunk::<8>()) {
            Some(&w) => u64::from_le_bytes(w),
            None => self.last_bytes(byte),
        };
        word >> (self.pos % 8)
    }

    /// The eight bytes from `byte` on where fewer than eight are left, zero-padded.
    #[cold]
    #[inline(never)]
    fn last_bytes(&self, byte: usize) -> u64 {
        let mut w = [0u8; 8];
        if let Some(rest) = self.bytes.get(byte..) {
            w[..rest.len()].copy_from_slice(rest);
        }
        u64::from_le_bytes(w)
    }

    /// The position of the next bit to read.
    #[inline(always)]
    fn position(&self) -> u64 {
        self.pos
    }

    #[inline(always)]
    fn bit(&mut self) -> u64 {
        let bit = self.peek() & 1;
        self.pos += 1;
        bit
    }

    /// The next `n` bits (0 to 64), the first read lowest.
    #[inline(always)]
    fn bits(&mut self, n: u32) -> u64 {
        if n < PEEKED {
            let value = self.peek() & ((1u64 << n) - 1);
            self.pos += u64::from(n);
            value
        } else {
            let low = self.peek() & 0xffff_ffff;
            self.pos += 32;
            let high = self.peek() & (u64::MAX >> (96 - n));
            self.pos += u64::from(n) - 32;
            low | high << 32
        }
    }

    /// Reads up to `limit` bits, stopping after the first 1: returns how many 0s came before it
    /// (`limit` when there was no 1 among them) and the bits read.
    #[inline(always)]
    fn zeros_then_one(&mut self, limit: u32) -> (u32, u32) {
        let mut zeros = 0;
        loop {
            let left = limit - zeros;
            // 0s before the next 1 (64 when there is none among the bits peeked).
            let run = self.peek().trailing_zeros();
            if run < left && run < PEEKED {
                self.pos += u64::from(run) + 1;
                return (zeros + run, zeros + run + 1);
            }
            if left <= PEEKED {
                self.pos += u64::from(left);
                return (limit, limit);
            }
            zeros += PEEKED;
            self.pos += u64::from(PEEKED);
        }
    }

    /// The rest of a bit plane after the bits of its first `n` coefficients: group tests, a 1
    /// saying another coefficient becomes significant, found by a run of 0s ended by a 1 (none
    /// is read for the last coefficient, nor past the budget `bits`), and a 0 ending the plane.
    /// Calls `significant` with each coefficient found; `bits` and `n` are left as read.
    #[inline(always)]
    fn group_tests(
        &mut self,
        bits: &mut u32,
        n: &mut u32,
        size: u32,
        mut significant: impl FnMut(u32),
    ) {
        while *bits != 0 && *n < size {
            *bits -= 1;
            let w = self.peek();
            if w & 1 == 0 {
                self.pos += 1;
                break;
            }
            let limit = (*bits).min(size - 1 - *n);
            // The common case: the run and its 1 among the bits peeked.
            let run = (w >> 1).trailing_zeros();
            let (zeros, read) = if run < limit && run < PEEKED - 1 {
                self.pos += u64::from(run) + 2;
                (run, run + 1)
            } else {
                self.pos += 1;
                self.zeros_then_one(limit)
            };
            *bits -= read;
            *n += zeros;
            significant(*n);
            *n += 1;
        }
    }

    /// A bit plane of a block of up to 64 coefficients: the bits of its first `n`
    /// coefficients, then its group tests; returns the plane, bit i for coefficient i. Reads
    /// from one load of the bits ahead while they last (the common case), then as
    /// [`Reader::group_tests`] does.
    #[inline(always)]
    fn plane(&mut self, bits: &mut u32, n: &mut u32, size: u32) -> u64 {
        let m = (*n).min(*bits);
        *bits -= m;
        let w = self.peek();
        // The bits of `w` that are the stream's from the position on (the rest are 0).
        let valid = 64 - (self.pos % 8) as u32;
        if m >= valid {
            let mut x = self.bits(m);
            self.group_tests(bits, n, size, |i| x |= 1u64 << i);
            return x;
        }
        let mut x = w & ((1u64 << m) - 1);
        let mut used = m;
        while *bits != 0 && *n < size {
            if used >= valid {
                break;
            }
            let t = w >> used;
            *bits -= 1;
            if t & 1 == 0 {
                used += 1;
                self.pos += u64::from(used);
                return x;
            }
            let limit = (*bits).min(size - 1 - *n);
            // 0s before the next 1 (all that `w` holds when there is none).
            let run = (t >> 1).trailing_zeros();
            let left = valid - used - 1;
            let (zeros, read) = if run < limit && run < left {
                (run, run + 1)
            } else if limit <= left {
                // No 1 among the next `limit` bits: the last coefficient's is implied.
                (limit, limit)
            } else {
                // The run goes on past the bits loaded: read on from the stream.
                self.pos += u64::from(used + 1);
                let (zeros, read) = self.zeros_then_one(limit);
                *bits -= read;
                *n += zeros;
                x |= 1u64 << *n;
                *n += 1;
                self.group_tests(bits, n, size, |i| x |= 1u64 << i);
                return x;
            };
            used += 1 + read;
            *bits -= read;
            *n += zeros;
            x |= 1u64 << *n;
            *n += 1;
        }
        self.pos += u64::from(used);
        self.group_tests(bits, n, size, |i| x |= 1u64 << i);
        x
    }

    #[inline(always)]
    fn seek(&mut self, position: u64) {
        // zfp loads the word a position inside a word is in.
        let word = position / 64;
        let words = (self.bytes.len() as u64).div_ceil(8);
        self.overread |= !position.is_multiple_of(64) && word >= words;
        self.pos = position;
    }

    #[inline(always)]
    fn skip(&mut self, n: u32) {
        let to = self.position() + u64::from(n);
        self.seek(to);
    }
}

/// The coefficient order of a block of 2, 3 or 4 dimensions: position `i` of the coded
/// sequence is block index `PERM[i]` (x fastest). Part of zfp's format (its tables for 2-D,
/// 3-D and 4-D blocks); 1-D blocks are in order.
const PERM_2: [u8; 16] = [0, 1, 4, 5, 2, 8, 6, 9, 3, 12, 10, 7, 13, 11, 14, 15];
const PERM_3: [u8; 64] = [
    0, 1, 4, 16, 20, 17, 5, 2, 8, 32, 21, 6, 18, 24, 9, 33, 36, 3, 12, 48, 22, 25, 37, 40, 34, 10,
    7, 19, 28, 13, 49, 52, 41, 38, 26, 23, 29, 53, 11, 35, 44, 14, 50, 56, 42, 27, 39, 45, 30, 54,
    57, 60, 51, 15, 43, 46, 58, 61, 55, 31, 62, 59, 47, 63,
];
const PERM_4: [u8; 256] = [
    0, 1, 4, 16, 64, 5, 80, 17, 68, 65, 20, 2, 8, 32, 128, 84, 81, 69, 21, 6, 18, 66, 24, 72, 9,
    96, 33, 36, 129, 132, 144, 3, 12, 48, 192, 85, 82, 70, 22, 73, 25, 88, 37, 100, 97, 148, 145,
    133, 10, 160, 34, 136, 130, 40, 7, 19, 67, 28, 76, 13, 112, 49, 52, 193, 196, 208, 86, 89, 101,
    149, 161, 137, 41, 134, 38, 164, 26, 152, 146, 104, 98, 74, 83, 71, 23, 77, 29, 92, 53, 116,
    113, 212, 209, 197, 11, 35, 131, 44, 140, 14, 176, 50, 56, 194, 200, 224, 90, 165, 102, 153,
    150, 105, 168, 162, 138, 42, 87, 93, 117, 213, 27, 75, 99, 39, 135, 147, 108, 45, 141, 156, 30,
    78, 177, 180, 54, 114, 120, 57, 198, 210, 216, 201, 225, 228, 15, 240, 51, 204, 195, 60, 169,
    166, 154, 106, 91, 103, 151, 109, 157, 94, 181, 118, 121, 214, 217, 229, 163, 139, 43, 142, 46,
    172, 58, 184, 178, 232, 226, 202, 241, 205, 61, 199, 55, 244, 31, 220, 211, 124, 115, 79, 170,
    167, 155, 107, 158, 110, 173, 122, 185, 182, 233, 230, 218, 95, 245, 119, 221, 215, 125, 242,
    206, 62, 203, 59, 248, 47, 236, 227, 188, 179, 143, 171, 174, 186, 234, 246, 222, 126, 219,
    123, 249, 111, 237, 231, 189, 183, 159, 252, 243, 207, 63, 175, 250, 187, 238, 235, 190, 253,
    247, 223, 127, 254, 251, 239, 191, 255,
];
const PERM_1: [u8; 4] = [0, 1, 2, 3];

/// The inverse of a coefficient order: entry `j` is the position in the coded sequence of
/// block index `j`.
#[cfg(target_arch = "wasm32")]
const fn invert<const N: usize>(perm: &[u8; N]) -> [u8; N] {
    let mut inv = [0u8; N];
    let mut i = 0;
    while i < N {
        inv[perm[i] as usize] = i as u8;
        i += 1;
    }
    inv
}
#[cfg(target_arch = "wasm32")]
const INV_PERM_3: [u8; 64] = invert(&PERM_3);
#[cfg(target_arch = "wasm32")]
const INV_PERM_4: [u8; 256] = invert(&PERM_4);

#[inline(always)]
fn perm(dims: usize) -> &'static [u8] {
    match dims {
        1 => &PERM_1,
        2 => &PERM_2,
        3 => &PERM_3,
        _ => &PERM_4,
    }
}

/// Decodes the bit planes of one block's `size` coefficients (negabinary, `intprec` bits; `data`
/// all 0 on entry) with
/// at most `maxbits` bits and `maxprec` planes; returns the bits read. Plane by plane from the
/// most significant: the first `n` coefficients (those already found significant) are `n` bits
/// as they are; then group tests: a 1 says another coefficient becomes significant, found by
/// a run of 0s ending in a 1 (the last coefficient's 1 is implied), a 0 ends the plane.
#[inline(always)]
fn decode_planes<U: Plane, const SIZE: usize>(
    r: &mut Reader,
    maxbits: u32,
    maxprec: u32,
    data: &mut [U; SIZE],
    planes: &mut [u64; 64],
) -> u32 {
    let size = SIZE as u32;
    let intprec = U::BITS;
    let kmin = intprec.saturating_sub(maxprec);
    let mut bits = maxbits;
    let mut n = 0u32;
    let mut k = intprec;
    // Blocks of 16 or 64 coefficients: each plane's bits kept as a row, and the rows turned
    // into coefficients at the end, by depositing each row's bits (few planes or few
    // significant coefficients) or by one bit-matrix transpose (many).
    let top = k;
    let mut work = 0;
    while bits != 0 && k > kmin {
        k -= 1;
        if size <= 64 {
            let x = r.plane(&mut bits, &mut n, size);
            if size == 4 {
                for (i, d) in data.iter_mut().enumerate() {
                    *d = d.or(U::from_low((x >> i) & 1).shl(k));
                }
            } else {
                planes[k as usize] = x;
                work += n;
            }
        } else {
            let plane = U::bit(k);
            let m = n.min(bits);
            bits -= m;
            for d in data.iter_mut().take(m as usize) {
                if r.bit() != 0 {
                    *d = d.or(plane);
                }
            }
            r.group_tests(&mut bits, &mut n, size, |i| {
                data[i as usize] = data[i as usize].or(plane);
            });
        }
    }
    if size > 4 && size <= 64 {
        U::from_rows(planes, k..top, n, work, data);
    }
    maxbits - bits
}

/// Transposes bit matrices held in `rows`: for each `j` of `js` (`masks` the low `j` bits of
/// every group of 2j), row k's bits j..2j of each group are swapped with row k + j's bits
/// 0..j. Applied for j = w/2 .. 1 over w rows, it turns bit c of row k into bit k of row c
/// (in each w-bit lane of the words).
#[inline(always)]
fn transpose_step<const J: usize, const ROWS: usize>(rows: &mut [u64; ROWS], mask: u64) {
    let mut k = 0;
    while k < ROWS {
        for i in k..k + J {
            let t = ((rows[i] >> J) ^ rows[i + J]) & mask;
            rows[i + J] ^= t;
            rows[i] ^= t << J;
        }
        k += 2 * J;
    }
}

/// A block's coefficients as coded: unsigned (negabinary) integers of the block type's width.
pub trait Plane: Copy + Default {
    const BITS: u32;
    /// The coefficient bits deposited (summed over planes) above which a transpose is cheaper.
    const TRANSPOSE_WORK: u32;
    /// Coefficients from bit planes: `planes[k]` has bit i set where coefficient i has bit k
    /// (i < 64); or'd into `data`.
    fn from_planes(planes: &mut [u64; 64], data: &mut [Self]);
    /// A block's coefficients from the rows `ks` of `planes` (the only ones decoded), whose
    /// bits are those of the first `n` coefficients, `work` those counts summed over the rows;
    /// `data` all 0 on entry. Each row's bits deposited (few rows or few significant
    /// coefficients) or one bit-matrix transpose (many).
    #[inline(always)]
    fn from_rows<const SIZE: usize>(
        planes: &mut [u64; 64],
        ks: Range<u32>,
        _n: u32,
        work: u32,
        data: &mut [Self; SIZE],
    ) {
        if work < Self::TRANSPOSE_WORK {
            Self::deposit(planes, ks, data);
        } else {
            planes[..ks.start as usize].fill(0);
            Self::from_planes(planes, data);
        }
    }
    /// The same from the rows `ks` alone, a row's bits one at a time; `data` all 0 on entry.
    #[inline(always)]
    fn deposit<const SIZE: usize>(planes: &[u64; 64], ks: Range<u32>, data: &mut [Self; SIZE]) {
        for k in ks {
            let x = planes[k as usize];
            let len = 64 - x.leading_zeros() as usize;
            for (i, d) in data.iter_mut().enumerate().take(len) {
                *d = d.or(Self::from_low((x >> i) & 1).shl(k));
            }
        }
    }
    fn bit(k: u32) -> Self;
    fn from_low(x: u64) -> Self;
    fn or(self, o: Self) -> Self;
    fn shl(self, k: u32) -> Self;
}

impl Plane for u32 {
    const BITS: u32 = 32;
    // Natively (wasm takes its own path, below), measured on float32 smooth 3-D and rippled
    // 2-D fields (4M values, fixed_accuracy 1e-3): 64 and 96 within noise (22.0 / 44 ms),
    // 48 slower on the smooth field (24.7 ms), 192 on the rippled one (57.9 ms).
    const TRANSPOSE_WORK: u32 = 96;
    /// In wasm, up to 16 significant coefficients (every 2-D block) are deposited, four lanes
    /// to a vector held in a register; more are transposed.
    #[cfg(target_arch = "wasm32")]
    #[inline(always)]
    fn from_rows<const SIZE: usize>(
        planes: &mut [u64; 64],
        ks: Range<u32>,
        n: u32,
        _work: u32,
        data: &mut [u32; SIZE],
    ) {
        if n <= 16 {
            simd::deposit(planes, ks, n, data);
        } else {
            planes[..ks.start as usize].fill(0);
            Self::from_planes(planes, data);
        }
    }
    #[inline(always)]
    fn from_planes(planes: &mut [u64; 64], data: &mut [Self]) {
        // Two 32 x 32 matrices at once, coefficients 0..32 in the low halves, 32..64 in the
        // high ones.
        let rows: &mut [u64; 32] = (&mut planes[..32]).try_into().expect("32 rows");
        transpose_step::<16, 32>(rows, 0x0000_ffff_0000_ffff);
        transpose_step::<8, 32>(rows, 0x00ff_00ff_00ff_00ff);
        transpose_step::<4, 32>(rows, 0x0f0f_0f0f_0f0f_0f0f);
        transpose_step::<2, 32>(rows, 0x3333_3333_3333_3333);
        transpose_step::<1, 32>(rows, 0x5555_5555_5555_5555);
        for (i, d) in data.iter_mut().enumerate() {
            let row = rows[i % 32];
            *d |= if i < 32 {
                row as u32
            } else {
                (row >> 32) as u32
            };
        }
    }
    #[inline(always)]
    fn bit(k: u32) -> Self {
        1 << k
    }
    #[inline(always)]
    fn from_low(x: u64) -> Self {
        x as u32
    }
    #[inline(always)]
    fn or(self, o: Self) -> Self {
        self | o
    }
    #[inline(always)]
    fn shl(self, k: u32) -> Self {
        self << k
    }
}

impl Plane for u64 {
    const BITS: u32 = 64;
    // Measured in the wasm module on float64 smooth 3-D and rippled 2-D fields (4M values,
    // fixed_accuracy 1e-3): 80 to 144 all decode the rippled field in 86-87 ms, 224 in 101 ms;
    // the smooth one takes 33-34 ms at each.
    const TRANSPOSE_WORK: u32 = 112;
    #[inline(always)]
    fn from_planes(planes: &mut [u64; 64], data: &mut [Self]) {
        transpose_step::<32, 64>(planes, 0x0000_0000_ffff_ffff);
        transpose_step::<16, 64>(planes, 0x0000_ffff_0000_ffff);
        transpose_step::<8, 64>(planes, 0x00ff_00ff_00ff_00ff);
        transpose_step::<4, 64>(planes, 0x0f0f_0f0f_0f0f_0f0f);
        transpose_step::<2, 64>(planes, 0x3333_3333_3333_3333);
        transpose_step::<1, 64>(planes, 0x5555_5555_5555_5555);
        for (d, &row) in data.iter_mut().zip(planes.iter()) {
            *d |= row;
        }
    }
    #[inline(always)]
    fn bit(k: u32) -> Self {
        1 << k
    }
    #[inline(always)]
    fn from_low(x: u64) -> Self {
        x
    }
    #[inline(always)]
    fn or(self, o: Self) -> Self {
        self | o
    }
    #[inline(always)]
    fn shl(self, k: u32) -> Self {
        self << k
    }
}

/// zfp's integer types, what a block's coefficients are (int32 for float32, int64 for float64).
pub trait BlockInt: Copy + Default {
    /// Its coefficients as coded.
    type Coded: Plane;
    /// The bits of a reversible block's precision.
    const PBITS: u32;
    /// A negabinary coefficient as a two's-complement integer.
    fn from_negabinary(u: Self::Coded) -> Self;
    fn add(self, o: Self) -> Self;
    fn sub(self, o: Self) -> Self;
    fn half(self) -> Self;
    fn twice(self) -> Self;
    /// A block's coefficients, in the coded order of a block of `D` dimensions, to its
    /// integers: put in place and inverse-transformed.
    #[inline(always)]
    fn reorder_xform<const D: usize, const SIZE: usize>(
        coded: &[Self::Coded; SIZE],
        out: &mut [Self; SIZE],
    ) {
        reorder::<Self, D, SIZE>(coded, out);
        inv_xform(out.as_chunks_mut::<4>().0);
    }
}

/// A block's coefficients, in the coded order of a block of `D` dimensions, put in place as
/// two's-complement integers.
#[inline(always)]
fn reorder<I: BlockInt, const D: usize, const SIZE: usize>(
    coded: &[I::Coded; SIZE],
    out: &mut [I; SIZE],
) {
    for (&u, &to) in coded.iter().zip(perm(D)) {
        // The tables hold indices below SIZE: the mask only spares a bounds check.
        out[usize::from(to) & (SIZE - 1)] = I::from_negabinary(u);
    }
}

/// zfp's two block integer types, with their coded (negabinary) widths.
macro_rules! block_int {
    ($($int:ident, $coded:ty, $mask:expr, $pbits:expr);*) => {$(
        impl BlockInt for $int {
            type Coded = $coded;
            const PBITS: u32 = $pbits;
            block_int!(@xform $int);
            #[inline(always)]
            fn from_negabinary(u: $coded) -> Self {
                ((u ^ $mask).wrapping_sub($mask)) as $int
            }
            #[inline(always)]
            fn add(self, o: Self) -> Self {
                self.wrapping_add(o)
            }
            #[inline(always)]
            fn sub(self, o: Self) -> Self {
                self.wrapping_sub(o)
            }
            #[inline(always)]
            fn half(self) -> Self {
                self >> 1
            }
            #[inline(always)]
            fn twice(self) -> Self {
                self.wrapping_shl(1)
            }
        }

        /// Integer fields: a block's values are its integers.
        impl Decodable for $int {
            type Int = $int;
            const EBITS: u32 = 0;
            const EBIAS: i32 = 0;
            #[inline(always)]
            fn from_block(i: $int, _: $int) -> $int {
                i
            }
            fn scale(_: i32) -> $int {
                1
            }
            #[inline(always)]
            fn reinterpret(i: $int) -> $int {
                i
            }
        }
    )*};
    (@xform i32) => {
        #[cfg(target_arch = "wasm32")]
        #[inline(always)]
        fn reorder_xform<const D: usize, const SIZE: usize>(
            coded: &[u32; SIZE],
            out: &mut [i32; SIZE],
        ) {
            let rows = out.as_chunks_mut::<4>().0;
            match D {
                2 => {
                    // Put in place one value at a time: for 16 values, cheaper than gathering.
                    let mut block = [0i32; SIZE];
                    reorder::<Self, D, SIZE>(coded, &mut block);
                    let v = std::array::from_fn(|r| {
                        simd::vector(block[4 * r..4 * r + 4].try_into().expect("four values"))
                    });
                    simd::inv_xform::<4>(v, rows.try_into().expect("4 rows"));
                }
                3 => simd::reorder_xform::<SIZE, 16>(
                    coded,
                    INV_PERM_3[..].try_into().expect("64 positions"),
                    rows.try_into().expect("16 rows"),
                ),
                4 => simd::reorder_xform::<SIZE, 64>(
                    coded,
                    INV_PERM_4[..].try_into().expect("256 positions"),
                    rows.try_into().expect("64 rows"),
                ),
                _ => {
                    reorder::<Self, D, SIZE>(coded, out);
                    inv_xform(out.as_chunks_mut::<4>().0);
                }
            }
        }
    };
    (@xform i64) => {};
}
block_int!(i32, u32, 0xaaaa_aaaa, 5; i64, u64, 0xaaaa_aaaa_aaaa_aaaa, 6);

/// The steps of int32 blocks in wasm SIMD: bit planes deposited four coefficients to a vector,
/// coefficients gathered into rows, the inverse transform (four lanes of i32 are four lines)
/// and the conversion to float32.
#[cfg(target_arch = "wasm32")]
mod simd {
    use core::arch::wasm32::*;

    /// [`super::inv_lift`] on four lines at once, one per lane.
    #[inline]
    #[target_feature(enable = "simd128")]
    fn lift([mut x, mut y, mut z, mut w]: [v128; 4]) -> [v128; 4] {
        y = i32x4_add(y, i32x4_shr(w, 1));
        w = i32x4_sub(w, i32x4_shr(y, 1));
        y = i32x4_add(y, w);
        w = i32x4_sub(i32x4_shl(w, 1), y);
        z = i32x4_add(z, x);
        x = i32x4_sub(i32x4_shl(x, 1), z);
        y = i32x4_add(y, z);
        z = i32x4_sub(i32x4_shl(z, 1), y);
        w = i32x4_add(w, x);
        x = i32x4_sub(i32x4_shl(x, 1), w);
        [x, y, z, w]
    }

    /// Four rows of four i32 transposed.
    #[inline]
    #[target_feature(enable = "simd128")]
    fn transpose([a, b, c, d]: [v128; 4]) -> [v128; 4] {
        let ab_lo = i32x4_shuffle::<0, 4, 1, 5>(a, b);
        let ab_hi = i32x4_shuffle::<2, 6, 3, 7>(a, b);
        let cd_lo = i32x4_shuffle::<0, 4, 1, 5>(c, d);
        let cd_hi = i32x4_shuffle::<2, 6, 3, 7>(c, d);
        [
            i32x4_shuffle::<0, 1, 4, 5>(ab_lo, cd_lo),
            i32x4_shuffle::<2, 3, 6, 7>(ab_lo, cd_lo),
            i32x4_shuffle::<0, 1, 4, 5>(ab_hi, cd_hi),
            i32x4_shuffle::<2, 3, 6, 7>(ab_hi, cd_hi),
        ]
    }

    /// Four float32 values from four of a block's integers and its scale, each `i as f32 *
    /// scale` (the conversion rounds to nearest, as Rust's `as` does).
    #[inline]
    #[target_feature(enable = "simd128")]
    pub fn row(i: [i32; 4], scale: f32) -> [f32; 4] {
        let v = f32x4_mul(
            f32x4_convert_i32x4(i32x4(i[0], i[1], i[2], i[3])),
            f32x4_splat(scale),
        );
        [
            f32x4_extract_lane::<0>(v),
            f32x4_extract_lane::<1>(v),
            f32x4_extract_lane::<2>(v),
            f32x4_extract_lane::<3>(v),
        ]
    }

    /// The coefficient bits each lane of a group of four tests, for the first four groups.
    const NIBBLES: [v128; 4] = [
        u32x4(1, 2, 4, 8),
        u32x4(1 << 4, 2 << 4, 4 << 4, 8 << 4),
        u32x4(1 << 8, 2 << 8, 4 << 8, 8 << 8),
        u32x4(1 << 12, 2 << 12, 4 << 12, 8 << 12),
    ];

    /// [`super::Plane::deposit`] for blocks whose significant coefficients are at most the
    /// first 16 (`n`): each row's bits four coefficients at a time, a lane testing its own
    /// bit, as many groups of four for every row as the block needs, their sums held in
    /// registers.
    #[inline]
    #[target_feature(enable = "simd128")]
    pub fn deposit<const SIZE: usize>(
        planes: &[u64; 64],
        ks: core::ops::Range<u32>,
        n: u32,
        data: &mut [u32; SIZE],
    ) {
        match n.div_ceil(4) {
            0 => {}
            1 => deposit_groups::<SIZE, 1>(planes, ks, data),
            2 => deposit_groups::<SIZE, 2>(planes, ks, data),
            3 => deposit_groups::<SIZE, 3>(planes, ks, data),
            _ => deposit_groups::<SIZE, 4>(planes, ks, data),
        }
    }

    /// [`deposit`] for the first `G` groups of four coefficients (`G` at most 4).
    #[inline]
    #[target_feature(enable = "simd128")]
    fn deposit_groups<const SIZE: usize, const G: usize>(
        planes: &[u64; 64],
        ks: core::ops::Range<u32>,
        data: &mut [u32; SIZE],
    ) {
        let mut acc = [u32x4_splat(0); G];
        for k in ks {
            let x = planes[k as usize];
            let bit = u32x4_splat(1 << k);
            // The row's low 32 bits in every lane; a lane whose own bit is set gains `bit`.
            let low = u32x4_splat(x as u32);
            for (a, m) in acc.iter_mut().zip(NIBBLES) {
                *a = v128_or(*a, v128_and(i32x4_eq(v128_and(low, m), m), bit));
            }
        }
        for (row, a) in data.as_chunks_mut::<4>().0.iter_mut().zip(acc) {
            *row = [
                u32x4_extract_lane::<0>(a),
                u32x4_extract_lane::<1>(a),
                u32x4_extract_lane::<2>(a),
                u32x4_extract_lane::<3>(a),
            ];
        }
    }

    /// A vector of four int32 values.
    #[inline]
    #[target_feature(enable = "simd128")]
    pub fn vector(r: [i32; 4]) -> v128 {
        i32x4(r[0], r[1], r[2], r[3])
    }

    /// One pass of the inverse transform over a block's rows of four values (`ROWS` of them):
    /// along the dimension whose neighbours are `S` rows apart, four lines at a time.
    #[inline]
    #[target_feature(enable = "simd128")]
    fn pass<const S: usize, const ROWS: usize>(v: &mut [v128; ROWS]) {
        for line in 0..ROWS / 4 {
            let at = (line / S) * 4 * S + line % S;
            let [x, y, z, w] = lift([v[at], v[at + S], v[at + 2 * S], v[at + 3 * S]]);
            v[at] = x;
            v[at + S] = y;
            v[at + 2 * S] = z;
            v[at + 3 * S] = w;
        }
    }

    /// [`super::BlockInt::reorder_xform`] for int32 blocks of 3 and 4 dimensions (`SIZE` 64
    /// or 256 coefficients; `ROWS` a quarter of it, rows of four values along x): each row
    /// gathered from the coded coefficients (`inv` the inverse of the coded order) and turned
    /// from negabinary, four lanes at once, then inverse-transformed.
    #[inline]
    #[target_feature(enable = "simd128")]
    pub fn reorder_xform<const SIZE: usize, const ROWS: usize>(
        coded: &[u32; SIZE],
        inv: &[u8; SIZE],
        rows: &mut [[i32; 4]; ROWS],
    ) {
        let mask = u32x4_splat(0xaaaa_aaaa);
        let v: [v128; ROWS] = std::array::from_fn(|r| {
            let at = |j: usize| coded[usize::from(inv[4 * r + j]) % SIZE];
            let u = u32x4(at(0), at(1), at(2), at(3));
            i32x4_sub(v128_xor(u, mask), mask)
        });
        inv_xform(v, rows);
    }

    /// [`super::inv_xform`] for int32 blocks of 2 to 4 dimensions, from their rows (`v`) to
    /// `rows`: the passes along the dimensions after x lift four lines per vector; along x,
    /// each four rows are transposed, lifted and transposed back.
    #[inline]
    #[target_feature(enable = "simd128")]
    pub fn inv_xform<const ROWS: usize>(mut v: [v128; ROWS], rows: &mut [[i32; 4]; ROWS]) {
        if ROWS == 64 {
            pass::<16, ROWS>(&mut v);
        }
        if ROWS >= 16 {
            pass::<4, ROWS>(&mut v);
        }
        pass::<1, ROWS>(&mut v);
        for at in (0..ROWS).step_by(4) {
            let columns = transpose([v[at], v[at + 1], v[at + 2], v[at + 3]]);
            let [a, b, c, d] = transpose(lift(columns));
            (v[at], v[at + 1], v[at + 2], v[at + 3]) = (a, b, c, d);
        }
        for (row, x) in rows.iter_mut().zip(v) {
            *row = [
                i32x4_extract_lane::<0>(x),
                i32x4_extract_lane::<1>(x),
                i32x4_extract_lane::<2>(x),
                i32x4_extract_lane::<3>(x),
            ];
        }
    }
}

/// The inverse of zfp's lifting step, on four lines at once: lane `l` of `x`, `y`, `z`, `w`
/// is line `l`'s four values, in order. Written lane by lane so that it becomes vector code.
#[inline(always)]
fn inv_lift<I: BlockInt>(v: [[I; 4]; 4]) -> [[I; 4]; 4] {
    let [mut x, mut y, mut z, mut w] = v;
    for l in 0..4 {
        y[l] = y[l].add(w[l].half());
        w[l] = w[l].sub(y[l].half());
        y[l] = y[l].add(w[l]);
        w[l] = w[l].twice().sub(y[l]);
        z[l] = z[l].add(x[l]);
        x[l] = x[l].twice().sub(z[l]);
        y[l] = y[l].add(z[l]);
        z[l] = z[l].twice().sub(y[l]);
        w[l] = w[l].add(x[l]);
        x[l] = x[l].twice().sub(w[l]);
    }
    [x, y, z, w]
}

/// A 4 x 4 matrix transposed.
#[inline(always)]
fn transpose4<I: Copy>(m: [[I; 4]; 4]) -> [[I; 4]; 4] {
    std::array::from_fn(|j| std::array::from_fn(|i| m[i][j]))
}

/// The inverse transform of a block of 4^d values held as rows of four (x), along the last
/// dimension first, x last. Along a dimension other than x, each line's values are four rows
/// apart, so four lines are lifted at once, one per lane; along x, four rows at a time are
/// transposed, lifted and transposed back.
#[inline(always)]
fn inv_xform<I: BlockInt>(rows: &mut [[I; 4]]) {
    transform(rows, inv_lift);
}

/// The inverse of zfp's reversible lifting step (its lossless mode), on four lines at once as
/// [`inv_lift`].
#[inline(always)]
fn rev_inv_lift<I: BlockInt>(v: [[I; 4]; 4]) -> [[I; 4]; 4] {
    let [x, mut y, mut z, mut w] = v;
    for l in 0..4 {
        w[l] = w[l].add(z[l]);
        z[l] = z[l].add(y[l]);
        w[l] = w[l].add(z[l]);
        y[l] = y[l].add(x[l]);
        z[l] = z[l].add(y[l]);
        w[l] = w[l].add(z[l]);
    }
    [x, y, z, w]
}

/// A block's transform by `lift`, along the last dimension first, x last (see [`inv_xform`]).
#[inline(always)]
fn transform<I: BlockInt>(rows: &mut [[I; 4]], lift: impl Fn([[I; 4]; 4]) -> [[I; 4]; 4]) {
    let count = rows.len();
    // The stride, in rows, of the dimension lifted: from the last one's down to y's.
    let mut stride = count / 4;
    while stride >= 1 {
        for line in 0..count / 4 {
            let at = (line / stride) * 4 * stride + line % stride;
            let [x, y, z, w] = lift([
                rows[at],
                rows[at + stride],
                rows[at + 2 * stride],
                rows[at + 3 * stride],
            ]);
            rows[at] = x;
            rows[at + stride] = y;
            rows[at + 2 * stride] = z;
            rows[at + 3 * stride] = w;
        }
        stride /= 4;
    }
    if count == 1 {
        // One line along x: lane 0 of a lift.
        let r = rows[0];
        let [x, y, z, w] = lift(std::array::from_fn(|i| [r[i]; 4]));
        rows[0] = [x[0], y[0], z[0], w[0]];
        return;
    }
    for group in 0..count / 4 {
        let at = 4 * group;
        let columns = transpose4([rows[at], rows[at + 1], rows[at + 2], rows[at + 3]]);
        let [a, b, c, d] = transpose4(lift(columns));
        rows[at] = a;
        rows[at + 1] = b;
        rows[at + 2] = c;
        rows[at + 3] = d;
    }
}

/// One block's integers: coefficients decoded (`budget`: zfp's minbits, maxbits and maxprec),
/// reordered, then inverse-transformed; the stream's position when it needed bits past its end.
/// In zfp's reversible (lossless) mode, the block's precision comes first (`PBITS` bits, less
/// one; its maxprec), counted in its bits, and the transform is the reversible one's inverse.
/// Not inlined: the float and integer fields of one block integer type share it.
#[inline(never)]
#[cfg_attr(target_arch = "wasm32", target_feature(enable = "simd128"))]
fn decode_ints<I: BlockInt, const D: usize, const SIZE: usize>(
    r: &mut Reader,
    limit: u64,
    budget: (u32, u32, u32),
    reversible: bool,
    out: &mut [I; SIZE],
    planes: &mut [u64; 64],
) -> std::result::Result<(), u64> {
    let (minbits, maxbits, maxprec) = if reversible {
        let precision = r.bits(I::PBITS) as u32 + 1;
        let (minbits, maxbits, _) = budget;
        (
            minbits.saturating_sub(I::PBITS),
            maxbits.saturating_sub(I::PBITS),
            precision,
        )
    } else {
        budget
    };
    let mut coded = [I::Coded::default(); SIZE];
    let bits = decode_planes(r, maxbits, maxprec, &mut coded, planes);
    if r.position() > limit {
        return Err(r.position());
    }
    if bits < minbits {
        r.skip(minbits - bits);
    }
    if reversible {
        reorder::<I, D, SIZE>(&coded, out);
        transform(out.as_chunks_mut::<4>().0, rev_inv_lift);
    } else {
        I::reorder_xform::<D, SIZE>(&coded, out);
    }
    Ok(())
}

/// A type zfp decodes: the two float types (with a common exponent per block) and the two
/// integer types (coefficients alone).
pub trait Decodable: Copy + Default {
    type Int: BlockInt;
    /// Exponent bits (floats; 0 for integers) and their bias.
    const EBITS: u32;
    const EBIAS: i32;
    /// The block's values from its integers and exponent `emax` (floats).
    fn from_block(i: Self::Int, scale: Self) -> Self;
    /// 2^(emax - (BITS - 2)), as zfp computes it: 0 where it underflows.
    fn scale(emax: i32) -> Self;
    /// Four values from four of a block's integers.
    #[inline(always)]
    fn row(ints: [Self::Int; 4], scale: Self) -> [Self; 4] {
        ints.map(|i| Self::from_block(i, scale))
    }
    /// A reversible float block's value whose bits its integer holds: two's complement for
    /// the float's sign and magnitude.
    fn reinterpret(i: Self::Int) -> Self;
}

/// zfp's two float types: exponent bits and bias, the block integer, and the scale
/// 2^(emax - (int bits - 2)) built from its bits (normal, subnormal, or 0 below).
macro_rules! block_float {
    ($($float:ident, $int:ty, $bits:ty, $ebits:expr, $ebias:expr, $shift:expr, $mantissa:expr);*) => {$(
        impl Decodable for $float {
            type Int = $int;
            block_float!(@row $float);
            const EBITS: u32 = $ebits;
            const EBIAS: i32 = $ebias;
            #[inline(always)]
            fn from_block(i: $int, scale: $float) -> $float {
                i as $float * scale
            }
            #[inline(always)]
            fn reinterpret(i: $int) -> $float {
                let magnitude = <$bits>::MAX >> 1;
                <$float>::from_bits(if i < 0 { i as $bits ^ magnitude } else { i as $bits })
            }
            fn scale(emax: i32) -> $float {
                let e = emax - $shift;
                if e >= 1 - $ebias {
                    <$float>::from_bits(((e + $ebias) as $bits) << $mantissa)
                } else if e >= 1 - $ebias - $mantissa {
                    <$float>::from_bits(1 << (e + $ebias - 1 + $mantissa))
                } else {
                    0.0
                }
            }
        }
    )*};
    (@row f32) => {
        #[cfg(target_arch = "wasm32")]
        #[inline(always)]
        fn row(ints: [i32; 4], scale: f32) -> [f32; 4] {
            simd::row(ints, scale)
        }
    };
    (@row f64) => {};
}
block_float!(f32, i32, u32, 8, 127, 30, 23; f64, i64, u64, 11, 1023, 62, 52);

/// The bit planes a float block codes: zfp's `precision`, from its exponent and the parameters.
fn float_precision(emax: i32, p: &Params, dims: usize) -> u32 {
    let planes = i64::from(emax) - i64::from(p.minexp) + 2 * (dims as i64 + 1);
    (p.maxprec as i64).min(planes.max(0)) as u32
}

/// The smallest `minexp` zfp reads as lossy: below it, a stream is reversible (lossless).
const MIN_EXP: i32 = -1074;

/// One block of `T`: its integers into `ints`, inverse-transformed; returns how they become
/// values: `Some(scale)` (integers 1, and a block of zeros all 0 with scale 0), or `None` for a
/// reversible float block whose integers are its values' bits.
#[inline(always)]
fn decode_block<T: Decodable, const D: usize, const SIZE: usize>(
    r: &mut Reader,
    limit: u64,
    p: &Params,
    ints: &mut [T::Int; SIZE],
    planes: &mut [u64; 64],
) -> std::result::Result<Option<T>, u64> {
    let reversible = p.minexp < MIN_EXP;
    if T::EBITS == 0 {
        let budget = (p.minbits, p.maxbits, p.maxprec);
        decode_ints::<T::Int, D, SIZE>(r, limit, budget, reversible, ints, planes)?;
        return Ok(Some(T::scale(0)));
    }
    if r.bit() == 0 {
        if r.position() > limit {
            return Err(r.position());
        }
        *ints = [T::Int::default(); SIZE];
        if p.minbits > 1 {
            r.skip(p.minbits - 1);
        }
        return Ok(Some(T::default()));
    }
    // Reversible blocks: a second bit, 1 where the integers are the values' bits, 0 where a
    // common exponent follows.
    let bits_of_values = reversible && r.bit() != 0;
    let (header, emax) = if bits_of_values {
        (2, 0)
    } else {
        let emax = r.bits(T::EBITS) as i32 - T::EBIAS;
        (1 + u32::from(reversible) + T::EBITS, emax)
    };
    // What is left of the budgets after the header (none when the header takes more).
    let minbits = p.minbits.saturating_sub(header);
    let maxbits = p.maxbits.saturating_sub(header);
    // A reversible block's precision is in its own bits.
    let maxprec = if reversible {
        0
    } else {
        float_precision(emax, p, D)
    };
    decode_ints::<T::Int, D, SIZE>(
        r,
        limit,
        (minbits, maxbits, maxprec),
        reversible,
        ints,
        planes,
    )?;
    if bits_of_values {
        return Ok(None);
    }
    Ok(Some(T::scale(emax)))
}

/// Decodes a headerless zfp stream (`params` of any mode; a `minexp` below -1074 is
/// reversible) of the field `dims` (nx first, 1 to 4 sizes) into `out`, x fastest. A stream that ends before the field's last
/// block has been read is CHUNK_LENGTH.
pub fn decode<T: Decodable>(
    bytes: &[u8],
    params: &Params,
    dims: &[usize],
    out: &mut [T],
) -> Result<()> {
    let expected: usize = dims.iter().product();
    if out.len() != expected || dims.is_empty() || dims.len() > 4 {
        return Err(Error::InvalidMetadata {
            message: format!("zfp field {dims:?} does not hold {} values", out.len()),
        });
    }
    let mut n = [1usize; 4];
    n[..dims.len()].copy_from_slice(dims);
    let decoded = match dims.len() {
        1 => decode_field::<T, 1, 4>(bytes, params, n, out),
        2 => decode_field::<T, 2, 16>(bytes, params, n, out),
        3 => decode_field::<T, 3, 64>(bytes, params, n, out),
        _ => decode_field::<T, 4, 256>(bytes, params, n, out),
    };
    decoded.map_err(|position| Error::ChunkLength {
        what: "zfp stream bytes",
        expected: usize::try_from(position.div_ceil(8)).unwrap_or(usize::MAX),
        actual: bytes.len(),
    })
}

/// The part of a block inside the field, a row of `cx` values at a time (`at`: where the block
/// starts in `out`, the field's strides, and the part's extent `[cx, cy, cz, cw]`), each
/// value from its index in the block.
#[inline(always)]
fn place<T>(
    out: &mut [T],
    (base, stride, [cx, cy, cz, cw]): (usize, [usize; 4], [usize; 4]),
    value: impl Fn(usize) -> T,
) {
    for w in 0..cw {
        for z in 0..cz {
            for y in 0..cy {
                let from = 4 * y + 16 * z + 64 * w;
                let to = base + y * stride[1] + z * stride[2] + w * stride[3];
                for (x, o) in out[to..to + cx].iter_mut().enumerate() {
                    *o = value(from + x);
                }
            }
        }
    }
}

/// Every block of a field of `D` dimensions (sizes `n`, x first, 1 past the `D`th) in zfp's
/// order (x blocks fastest), each written to its place; the blocks at the field's far edges
/// only in part.
#[cfg_attr(target_arch = "wasm32", target_feature(enable = "simd128"))]
fn decode_field<T: Decodable, const D: usize, const SIZE: usize>(
    bytes: &[u8],
    p: &Params,
    n: [usize; 4],
    out: &mut [T],
) -> std::result::Result<(), u64> {
    // The reader is this function's own, so that its state can stay in locals.
    let mut reader = Reader::new(bytes);
    let r = &mut reader;
    let limit = bytes.len() as u64 * 8;
    let stride = [1, n[0], n[0] * n[1], n[0] * n[1] * n[2]];
    let mut ints = [T::Int::default(); SIZE];
    // Bit planes' rows, reused from block to block (only the rows a block decodes are read).
    let mut planes = [0u64; 64];
    // A block's extent in each dimension (1 past the field's).
    let side = |d: usize| if d < D { 4 } else { 1 };
    for bw in (0..n[3]).step_by(4) {
        for bz in (0..n[2]).step_by(4) {
            for by in (0..n[1]).step_by(4) {
                for bx in (0..n[0]).step_by(4) {
                    let scale = decode_block::<T, D, SIZE>(r, limit, p, &mut ints, &mut planes)?;
                    if r.overread {
                        return Err(r.position());
                    }
                    let base = bx + by * stride[1] + bz * stride[2] + bw * stride[3];
                    let cx = (n[0] - bx).min(4);
                    let cy = (n[1] - by).min(side(1));
                    let cz = (n[2] - bz).min(side(2));
                    let cw = (n[3] - bw).min(side(3));
                    let whole = cx == 4 && cy == side(1) && cz == side(2) && cw == side(3);
                    let part = (base, stride, [cx, cy, cz, cw]);
                    match scale {
                        Some(scale) if whole && D <= 3 => {
                            // A whole block of up to 3 dimensions: rows of four, with
                            // constant bounds.
                            for w in 0..side(3) {
                                for z in 0..side(2) {
                                    for y in 0..side(1) {
                                        let from = 4 * y + 16 * z + 64 * w;
                                        let to =
                                            base + y * stride[1] + z * stride[2] + w * stride[3];
                                        let row: &mut [T; 4] =
                                            (&mut out[to..to + 4]).try_into().expect("four values");
                                        let i = [
                                            ints[from],
                                            ints[from + 1],
                                            ints[from + 2],
                                            ints[from + 3],
                                        ];
                                        *row = T::row(i, scale);
                                    }
                                }
                            }
                        }
                        Some(scale) => place(out, part, |i| T::from_block(ints[i], scale)),
                        None => place(out, part, |i| T::reinterpret(ints[i])),
                    }
                }
            }
        }
    }
    Ok(())
}
