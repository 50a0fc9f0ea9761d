//! The blosc 1 container, as c-blosc 1.x (numcodecs' `blosc`) writes it. The format is
//! c-blosc's README_HEADER.rst (README_CHUNK_FORMAT.rst in later releases); where that text
//! is silent, c-blosc 1.21's blosc.c decides. The code is this package's own.
//!
//! A chunk is a 16-byte header, all integers little-endian:
//!
//! | byte  | field                                                   |
//! |-------|---------------------------------------------------------|
//! | 0     | format version (2)                                      |
//! | 1     | version of the compressor's format (1)                  |
//! | 2     | flags (below)                                           |
//! | 3     | type size, 1 to 255                                     |
//! | 4..8  | `nbytes`, the decoded size                              |
//! | 8..12 | `blocksize`, the decoded size of each block but the last |
//! | 12..16| `cbytes`, the chunk's whole size, header included        |
//!
//! Flags: 0x01 byte shuffle, 0x02 stored uncompressed ("memcpyed": the decoded bytes follow
//! the header, unfiltered), 0x04 bitshuffle, 0x08 reserved (zero), 0x10 blocks not split,
//! and in the top three bits the compressor: 0 blosclz, 1 lz4 (lz4 and lz4hc), 2 snappy,
//! 3 zlib, 4 zstd.
//!
//! Otherwise a table of one 32-bit start per block follows the header, each an offset from
//! the chunk's start (as blosc.c writes and reads them; README_CHUNK_FORMAT.rst's "from the
//! end of this section" is not what c-blosc does). Blocks may lie in any order (c-blosc's
//! threads store them as they finish); here they must tile the chunk's data exactly, no gap,
//! no overlap. At a block's start come its streams, each a 32-bit compressed size and
//! that many bytes; a stream whose compressed size equals its decoded size is stored raw. A
//! block is one stream, or `typesize` streams of equal size (one per byte of the type, after
//! shuffling) when the split flag is clear, the type size is at most 16, the block holds at
//! least 128 elements and it is not the last, partial, block. The streams decode to the
//! block shuffled (or bitshuffled) as a whole; see [`super::shuffle`] for the layouts and for
//! which blocks are filtered.
//!
//! [`encode`] writes chunks as numcodecs' `Blosc` does (c-blosc 1.21, one thread): the same
//! header, block size, splits, filters and fallbacks; see its doc for which streams are
//! byte-identical.

use super::shuffle::{bitshuffle, bitunshuffle, shuffle, unshuffle};
use super::{blosclz, check_declared, deflate, lz4, zstd};
use super::{BloscCompressor, BloscParams, BloscShuffle};
use crate::error::{Error, Result};

const NAME: &str = "blosc";

const HEADER: usize = 16;
const DOSHUFFLE: u8 = 0x01;
const MEMCPYED: u8 = 0x02;
const DOBITSHUFFLE: u8 = 0x04;
const RESERVED: u8 = 0x08;
const DONT_SPLIT: u8 = 0x10;
/// c-blosc splits blocks only for type sizes up to this...
const MAX_SPLITS: usize = 16;
/// ...and blocks of at least this many elements.
const MIN_SPLIT_ELEMENTS: usize = 128;
/// The largest sizes c-blosc 1.x reads (its sizes are signed 32-bit).
const MAX_BUFFERSIZE: usize = i32::MAX as usize - HEADER;
const MAX_BLOCKSIZE: usize = (i32::MAX as usize - 255 * 4) / 3;

#[derive(Clone, Copy, PartialEq, Eq)]
enum Compressor {
    BloscLz,
    Lz4,
    Zlib,
    Zstd,
}

fn corrupt(message: impl Into<String>) -> Error {
    Error::corrupt(NAME, message)
}

fn u32_at(bytes: &[u8], at: usize) -> Option<usize> {
    let word = bytes.get(at..at.checked_add(4)?)?;
    Some(u32::from_le_bytes([word[0], word[1], word[2], word[3]]) as usize)
}

/// Decodes one blosc 1 chunk. `expected`: the size the output must have, if known; without
/// it the output may not exceed `limit` bytes. A header declaring another size is refused
/// before anything is allocated.
pub fn decode(input: &[u8], expected: Option<usize>, limit: usize) -> Result<Vec<u8>> {
    let Some(header) = input.get(..HEADER) else {
        return Err(corrupt(format!(
            "{} bytes are too few for the 16-byte blosc header",
            input.len()
        )));
    };
    let (version, versionlz, flags, typesize) = (header[0], header[1], header[2], header[3]);
    let nbytes = u32_at(header, 4).unwrap_or(0);
    let blocksize = u32_at(header, 8).unwrap_or(0);
    let cbytes = u32_at(header, 12).unwrap_or(0);
    check_declared(NAME, nbytes, expected, limit)?;
    if cbytes != input.len() {
        return Err(corrupt(format!(
            "the header says the chunk has {cbytes} bytes, but it has {}",
            input.len()
        )));
    }
    if version != 2 {
        return Err(corrupt(format!(
            "blosc format version {version}: only version 2 (blosc 1.x) is read"
        )));
    }
    if flags & RESERVED != 0 {
        return Err(corrupt("the header sets the reserved flag 0x08"));
    }
    if nbytes > MAX_BUFFERSIZE {
        return Err(corrupt(format!(
            "the header's size, {nbytes} bytes, is over blosc's limit"
        )));
    }
    if nbytes == 0 {
        return Ok(Vec::new());
    }
    if typesize == 0 || blocksize == 0 || blocksize > nbytes || blocksize > MAX_BLOCKSIZE {
        return Err(corrupt(format!(
            "invalid header: type size {typesize}, block size {blocksize} for {nbytes} bytes"
        )));
    }
    if flags & MEMCPYED != 0 {
        // Stored as is: no filter was applied, whatever the shuffle flags say.
        return match input.get(HEADER..) {
            Some(data) if data.len() == nbytes => Ok(data.to_vec()),
            _ => Err(corrupt(format!(
                "an uncompressed chunk of {nbytes} bytes must be {} bytes long, not {}",
                nbytes + HEADER,
                input.len()
            ))),
        };
    }
    let compressor = match (flags >> 5, versionlz) {
        (0, 1) => Compressor::BloscLz,
        (1, 1) => Compressor::Lz4,
        (3, 1) => Compressor::Zlib,
        (4, 1) => Compressor::Zstd,
        (2, _) => {
            return Err(corrupt(
                "the chunk is compressed with snappy, which is not read",
            ))
        }
        (code @ 0..=4, v) => {
            return Err(corrupt(format!(
                "compressor {code}: format version {v} is not one blosc 1.x writes"
            )))
        }
        (code, _) => return Err(corrupt(format!("unknown compressor code {code}"))),
    };
    let chunk = Chunk {
        input,
        compressor,
        typesize: usize::from(typesize),
        blocksize,
        flags,
    };
    // With `expected` the output's size is known to be right: allocated at once. Without it
    // (then at most `limit`), the output grows as its blocks decode, so that a short chunk
    // declaring many blocks fails before much is allocated.
    let capacity = match expected {
        Some(n) => n,
        None => nbytes.min(input.len().saturating_mul(8).max(1 << 16)),
    };
    chunk.decode(nbytes, capacity)
}

/// What decoding a compressed (not memcpyed) chunk needs of its header.
struct Chunk<'a> {
    input: &'a [u8],
    compressor: Compressor,
    typesize: usize,
    blocksize: usize,
    flags: u8,
}

/// How a block's streams decode to its bytes.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Filter {
    None,
    Shuffle,
    BitShuffle,
}

impl Chunk<'_> {
    fn decode(&self, nbytes: usize, capacity: usize) -> Result<Vec<u8>> {
        let nblocks = nbytes.div_ceil(self.blocksize);
        let table_end = nblocks
            .checked_mul(4)
            .and_then(|n| n.checked_add(HEADER))
            .filter(|&end| end <= self.input.len())
            .ok_or_else(|| {
                corrupt(format!(
                    "the chunk is too short for its table of {nblocks} block starts"
                ))
            })?;
        // Each block's extent in the input, to check that they tile the data exactly.
        let mut extents = Vec::with_capacity(nblocks);
        let mut out = Vec::with_capacity(capacity);
        let mut scratch = Vec::new();
        for index in 0..nblocks {
            let begin = out.len();
            let len = self.blocksize.min(nbytes - begin);
            out.resize(begin + len, 0);
            let block = &mut out[begin..];
            let start = u32_at(self.input, HEADER + 4 * index).unwrap_or(0);
            if start < table_end || start >= self.input.len() {
                return Err(corrupt(format!(
                    "block {index} starts at byte {start}, outside the chunk's data ({table_end} to {})",
                    self.input.len()
                )));
            }
            let end = self.block(index, start, block, &mut scratch)?;
            extents.push((start, end));
        }
        extents.sort_unstable();
        let mut at = table_end;
        for &(start, end) in &extents {
            if start != at {
                return Err(corrupt(
                    "the block starts do not tile the chunk (overlapping blocks or gaps)",
                ));
            }
            at = end;
        }
        if at != self.input.len() {
            return Err(corrupt(format!(
                "{} bytes follow the chunk's last block",
                self.input.len() - at
            )));
        }
        Ok(out)
    }

    /// Decodes block `index`, whose streams start at `start`, into `block`. Returns where its
    /// streams end.
    fn block(
        &self,
        index: usize,
        start: usize,
        block: &mut [u8],
        scratch: &mut Vec<u8>,
    ) -> Result<usize> {
        let len = block.len();
        let partial = len < self.blocksize;
        let t = self.typesize;
        let filter = if self.flags & DOSHUFFLE != 0 && t > 1 {
            Filter::Shuffle
        } else if self.flags & DOBITSHUFFLE != 0 && len >= t && (len / t).is_multiple_of(8) {
            // Other element counts c-blosc leaves unfiltered.
            Filter::BitShuffle
        } else {
            Filter::None
        };
        let streams = if self.flags & DONT_SPLIT == 0
            && t <= MAX_SPLITS
            && len / t >= MIN_SPLIT_ELEMENTS
            && !partial
        {
            t
        } else {
            1
        };
        if !len.is_multiple_of(streams) {
            return Err(corrupt(format!(
                "block {index} of {len} bytes does not split into {streams} equal streams"
            )));
        }
        let target: &mut [u8] = if filter == Filter::None {
            block
        } else {
            scratch.resize(len, 0);
            &mut scratch[..]
        };
        let mut at = start;
        for part in target.chunks_exact_mut(len / streams) {
            at = self.stream(index, at, part)?;
        }
        match filter {
            Filter::None => {}
            Filter::Shuffle => unshuffle(t, scratch, block),
            Filter::BitShuffle => bitunshuffle(t, scratch, block),
        }
        Ok(at)
    }

    /// Decodes the stream at `at` (its size, then its bytes) into `part`, which it must fill.
    /// Returns where the stream ends.
    fn stream(&self, index: usize, at: usize, part: &mut [u8]) -> Result<usize> {
        let csize = u32_at(self.input, at).ok_or_else(|| {
            corrupt(format!(
                "block {index}: a stream's size lies past the chunk's end"
            ))
        })?;
        let from = at + 4;
        let data = from
            .checked_add(csize)
            .and_then(|end| self.input.get(from..end))
            .ok_or_else(|| {
                corrupt(format!(
                    "block {index}: a stream of {csize} bytes at byte {from} runs past the chunk's end"
                ))
            })?;
        if csize == part.len() {
            part.copy_from_slice(data);
        } else {
            match self.compressor {
                Compressor::BloscLz => blosclz::decompress(data, part)
                    .map_err(|e| corrupt(format!("block {index}: {e}")))?,
                Compressor::Lz4 => lz4::block_into(data, part, NAME)?,
                Compressor::Zlib => deflate::zlib_into(data, part, NAME)?,
                Compressor::Zstd => zstd::decode_into(data, part, NAME)?,
            }
        }
        Ok(from + csize)
    }
}

// Encoding, as c-blosc 1.21's `blosc_compress_ctx` does for numcodecs (one thread).

/// Inputs shorter than this are stored memcpyed (c-blosc's MIN_BUFFERSIZE).
const MIN_BUFFERSIZE: usize = 128;
/// c-blosc's assumed L1 cache size, the base of its automatic block sizes.
const L1: usize = 32 * 1024;

/// Whether c-blosc counts the compressor as one for high compression ratios (larger blocks).
fn high_ratio(cname: BloscCompressor) -> bool {
    matches!(
        cname,
        BloscCompressor::Lz4Hc | BloscCompressor::Zlib | BloscCompressor::Zstd
    )
}

/// c-blosc 1.21's default split mode (FORWARD_COMPAT): a block is stored as one stream per
/// byte of the type, unless the compressor is zstd (whose chunks always say "not split"),
/// for type sizes up to 16 and blocks of at least 128 elements.
fn splits(cname: BloscCompressor, typesize: usize, blocksize: usize) -> bool {
    cname != BloscCompressor::Zstd
        && typesize <= MAX_SPLITS
        && blocksize / typesize >= MIN_SPLIT_ELEMENTS
}

/// The block size c-blosc 1.21's `compute_blocksize` gives: `forced` (numcodecs'
/// `blocksize`; 0: automatic) bounded to 128 bytes..MAX_BLOCKSIZE, or from the L1 size by
/// level (doubled for high-ratio compressors); for blocks that split, scaled by the type size
/// to 64 KiB..1 MiB; then at most `nbytes`, and a multiple of the type size.
fn compute_blocksize(
    cname: BloscCompressor,
    clevel: u8,
    typesize: usize,
    nbytes: usize,
    forced: usize,
) -> usize {
    if nbytes < typesize {
        return 1;
    }
    let mut blocksize = nbytes;
    if forced != 0 {
        blocksize = forced.clamp(MIN_BUFFERSIZE, MAX_BLOCKSIZE);
    } else if nbytes >= L1 {
        let hcr = high_ratio(cname);
        blocksize = if hcr { 2 * L1 } else { L1 };
        blocksize = match clevel {
            0 => blocksize / 4,
            1 => blocksize / 2,
            2 => blocksize,
            3 => blocksize * 2,
            4 | 5 => blocksize * 4,
            6..=8 => blocksize * 8,
            _ => blocksize * if hcr { 16 } else { 8 },
        };
    }
    if clevel > 0 && splits(cname, typesize, blocksize) {
        blocksize = (blocksize.min(1 << 18) * typesize).clamp(1 << 16, 1 << 20);
    }
    blocksize = blocksize.min(nbytes);
    if blocksize > typesize {
        blocksize = blocksize / typesize * typesize;
    }
    blocksize
}

/// Encodes `input` as one blosc 1 chunk, as numcodecs 0.17.1's `Blosc` (c-blosc 1.21, one
/// thread) does with `p`, whose type size is set (over 255: 1, as c-blosc takes it). The
/// header (flags, type size, block size) is c-blosc's; so are the filtering of each block,
/// the split streams, the streams stored raw where compressing does not shrink them, and the
/// whole chunk stored memcpyed at level 0, under 128 bytes, or when the compressed chunk would
/// be longer than the input and header. The streams: blosclz's are c-blosc's byte for byte
/// (`blosclz::compress`); zstd's are the C library's at c-blosc's level (1, 3, 5, .., 15, then
/// 22 at level 9), so equal to c-blosc's when the library versions compress alike; lz4 and lz4hc
/// (lz4_flex, no acceleration or high-compression search) and zlib (miniz_oxide) find other
/// matches than c-blosc's libraries, in the same formats.
pub fn encode(input: &[u8], p: BloscParams) -> Result<Vec<u8>> {
    let nbytes = input.len();
    if nbytes > MAX_BUFFERSIZE {
        return Err(Error::config(
            NAME,
            format!("{nbytes} bytes are over blosc's limit of {MAX_BUFFERSIZE}"),
        ));
    }
    if p.clevel > 9 {
        return Err(Error::config(
            NAME,
            format!("clevel must be 0 to 9, not {}", p.clevel),
        ));
    }
    let typesize = match p.typesize {
        1..=255 => p.typesize,
        _ => 1,
    };
    // numcodecs resolves AUTOSHUFFLE from the type size it is given (before c-blosc's limit).
    let shuffle_mode = match p.shuffle {
        BloscShuffle::Auto if p.typesize.max(1) == 1 => BloscShuffle::Bit,
        BloscShuffle::Auto => BloscShuffle::Byte,
        other => other,
    };
    let blocksize = compute_blocksize(p.cname, p.clevel, typesize, nbytes, p.blocksize);
    let format: u8 = match p.cname {
        BloscCompressor::BloscLz => 0,
        BloscCompressor::Lz4 | BloscCompressor::Lz4Hc => 1,
        BloscCompressor::Zlib => 3,
        BloscCompressor::Zstd => 4,
    };
    let mut flags = format << 5;
    if !splits(p.cname, typesize, blocksize) {
        flags |= DONT_SPLIT;
    }
    flags |= match shuffle_mode {
        BloscShuffle::Byte => DOSHUFFLE,
        BloscShuffle::Bit => DOBITSHUFFLE,
        _ => 0,
    };
    let mut head = [0u8; HEADER];
    head[..4].copy_from_slice(&[2, 1, flags, typesize as u8]);
    head[4..8].copy_from_slice(&(nbytes as u32).to_le_bytes());
    head[8..12].copy_from_slice(&(blocksize as u32).to_le_bytes());
    if p.clevel > 0 && nbytes >= MIN_BUFFERSIZE {
        let encoder = Encoder {
            cname: p.cname,
            clevel: p.clevel,
            typesize,
            blocksize,
            flags,
        };
        if let Some(chunk) = encoder.compress(input, head) {
            return Ok(chunk);
        }
    }
    // Stored as is (the filter flags stay set; nothing is filtered).
    head[2] |= MEMCPYED;
    head[12..16].copy_from_slice(&((HEADER + nbytes) as u32).to_le_bytes());
    let mut out = Vec::with_capacity(HEADER + nbytes);
    out.extend_from_slice(&head);
    out.extend_from_slice(input);
    Ok(out)
}

/// What compressing a chunk's blocks needs.
struct Encoder {
    cname: BloscCompressor,
    clevel: u8,
    typesize: usize,
    blocksize: usize,
    flags: u8,
}

impl Encoder {
    /// The compressed chunk (`head` completed), or `None` where c-blosc gives up and stores
    /// the chunk memcpyed: when the chunk would grow past the input's size and the header's.
    fn compress(&self, input: &[u8], mut head: [u8; HEADER]) -> Option<Vec<u8>> {
        let nbytes = input.len();
        let (t, blocksize) = (self.typesize, self.blocksize);
        // c-blosc's destination is numcodecs' `nbytes + 16` bytes: nothing may pass it.
        let maxbytes = nbytes + HEADER;
        let nblocks = nbytes.div_ceil(blocksize);
        let mut ntbytes = HEADER + 4 * nblocks;
        if ntbytes > maxbytes {
            return None;
        }
        let lz4 = matches!(self.cname, BloscCompressor::Lz4 | BloscCompressor::Lz4Hc);
        // lz4_flex writes into a slice with room for its worst case: that much spare room
        // after the limit, which no stream kept reaches.
        let spare = if lz4 {
            lz4_flex::block::get_maximum_output_size(blocksize)
        } else {
            0
        };
        // Zero-filled at once (calloc), written in place, cut to size at the end.
        let mut out = vec![0u8; maxbytes + spare];
        let split = self.flags & DONT_SPLIT == 0;
        let byte_shuffle = self.flags & DOSHUFFLE != 0 && t > 1;
        let bit_shuffle = self.flags & DOBITSHUFFLE != 0;
        let mut scratch = if byte_shuffle || bit_shuffle {
            vec![0u8; blocksize]
        } else {
            Vec::new()
        };
        let mut table = if self.cname == BloscCompressor::BloscLz {
            vec![0u32; blosclz::TABLE_LEN]
        } else {
            Vec::new()
        };
        for (j, block) in input.chunks(blocksize).enumerate() {
            out[HEADER + 4 * j..][..4].copy_from_slice(&(ntbytes as u32).to_le_bytes());
            let len = block.len();
            // As c-blosc (and the decoder): shuffle for types of 2 bytes or more; bitshuffle
            // for blocks of a whole element or more (which copies blocks whose element count
            // is not a multiple of 8).
            let data: &[u8] = if byte_shuffle {
                shuffle(t, block, &mut scratch[..len]);
                &scratch[..len]
            } else if bit_shuffle && len >= t {
                bitshuffle(t, block, &mut scratch[..len]);
                &scratch[..len]
            } else {
                block
            };
            let streams = if split && len == blocksize { t } else { 1 };
            let neblock = len / streams;
            for stream in data.chunks_exact(neblock) {
                ntbytes += 4;
                let maxout = neblock.min(maxbytes.saturating_sub(ntbytes));
                if maxout == 0 {
                    return None;
                }
                let mut cbytes =
                    self.stream(stream, &mut out[ntbytes..], maxout, split, &mut table);
                if cbytes == 0 || cbytes == neblock {
                    // Not compressed (or no smaller): stored raw.
                    if ntbytes + neblock > maxbytes {
                        return None;
                    }
                    out[ntbytes..ntbytes + neblock].copy_from_slice(stream);
                    cbytes = neblock;
                }
                out[ntbytes - 4..ntbytes].copy_from_slice(&(cbytes as u32).to_le_bytes());
                ntbytes += cbytes;
            }
        }
        head[12..16].copy_from_slice(&(ntbytes as u32).to_le_bytes());
        out[..HEADER].copy_from_slice(&head);
        out.truncate(ntbytes);
        out.shrink_to_fit();
        Some(out)
    }

    /// Compresses one stream into `out`, which it may fill up to `maxout` bytes; returns the
    /// compressed size, or 0 when it does not fit (as c-blosc's compressor wrappers do).
    /// (`out` has room for lz4_flex's worst case past `maxout`.)
    fn stream(
        &self,
        stream: &[u8],
        out: &mut [u8],
        maxout: usize,
        split: bool,
        table: &mut [u32],
    ) -> usize {
        let kept = |compressed: &[u8], out: &mut [u8]| {
            if compressed.len() > maxout {
                0
            } else {
                out[..compressed.len()].copy_from_slice(compressed);
                compressed.len()
            }
        };
        match self.cname {
            BloscCompressor::BloscLz => {
                blosclz::compress(self.clevel, stream, &mut out[..maxout], split, table)
            }
            BloscCompressor::Lz4 | BloscCompressor::Lz4Hc => {
                // lz4 and lz4hc write the same block format (the header says lz4).
                match lz4_flex::block::compress_into(stream, out) {
                    Ok(n) if n <= maxout => n,
                    _ => 0,
                }
            }
            BloscCompressor::Zlib => kept(&deflate::zlib(stream, self.clevel), out),
            BloscCompressor::Zstd => {
                // c-blosc's zstd_wrap_compress: levels 1 to 8 to 2l - 1, 9 to ZSTD_maxCLevel.
                let level = if self.clevel < 9 {
                    2 * i32::from(self.clevel) - 1
                } else {
                    ::zstd::zstd_safe::max_c_level()
                };
                match zstd::encode(stream, level, false) {
                    Ok(frame) => kept(&frame, out),
                    Err(_) => 0,
                }
            }
        }
    }
}
