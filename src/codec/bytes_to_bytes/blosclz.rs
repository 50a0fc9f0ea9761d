//! blosclz, c-blosc's own LZ77 compressor (a descendant of FastLZ): the decoder of one stream.
//!
//! A stream is a run of tokens, each starting with a control byte `c`:
//! - `c < 32`: a literal, the next `c + 1` bytes copied as they are. The first token is always
//!   a literal, and only the low 5 bits of the stream's first byte count.
//! - `c >= 32`: a match, a copy of earlier output. Its length is `(c >> 5) + 2`; when
//!   `c >> 5` is 7, bytes follow that add to it, each 255 announcing another. Then one byte
//!   `d`: the copy starts `((c & 31) << 8) + d + 1` bytes back. If that byte and the low 5
//!   bits are all ones, two more bytes follow, a big-endian `m`, and the copy starts
//!   `m + 8192` bytes back instead.
//!
//! A copy may overlap its own output (a distance shorter than the length repeats the last
//! `distance` bytes). The stream ends with its last token; it must fill the output exactly.
//!
//! [`compress`] writes the streams c-blosc 1.21's blosclz (its 2.5 series) writes, byte for
//! byte: the same entropy probe deciding whether to try, the same hash table, match rules and
//! output limits (see its doc). (Format and algorithm learnt from c-blosc's blosc/blosclz.c;
//! the code is this package's own.)

/// Added to the 16-bit distance of the long form (distances up to 8192 fit the short one).
const FAR_BIAS: usize = 8192;

/// The longest literal run one control byte announces.
const MAX_COPY: usize = 32;
/// Distances up to this (biased: one less than the distance) take the short form.
const MAX_DISTANCE: usize = 8191;
/// Candidates this far back or further are not taken.
const MAX_FAR_DISTANCE: usize = 65535 + MAX_DISTANCE - 1;
/// The hash table's size (log 2) for levels 3 to 9; 1 and 2 use 12 and 13.
const HASH_LOG: u32 = 14;
/// The probe's hash table (log 2).
const PROBE_HASH_LOG: u32 = 12;
/// The least compression ratio the probe must guess for each level to go on.
const MIN_RATIO: [f64; 10] = [0.0, 2.0, 1.5, 1.2, 1.2, 1.2, 1.2, 1.15, 1.1, 1.0];

/// The entries a table for [`compress`] needs (it may be reused from call to call).
pub(crate) const TABLE_LEN: usize = 1 << HASH_LOG;

#[inline(always)]
fn read32(input: &[u8], at: usize) -> u32 {
    u32::from_le_bytes(input[at..at + 4].try_into().unwrap_or([0; 4]))
}

/// Knuth's multiplicative hash of 4 bytes (the one lz4 uses), to `log` bits.
#[inline(always)]
fn hash(seq: u32, log: u32) -> usize {
    (seq.wrapping_mul(2_654_435_761) >> (32 - log)) as usize
}

/// Where a match from `at` (compared with the bytes `distance` back) stops counting, as
/// c-blosc's match and run finders report it: one past the first differing byte, and at
/// most `bound` (the byte at `bound` is never compared). `at < bound`.
#[inline(always)]
fn match_end(input: &[u8], at: usize, distance: usize, bound: usize) -> usize {
    let here = &input[at..bound];
    let back = &input[at - distance..bound - distance];
    let (words, _) = here.as_chunks::<8>();
    let (back_words, _) = back.as_chunks::<8>();
    for (k, (a, b)) in words.iter().zip(back_words).enumerate() {
        let (a, b) = (u64::from_le_bytes(*a), u64::from_le_bytes(*b));
        if a != b {
            return at + 8 * k + ((a ^ b).trailing_zeros() / 8) as usize + 1;
        }
    }
    let done = 8 * words.len();
    match here[done..]
        .iter()
        .zip(&back[done..])
        .position(|(a, b)| a != b)
    {
        Some(k) => at + done + k + 1,
        None => bound,
    }
}

/// c-blosc's entropy probe: a guess of the compression ratio of `window` (at most 4096
/// bytes), from a cheap pass that counts what a greedy encoding (matches of at least 3
/// bytes, each cut 3 bytes short) would write.
fn probe_ratio(window: &[u8]) -> f64 {
    let limit = window.len();
    let mut table = [0u16; 1 << PROBE_HASH_LOG];
    let mut ip = 0usize;
    let mut out = 5i64;
    let mut copy = 4u32;
    if limit > 12 {
        let bound = limit - 1;
        let ip_limit = limit - 12;
        while ip < ip_limit {
            let anchor = ip;
            let seq = read32(window, ip);
            let h = hash(seq, PROBE_HASH_LOG);
            let candidate = usize::from(table[h]);
            table[h] = anchor as u16;
            let distance = anchor - candidate;
            let mut literal = distance == 0 || read32(window, candidate) != seq;
            let mut len = 0;
            if !literal {
                ip = match_end(window, anchor + 4, distance, bound) - 3;
                len = ip - anchor;
                literal = len < 3;
            }
            if literal {
                out += 1;
                ip = anchor + 1;
                copy += 1;
                if copy as usize == MAX_COPY {
                    copy = 0;
                    out += 1;
                }
                continue;
            }
            if copy == 0 {
                out -= 1;
            }
            copy = 0;
            if len >= 7 {
                out += ((len - 7) / 255) as i64 + 1;
            }
            out += 2;
            let h = hash(read32(window, ip), PROBE_HASH_LOG);
            table[h] = ip as u16;
            ip += 2;
            out += 1;
        }
    }
    ip as f64 / out as f64
}

/// Compresses `input` (one stream of a blosc block) into `out`, whose length is the most
/// that may be written (c-blosc's `maxout`), as c-blosc 1.21's `blosclz_compress` does at
/// `clevel` (1 to 9); `split`: whether the chunk splits its blocks (c-blosc's flag, also for
/// a last block that is not split). Returns the stream's length, or 0 when blosclz gives up:
/// the probe guesses too low a ratio, the input is under 16 bytes or `out` under 66, or the
/// stream would not fit `out` (c-blosc's conservative checks, one byte early for literals).
/// `table` is scratch, [`TABLE_LEN`] entries at least.
pub(crate) fn compress(
    clevel: u8,
    input: &[u8],
    out: &mut [u8],
    split: bool,
    table: &mut [u32],
) -> usize {
    let length = input.len();
    let maxout = out.len();
    let clevel = usize::from(clevel.clamp(1, 9));
    // Probe the last quarter of the input (its first 4096 bytes at most).
    let probe_len = length / 4;
    let probe_start = length - probe_len;
    let window = &input[probe_start..probe_start + probe_len.min(1 << PROBE_HASH_LOG)];
    let ratio = probe_ratio(window);
    if ratio < MIN_RATIO[clevel] {
        return 0;
    }
    // Matches are cut this many bytes short of where they stop counting, and shorter ones
    // are not taken.
    let (shift, min_len) = if !split || ratio < 4.0 {
        (3, 3)
    } else {
        (4, 4)
    };
    let log = match clevel {
        1 => HASH_LOG - 2,
        2 => HASH_LOG - 1,
        _ => HASH_LOG,
    };
    if length < 16 || maxout < 66 {
        return 0;
    }
    let table = &mut table[..1 << log];
    table.fill(0);
    let bound = length - 1;
    let ip_limit = length - 12;
    // The first token: a literal of the first 4 bytes (its count fixed when it ends).
    out[0] = (MAX_COPY - 1) as u8;
    out[1..5].copy_from_slice(&input[..4]);
    let mut op = 5;
    let mut ip = 4;
    let mut copy = 4usize;
    // c-blosc checks `op + 2 > maxout` before each literal byte (which may be followed by
    // the next run's control byte), and before each part of a match the bytes it writes.
    macro_rules! fits {
        ($n:expr) => {
            if op + $n > maxout {
                return 0;
            }
        };
    }
    while ip < ip_limit {
        let anchor = ip;
        let seq = read32(input, ip);
        let h = hash(seq, log);
        let candidate = table[h] as usize;
        table[h] = anchor as u32;
        let distance = anchor - candidate;
        let mut literal =
            distance == 0 || distance >= MAX_FAR_DISTANCE || read32(input, candidate) != seq;
        let mut len = 0;
        if !literal {
            ip = match_end(input, anchor + 4, distance, bound) - shift;
            len = ip - anchor;
            // Short matches in the far form (over 8191 bytes back) are not worth it.
            literal = len < min_len || (len <= 5 && distance > MAX_DISTANCE);
        }
        if literal {
            fits!(2);
            out[op] = input[anchor];
            op += 1;
            ip = anchor + 1;
            copy += 1;
            if copy == MAX_COPY {
                copy = 0;
                out[op] = (MAX_COPY - 1) as u8;
                op += 1;
            }
            continue;
        }
        // End the literal run before the match (or drop its unused control byte).
        if copy > 0 {
            out[op - copy - 1] = (copy - 1) as u8;
        } else {
            op -= 1;
        }
        copy = 0;
        let biased = distance - 1;
        let (far, d) = if biased < MAX_DISTANCE {
            (false, biased)
        } else {
            (true, biased - MAX_DISTANCE)
        };
        let high = if far { 31 } else { (d >> 8) as u8 };
        if len < 7 {
            fits!(if far { 4 } else { 2 });
            out[op] = ((len as u8) << 5) + high;
            op += 1;
        } else {
            fits!(1);
            out[op] = (7 << 5) + high;
            op += 1;
            let mut rest = len - 7;
            while rest >= 255 {
                fits!(1);
                out[op] = 255;
                op += 1;
                rest -= 255;
            }
            fits!(if far { 4 } else { 2 });
            out[op] = rest as u8;
            op += 1;
        }
        if far {
            out[op] = 255;
            out[op + 1..op + 3].copy_from_slice(&(d as u16).to_be_bytes());
            op += 3;
        } else {
            out[op] = (d & 255) as u8;
            op += 1;
        }
        // Hash the match's end (at level 9, the byte after too, from the same 4 bytes).
        let seq = read32(input, ip);
        table[hash(seq, log)] = ip as u32;
        ip += 1;
        if clevel == 9 {
            table[hash(seq >> 8, log)] = ip as u32;
        }
        ip += 1;
        fits!(1);
        out[op] = (MAX_COPY - 1) as u8;
        op += 1;
    }
    // The rest as literals.
    while ip <= bound {
        fits!(2);
        out[op] = input[ip];
        op += 1;
        ip += 1;
        copy += 1;
        if copy == MAX_COPY {
            copy = 0;
            out[op] = (MAX_COPY - 1) as u8;
            op += 1;
        }
    }
    if copy > 0 {
        out[op - copy - 1] = (copy - 1) as u8;
    } else {
        op -= 1;
    }
    // c-blosc's marker (the decoder reads only the low 5 bits of the first byte).
    out[0] |= 1 << 5;
    op
}

/// Decodes one blosclz stream, which must fill `out` exactly. The error says what is wrong.
pub(crate) fn decompress(input: &[u8], out: &mut [u8]) -> Result<(), &'static str> {
    const TRUNCATED: &str = "the blosclz stream is truncated";
    const TOO_LONG: &str = "the blosclz stream decodes to more bytes than its block has";
    let Some((&first, _)) = input.split_first() else {
        return Err("the blosclz stream is empty");
    };
    let mut ctrl = usize::from(first & 31);
    let mut ip = 1;
    let mut op = 0;
    loop {
        if ctrl < 32 {
            let n = ctrl + 1;
            let wide = input.get(ip..).and_then(<[u8]>::first_chunk::<32>);
            if let (Some(from), Some(to)) = (
                wide,
                out.get_mut(op..).and_then(<[u8]>::first_chunk_mut::<32>),
            ) {
                // Away from the ends, a fixed 32 bytes (the longest literal) copy faster than
                // `n`; what lies past `n` is overwritten by the tokens that follow.
                *to = *from;
            } else {
                let literal = input.get(ip..ip + n).ok_or(TRUNCATED)?;
                out.get_mut(op..op + n)
                    .ok_or(TOO_LONG)?
                    .copy_from_slice(literal);
            }
            ip += n;
            op += n;
        } else {
            let mut len = (ctrl >> 5) + 2;
            if len == 9 {
                loop {
                    let more = *input.get(ip).ok_or(TRUNCATED)?;
                    ip += 1;
                    len += usize::from(more);
                    if more != 255 {
                        break;
                    }
                }
            }
            let low = *input.get(ip).ok_or(TRUNCATED)?;
            ip += 1;
            let high = ctrl & 31;
            let distance = if low == 255 && high == 31 {
                let far = input.get(ip..ip + 2).ok_or(TRUNCATED)?;
                ip += 2;
                (usize::from(far[0]) << 8 | usize::from(far[1])) + FAR_BIAS
            } else {
                (high << 8) + usize::from(low) + 1
            };
            if distance > op {
                return Err("a blosclz match reaches before the start of its block");
            }
            if len > out.len() - op {
                return Err(TOO_LONG);
            }
            copy_match(out, op, distance, len);
            op += len;
        }
        match input.get(ip) {
            Some(&c) => {
                ctrl = usize::from(c);
                ip += 1;
            }
            None => break,
        }
    }
    if op != out.len() {
        return Err("the blosclz stream decodes to fewer bytes than its block has");
    }
    Ok(())
}

/// Copies `len` bytes to `out[op..]` from `distance` bytes back, as a byte-by-byte forward
/// copy would (so an overlapping copy repeats a pattern). The caller has checked that
/// `distance <= op` and `op + len <= out.len()`.
#[inline]
fn copy_match(out: &mut [u8], op: usize, distance: usize, len: usize) {
    let from = op - distance;
    if out.len() - op >= len + 8 {
        // Most matches are short: 8 bytes at a time, up to 7 bytes past the match, which
        // later tokens overwrite. Each 8 bytes copy from at least 8 bytes back, so from
        // bytes already written: from `distance` back, or for a shorter distance, once the
        // first 8 bytes are written one by one, from the multiple of it that is 8 to 14.
        let step = if distance >= 8 {
            distance
        } else {
            for i in 0..8 {
                out[op + i] = out[from + i];
            }
            distance * 8usize.div_ceil(distance)
        };
        let mut done = if distance >= 8 { 0 } else { 8 };
        while done < len {
            let at = op + done;
            out.copy_within(at - step..at - step + 8, at);
            done += 8;
        }
    } else if distance >= len {
        out.copy_within(from..from + len, op);
    } else if distance == 1 {
        let byte = out[from];
        out[op..op + len].fill(byte);
    } else {
        // Whole periods at a time, doubling: once `done` bytes (a multiple of `distance`)
        // are written, `out[from..op + done]` is periodic, so the next `done + distance`
        // bytes copy from `from` without overlapping their source.
        let mut done = 0;
        while done < len {
            let n = (done + distance).min(len - done);
            out.copy_within(from..from + n, op + done);
            done += n;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn literals_and_matches() {
        // A 3-byte literal "abc", a match of length 3 one byte back ("ccc"), then a match
        // of length 4 six bytes back ("abcc"), then a 1-byte literal "z".
        let stream = [2, b'a', b'b', b'c', 0x20, 0, 0x40, 5, 0, b'z'];
        let mut out = [0u8; 11];
        decompress(&stream, &mut out).unwrap();
        assert_eq!(&out, b"abccccabccz");
    }

    #[test]
    fn long_match_and_far_distance() {
        // 9000 literal bytes, then a match of the first 9 bytes from 9000 back (the long
        // form: 9000 - 8192 = 808).
        let mut stream = Vec::new();
        let mut plain = Vec::new();
        for chunk in 0..(9000 / 30) {
            stream.push(29);
            for i in 0..30 {
                let b = (chunk * 7 + i * 13) as u8;
                stream.push(b);
                plain.push(b);
            }
        }
        stream.extend_from_slice(&[
            0xe0 | 31,
            0,
            255,
            808u16.to_be_bytes()[0],
            808u16.to_be_bytes()[1],
        ]);
        plain.extend_from_within(0..9);
        let mut out = vec![0u8; plain.len()];
        decompress(&stream, &mut out).unwrap();
        assert_eq!(out, plain);
    }

    /// Random token sequences, written as the module docs describe, decode to what a plain
    /// byte-by-byte copy gives (every match distance and length path, near the output's end
    /// too).
    #[test]
    fn random_streams_match_a_plain_decoder() {
        let mut state = 0x2545_f491_4f6c_dd1du64;
        let mut next = move |n: usize| {
            state ^= state << 13;
            state ^= state >> 7;
            state ^= state << 17;
            (state % n as u64) as usize
        };
        for round in 0..3000 {
            let target = 1 + next(if round % 10 == 0 { 70_000 } else { 600 });
            let (mut stream, mut plain) = (Vec::new(), Vec::new());
            while plain.len() < target {
                let room = target - plain.len();
                if plain.is_empty() || next(3) == 0 || room < 3 {
                    let n = 1 + next(32.min(room));
                    // Only the low 5 bits of the first byte count.
                    let high = if plain.is_empty() {
                        (next(8) as u8) << 5
                    } else {
                        0
                    };
                    stream.push(high | (n - 1) as u8);
                    for _ in 0..n {
                        let b = next(if round % 2 == 0 { 4 } else { 256 }) as u8;
                        stream.push(b);
                        plain.push(b);
                    }
                    continue;
                }
                let longest = if next(4) == 0 { 1000 } else { 20 };
                let len = 3 + next((room - 2).min(longest));
                let distance = match next(4) {
                    0 => 1 + next(8.min(plain.len())),
                    1 => 1 + next(plain.len().min(8191)),
                    _ => 1 + next(plain.len()),
                };
                let far = distance > 8191;
                let high = if far { 31 } else { (distance - 1) >> 8 };
                let code = (len - 2).min(7);
                stream.push((code << 5 | high) as u8);
                if code == 7 {
                    let mut rest = len - 9;
                    while rest >= 255 {
                        stream.push(255);
                        rest -= 255;
                    }
                    stream.push(rest as u8);
                }
                if far {
                    stream.push(255);
                    stream.extend_from_slice(&((distance - 8192) as u16).to_be_bytes());
                } else {
                    stream.push(((distance - 1) & 255) as u8);
                }
                for _ in 0..len {
                    plain.push(plain[plain.len() - distance]);
                }
            }
            let mut out = vec![0u8; plain.len()];
            decompress(&stream, &mut out).unwrap();
            assert_eq!(out, plain, "round {round}");
            // One byte short or long: refused.
            assert!(decompress(&stream, &mut out[1..]).is_err());
            out.push(0);
            assert!(decompress(&stream, &mut out).is_err());
        }
    }

    /// What [`compress`] writes decodes to its input, at every level, split or not, for data
    /// with short and long matches, runs, far repeats and noise; with less room it gives up
    /// (0) rather than write past it.
    #[test]
    fn compressed_streams_decode_to_their_input() {
        let mut state = 0x9e37_79b9_7f4a_7c15u64;
        let mut next = move |n: usize| {
            state ^= state << 13;
            state ^= state >> 7;
            state ^= state << 17;
            (state % n as u64) as usize
        };
        let mut table = vec![0u32; TABLE_LEN];
        let (mut compressed, mut gave_up) = (0, 0);
        for round in 0..400 {
            let len = match round % 4 {
                0 => next(200),
                1 => next(5000),
                _ => next(140_000),
            };
            let mut data = Vec::with_capacity(len);
            while data.len() < len {
                match next(5) {
                    0 => data.extend((0..1 + next(40)).map(|_| next(256) as u8)),
                    1 => {
                        let b = next(4) as u8;
                        data.extend(std::iter::repeat_n(b, 1 + next(2000)));
                    }
                    _ if !data.is_empty() => {
                        let distance = 1 + next(data.len().min(80_000));
                        for _ in 0..3 + next(300) {
                            data.push(data[data.len() - distance]);
                        }
                    }
                    _ => data.push(1),
                }
            }
            data.truncate(len);
            let clevel = 1 + (round % 9) as u8;
            let split = round % 3 == 0;
            let mut out = vec![0u8; len];
            let n = compress(clevel, &data, &mut out, split, &mut table);
            if n == 0 {
                gave_up += 1;
                continue;
            }
            compressed += 1;
            assert!(n <= len, "round {round}");
            let mut back = vec![0u8; len];
            decompress(&out[..n], &mut back).unwrap_or_else(|e| panic!("round {round}: {e}"));
            assert!(back == data, "round {round}");
            // With less room than it needs, it gives up.
            let mut short = vec![0u8; n - 1];
            assert_eq!(compress(clevel, &data, &mut short, split, &mut table), 0);
        }
        assert!(compressed > 250 && gave_up > 20, "{compressed} {gave_up}");
        // Under 16 bytes, or under 66 bytes of room: not compressed.
        assert_eq!(compress(9, &[0; 15], &mut [0; 100], false, &mut table), 0);
        assert_eq!(compress(9, &[0; 1000], &mut [0; 65], false, &mut table), 0);
        assert!(compress(9, &[0; 1000], &mut [0; 66], false, &mut table) > 0);
    }

    #[test]
    fn bad_streams() {
        let mut out = [0u8; 8];
        assert!(decompress(&[], &mut out).is_err());
        // A literal longer than the input.
        assert!(decompress(&[7, 1, 2], &mut out).is_err());
        // A match before the start.
        assert!(decompress(&[0, 1, 0x20, 5], &mut out).is_err());
        // Too long for the output.
        assert!(decompress(&[0, 1, 0xe0, 10, 0], &mut out).is_err());
        // Too short for the output.
        assert!(decompress(&[0, 1, 0x20, 0], &mut out).is_err());
        decompress(&[0, 1, 0xa0, 0], &mut out).unwrap();
        assert_eq!(out, [1; 8]);
    }
}
