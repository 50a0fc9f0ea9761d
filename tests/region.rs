//! Decoding boxes of a chunk a tile at a time (the read path of `get`) gives exactly the
//! values of a whole-chunk decode at those positions, for fused and codec-by-codec chains;
//! zarr.json layouts; float literals beyond 2^53 are not read as 64-bit integers.

#![cfg(not(target_arch = "wasm32"))]

use proptest::prelude::*;
use zarr_wasm_codecs::codec::region::Span;
use zarr_wasm_codecs::json::parse;
use zarr_wasm_codecs::layout::{exact_for_javascript, open, Opened};
use zarr_wasm_codecs::{ArrayData, Chain, DataType, Scalar};

const CHAINS: &[&str] = &[
    // Fused, 8-bit table.
    r#"{"data_type": "float64", "fill_value": "NaN", "chunk_shape": [5, 7, 3], "codecs": [
      {"name": "scale_offset", "configuration": {"offset": -10, "scale": 10}},
      {"name": "cast_value", "configuration": {"data_type": "uint8", "out_of_range": "clamp",
        "scalar_map": {"encode": [["NaN", 0]], "decode": [[0, "NaN"]]}}},
      {"name": "bytes"}]}"#,
    // Fused, big-endian 16-bit.
    r#"{"data_type": "float32", "fill_value": 0, "chunk_shape": [300, 300], "codecs": [
      {"name": "scale_offset", "configuration": {"offset": 0, "scale": 100}},
      {"name": "cast_value", "configuration": {"data_type": "int16", "out_of_range": "clamp"}},
      {"name": "bytes", "configuration": {"endian": "big"}}]}"#,
    // Codec by codec.
    r#"{"data_type": "int32", "fill_value": 3, "chunk_shape": [6, 9], "codecs": [
      {"name": "scale_offset", "configuration": {"offset": 3, "scale": 2}},
      {"name": "bytes", "configuration": {"endian": "little"}}]}"#,
    r#"{"data_type": "float64", "fill_value": 0, "chunk_shape": [11], "codecs": [
      {"name": "bytes", "configuration": {"endian": "big"}}]}"#,
];

fn chain(i: usize) -> Chain {
    Chain::from_metadata(&parse(CHAINS[i]).expect("json")).expect("chain")
}

/// The element bits of a chunk's values.
fn bits(data: &ArrayData) -> Vec<u64> {
    (0..data.len())
        .map(|i| {
            let s = data.get(i).expect("element");
            let b = s.to_le_bytes();
            let mut w = [0u8; 8];
            w[..b.len()].copy_from_slice(&b);
            u64::from_le_bytes(w)
        })
        .collect()
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(200))]
    #[test]
    fn boxes_decode_as_the_whole_chunk_does(
        which in 0..CHAINS.len(),
        seed in any::<u64>(),
        picks in proptest::collection::vec((0usize..400, 1usize..4, 1usize..400), 3),
        tile in 1usize..700,
    ) {
        let chain = chain(which);
        let shape = chain.chunk_shape().to_vec();
        let size = chain.encoded_data_type().size();
        let mut state = seed | 1;
        let stored: Vec<u8> = (0..chain.len() * size)
            .map(|_| {
                state ^= state << 13;
                state ^= state >> 7;
                state ^= state << 17;
                // Mostly small codes, so that casts and scale_offset stay in range.
                if which == 2 { (state % 7) as u8 & if state % 2 == 0 { 0 } else { 0xff } } else { state as u8 }
            })
            .collect();
        let whole = match chain.decode(&stored) {
            Ok(w) => w,
            Err(_) => return Ok(()),
        };
        let region: Vec<Span> = shape
            .iter()
            .zip(&picks)
            .map(|(&d, &(first, step, count))| {
                let first = first % d;
                let count = 1 + (count - 1) % ((d - first).div_ceil(step));
                Span { first, step, count }
            })
            .collect();
        let n = chain.check_region(&stored, &region).expect("region");
        let mut gather = Vec::new();
        let mut out = ArrayData::filled(Scalar::from_i128(DataType::UInt8, 0).expect("0"), 0);
        let mut got = Vec::new();
        let mut from = 0;
        while from < n {
            let k = tile.min(n - from);
            chain.decode_region(&stored, &chain.c_strides(), &region, from, k, &mut gather, &mut out).expect("tile");
            prop_assert_eq!(out.len(), k);
            got.extend(bits(&out));
            from += k;
        }
        // The same positions of the whole chunk, C order.
        let all = bits(&whole);
        let strides: Vec<usize> = (0..shape.len()).map(|k| shape[k + 1..].iter().product()).collect();
        let mut want = Vec::new();
        let counts: Vec<usize> = region.iter().map(|s| s.count).collect();
        for flat in 0..n {
            let mut rest = flat;
            let mut at = 0;
            for k in (0..shape.len()).rev() {
                let i = rest % counts[k];
                rest /= counts[k];
                at += (region[k].first + i * region[k].step) * strides[k];
            }
            want.push(all[at]);
        }
        prop_assert_eq!(got, want);
    }
}

#[test]
fn boxes_outside_the_chunk_and_stored_chunks_of_the_wrong_length_are_refused() {
    let chain = chain(0);
    let stored = vec![1u8; chain.len()];
    let outside = [
        Span {
            first: 4,
            step: 1,
            count: 2,
        },
        Span {
            first: 0,
            step: 1,
            count: 1,
        },
        Span {
            first: 0,
            step: 1,
            count: 1,
        },
    ];
    assert_eq!(
        chain.check_region(&stored, &outside).unwrap_err().code(),
        "INVALID_METADATA"
    );
    let fine = [
        Span {
            first: 4,
            step: 1,
            count: 1,
        },
        Span {
            first: 0,
            step: 3,
            count: 3,
        },
        Span {
            first: 2,
            step: 1,
            count: 1,
        },
    ];
    assert_eq!(chain.check_region(&stored, &fine).expect("inside"), 3);
    for len in [chain.len() - 1, chain.len() + 1] {
        assert_eq!(
            chain
                .check_region(&vec![1u8; len], &fine)
                .unwrap_err()
                .code(),
            "CHUNK_LENGTH"
        );
    }
}

#[test]
fn sharded_layouts_and_fallbacks() {
    let meta = |codecs: &str| {
        parse(&format!(
            r#"{{"zarr_format": 3, "node_type": "array", "shape": [37, 53], "data_type": "float64",
            "chunk_grid": {{"name": "regular", "configuration": {{"chunk_shape": [32, 32]}}}},
            "chunk_key_encoding": {{"name": "default", "configuration": {{"separator": "/"}}}},
            "fill_value": "NaN", "codecs": {codecs}}}"#
        ))
        .expect("json")
    };
    let sharded = meta(
        r#"[{"name": "sharding_indexed", "configuration": {"chunk_shape": [16, 16],
          "codecs": [{"name": "bytes", "configuration": {"endian": "little"}}, {"name": "gzip", "configuration": {"level": 1}}],
          "index_codecs": [{"name": "bytes", "configuration": {"endian": "little"}}, {"name": "crc32c"}],
          "index_location": "start"}}]"#,
    );
    let Opened::Layout(layout) = open(&sharded).expect("open") else {
        panic!("sharded arrays are read in place");
    };
    let shard = layout.shard.as_ref().expect("shard");
    assert_eq!(shard.inner_chunk_shape, [16, 16]);
    assert_eq!(shard.levels.len(), 1);
    assert!(!shard.levels[0].index_at_end);
    assert_eq!(layout.chain.chunk_shape(), [16, 16]);
    assert_eq!(layout.compressors.len(), 1);
    // Nested (zarr-python 3.4.2's metadata for sharding_indexed inside sharding_indexed): the
    // chain decodes the innermost chunks, each level keeps its own index.
    let nested = meta(
        r#"[{"name": "sharding_indexed", "configuration": {"chunk_shape": [16, 8],
          "codecs": [{"name": "sharding_indexed", "configuration": {"chunk_shape": [4, 8],
            "codecs": [{"name": "bytes", "configuration": {"endian": "little"}}, {"name": "zstd", "configuration": {"level": 0, "checksum": false}}],
            "index_codecs": [{"name": "bytes", "configuration": {"endian": "big"}}], "index_location": "start"}}],
          "index_codecs": [{"name": "bytes", "configuration": {"endian": "little"}}, {"name": "crc32c"}],
          "index_location": "end"}}]"#,
    );
    let Opened::Layout(layout) = open(&nested).expect("open") else {
        panic!("nested shards are read in place");
    };
    let shard = layout.shard.as_ref().expect("shard");
    assert_eq!(shard.inner_chunk_shape, [4, 8]);
    assert_eq!(layout.chain.chunk_shape(), [4, 8]);
    assert_eq!(layout.chunks_per_shard(), 32);
    let levels: Vec<_> = shard
        .levels
        .iter()
        .map(|l| {
            (
                l.chunk_shape.clone(),
                l.index_at_end,
                l.index_compressors.len(),
            )
        })
        .collect();
    assert_eq!(levels, [(vec![16, 8], true, 1), (vec![4, 8], false, 0)]);
    assert_eq!(layout.compressors.len(), 1);
    // An inner sharding_indexed with other codecs after it is refused (zarrita would take the
    // sharding codec alone and drop the others).
    let around = meta(
        r#"[{"name": "sharding_indexed", "configuration": {"chunk_shape": [16, 8],
          "codecs": [{"name": "sharding_indexed", "configuration": {"chunk_shape": [4, 8],
            "codecs": [{"name": "bytes", "configuration": {"endian": "little"}}]}}, {"name": "gzip", "configuration": {"level": 1}}]}}]"#,
    );
    assert_eq!(open(&around).map(|_| ()).unwrap_err().code(), "UNSUPPORTED");
    // A transpose before sharding_indexed turns the shard (32 x 32 here): the inner chunk
    // shape is given in the turned order ([16, 8] is 8 rows of 16 columns), the index lists
    // the chunks in C order over (columns, rows), and the inner chain's own transpose
    // composes with it (each chunk then stored as the array's rows and columns are).
    let turned = meta(
        r#"[{"name": "transpose", "configuration": {"order": [1, 0]}}, {"name": "sharding_indexed", "configuration": {"chunk_shape": [16, 8],
          "codecs": [{"name": "transpose", "configuration": {"order": [1, 0]}}, {"name": "bytes", "configuration": {"endian": "little"}}]}}]"#,
    );
    let Opened::Layout(layout) = open(&turned).expect("open") else {
        panic!("a shard a transpose turns is read in place");
    };
    let shard = layout.shard.as_ref().expect("shard");
    assert_eq!(shard.inner_chunk_shape, [8, 16]);
    assert_eq!(shard.levels[0].chunk_shape, [8, 16]);
    assert_eq!(shard.levels[0].index_order.as_deref(), Some(&[1, 0][..]));
    assert_eq!(layout.order, None, "two transposes (1, 0) undo each other");
    // An inner chunk shape that does not divide the turned shard is refused.
    let uneven = meta(
        r#"[{"name": "transpose", "configuration": {"order": [1, 0]}}, {"name": "sharding_indexed", "configuration": {"chunk_shape": [16, 3],
          "codecs": [{"name": "bytes", "configuration": {"endian": "little"}}]}}]"#,
    );
    assert_eq!(
        open(&uneven).map(|_| ()).unwrap_err().code(),
        "INVALID_METADATA"
    );
    let transposed = meta(
        r#"[{"name": "transpose", "configuration": {"order": [1, 0]}}, {"name": "bytes", "configuration": {"endian": "little"}}]"#,
    );
    let Opened::Layout(layout) = open(&transposed).expect("open") else {
        panic!("a transpose is read in place");
    };
    assert_eq!(layout.order.as_deref(), Some(&[1, 0][..]));
    // numcodecs' delta runs on the bytes `bytes` lays out: the chain's bytes little-endian,
    // delta the first of the compressors (its astype in the byte order stored).
    let codecs = r#"[{"name": "numcodecs.delta", "configuration": {"dtype": "<f8", "astype": "<f4"}}, {"name": "bytes", "configuration": {"endian": "big"}}]"#;
    let Opened::Layout(layout) = open(&meta(codecs)).expect("open") else {
        panic!("delta is read in place: {codecs}");
    };
    assert_eq!(
        layout.compressors[0].to_string(),
        r#"{"configuration":{"astype":">f4","dtype":"<f8"},"name":"numcodecs.delta"}"#
    );
    assert_eq!(layout.stored_item_size(), 4);
    // After another array -> array codec it is left to zarrita.
    let codecs = r#"[{"name": "numcodecs.delta", "configuration": {"dtype": "<f8"}}, {"name": "scale_offset", "configuration": {"scale": 2}}, {"name": "bytes", "configuration": {"endian": "little"}}]"#;
    assert!(
        matches!(open(&meta(codecs)).expect("open"), Opened::Unsupported(_)),
        "{codecs}"
    );
    // zfp and pcodec decode whole chunks in modules of their own: the layout names the codec,
    // the data type it receives and the chunk shape it sees (a transpose's order first), and
    // the chain reads what they decode to as little-endian bytes; compressors after them stay.
    let whole = meta(
        r#"[{"name": "transpose", "configuration": {"order": [1, 0]}},
          {"name": "scale_offset", "configuration": {"offset": 0, "scale": 10}},
          {"name": "cast_value", "configuration": {"data_type": "int32", "scalar_map": {"encode": [["NaN", -1]]}}},
          {"name": "zfp", "configuration": {"mode": "reversible"}}, {"name": "zstd", "configuration": {"level": 1}}]"#,
    );
    let Opened::Layout(layout) = open(&whole).expect("open") else {
        panic!("zfp is read through its module");
    };
    let json = layout.to_json();
    assert_eq!(
        json.get("serializer").expect("serializer").to_string(),
        r#"{"chunk_shape":[32,32],"codec":{"configuration":{"mode":"reversible"},"name":"zfp"},"data_type":"int32","module":"zfp"}"#
    );
    assert_eq!(layout.stored_chunk_shape(), [32, 32]);
    // Before a whole-chunk serializer a chunk's size after its bytes -> bytes codecs varies.
    assert!(json.get("decoded_bytes").is_some_and(|v| v.is_null()));
    assert_eq!(layout.compressors.len(), 1);
    let pcodec = parse(
        r#"{"zarr_format": 3, "node_type": "array", "shape": [5, 7, 9], "data_type": "float32",
        "chunk_grid": {"name": "regular", "configuration": {"chunk_shape": [2, 3, 4]}},
        "fill_value": 0, "codecs": [{"name": "transpose", "configuration": {"order": [2, 0, 1]}},
        {"name": "numcodecs.pcodec", "configuration": {"level": 4}}]}"#,
    )
    .expect("json");
    let Opened::Layout(layout) = open(&pcodec).expect("open") else {
        panic!("pcodec is read through its module");
    };
    assert_eq!(layout.stored_chunk_shape(), [4, 2, 3]);
    assert_eq!(
        layout
            .to_json()
            .get("serializer")
            .expect("serializer")
            .to_string(),
        r#"{"chunk_shape":[4,2,3],"codec":{"configuration":{"level":4},"name":"numcodecs.pcodec"},"data_type":"float32","module":"pcodec"}"#
    );
    // Without one, the serializer is null.
    assert_eq!(
        open(&transposed)
            .map(|o| match o {
                Opened::Layout(l) => l.to_json().get("serializer").map(|v| v.to_string()),
                Opened::Unsupported(_) => None,
            })
            .expect("open"),
        Some("null".to_string())
    );
}

#[test]
fn integers_beyond_2_53_stay_exact_for_javascript_and_floats_there_are_not_integers() {
    let meta = parse(
        r#"{"fill_value": 9007199254740993, "codecs": [{"name": "scale_offset",
          "configuration": {"offset": -9223372036854775808, "scale": 9007199254740991}}],
          "attributes": {"big": 9007199254740993}}"#,
    )
    .expect("json");
    assert_eq!(
        exact_for_javascript(&meta).to_string(),
        r#"{"attributes":{"big":9007199254740993},"codecs":[{"configuration":{"offset":"-9223372036854775808","scale":9007199254740991},"name":"scale_offset"}],"fill_value":"9007199254740993"}"#
    );
    let float = parse("9.007199254740992e15").expect("json");
    let err = Scalar::from_json(DataType::Int64, &float).unwrap_err();
    assert_eq!(err.code(), "INEXACT_NUMBER");
    assert_eq!(
        Scalar::from_json(DataType::Float64, &float)
            .expect("float")
            .as_f64(),
        Some(9007199254740992.0)
    );
    // Below 2^53 an integral float is still an integer, as the reference reads it.
    let small = parse("9.007199254740991e15").expect("json");
    assert_eq!(
        Scalar::from_json(DataType::Int64, &small)
            .expect("int")
            .as_i128(),
        Some(9007199254740991)
    );
}

/// A chunk stored transposed (the transpose codec, as zarr's spec defines it: stored dimension
/// `i` is the array's dimension `order[i]`) reads each box in the array's own order.
#[test]
fn transposed_chunks_are_gathered_in_the_arrays_order() {
    let meta = parse(
        r#"{"zarr_format": 3, "node_type": "array", "shape": [3, 4, 5], "data_type": "float64",
        "chunk_grid": {"name": "regular", "configuration": {"chunk_shape": [3, 4, 5]}},
        "fill_value": 0, "codecs": [{"name": "transpose", "configuration": {"order": [2, 0, 1]}},
        {"name": "bytes", "configuration": {"endian": "little"}}]}"#,
    )
    .expect("json");
    let Opened::Layout(layout) = open(&meta).expect("open") else {
        panic!("read in place");
    };
    let mut reader = zarr_wasm_codecs::layout::ChunkReader::new(*layout);
    // Stored shape [5, 3, 4]: the element at array index (i, j, k) is stored at (k, i, j);
    // each stored element holds its stored position.
    let stored: Vec<u8> = (0..60).flat_map(|p| f64::from(p).to_le_bytes()).collect();
    for region in [[0u32, 1, 3, 0, 1, 4, 0, 1, 5], [1, 1, 2, 0, 3, 2, 1, 2, 2]] {
        let n = reader.set_chunk(stored.clone(), &region).expect("region");
        let got = bits(reader.decode_tile(0, n).expect("tile"));
        let axis = |d: usize| {
            (0..region[3 * d + 2] as usize)
                .map(move |x| region[3 * d] as usize + x * region[3 * d + 1] as usize)
        };
        let mut want = Vec::new();
        for i in axis(0) {
            for j in axis(1) {
                for k in axis(2) {
                    want.push((k * 12 + i * 4 + j) as f64);
                }
            }
        }
        assert_eq!(
            got,
            want.iter().map(|v| v.to_bits()).collect::<Vec<_>>(),
            "{region:?}"
        );
    }
}

/// zarr-extensions' `reshape` (codecs/reshape/README.md): the output shape the codecs after it
/// see, from the spec's own example and its rules; the elements stay in C order, so the layout
/// keeps it as that shape alone.
#[test]
fn reshape_gives_the_shape_the_next_codecs_see_and_refuses_what_the_spec_forbids() {
    let meta = |chunks: &str, shape: &str, after: &str| {
        parse(&format!(
            r#"{{"zarr_format": 3, "node_type": "array", "shape": {chunks}, "data_type": "uint16",
            "chunk_grid": {{"name": "regular", "configuration": {{"chunk_shape": {chunks}}}}},
            "chunk_key_encoding": {{"name": "default", "configuration": {{"separator": "/"}}}},
            "fill_value": 0, "codecs": [{{"name": "reshape", "configuration": {{"shape": {shape}}}}}{after},
              {{"name": "bytes", "configuration": {{"endian": "little"}}}}]}}"#
        ))
        .expect("json")
    };
    let shape_of = |chunks: &str, shape: &str| match open(&meta(chunks, shape, "")) {
        Ok(Opened::Layout(layout)) => Ok(layout.stored_chunk_shape()),
        Ok(Opened::Unsupported(why)) => panic!("unsupported: {why}"),
        Err(e) => Err(e.code()),
    };
    // The spec's example: chunks [100, 50, 64, 3] with [[0, 1], [2], 3].
    assert_eq!(
        shape_of("[100, 50, 64, 3]", "[[0, 1], [2], 3]"),
        Ok(vec![5000, 64, 3])
    );
    assert_eq!(shape_of("[4, 6, 8]", "[-1]"), Ok(vec![192]));
    assert_eq!(shape_of("[4, 6, 8]", "[[0], -1]"), Ok(vec![4, 48]));
    assert_eq!(shape_of("[4, 6]", "[2, 2, [1]]"), Ok(vec![2, 2, 6]));
    // The spec's forbidden orders, -1 twice, a product that is not the chunk's, and a size
    // given by input dimensions that does not line up with them.
    for (chunks, shape) in [
        ("[4, 6]", "[[1], [0]]"),
        ("[4, 6, 8, 9, 2]", "[[1, 0], 10, [3, 4]]"),
        ("[4, 6, 8, 9, 2]", "[[3, 4], 10, [0, 1]]"),
        ("[4, 6]", "[-1, -1]"),
        ("[4, 6]", "[5, -1]"),
        ("[4, 6]", "[25]"),
        ("[4, 6]", "[3, [0], 2]"),
        ("[4, 6]", "[[2]]"),
        ("[4, 6]", "[0, 24]"),
        ("[4, 6]", "\"24\""),
    ] {
        assert_eq!(
            shape_of(chunks, shape),
            Err("INVALID_CONFIG"),
            "{chunks} {shape}"
        );
    }
    // A transpose after it would move elements in the new shape: not read here.
    let transposed = meta(
        "[4, 6]",
        "[-1]",
        r#", {"name": "transpose", "configuration": {"order": [0]}}"#,
    );
    assert!(matches!(open(&transposed), Ok(Opened::Unsupported(_))));
}

/// zarr-extensions' rectilinear grid (chunk-grids/rectilinear/README.md): the spec's own
/// example, its edges as runs cut where the array ends, the first chunk's shape as the
/// layout's, another chunk shape on request, and edges that do not reach the array's end.
#[test]
fn rectilinear_grids_read_as_runs_of_edges() {
    let meta = |shapes: &str| {
        parse(&format!(
            r#"{{"zarr_format": 3, "node_type": "array", "shape": [6, 6, 6, 6, 6], "data_type": "int8",
            "chunk_grid": {{"name": "rectilinear", "configuration": {{"kind": "inline", "chunk_shapes": {shapes}}}}},
            "chunk_key_encoding": {{"name": "default", "configuration": {{"separator": "/"}}}},
            "fill_value": 0, "codecs": [{{"name": "bytes"}}]}}"#
        ))
        .expect("json")
    };
    let example = meta("[4, [1, 2, 3], [[4, 2]], [[1, 3], 3], [4, 4, 4]]");
    let Ok(Opened::Layout(layout)) = open(&example) else {
        panic!("the spec's example is read");
    };
    let runs = |v: &[(usize, u64)]| v.to_vec();
    let edges = layout.edges.as_ref().expect("edges");
    assert_eq!(edges[0], runs(&[(4, 2)]));
    assert_eq!(edges[1], runs(&[(1, 1), (2, 1), (3, 1)]));
    assert_eq!(edges[2], runs(&[(4, 2)]));
    assert_eq!(edges[3], runs(&[(1, 3), (3, 1)]));
    // (The third 4 lies wholly outside the array.)
    assert_eq!(edges[4], runs(&[(4, 1), (4, 1)]));
    assert_eq!(layout.grid_chunk_shape, [4, 1, 4, 1, 4]);
    assert_eq!(layout.chain.chunk_shape(), [4, 1, 4, 1, 4]);
    let Ok(Opened::Layout(other)) =
        zarr_wasm_codecs::layout::open_with(&example, Some(&[4, 3, 4, 3, 4]))
    else {
        panic!("another chunk shape of the grid");
    };
    assert_eq!(other.chain.chunk_shape(), [4, 3, 4, 3, 4]);
    let code = |r: zarr_wasm_codecs::error::Result<Opened>| r.err().map(|e| e.code());
    assert_eq!(
        code(zarr_wasm_codecs::layout::open_with(
            &example,
            Some(&[4, 5, 4, 3, 4])
        )),
        Some("INVALID_METADATA")
    );
    for bad in [
        "[4, [1, 2, 2], 6, 6, 6]",
        "[4, [[1, 5]], 6, 6, 6]",
        "[0, 6, 6, 6, 6]",
        "[4, [[2]], 6, 6, 6]",
        "[4, 6, 6, 6]",
    ] {
        assert_eq!(code(open(&meta(bad))), Some("INVALID_METADATA"), "{bad}");
    }
}
