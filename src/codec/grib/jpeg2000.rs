//! Template 5.40's Section 7: a JPEG 2000 codestream of the coded integers.
//!
//! ecCodes 2.50 (`grib_openjpeg_decode`, with the OpenJPEG 2.5.2 its wheels carry) reads the
//! section as a raw J2K codestream through a memory stream, with OpenJPEG's default decoder
//! parameters (strict mode: a truncated codestream is an error, not a partial image), and
//! refuses an image with other than one component, an empty one, or one of fewer values than
//! the message's `numberOfValues`; the integers are the first component's samples in raster
//! order, each masked to the component's precision (`data & ((1 << prec) - 1)`). The encoder
//! writes the grid as Ni x Nj (Nj x Ni when j points are consecutive), and with a bitmap (or
//! a list of points) the present values as one row of `numberOfValues`.
//!
//! Here the same steps run on openjp2, the Rust port of OpenJPEG 2.5.2 (the same decoder, so
//! truncated coding passes of "lossy" codestreams decode to the same integers). Two cases
//! ecCodes cannot decode are refused: an image of more values than `count` (ecCodes copies
//! them all into its `count`-value array) and a signed component (an assertion there).

use std::ffi::{c_char, c_void, CStr};

use openjp2::openjpeg::{
    opj_codec_t, opj_create_decompress, opj_decode, opj_destroy_codec, opj_dparameters_t,
    opj_end_decompress, opj_image_destroy, opj_image_t, opj_read_header,
    opj_set_default_decoder_parameters, opj_set_error_handler, opj_setup_decoder,
    opj_stream_default_create, opj_stream_destroy, opj_stream_set_read_function,
    opj_stream_set_seek_function, opj_stream_set_skip_function, opj_stream_set_user_data,
    opj_stream_set_user_data_length, opj_stream_t, OPJ_CODEC_J2K,
};

use crate::error::{Error, Result};

const WHAT: &str = "JPEG 2000 (template 5.40)";

fn corrupt(message: impl std::fmt::Display) -> Error {
    Error::corrupt("grib", format!("{WHAT}: {message}"))
}

/// The coded integers of a JPEG 2000 codestream, in raster order; `count` values are expected
/// (the image's width x height must equal it: the grid's points, or with a bitmap the present
/// points as one row).
pub(crate) fn decode(stream: &[u8], count: usize) -> Result<Vec<u32>> {
    let mut session = Session::open(stream)?;
    let image = session.decode(count)?;
    let Some([component]) = image.comps() else {
        let n = image.numcomps;
        return Err(corrupt(format!("the image has {n} components, not one")));
    };
    if image.x1 == 0 || image.y1 == 0 {
        return Err(corrupt("the image is empty"));
    }
    if component.sgnd != 0 {
        return Err(corrupt("the image's samples are signed"));
    }
    let values = component.w as usize * component.h as usize;
    if values != count {
        return Err(corrupt(format!(
            "the image has {values} values ({} x {}), the message {count}",
            component.w, component.h
        )));
    }
    // (1 << prec) - 1: OpenJPEG reads 1 to 31 bits a sample.
    let mask = 1u32
        .checked_shl(component.prec)
        .map_or(u32::MAX, |bit| bit - 1);
    let data = component
        .data()
        .ok_or_else(|| corrupt("the image has no samples"))?;
    let out = data.iter().map(|&x| x as u32 & mask).collect();
    session.end()?;
    Ok(out)
}

/// The section, read by OpenJPEG through the stream's callbacks (ecCodes' memory stream), and
/// OpenJPEG's first error message, kept for the error returned.
struct Source<'a> {
    data: &'a [u8],
    at: usize,
    error: String,
}

unsafe extern "C" fn read(buffer: *mut c_void, n: usize, source: *mut c_void) -> usize {
    // SAFETY: `source` is the session's `Source`, which outlives the stream; OpenJPEG hands a
    // buffer of at least `n` bytes.
    let source = unsafe { &mut *(source as *mut Source) };
    if source.at >= source.data.len() {
        return usize::MAX; // (OPJ_SIZE_T)-1: the end
    }
    let n = n.min(source.data.len() - source.at);
    let out = unsafe { std::slice::from_raw_parts_mut(buffer as *mut u8, n) };
    out.copy_from_slice(&source.data[source.at..source.at + n]);
    source.at += n;
    n
}

unsafe extern "C" fn skip(n: i64, source: *mut c_void) -> i64 {
    // SAFETY: as in `read`.
    let source = unsafe { &mut *(source as *mut Source) };
    if n < 0 {
        return -1;
    }
    let n = usize::try_from(n)
        .unwrap_or(usize::MAX)
        .min(source.data.len() - source.at);
    source.at += n;
    n as i64
}

unsafe extern "C" fn seek(to: i64, source: *mut c_void) -> i32 {
    // SAFETY: as in `read`.
    let source = unsafe { &mut *(source as *mut Source) };
    match usize::try_from(to) {
        Ok(to) if to <= source.data.len() => {
            source.at = to;
            1
        }
        _ => 0,
    }
}

/// The stream owns no data: the session drops its `Source`.
unsafe extern "C" fn keep(_: *mut c_void) {}

unsafe extern "C" fn on_error(message: *const c_char, source: *mut c_void) {
    // SAFETY: `source` is the session's `Source`, which outlives the codec; OpenJPEG passes a
    // NUL-terminated message.
    let source = unsafe { &mut *(source as *mut Source) };
    if source.error.is_empty() && !message.is_null() {
        let text = unsafe { CStr::from_ptr(message) }.to_string_lossy();
        source.error.push_str(text.trim_end());
    }
}

/// One decoding: OpenJPEG's codec, stream and image, destroyed together.
struct Session<'a> {
    codec: *mut opj_codec_t,
    stream: *mut opj_stream_t,
    image: *mut opj_image_t,
    /// A box's, handed to OpenJPEG as the callbacks' user data, and used through this pointer
    /// alone until Drop frees it.
    source: *mut Source<'a>,
}

impl<'a> Session<'a> {
    fn open(data: &'a [u8]) -> Result<Self> {
        let mut session = Session {
            codec: std::ptr::null_mut(),
            stream: std::ptr::null_mut(),
            image: std::ptr::null_mut(),
            source: Box::into_raw(Box::new(Source {
                data,
                at: 0,
                error: String::new(),
            })),
        };
        // SAFETY: the stream and codec are OpenJPEG's, checked non-null before use; the
        // user data is the session's `Source`, which the codec and stream do not outlive (Drop
        // destroys them first).
        unsafe {
            session.stream = opj_stream_default_create(1);
            if session.stream.is_null() {
                return Err(corrupt("OpenJPEG made no stream"));
            }
            opj_stream_set_read_function(session.stream, Some(read));
            opj_stream_set_skip_function(session.stream, Some(skip));
            opj_stream_set_seek_function(session.stream, Some(seek));
            let source = session.source as *mut c_void;
            opj_stream_set_user_data(session.stream, source, Some(keep));
            opj_stream_set_user_data_length(session.stream, data.len() as u64);
            session.codec = opj_create_decompress(OPJ_CODEC_J2K);
            if session.codec.is_null() {
                return Err(corrupt("OpenJPEG made no decoder"));
            }
            opj_set_error_handler(session.codec, Some(on_error), source);
            let mut parameters = opj_dparameters_t::default();
            opj_set_default_decoder_parameters(&mut parameters);
            if opj_setup_decoder(session.codec, &mut parameters) == 0 {
                return Err(session.failure("could not set the decoder up"));
            }
        }
        Ok(session)
    }

    /// Reads the header and decodes the image, if the header describes one component of
    /// `count` samples: OpenJPEG allocates the image the header describes before it decodes
    /// anything, so a damaged header could otherwise ask for any amount of memory.
    fn decode(&mut self, count: usize) -> Result<&opj_image_t> {
        // SAFETY: as in `open`; the image is OpenJPEG's until Drop destroys it.
        unsafe {
            if opj_read_header(self.stream, self.codec, &mut self.image) == 0
                || self.image.is_null()
            {
                return Err(self.failure("failed to read the header"));
            }
            let image = &*self.image;
            let Some([component]) = image.comps() else {
                let n = image.numcomps;
                return Err(corrupt(format!("the image has {n} components, not one")));
            };
            // A component's size as OpenJPEG computes it: ceil(x1 / dx) - ceil(x0 / dx).
            let side = |from: u32, to: u32, step: u32| -> u64 {
                let step = u64::from(step.max(1));
                u64::from(to)
                    .div_ceil(step)
                    .saturating_sub(u64::from(from).div_ceil(step))
            };
            let w = side(image.x0, image.x1, component.dx);
            let h = side(image.y0, image.y1, component.dy);
            if w.checked_mul(h) != Some(count as u64) {
                return Err(corrupt(format!(
                    "the image has {w} x {h} values, the message {count}"
                )));
            }
            if opj_decode(self.codec, self.stream, self.image) == 0 {
                return Err(self.failure("failed to decode"));
            }
            Ok(&*self.image)
        }
    }

    fn end(&mut self) -> Result<()> {
        // SAFETY: as in `open`.
        if unsafe { opj_end_decompress(self.codec, self.stream) } == 0 {
            return Err(self.failure("failed to end the decoding"));
        }
        Ok(())
    }

    fn failure(&self, what: &str) -> Error {
        // SAFETY: no callback runs meanwhile.
        match unsafe { (*self.source).error.as_str() } {
            "" => corrupt(what),
            error => corrupt(format!("{what} ({error})")),
        }
    }
}

impl Drop for Session<'_> {
    fn drop(&mut self) {
        // SAFETY: each pointer is OpenJPEG's own or null, destroyed once, in ecCodes' order;
        // the source outlives the codec and stream that call back into it.
        unsafe {
            if !self.codec.is_null() {
                opj_destroy_codec(self.codec);
            }
            if !self.stream.is_null() {
                opj_stream_destroy(self.stream);
            }
            opj_image_destroy(self.image);
            drop(Box::from_raw(self.source));
        }
    }
}

/// What openjp2 needs of a C library in wasm32-unknown-unknown, which has none.
///
/// The port allocates some of its buffers with C's `malloc`, `calloc`, `realloc` and `free`
/// (and names `strcpy`): they would be imports the module's host does not supply. They are
/// defined here over Rust's allocator, each block headed by its size, aligned to 16 bytes as
/// `malloc`'s are. And the port frees every code-block's `decoded_data` with
/// `std::alloc::dealloc`, null where the block was decoded into its tile whole (C's
/// `free(NULL)`, ported as it was): the system allocators take a null pointer, wasm's dlmalloc
/// traps on it, so the module's allocator is std's own with that call skipped.
#[cfg(all(target_arch = "wasm32", target_os = "unknown"))]
mod libc {
    use std::alloc::{GlobalAlloc, Layout, System};
    use std::ptr::null_mut;

    const HEADER: usize = 16;

    fn layout(size: usize) -> Option<Layout> {
        Layout::from_size_align(size.checked_add(HEADER)?, HEADER).ok()
    }

    /// The block's address past its header, the size written there.
    unsafe fn headed(block: *mut u8, size: usize) -> *mut u8 {
        if block.is_null() {
            return block;
        }
        // SAFETY: `block` has room for the header and is aligned for a usize.
        unsafe {
            (block as *mut usize).write(size);
            block.add(HEADER)
        }
    }

    /// The block's start and layout, from the address `malloc` gave.
    unsafe fn block(p: *mut u8) -> (*mut u8, Layout) {
        // SAFETY: `p` came from `malloc`, `calloc` or `realloc`, HEADER bytes into its block.
        unsafe {
            let block = p.sub(HEADER);
            let size = (block as *const usize).read();
            (
                block,
                Layout::from_size_align_unchecked(size + HEADER, HEADER),
            )
        }
    }

    #[no_mangle]
    unsafe extern "C" fn malloc(size: usize) -> *mut u8 {
        // SAFETY: the layout's size is not zero.
        layout(size).map_or(null_mut(), |l| unsafe { headed(System.alloc(l), size) })
    }

    #[no_mangle]
    unsafe extern "C" fn calloc(n: usize, size: usize) -> *mut u8 {
        let Some(size) = n.checked_mul(size) else {
            return null_mut();
        };
        // SAFETY: as in `malloc`.
        layout(size).map_or(null_mut(), |l| unsafe {
            headed(System.alloc_zeroed(l), size)
        })
    }

    #[no_mangle]
    unsafe extern "C" fn realloc(p: *mut u8, size: usize) -> *mut u8 {
        if p.is_null() {
            // SAFETY: C's realloc(NULL, n) is malloc(n).
            return unsafe { malloc(size) };
        }
        let Some(new) = layout(size) else {
            return null_mut();
        };
        // SAFETY: `p` is a block of this allocator, grown to a valid layout.
        unsafe {
            let (old, layout) = block(p);
            headed(System.realloc(old, layout, new.size()), size)
        }
    }

    #[no_mangle]
    unsafe extern "C" fn free(p: *mut u8) {
        if !p.is_null() {
            // SAFETY: `p` is a block of this allocator.
            unsafe {
                let (block, layout) = block(p);
                System.dealloc(block, layout);
            }
        }
    }

    #[no_mangle]
    unsafe extern "C" fn strcpy(to: *mut u8, from: *const u8) -> *mut u8 {
        // SAFETY: C's contract: `from` is NUL-terminated and `to` has room for it.
        unsafe {
            let mut i = 0;
            loop {
                let c = *from.add(i);
                *to.add(i) = c;
                if c == 0 {
                    return to;
                }
                i += 1;
            }
        }
    }

    /// std's allocator, but for a null pointer's deallocation, which it skips.
    struct NullFreeSkipped;

    // SAFETY: every call is System's, whose contract this keeps.
    unsafe impl GlobalAlloc for NullFreeSkipped {
        unsafe fn alloc(&self, layout: Layout) -> *mut u8 {
            unsafe { System.alloc(layout) }
        }
        unsafe fn alloc_zeroed(&self, layout: Layout) -> *mut u8 {
            unsafe { System.alloc_zeroed(layout) }
        }
        unsafe fn dealloc(&self, p: *mut u8, layout: Layout) {
            if !p.is_null() {
                unsafe { System.dealloc(p, layout) }
            }
        }
        unsafe fn realloc(&self, p: *mut u8, layout: Layout, size: usize) -> *mut u8 {
            unsafe { System.realloc(p, layout, size) }
        }
    }

    #[global_allocator]
    static ALLOCATOR: NullFreeSkipped = NullFreeSkipped;
}

#[cfg(test)]
mod tests {
    use super::fixtures::{self, Case};
    use super::*;

    fn cases() -> Vec<Case> {
        fixtures::cases(40)
    }

    #[test]
    fn codestreams_decode_to_openjpeg_integers() {
        let cases = cases();
        assert!(cases.len() >= 6);
        for case in &cases {
            let got =
                decode(&case.stream, case.count).unwrap_or_else(|e| panic!("{}: {e}", case.name));
            assert!(got == case.expected, "{}: differs from OpenJPEG", case.name);
        }
    }

    #[test]
    fn an_image_of_other_than_count_values_is_refused() {
        let case = &cases()[0];
        for count in [case.count - 1, case.count + 1, 0] {
            let e = decode(&case.stream, count).unwrap_err();
            assert_eq!(e.code(), "CORRUPT_CHUNK", "{e}");
        }
    }

    #[test]
    fn damaged_codestreams_are_errors() {
        for case in cases() {
            let s = &case.stream;
            for cut in [
                0,
                1,
                2,
                10,
                s.len() / 3,
                s.len() / 2,
                s.len() - 3,
                s.len() - 2,
            ] {
                let e = decode(&s[..cut], case.count).unwrap_err();
                assert_eq!(e.code(), "CORRUPT_CHUNK", "{} cut at {cut}: {e}", case.name);
            }
        }
        for garbage in fixtures::garbage() {
            let e = decode(&garbage, 64).unwrap_err();
            assert_eq!(e.code(), "CORRUPT_CHUNK", "{e}");
        }
    }

    #[test]
    fn mutated_codestreams_never_panic() {
        fixtures::mutate(&cases(), 300, |case, stream| {
            if let Ok(v) = decode(stream, case.count) {
                assert_eq!(v.len(), case.count);
            }
        });
    }
}

/// The fixtures of the three image decoders' tests (tests/fixtures/grib-sections/, made by its
/// make.py): Section 7 streams that ecCodes wrote, with the integers a reference decoder reads
/// from them.
#[cfg(test)]
pub(super) mod fixtures {
    use crate::json::Value;

    const DIR: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/tests/fixtures/grib-sections");

    pub(crate) struct Case {
        pub name: String,
        pub stream: Vec<u8>,
        pub count: usize,
        pub bits: u8,
        /// Template 5.42's `ccsdsFlags`, `ccsdsBlockSize` and `ccsdsRsi`.
        pub ccsds: Option<(u8, u8, u16)>,
        pub expected: Vec<u32>,
    }

    /// The cases of data representation template 5.`template`.
    pub(crate) fn cases(template: u64) -> Vec<Case> {
        let manifest = std::fs::read_to_string(format!("{DIR}/manifest.json")).unwrap();
        let manifest = crate::json::parse(&manifest).unwrap();
        let number = |c: &Value, key: &str| c.get(key).and_then(Value::as_u64).unwrap();
        let mut cases = Vec::new();
        for c in manifest.get("cases").and_then(Value::as_array).unwrap() {
            if number(c, "template") != template {
                continue;
            }
            let name = c.get("name").and_then(Value::as_str).unwrap().to_string();
            let stream = std::fs::read(format!("{DIR}/{name}.bin")).unwrap();
            let width = number(c, "expected_width") as usize;
            let expected = std::fs::read(format!("{DIR}/{name}.expected")).unwrap();
            let expected = expected
                .chunks_exact(width)
                .map(|b| b.iter().rev().fold(0u32, |v, &b| v << 8 | u32::from(b)))
                .collect::<Vec<_>>();
            let ccsds = c.get("ccsds_flags").map(|_| {
                let n = |key| number(c, key);
                (
                    n("ccsds_flags") as u8,
                    n("ccsds_block_size") as u8,
                    n("ccsds_rsi") as u16,
                )
            });
            let count = number(c, "count") as usize;
            assert_eq!(expected.len(), count, "{name}");
            cases.push(Case {
                name,
                stream,
                count,
                bits: number(c, "bits") as u8,
                ccsds,
                expected,
            });
        }
        cases
    }

    /// Streams of no format: noise, zeros, text.
    pub(crate) fn garbage() -> Vec<Vec<u8>> {
        let mut noise = Vec::new();
        let mut x = 0x2545_f491_4f6c_dd1du64;
        for _ in 0..4096 {
            x ^= x << 13;
            x ^= x >> 7;
            x ^= x << 17;
            noise.push(x as u8);
        }
        vec![
            Vec::new(),
            vec![0; 100],
            noise,
            b"GRIB is not an image".to_vec(),
        ]
    }

    /// Calls `check` on `n` mutations (cuts, byte changes, noisy tails) of the cases' streams,
    /// the same on every run.
    pub(crate) fn mutate(cases: &[Case], n: usize, mut check: impl FnMut(&Case, &[u8])) {
        let mut x = 0x9e37_79b9_7f4a_7c15u64;
        let mut next = |below: usize| {
            x ^= x << 13;
            x ^= x >> 7;
            x ^= x << 17;
            (x % below.max(1) as u64) as usize
        };
        for _ in 0..n {
            let case = &cases[next(cases.len())];
            let mut s = case.stream.clone();
            let len = s.len();
            match next(4) {
                0 => s.truncate(next(len)),
                1 => {
                    for _ in 0..1 + next(8) {
                        s[next(len)] = next(256) as u8;
                    }
                }
                2 => {
                    let from = next(len);
                    for b in &mut s[from..] {
                        *b = next(256) as u8;
                    }
                }
                _ => s[next(len)] ^= 1 << next(8),
            }
            check(case, &s);
        }
    }
}
