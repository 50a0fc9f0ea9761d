//! zfp decoding for the modes a reader meets: fixed rate, fixed precision, fixed accuracy and
//! expert parameters, for float32, float64, int32 and int64 fields of 1 to 4 dimensions, written
//! for wasm from zfp's description of its format (Lindstrom, "Fixed-Rate Compressed
//! Floating-Point Arrays", 2014, and zfp's documentation of its algorithm): each 4^d block is a
//! common exponent (floats), its integer coefficients coded one bit plane at a time with group
//! tests, in an order of increasing sequency, then the inverse of zfp's decorrelating lifting
//! transform along each dimension. Reversible mode stays with zfp-rs, which is also the
//! reference these functions are tested against (tests/zfp_kernel.rs).
//!
//! A stream that ends before the field does is an error (CHUNK_LENGTH): where zfp-rs and the C
//! library find it (a block's padding that reaches a word past the stream's end), and also, on
//! purpose, where a block needs bits past the stream's last byte: zfp reads whole 64-bit words,
//! so a stream cut inside its last word there decodes the missing bits as zeros.

use crate::error::{Error, Result};

/// zfp's codec parameters (its "expert mode"): every mode but reversible is a setting of them.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Params {
    pub minbits: u32,
    pub maxbits: u32,
    pub maxprec: u32,
    pub minexp: i32,
}

/// Reads a zfp stream a bit at a time, least significant bit of each little-endian 64-bit word
/// first, as zfp writes it; bytes past the stream's end read as zeros (the caller checks the
/// position against the stream's length).
struct Reader<'a> {
    bytes: &'a [u8],
    /// Bits not yet read from the current word, lowest first.
    buffer: u64,
    /// How many bits `buffer` holds.
    held: u32,
    /// The next word to load.
    next: usize,
    /// Whether a seek has loaded a word past the stream's (zero-padded) last word, where zfp
    /// reads past the end of its buffer.
    overread: bool,
}

impl<'a> Reader<'a> {
    fn new(bytes: &'a [u8]) -> Self {
        Self {
            bytes,
            buffer: 0,
            held: 0,
            next: 0,
            overread: false,
        }
    }

    #[inline(always)]
    fn word(&self, index: usize) -> u64 {
        let start = index.saturating_mul(8);
        match self.bytes.get(start..start.saturating_add(8)) {
            Some(w) => u64::from_le_bytes(w.try_into().expect("eight bytes")),
            None => {
                let mut w = [0u8; 8];
                if let Some(tail) = self.bytes.get(start..) {
                    w[..tail.len()].copy_from_slice(tail);
                }
                u64::from_le_bytes(w)
            }
        }
    }

    /// The position of the next bit to read.
    #[inline(always)]
    fn position(&self) -> u64 {
        self.next as u64 * 64 - u64::from(self.held)
    }

    #[inline(always)]
    fn bit(&mut self) -> u64 {
        if self.held == 0 {
            self.buffer = self.word(self.next);
            self.next += 1;
            self.held = 64;
        }
        let bit = self.buffer & 1;
        self.buffer >>= 1;
        self.held -= 1;
        bit
    }

    /// The next `n` bits (0 to 64), the first read lowest.
    #[inline(always)]
    fn bits(&mut self, n: u32) -> u64 {
        if n == 0 {
            return 0;
        }
        let mut value = self.buffer;
        if self.held >= n {
            self.buffer = if n == 64 { 0 } else { self.buffer >> n };
            self.held -= n;
        } else {
            let w = self.word(self.next);
            self.next += 1;
            // held < n <= 64, so held < 64.
            value |= w << self.held;
            let used = n - self.held;
            self.buffer = if used == 64 { 0 } else { w >> used };
            self.held = 64 - used;
        }
        if n == 64 {
            value
        } else {
            value & ((1u64 << n) - 1)
        }
    }

    /// Reads up to `limit` bits, stopping after the first 1: returns how many 0s came before it
    /// (`limit` when there was no 1 among them) and the bits read.
    #[inline(always)]
    fn zeros_then_one(&mut self, limit: u32) -> (u32, u32) {
        let mut zeros = 0;
        loop {
            if self.held == 0 {
                self.buffer = self.word(self.next);
                self.next += 1;
                self.held = 64;
            }
            let left = limit - zeros;
            // 0s before the next 1 among the bits held (all of them when none is a 1).
            let run = self.buffer.trailing_zeros().min(self.held);
            if run < left && run < self.held {
                // The 1 is read too.
                self.consume(run + 1);
                return (zeros + run, zeros + run + 1);
            }
            if left <= self.held {
                self.consume(left);
                return (limit, limit);
            }
            zeros += self.held;
            self.held = 0;
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
            if self.bit() == 0 {
                break;
            }
            let (zeros, read) = self.zeros_then_one((*bits).min(size - 1 - *n));
            *bits -= read;
            *n += zeros;
            significant(*n);
            *n += 1;
        }
    }

    #[inline(always)]
    fn consume(&mut self, n: u32) {
        self.buffer = if n >= 64 { 0 } else { self.buffer >> n };
        self.held -= n;
    }

    fn seek(&mut self, position: u64) {
        self.next = usize::try_from(position / 64).unwrap_or(usize::MAX / 8);
        let within = (position % 64) as u32;
        if within == 0 {
            self.held = 0;
            self.buffer = 0;
        } else {
            self.overread |= self.next >= self.bytes.len().div_ceil(8);
            self.buffer = self.word(self.next) >> within;
            self.next += 1;
            self.held = 64 - within;
        }
    }

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

fn perm(dims: usize) -> &'static [u8] {
    match dims {
        1 => &PERM_1,
        2 => &PERM_2,
        3 => &PERM_3,
        _ => &PERM_4,
    }
}

/// Decodes the bit planes of one block's `size` coefficients (negabinary, `intprec` bits) with
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
    *data = [U::default(); SIZE];
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
            let m = n.min(bits);
            bits -= m;
            let mut x = r.bits(m);
            r.group_tests(&mut bits, &mut n, size, |i| x |= 1u64 << i);
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
        if work < U::TRANSPOSE_WORK {
            for kk in k..top {
                let x = planes[kk as usize];
                let len = 64 - x.leading_zeros() as usize;
                for (i, d) in data.iter_mut().enumerate().take(len) {
                    *d = d.or(U::from_low((x >> i) & 1).shl(kk));
                }
            }
        } else {
            planes[..k as usize].fill(0);
            U::from_planes(planes, data);
        }
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
    fn bit(k: u32) -> Self;
    fn from_low(x: u64) -> Self;
    fn or(self, o: Self) -> Self;
    fn shl(self, k: u32) -> Self;
}

impl Plane for u32 {
    const BITS: u32 = 32;
    const TRANSPOSE_WORK: u32 = 96;
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
    const TRANSPOSE_WORK: u32 = 224;
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
    /// A negabinary coefficient as a two's-complement integer.
    fn from_negabinary(u: Self::Coded) -> Self;
    fn add(self, o: Self) -> Self;
    fn sub(self, o: Self) -> Self;
    fn half(self) -> Self;
    fn twice(self) -> Self;
}

/// zfp's two block integer types, with their coded (negabinary) widths.
macro_rules! block_int {
    ($($int:ty, $coded:ty, $mask:expr);*) => {$(
        impl BlockInt for $int {
            type Coded = $coded;
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
        }
    )*};
}
block_int!(i32, u32, 0xaaaa_aaaa; i64, u64, 0xaaaa_aaaa_aaaa_aaaa);

/// The inverse of zfp's lifting step on four values `stride` apart from `at`.
#[inline(always)]
fn inv_lift<I: BlockInt>(p: &mut [I], at: usize, stride: usize) {
    let mut x = p[at];
    let mut y = p[at + stride];
    let mut z = p[at + 2 * stride];
    let mut w = p[at + 3 * stride];
    y = y.add(w.half());
    w = w.sub(y.half());
    y = y.add(w);
    w = w.twice().sub(y);
    z = z.add(x);
    x = x.twice().sub(z);
    y = y.add(z);
    z = z.twice().sub(y);
    w = w.add(x);
    x = x.twice().sub(w);
    p[at] = x;
    p[at + stride] = y;
    p[at + 2 * stride] = z;
    p[at + 3 * stride] = w;
}

/// The inverse transform of a block: along the last dimension first, x last.
fn inv_xform<I: BlockInt>(p: &mut [I], dims: usize) {
    match dims {
        1 => inv_lift(p, 0, 1),
        2 => {
            for x in 0..4 {
                inv_lift(p, x, 4);
            }
            for y in 0..4 {
                inv_lift(p, 4 * y, 1);
            }
        }
        3 => {
            for i in 0..16 {
                inv_lift(p, i, 16);
            }
            for z in 0..4 {
                for x in 0..4 {
                    inv_lift(p, 16 * z + x, 4);
                }
            }
            for i in 0..16 {
                inv_lift(p, 4 * i, 1);
            }
        }
        _ => {
            for i in 0..64 {
                inv_lift(p, i, 64);
            }
            for w in 0..4 {
                for i in 0..16 {
                    inv_lift(p, 64 * w + i, 16);
                }
            }
            for wz in 0..16 {
                for x in 0..4 {
                    inv_lift(p, 16 * wz + x, 4);
                }
            }
            for i in 0..64 {
                inv_lift(p, 4 * i, 1);
            }
        }
    }
}

/// One block's integers: coefficients decoded (`budget`: zfp's minbits, maxbits and maxprec),
/// reordered, then inverse-transformed; the stream's position when it needed bits past its end.
fn decode_int_block<I: BlockInt>(
    r: &mut Reader,
    limit: u64,
    budget: (u32, u32, u32),
    dims: usize,
    out: &mut [I],
    planes: &mut [u64; 64],
) -> std::result::Result<(), u64> {
    match dims {
        1 => decode_ints_sized::<I, 4>(r, limit, budget, dims, out, planes),
        2 => decode_ints_sized::<I, 16>(r, limit, budget, dims, out, planes),
        3 => decode_ints_sized::<I, 64>(r, limit, budget, dims, out, planes),
        _ => decode_ints_sized::<I, 256>(r, limit, budget, dims, out, planes),
    }
}

/// [`decode_int_block`] for blocks of `SIZE` values.
fn decode_ints_sized<I: BlockInt, const SIZE: usize>(
    r: &mut Reader,
    limit: u64,
    (minbits, maxbits, maxprec): (u32, u32, u32),
    dims: usize,
    out: &mut [I],
    planes: &mut [u64; 64],
) -> std::result::Result<(), u64> {
    let mut coded = [I::Coded::default(); SIZE];
    let bits = decode_planes(r, maxbits, maxprec, &mut coded, planes);
    if r.position() > limit {
        return Err(r.position());
    }
    if bits < minbits {
        r.skip(minbits - bits);
    }
    for (&u, &to) in coded.iter().zip(perm(dims)) {
        out[to as usize] = I::from_negabinary(u);
    }
    inv_xform(out, dims);
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
}

/// zfp's two float types: exponent bits and bias, the block integer, and the scale
/// 2^(emax - (int bits - 2)) built from its bits (normal, subnormal, or 0 below).
macro_rules! block_float {
    ($($float:ty, $int:ty, $bits:ty, $ebits:expr, $ebias:expr, $shift:expr, $mantissa:expr);*) => {$(
        impl Decodable for $float {
            type Int = $int;
            const EBITS: u32 = $ebits;
            const EBIAS: i32 = $ebias;
            #[inline(always)]
            fn from_block(i: $int, scale: $float) -> $float {
                i as $float * scale
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
}
block_float!(f32, i32, u32, 8, 127, 30, 23; f64, i64, u64, 11, 1023, 62, 52);

/// The bit planes a float block codes: zfp's `precision`, from its exponent and the parameters.
fn float_precision(emax: i32, p: &Params, dims: usize) -> u32 {
    let planes = i64::from(emax) - i64::from(p.minexp) + 2 * (dims as i64 + 1);
    (p.maxprec as i64).min(planes.max(0)) as u32
}

/// One block of `T` into `out` (4^dims values, x fastest).
#[inline(always)]
fn decode_block<T: Decodable>(
    r: &mut Reader,
    limit: u64,
    p: &Params,
    dims: usize,
    ints: &mut [T::Int],
    out: &mut [T],
    planes: &mut [u64; 64],
) -> std::result::Result<(), u64> {
    if T::EBITS == 0 {
        let budget = (p.minbits, p.maxbits, p.maxprec);
        decode_int_block(r, limit, budget, dims, ints, planes)?;
        for (o, &i) in out.iter_mut().zip(ints.iter()) {
            *o = T::from_block(i, T::scale(0));
        }
        return Ok(());
    }
    if r.bit() == 0 {
        if r.position() > limit {
            return Err(r.position());
        }
        out.fill(T::default());
        if p.minbits > 1 {
            r.skip(p.minbits - 1);
        }
        return Ok(());
    }
    let emax = r.bits(T::EBITS) as i32 - T::EBIAS;
    let maxprec = float_precision(emax, p, dims);
    let bits = 1 + T::EBITS;
    // What is left of the budgets after the header (none when the header takes more).
    let minbits = p.minbits.saturating_sub(bits);
    let maxbits = p.maxbits.saturating_sub(bits);
    decode_int_block(r, limit, (minbits, maxbits, maxprec), dims, ints, planes)?;
    let scale = T::scale(emax);
    for (o, &i) in out.iter_mut().zip(ints.iter()) {
        *o = T::from_block(i, scale);
    }
    Ok(())
}

/// Decodes a headerless zfp stream (`params` other than reversible) of the field `dims` (nx
/// first, 1 to 4 sizes) into `out`, x fastest. A stream that ends before the field's last
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
    let limit = bytes.len() as u64 * 8;
    let mut r = Reader::new(bytes);
    decode_field::<T>(&mut r, limit, params, dims, out).map_err(|position| Error::ChunkLength {
        what: "zfp stream bytes",
        expected: usize::try_from(position.div_ceil(8)).unwrap_or(usize::MAX),
        actual: bytes.len(),
    })
}

/// Every block of the field in zfp's order (x blocks fastest), each written to its place; the
/// blocks at the field's far edges only in part.
fn decode_field<T: Decodable>(
    r: &mut Reader,
    limit: u64,
    p: &Params,
    dims: &[usize],
    out: &mut [T],
) -> std::result::Result<(), u64> {
    let d = dims.len();
    let mut n = [1usize; 4];
    n[..d].copy_from_slice(dims);
    let stride = [1, n[0], n[0] * n[1], n[0] * n[1] * n[2]];
    let size = 1 << (2 * d);
    let mut ints = [T::Int::default(); 256];
    let mut block = [T::default(); 256];
    let (ints, block) = (&mut ints[..size], &mut block[..size]);
    // Bit planes' rows, reused from block to block (only the rows a block decodes are read).
    let mut planes = [0u64; 64];
    for bw in (0..n[3]).step_by(4) {
        for bz in (0..n[2]).step_by(4) {
            for by in (0..n[1]).step_by(4) {
                for bx in (0..n[0]).step_by(4) {
                    decode_block::<T>(r, limit, p, d, ints, block, &mut planes)?;
                    if r.overread {
                        return Err(r.position());
                    }
                    // The part of the block inside the field.
                    let cx = (n[0] - bx).min(4);
                    let cy = if d > 1 { (n[1] - by).min(4) } else { 1 };
                    let cz = if d > 2 { (n[2] - bz).min(4) } else { 1 };
                    let cw = if d > 3 { (n[3] - bw).min(4) } else { 1 };
                    let base = bx + by * stride[1] + bz * stride[2] + bw * stride[3];
                    for w in 0..cw {
                        for z in 0..cz {
                            for y in 0..cy {
                                let from = 4 * y + 16 * z + 64 * w;
                                let to = base + y * stride[1] + z * stride[2] + w * stride[3];
                                out[to..to + cx].copy_from_slice(&block[from..from + cx]);
                            }
                        }
                    }
                }
            }
        }
    }
    Ok(())
}
