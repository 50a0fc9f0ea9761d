//! blosc's two filters on one block, applied and undone: byte shuffle and bitshuffle.
//!
//! Byte shuffle stores a block of `n` elements of `t` bytes as `t` planes of `n` bytes, plane
//! `j` holding byte `j` of every element; the block's last `len % t` bytes (a partial element)
//! are stored as they are, after the planes.
//!
//! Bitshuffle (the bitshuffle library's layout, as c-blosc 1.x applies it) stores `8 * t` bit
//! rows of `n / 8` bytes: row `8 * j + b`, byte `i`, bit `k` (least significant first) is bit
//! `b` of byte `j` of element `8 * i + k`. c-blosc bitshuffles a block only when its element
//! count is a multiple of 8, and stores the trailing partial element as it is; a block with
//! another element count is stored unfiltered.
//!
//! (Layouts learnt from c-blosc's shuffle-generic.h and bitshuffle-generic.c; the code is this
//! package's own.) Each loop is written over whole rows and fixed-size arrays, the common type
//! sizes monomorphised, so that the hot loops carry no per-byte bounds checks.

use crate::error::{Error, Result};

/// Elements handled together by the byte unshuffle: one strip of every plane per step, so
/// that both the planes and the output are read and written sequentially.
const TILE: usize = 64;

/// Undoes byte shuffle: `src` (the shuffled block) into `dst`, of the same length.
pub(crate) fn unshuffle(typesize: usize, src: &[u8], dst: &mut [u8]) {
    debug_assert_eq!(src.len(), dst.len());
    let len = src.len().min(dst.len());
    let (src, dst) = (&src[..len], &mut dst[..len]);
    if typesize <= 1 {
        dst.copy_from_slice(src);
        return;
    }
    let n = len / typesize;
    let whole = n * typesize;
    match typesize {
        2 => unshuffle_fixed::<2>(src, dst, n),
        4 => unshuffle_fixed::<4>(src, dst, n),
        8 => unshuffle_fixed::<8>(src, dst, n),
        16 => unshuffle_fixed::<16>(src, dst, n),
        _ => unshuffle_any(typesize, src, dst, n),
    }
    dst[whole..].copy_from_slice(&src[whole..]);
}

/// numcodecs' `shuffle` codec (zarr v3 `numcodecs.shuffle`), undone: the whole buffer is one
/// block of elements of `elementsize` bytes, which must divide it (numcodecs refuses other
/// buffers); an element size of 0 or 1 leaves the bytes as they are.
pub(crate) fn numcodecs_unshuffle(elementsize: usize, input: &[u8]) -> Result<Vec<u8>> {
    check_elementsize(elementsize, input.len())?;
    let mut out = vec![0u8; input.len()];
    unshuffle(elementsize, input, &mut out);
    Ok(out)
}

/// numcodecs' `shuffle` codec: byte `j` of every element into plane `j` (blosc's byte
/// shuffle of one block, the whole buffer, with no partial element).
pub(crate) fn numcodecs_shuffle(elementsize: usize, input: &[u8]) -> Result<Vec<u8>> {
    check_elementsize(elementsize, input.len())?;
    let mut out = vec![0u8; input.len()];
    shuffle(elementsize, input, &mut out);
    Ok(out)
}

fn check_elementsize(elementsize: usize, len: usize) -> Result<()> {
    if elementsize > 1 && !len.is_multiple_of(elementsize) {
        return Err(Error::corrupt(
            "shuffle",
            format!("{len} bytes are not a whole number of {elementsize}-byte elements"),
        ));
    }
    Ok(())
}

/// Eight elements at a time: an 8-byte word from each plane (byte `j` of the eight), the
/// words transposed as bytes, give the elements in 8-byte slices (with `T < 8`, the words
/// past `T` are zero and each element is the low `T` bytes of its word).
fn unshuffle_fixed<const T: usize>(src: &[u8], dst: &mut [u8], n: usize) {
    let (elements, _) = dst[..n * T].as_chunks_mut::<T>();
    let (octets, tail) = elements.as_chunks_mut::<8>();
    let planes: [&[u8]; T] = std::array::from_fn(|j| &src[j * n..(j + 1) * n]);
    let words: [&[[u8; 8]]; T] =
        std::array::from_fn(|j| &planes[j].as_chunks::<8>().0[..octets.len()]);
    for (g, octet) in octets.iter_mut().enumerate() {
        for base in (0..T).step_by(8) {
            let width = (T - base).min(8);
            let mut columns = [0u64; 8];
            for (column, plane) in columns.iter_mut().zip(&words[base..]) {
                *column = u64::from_le_bytes(plane[g]);
            }
            let columns = transpose_bytes(columns);
            for (element, column) in octet.iter_mut().zip(columns) {
                element[base..base + width].copy_from_slice(&column.to_le_bytes()[..width]);
            }
        }
    }
    let done = octets.len() * 8;
    for (i, element) in tail.iter_mut().enumerate() {
        for (byte, plane) in element.iter_mut().zip(&planes) {
            *byte = plane[done + i];
        }
    }
}

fn unshuffle_any(typesize: usize, src: &[u8], dst: &mut [u8], n: usize) {
    for (tile, start) in dst[..n * typesize]
        .chunks_mut(TILE * typesize)
        .zip((0..).step_by(TILE))
    {
        for j in 0..typesize {
            let strip = &src[j * n + start..][..tile.len() / typesize];
            for (element, &byte) in tile.chunks_exact_mut(typesize).zip(strip) {
                element[j] = byte;
            }
        }
    }
}

/// Undoes bitshuffle as c-blosc 1.x applies it to one block of `src.len()` bytes: `src` into
/// `dst`, of the same length.
pub(crate) fn bitunshuffle(typesize: usize, src: &[u8], dst: &mut [u8]) {
    debug_assert_eq!(src.len(), dst.len());
    let len = src.len().min(dst.len());
    let (src, dst) = (&src[..len], &mut dst[..len]);
    let n = len.checked_div(typesize).unwrap_or(0);
    if !n.is_multiple_of(8) || n == 0 {
        dst.copy_from_slice(src);
        return;
    }
    let whole = n * typesize;
    match typesize {
        1 => bitunshuffle_fixed::<1>(src, dst, n),
        2 => bitunshuffle_fixed::<2>(src, dst, n),
        4 => bitunshuffle_fixed::<4>(src, dst, n),
        8 => bitunshuffle_fixed::<8>(src, dst, n),
        16 => bitunshuffle_fixed::<16>(src, dst, n),
        _ => bitunshuffle_any(typesize, src, dst, n),
    }
    dst[whole..].copy_from_slice(&src[whole..]);
}

/// Transposes the 8x8 bit matrix whose row `r` is byte `r` of `x` (bit `c` of that byte its
/// column `c`): afterwards bit `c` of byte `r` holds what bit `r` of byte `c` held. Three
/// rounds of swapping off-diagonal 1x1, 2x2 and 4x4 blocks (Hacker's Delight, 7-3).
#[inline(always)]
fn transpose_bits(mut x: u64) -> u64 {
    let t = (x ^ (x >> 7)) & 0x00aa_00aa_00aa_00aa;
    x ^= t ^ (t << 7);
    let t = (x ^ (x >> 14)) & 0x0000_cccc_0000_cccc;
    x ^= t ^ (t << 14);
    let t = (x ^ (x >> 28)) & 0x0000_0000_f0f0_f0f0;
    x ^= t ^ (t << 28);
    x
}

/// The bytes of 64 elements (8 groups of 8) from one 8-byte word of each of 8 bit rows:
/// word `b` has, at bit `8 * m + k`, bit `b` of element `8 * m + k`. Byte `k` of word `m` of
/// the result is that element's byte.
///
/// A bit's index is three 3-bit fields, (word; byte, bit) = (b; m, k), and the result needs
/// (m; k, b): three rounds exchange the word index's bits with the bit's (giving (k; m, b)),
/// then a byte transpose exchanges word and byte. Fewer operations than a byte transpose and
/// eight 8x8 bit transposes.
#[inline(always)]
fn unshuffle_run(mut w: [u64; 8]) -> [u64; 8] {
    swap_rounds(&mut w, BIT_SHIFTS, BIT_MASKS);
    transpose_bytes(w)
}

/// [`swap_rounds`]' arguments exchanging a word index's bits with a bit-in-byte index's.
const BIT_SHIFTS: [u32; 3] = [1, 2, 4];
const BIT_MASKS: [u64; 3] = [
    0x5555_5555_5555_5555,
    0x3333_3333_3333_3333,
    0x0f0f_0f0f_0f0f_0f0f,
];

/// Transposes the 8x8 byte matrix whose row `r` is word `r`: afterwards byte `c` of word `r`
/// holds what byte `r` of word `c` held. Three rounds exchanging the word index's bits with
/// the byte index's.
#[inline(always)]
fn transpose_bytes(mut w: [u64; 8]) -> [u64; 8] {
    swap_rounds(
        &mut w,
        [8, 16, 32],
        [
            0x00ff_00ff_00ff_00ff,
            0x0000_ffff_0000_ffff,
            0x0000_0000_ffff_ffff,
        ],
    );
    w
}

/// Three rounds over eight words: round `i`, for `h = 1 << i`, exchanges between words `r`
/// and `r + h` (`r` with bit `h` clear) the bits of `r + h` under `masks[i]` with the bits of
/// `r` `shifts[i]` higher. Written out in full so that the words stay in registers (as a loop
/// over `r` and `h` it was left rolled, the words in memory).
#[inline(always)]
fn swap_rounds(w: &mut [u64; 8], shifts: [u32; 3], masks: [u64; 3]) {
    #[inline(always)]
    fn swap(w: &mut [u64; 8], low: usize, high: usize, shift: u32, mask: u64) {
        let t = ((w[low] >> shift) ^ w[high]) & mask;
        w[high] ^= t;
        w[low] ^= t << shift;
    }
    let [s4, s2, s1] = [shifts[2], shifts[1], shifts[0]];
    let [m4, m2, m1] = [masks[2], masks[1], masks[0]];
    swap(w, 0, 4, s4, m4);
    swap(w, 1, 5, s4, m4);
    swap(w, 2, 6, s4, m4);
    swap(w, 3, 7, s4, m4);
    swap(w, 0, 2, s2, m2);
    swap(w, 1, 3, s2, m2);
    swap(w, 4, 6, s2, m2);
    swap(w, 5, 7, s2, m2);
    swap(w, 0, 1, s1, m1);
    swap(w, 2, 3, s1, m1);
    swap(w, 4, 5, s1, m1);
    swap(w, 6, 7, s1, m1);
}

/// The eight bytes at `at` of eight bit rows, byte `b` from row `b`, transposed: byte `k` of
/// the result is the byte the rows' bits give element `8 * at + k`.
#[inline(always)]
fn gather(rows: &[&[u8]; 8], at: usize) -> [u8; 8] {
    let x = u64::from_le_bytes(std::array::from_fn(|b| rows[b][at]));
    transpose_bits(x).to_le_bytes()
}

/// Runs of 64 elements bit-unshuffled together, for types of 2 bytes and more.
const TILE_RUNS: usize = 8;

/// Runs of 64 elements, one 8-byte word of each bit row each; then the groups of 8 left.
fn bitunshuffle_fixed<const T: usize>(src: &[u8], dst: &mut [u8], n: usize) {
    let row_len = n / 8;
    let runs = row_len / 8;
    let (elements, _) = dst[..n * T].as_chunks_mut::<T>();
    let (whole, _) = elements[..runs * 64].as_chunks_mut::<64>();
    // rows[j][b]: bit row 8j + b, as 8-byte words.
    let rows: [[&[[u8; 8]]; 8]; T] = std::array::from_fn(|j| {
        std::array::from_fn(|b| {
            let r = 8 * j + b;
            &src[r * row_len..(r + 1) * row_len].as_chunks().0[..runs]
        })
    });
    let read = |j: usize, w: usize| {
        let mut x = [0u64; 8];
        for (word, row) in x.iter_mut().zip(&rows[j]) {
            *word = u64::from_le_bytes(row[w]);
        }
        x
    };
    if T == 1 {
        // Word m of the result is elements 8m to 8m + 7.
        for (w, run) in whole.iter_mut().enumerate() {
            let (octets, _) = run.as_flattened_mut().as_chunks_mut::<8>();
            for (octet, word) in octets.iter_mut().zip(unshuffle_run(read(0, w))) {
                *octet = word.to_le_bytes();
            }
        }
    } else {
        // Every byte of the type at once, so that the elements are written 8 bytes at a time
        // rather than byte by byte: per byte j, word k's byte m is byte j of element 8m + k
        // (the bit rounds of `unshuffle_run` without its byte transpose); then per k, a byte
        // transpose across j gives element 8m + k in word m.
        //
        // Eight runs at a time, each row's 64 bytes read together: a block's 8T rows lie a
        // power of two apart, in one cache set, so that reading one word of every row per run
        // would fetch each row's cache line anew for every run.
        for (tile, first) in whole.chunks_mut(TILE_RUNS).zip((0..).step_by(TILE_RUNS)) {
            let mut bytes = [[[0u64; 8]; T]; TILE_RUNS];
            for j in 0..T {
                for (r, run_bytes) in bytes.iter_mut().enumerate().take(tile.len()) {
                    let x = &mut run_bytes[j];
                    *x = read(j, first + r);
                    swap_rounds(x, BIT_SHIFTS, BIT_MASKS);
                }
            }
            for (run, bytes) in tile.iter_mut().zip(&bytes) {
                for k in 0..8 {
                    for base in (0..T).step_by(8) {
                        let width = (T - base).min(8);
                        let mut columns = [0u64; 8];
                        for (column, x) in columns.iter_mut().zip(&bytes[base..]) {
                            *column = x[k];
                        }
                        let columns = transpose_bytes(columns);
                        for (m, column) in columns.into_iter().enumerate() {
                            run[8 * m + k][base..base + width]
                                .copy_from_slice(&column.to_le_bytes()[..width]);
                        }
                    }
                }
            }
        }
    }
    bitunshuffle_groups(T, src, dst, n, runs * 8);
}

/// Bit-unshuffles the groups of 8 elements from group `first` on, one at a time.
fn bitunshuffle_groups(typesize: usize, src: &[u8], dst: &mut [u8], n: usize, first: usize) {
    let row_len = n / 8;
    let groups = dst[..n * typesize]
        .chunks_exact_mut(8 * typesize)
        .skip(first);
    for (g, group) in groups.enumerate() {
        for j in 0..typesize {
            let rows: [&[u8]; 8] =
                std::array::from_fn(|b| &src[(8 * j + b) * row_len..(8 * j + b + 1) * row_len]);
            let bytes = gather(&rows, first + g);
            for (element, byte) in group.chunks_exact_mut(typesize).zip(bytes) {
                element[j] = byte;
            }
        }
    }
}

fn bitunshuffle_any(typesize: usize, src: &[u8], dst: &mut [u8], n: usize) {
    bitunshuffle_groups(typesize, src, dst, n, 0);
}

/// Byte shuffle (blosc's, on one block): `src` into `dst`, of the same length. Byte `j` of
/// element `i` goes to `dst[j * n + i]`, for the block's `n` whole elements; a trailing
/// partial element is copied as it is. The inverse of [`unshuffle`].
pub(crate) fn shuffle(typesize: usize, src: &[u8], dst: &mut [u8]) {
    debug_assert_eq!(src.len(), dst.len());
    let len = src.len().min(dst.len());
    let (src, dst) = (&src[..len], &mut dst[..len]);
    if typesize <= 1 {
        dst.copy_from_slice(src);
        return;
    }
    let n = len / typesize;
    let whole = n * typesize;
    match typesize {
        2 => shuffle_fixed::<2>(src, dst, n),
        4 => shuffle_fixed::<4>(src, dst, n),
        8 => shuffle_fixed::<8>(src, dst, n),
        16 => shuffle_fixed::<16>(src, dst, n),
        _ => shuffle_any(typesize, src, dst, n),
    }
    dst[whole..].copy_from_slice(&src[whole..]);
}

/// `T` mutable planes of `n` bytes each, the first `T * n` bytes of `bytes`.
fn planes_mut<const T: usize>(bytes: &mut [u8], n: usize) -> [&mut [u8]; T] {
    let mut rest = &mut bytes[..T * n];
    std::array::from_fn(|_| {
        let (plane, tail) = std::mem::take(&mut rest).split_at_mut(n);
        rest = tail;
        plane
    })
}

/// Eight elements at a time: their 8-byte slices (zero-padded past `T`) transposed as bytes
/// give, in word `j`, byte `j` of each of the eight, which goes to plane `j` whole.
fn shuffle_fixed<const T: usize>(src: &[u8], dst: &mut [u8], n: usize) {
    let (elements, _) = src[..n * T].as_chunks::<T>();
    let (octets, tail) = elements.as_chunks::<8>();
    let mut planes = planes_mut::<T>(dst, n);
    {
        let mut words: [&mut [[u8; 8]]; T] = std::array::from_fn(|_| Default::default());
        for (word, plane) in words.iter_mut().zip(planes.iter_mut()) {
            *word = &mut plane.as_chunks_mut::<8>().0[..octets.len()];
        }
        for (g, octet) in octets.iter().enumerate() {
            for base in (0..T).step_by(8) {
                let width = (T - base).min(8);
                let mut columns = [0u64; 8];
                for (column, element) in columns.iter_mut().zip(octet) {
                    let mut word = [0u8; 8];
                    word[..width].copy_from_slice(&element[base..base + width]);
                    *column = u64::from_le_bytes(word);
                }
                let columns = transpose_bytes(columns);
                for (plane, column) in words[base..base + width].iter_mut().zip(columns) {
                    plane[g] = column.to_le_bytes();
                }
            }
        }
    }
    let done = octets.len() * 8;
    for (i, element) in tail.iter().enumerate() {
        for (plane, &byte) in planes.iter_mut().zip(element) {
            plane[done + i] = byte;
        }
    }
}

fn shuffle_any(typesize: usize, src: &[u8], dst: &mut [u8], n: usize) {
    for (tile, start) in src[..n * typesize]
        .chunks(TILE * typesize)
        .zip((0..).step_by(TILE))
    {
        for j in 0..typesize {
            let strip = &mut dst[j * n + start..][..tile.len() / typesize];
            for (byte, element) in strip.iter_mut().zip(tile.chunks_exact(typesize)) {
                *byte = element[j];
            }
        }
    }
}

/// Bitshuffle as c-blosc 1.x applies it to one block of `src.len()` bytes: `src` into `dst`,
/// of the same length. Bit `b` of byte `j` of element `8 * i + k` goes to bit `k` of byte
/// `i` of bit row `8 * j + b`, when the element count is a multiple of 8 (a trailing partial
/// element copied as it is); a block with another element count is copied unfiltered. The
/// inverse of [`bitunshuffle`].
pub(crate) fn bitshuffle(typesize: usize, src: &[u8], dst: &mut [u8]) {
    debug_assert_eq!(src.len(), dst.len());
    let len = src.len().min(dst.len());
    let (src, dst) = (&src[..len], &mut dst[..len]);
    let n = len.checked_div(typesize).unwrap_or(0);
    if !n.is_multiple_of(8) || n == 0 {
        dst.copy_from_slice(src);
        return;
    }
    let whole = n * typesize;
    match typesize {
        1 => bitshuffle_fixed::<1>(src, dst, n),
        2 => bitshuffle_fixed::<2>(src, dst, n),
        4 => bitshuffle_fixed::<4>(src, dst, n),
        8 => bitshuffle_fixed::<8>(src, dst, n),
        16 => bitshuffle_fixed::<16>(src, dst, n),
        _ => bitshuffle_groups(typesize, src, dst, n, 0),
    }
    dst[whole..].copy_from_slice(&src[whole..]);
}

/// Runs of 64 elements, then the groups of 8 left. Per run and byte `j` of the type: the
/// eight words whose word `k`, byte `m`, is byte `j` of element `8 * m + k` (for each `k`, a
/// byte transpose of the 8-byte slices of elements `k`, `8 + k`, .., `56 + k`), then the bit
/// rounds (the inverse of [`unshuffle_run`]) give word `b` for bit row `8 * j + b`: the run's
/// 8 bytes of it.
fn bitshuffle_fixed<const T: usize>(src: &[u8], dst: &mut [u8], n: usize) {
    let row_len = n / 8;
    let runs = row_len / 8;
    let (elements, _) = src[..n * T].as_chunks::<T>();
    let (whole, _) = elements[..runs * 64].as_chunks::<64>();
    // For types of 4 bytes or more, eight runs at a time, each row's 64 bytes written
    // together: the 8T rows lie a power of two apart, in one cache set (as in
    // `bitunshuffle_fixed`). Fewer rows fit the cache's ways: one run at a time is faster.
    let tile_runs = if T >= 4 { TILE_RUNS } else { 1 };
    for (tile, first) in whole.chunks(tile_runs).zip((0..).step_by(tile_runs)) {
        // rows[r][j]: the words of bit rows 8j..8j + 7 for run `first + r`.
        let mut rows = [[[0u64; 8]; T]; TILE_RUNS];
        for (run, run_rows) in tile.iter().zip(rows.iter_mut()) {
            if T == 1 {
                let x: [u64; 8] = std::array::from_fn(|m| {
                    u64::from_le_bytes(std::array::from_fn(|k| run[8 * m + k][0]))
                });
                run_rows[0] = transpose_bytes(x);
            } else {
                for k in 0..8 {
                    for base in (0..T).step_by(8) {
                        let width = (T - base).min(8);
                        let mut columns = [0u64; 8];
                        for (m, column) in columns.iter_mut().enumerate() {
                            let mut word = [0u8; 8];
                            word[..width].copy_from_slice(&run[8 * m + k][base..base + width]);
                            *column = u64::from_le_bytes(word);
                        }
                        let columns = transpose_bytes(columns);
                        for (plane, column) in run_rows[base..base + width].iter_mut().zip(columns)
                        {
                            plane[k] = column;
                        }
                    }
                }
            }
            for w in run_rows.iter_mut() {
                swap_rounds(w, BIT_SHIFTS, BIT_MASKS);
            }
        }
        for j in 0..T {
            for b in 0..8 {
                let at = (8 * j + b) * row_len + 8 * first;
                let row = &mut dst[at..at + 8 * tile.len()];
                for (bytes, run_rows) in row.chunks_exact_mut(8).zip(&rows) {
                    bytes.copy_from_slice(&run_rows[j][b].to_le_bytes());
                }
            }
        }
    }
    bitshuffle_groups(T, src, dst, n, runs * 8);
}

/// Bitshuffles the groups of 8 elements from group `first` on, one at a time.
fn bitshuffle_groups(typesize: usize, src: &[u8], dst: &mut [u8], n: usize, first: usize) {
    let row_len = n / 8;
    let groups = src[..n * typesize].chunks_exact(8 * typesize).skip(first);
    for (g, group) in groups.enumerate() {
        let at = first + g;
        for j in 0..typesize {
            let mut x = [0u8; 8];
            for (byte, element) in x.iter_mut().zip(group.chunks_exact(typesize)) {
                *byte = element[j];
            }
            let rows = transpose_bits(u64::from_le_bytes(x)).to_le_bytes();
            for (b, byte) in rows.into_iter().enumerate() {
                dst[(8 * j + b) * row_len + at] = byte;
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Byte shuffle, written the plain way, to check the fast filters against.
    fn plain_shuffle(t: usize, src: &[u8]) -> Vec<u8> {
        let n = src.len() / t;
        let mut out = src.to_vec();
        for i in 0..n {
            for j in 0..t {
                out[j * n + i] = src[i * t + j];
            }
        }
        out
    }

    /// Bitshuffle as c-blosc 1.x applies it, written bit by bit from the layout above.
    fn plain_bitshuffle(t: usize, src: &[u8]) -> Vec<u8> {
        let n = src.len() / t;
        let mut out = src.to_vec();
        if !n.is_multiple_of(8) || n == 0 {
            return out;
        }
        let row_len = n / 8;
        for byte in &mut out[..n * t] {
            *byte = 0;
        }
        for e in 0..n {
            for j in 0..t {
                for b in 0..8 {
                    let bit = (src[e * t + j] >> b) & 1;
                    let (i, k) = (e / 8, e % 8);
                    out[(8 * j + b) * row_len + i] |= bit << k;
                }
            }
        }
        out
    }

    fn data(len: usize) -> Vec<u8> {
        let mut x = 0x9e37_79b9_7f4a_7c15u64;
        (0..len)
            .map(|_| {
                x ^= x << 13;
                x ^= x >> 7;
                x ^= x << 17;
                x as u8
            })
            .collect()
    }

    #[test]
    fn inverses_of_the_plain_filters() {
        for t in [1, 2, 3, 4, 5, 7, 8, 12, 16, 17, 255] {
            for len in [
                0,
                1,
                7,
                8,
                63,
                64,
                100,
                128 * t,
                128 * t + 5,
                1000,
                4096 + 3,
                8 * 72 * t,
                8 * 72 * t + t - 1,
                64 * 8 * t,
            ] {
                let plain = data(len);
                let mut out = vec![0; len];
                unshuffle(t, &plain_shuffle(t, &plain), &mut out);
                assert_eq!(out, plain, "unshuffle t={t} len={len}");
                bitunshuffle(t, &plain_bitshuffle(t, &plain), &mut out);
                assert_eq!(out, plain, "bitunshuffle t={t} len={len}");
                // The fast filters give what the plain ones do.
                shuffle(t, &plain, &mut out);
                assert_eq!(out, plain_shuffle(t, &plain), "shuffle t={t} len={len}");
                bitshuffle(t, &plain, &mut out);
                assert_eq!(
                    out,
                    plain_bitshuffle(t, &plain),
                    "bitshuffle t={t} len={len}"
                );
            }
        }
    }
}

#[cfg(test)]
mod speed {
    /// The filters' speeds on 1 MiB (`cargo test --profile release-compress --features
    /// compress --lib -- --ignored --nocapture filter_speed`).
    #[test]
    #[ignore = "a measurement"]
    fn filter_speed() {
        let src: Vec<u8> = (0..(1usize << 20))
            .map(|i| ((i * 2654435761) >> 13) as u8)
            .collect();
        let mut dst = vec![0u8; src.len()];
        for t in [1, 2, 4, 8, 16, 3] {
            for (name, f) in [
                ("shuffle", super::shuffle as fn(usize, &[u8], &mut [u8])),
                ("unshuffle", super::unshuffle),
                ("bitshuffle", super::bitshuffle),
                ("bitunshuffle", super::bitunshuffle),
            ] {
                let start = std::time::Instant::now();
                for _ in 0..20 {
                    f(t, &src, &mut dst);
                }
                let s = start.elapsed().as_secs_f64() / 20.0;
                eprintln!("t{t} {name}: {:.0} MB/s", src.len() as f64 / s / 1e6);
            }
        }
    }
}
