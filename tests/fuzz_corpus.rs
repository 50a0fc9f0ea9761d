//! Replays the fuzz targets' corpora (fuzz/corpus/<target>/, what cargo-fuzz found and kept)
//! through the same entry points, so every input that ever reached new code stays a
//! regression test: no panic, and the promises each target checks still hold.

#![cfg(not(target_arch = "wasm32"))]

use std::fs;
use std::path::Path;

use zarr_wasm_codecs::fuzzing;

fn replay(target: &str, run: fn(&[u8])) {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("fuzz/corpus")
        .join(target);
    let mut count = 0;
    for entry in fs::read_dir(&dir).unwrap_or_else(|e| panic!("{}: {e}", dir.display())) {
        let path = entry.expect("corpus entry").path();
        let data = fs::read(&path).expect("corpus file");
        run(&data);
        count += 1;
    }
    assert!(count > 0, "no corpus for {target}");
}

#[test]
fn metadata_corpus() {
    replay("metadata", fuzzing::metadata);
}

#[test]
fn decode_corpus() {
    replay("decode", fuzzing::decode);
}

#[test]
fn encode_corpus() {
    replay("encode", fuzzing::encode);
}

#[test]
fn zfp_decode_corpus() {
    replay("zfp_decode", fuzzing::zfp_decode);
}

#[cfg(feature = "zfp")]
#[test]
fn zfp_kernel_corpus() {
    replay("zfp_kernel", fuzzing::zfp_kernel);
}

#[cfg(feature = "pcodec")]
#[test]
fn pcodec_decode_corpus() {
    replay("pcodec_decode", fuzzing::pcodec_decode);
}

#[cfg(feature = "compress")]
mod decompressors {
    use super::replay;
    use zarr_wasm_codecs::codec::bytes_to_bytes::BytesCodec;
    use zarr_wasm_codecs::fuzzing;

    #[test]
    fn blosc_corpus() {
        replay("blosc", |d| {
            fuzzing::decompress(BytesCodec::from_v3_name("blosc").unwrap(), d)
        });
    }

    #[test]
    fn zstd_corpus() {
        replay("zstd", |d| {
            fuzzing::decompress(BytesCodec::from_v3_name("zstd").unwrap(), d)
        });
    }

    #[test]
    fn lz4_corpus() {
        replay("lz4", |d| {
            fuzzing::decompress(BytesCodec::from_v3_name("numcodecs.lz4").unwrap(), d)
        });
    }

    #[test]
    fn deflate_corpus() {
        replay("deflate", fuzzing::deflate);
    }

    #[test]
    fn filters_corpus() {
        replay("filters", fuzzing::filters);
    }

    #[test]
    fn layout_corpus() {
        replay("layout", fuzzing::layout);
    }
}
