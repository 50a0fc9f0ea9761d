//! Entry points for the fuzz targets (`fuzz/`) and for the test that replays their corpus
//! (`tests/fuzz_corpus.rs`): each takes arbitrary bytes and must return without panicking,
//! hanging or allocating more than the chunk shape asks for. Results are checked for the
//! promises that hold on any input (an encode that succeeds decodes again; a decode has the
//! chunk's length).

use crate::array::ArrayData;
use crate::codec::Chain;
use crate::dtype::{DataType, ALL_DATA_TYPES};
use crate::json::{self, Value};

/// Chains the decode and encode targets run, with every array -> array codec feature: the
/// design case, both endians, clamp, wrap, scalar_maps with hex and infinities, integer and
/// float scale_offset, float -> float casts, float16, 64-bit types. Each with whether its
/// decode may refuse what its encode wrote, by the integer scale_offset's exact rules: a wrapped value need not be a multiple of
/// the scale, and lossy zfp can rebuild integers that the offset then takes out of the type.
const CHAINS: [(&str, bool); 12] = [
    (
        r#"{"data_type":"float64","fill_value":"NaN","codecs":[{"name":"scale_offset","configuration":{"offset":-10,"scale":10}},{"name":"cast_value","configuration":{"data_type":"uint8","out_of_range":"clamp","scalar_map":{"encode":[["NaN",0]],"decode":[[0,"NaN"]]}}},{"name":"bytes"}]}"#,
        false,
    ),
    (
        r#"{"data_type":"float32","fill_value":"NaN","codecs":[{"name":"scale_offset","configuration":{"offset":273.15,"scale":100}},{"name":"cast_value","configuration":{"data_type":"int16","rounding":"towards-zero","scalar_map":{"encode":[["NaN",-32768],["Infinity",32767],["-Infinity",-32767]],"decode":[[-32768,"NaN"],[32767,"Infinity"],[-32767,"-Infinity"]]}}},{"name":"bytes","configuration":{"endian":"big"}}]}"#,
        false,
    ),
    (
        r#"{"data_type":"int32","fill_value":7,"codecs":[{"name":"scale_offset","configuration":{"offset":5,"scale":3}},{"name":"cast_value","configuration":{"data_type":"int8","out_of_range":"wrap"}},{"name":"bytes"}]}"#,
        true,
    ),
    (
        r#"{"data_type":"int64","fill_value":0,"codecs":[{"name":"scale_offset","configuration":{"offset":"-9223372036854775800","scale":2}},{"name":"bytes","configuration":{"endian":"little"}}]}"#,
        false,
    ),
    (
        r#"{"data_type":"uint64","fill_value":0,"codecs":[{"name":"cast_value","configuration":{"data_type":"float32","rounding":"nearest-away","out_of_range":"clamp"}},{"name":"bytes","configuration":{"endian":"little"}}]}"#,
        false,
    ),
    (
        r#"{"data_type":"float64","fill_value":"0x7ff8000000000001","codecs":[{"name":"cast_value","configuration":{"data_type":"float16","rounding":"towards-negative","out_of_range":"clamp","scalar_map":{"encode":[["0x7ff8000000000001","0x7e01"]],"decode":[["0x7e01","0x7ff8000000000001"]]}}},{"name":"bytes","configuration":{"endian":"big"}}]}"#,
        false,
    ),
    (
        r#"{"data_type":"float16","fill_value":"-Infinity","codecs":[{"name":"scale_offset","configuration":{"offset":1.5,"scale":0.25}},{"name":"cast_value","configuration":{"data_type":"uint16","out_of_range":"clamp","scalar_map":{"encode":[["NaN",65535],["-Infinity",0]],"decode":[[65535,"NaN"]]}}},{"name":"bytes","configuration":{"endian":"little"}}]}"#,
        false,
    ),
    (
        r#"{"data_type":"uint16","fill_value":1,"codecs":[{"name":"cast_value","configuration":{"data_type":"uint32"}},{"name":"scale_offset","configuration":{"offset":1,"scale":65536}},{"name":"bytes","configuration":{"endian":"big"}}]}"#,
        false,
    ),
    (
        r#"{"data_type":"float32","fill_value":0,"codecs":[{"name":"cast_value","configuration":{"data_type":"int64","rounding":"towards-positive"}},{"name":"bytes","configuration":{"endian":"little"}}]}"#,
        false,
    ),
    (
        r#"{"data_type":"int8","fill_value":-1,"codecs":[{"name":"cast_value","configuration":{"data_type":"float64"}},{"name":"scale_offset","configuration":{"offset":0.5,"scale":"NaN"}},{"name":"bytes"}]}"#,
        false,
    ),
    (
        r#"{"data_type":"float64","fill_value":"NaN","codecs":[{"name":"zfp","configuration":{"mode":"reversible"}}]}"#,
        false,
    ),
    (
        r#"{"data_type":"int16","fill_value":0,"codecs":[{"name":"scale_offset","configuration":{"offset":-3,"scale":1}},{"name":"zfp","configuration":{"mode":"fixed_precision","precision":12}}]}"#,
        true,
    ),
];

/// A chain from the list, with a chunk shape of 1 to 4 dimensions of 1 to 8 elements chosen
/// by the first bytes; the rest of the input is returned.
fn chosen_chain(data: &[u8]) -> Option<(Chain, bool, &[u8])> {
    let (&pick, rest) = data.split_first()?;
    let (&dims, rest) = rest.split_first()?;
    let index = usize::from(pick) % CHAINS.len();
    let &(text, lossy) = CHAINS.get(index)?;
    let ndim = 1 + usize::from(dims % 4);
    let shape: Vec<usize> = (0..ndim)
        .map(|i| 1 + usize::from((dims >> (2 + i)) % 8))
        .collect();
    let meta = json::parse(text).ok()?;
    let chain = Chain::new(
        meta.get("data_type")?,
        meta.get("fill_value")?,
        meta.get("codecs")?,
        &shape,
    )
    .ok()?;
    Some((chain, lossy, rest))
}

/// Arbitrary text as array metadata: parsed, built into a chain, written back and built again.
pub fn metadata(data: &[u8]) {
    let Ok(text) = std::str::from_utf8(data) else {
        return;
    };
    let Ok(meta) = json::parse(text) else {
        return;
    };
    if let Ok(chain) = Chain::from_metadata(&meta) {
        let again = Chain::new(
            &Value::from(chain.data_type().name()),
            &chain.fill_value().to_json(),
            &chain.codecs_json(),
            chain.chunk_shape(),
        );
        assert!(
            again.is_ok(),
            "a chain's own metadata builds it again: {again:?}"
        );
    }
}

/// Arbitrary text as an array's metadata (zarr.json, or a zarr v2 `.zarray` under "zarray"),
/// read as the JavaScript side reads it: a layout whose grid, shards, codecs and chain are all
/// read must write itself out (its JSON), count its inner chunks without overflow, and, for a
/// rectilinear grid, open again for each of its chunk shapes; every failure is an error with a
/// code, never a panic.
pub fn layout(data: &[u8]) {
    let Ok(text) = std::str::from_utf8(data) else {
        return;
    };
    let Ok(meta) = json::parse(text) else {
        return;
    };
    let Ok((meta, crate::layout::Opened::Layout(layout))) = crate::layout::open_any(meta) else {
        return;
    };
    let _ = layout.to_json().to_string();
    let _ = layout.chunks_per_shard();
    if let Some(edges) = &layout.edges {
        let lanes = usize::from(layout.lanes > 1);
        // Each dimension's last chunk size with the others' first: a shape of the grid.
        let shape: Vec<usize> = edges[..edges.len() - lanes]
            .iter()
            .enumerate()
            .map(|(d, runs)| match d {
                0 => runs.last().map_or(1, |r| r.0),
                _ => runs.first().map_or(1, |r| r.0),
            })
            .collect();
        let again = crate::layout::open_any_with(meta, Some(&shape));
        assert!(
            again.is_ok(),
            "a rectilinear grid opens for one of its chunk shapes"
        );
    }
}

/// Arbitrary bytes as a stored chunk of a chain from the list.
pub fn decode(data: &[u8]) {
    let Some((chain, _, stored)) = chosen_chain(data) else {
        return;
    };
    if let Ok(values) = chain.decode(stored) {
        assert_eq!(
            values.len(),
            chain.len(),
            "a decoded chunk has the chunk's length"
        );
        assert_eq!(values.data_type(), chain.data_type());
    }
}

/// Arbitrary bytes as a chunk's values (NaN, infinities, subnormals, extremes included) for a
/// chain from the list: an encode that succeeds decodes again (unless the chain is lossy).
pub fn encode(data: &[u8]) {
    let Some((chain, lossy, raw)) = chosen_chain(data) else {
        return;
    };
    let dtype = chain.data_type();
    let want = chain.len() * dtype.size();
    let mut bytes: Vec<u8> = raw.iter().copied().cycle().take(want).collect();
    if bytes.len() < want {
        bytes.resize(want, 0);
    }
    let Ok(values) = ArrayData::from_le_bytes(dtype, &bytes) else {
        return;
    };
    if let Ok(stored) = chain.encode(&values) {
        let back = chain.decode(&stored);
        assert!(lossy || back.is_ok(), "an encoded chunk decodes: {back:?}");
        if let Ok(back) = back {
            assert_eq!(back.len(), values.len());
        }
    }
}

/// Arbitrary bytes as a zfp stream, for a mode, data type and chunk shape chosen by the first
/// bytes. Memory is sized by the shape (at most 8^4 values here), never by the stream.
pub fn zfp_decode(data: &[u8]) {
    let [mode, dtype, dims, param, rest @ ..] = data else {
        return;
    };
    let Some(&dtype) = ALL_DATA_TYPES.get(usize::from(*dtype) % ALL_DATA_TYPES.len()) else {
        return;
    };
    let config = match mode % 5 {
        0 => r#"{"mode":"reversible"}"#.to_string(),
        1 => format!(r#"{{"mode":"fixed_rate","rate":{}}}"#, 1 + param % 64),
        2 => format!(
            r#"{{"mode":"fixed_precision","precision":{}}}"#,
            1 + param % 64
        ),
        3 => format!(
            r#"{{"mode":"fixed_accuracy","tolerance":{}}}"#,
            0.5f64.powi(i32::from(*param % 40))
        ),
        _ => format!(
            r#"{{"mode":"expert","minbits":{},"maxbits":{},"maxprec":{},"minexp":{}}}"#,
            param % 16,
            16 + u32::from(*param) * 16,
            1 + param % 64,
            -1074 + i32::from(*param) * 4
        ),
    };
    let ndim = usize::from(dims % 5);
    let shape: Vec<usize> = (0..ndim)
        .map(|i| 1 + usize::from((dims >> i) % 8))
        .collect();
    zfp_decode_with(&config, dtype, &shape, rest);
}

#[cfg(feature = "zfp")]
fn zfp_decode_with(config: &str, dtype: DataType, shape: &[usize], stream: &[u8]) {
    let Ok(config) = json::parse(config) else {
        return;
    };
    let Ok(codec) = crate::codec::zfp::Zfp::new(Some(&config), dtype, shape) else {
        return;
    };
    if let Ok(values) = codec.decode(stream) {
        assert_eq!(values.len(), shape.iter().product::<usize>());
    }
}

#[cfg(not(feature = "zfp"))]
fn zfp_decode_with(_: &str, _: DataType, _: &[usize], _: &[u8]) {}

/// Arbitrary bytes as a zfp stream, decoded by the package's own zfp decoder and by zfp-rs
/// (the reference), for a mode, data type and chunk shape chosen by the first bytes as in
/// `zfp_decode`; the mode byte's upper part varies the parameters further (fractional rates,
/// budgets below a float block's header, minbits == maxbits, minexp below -1074: zfp's
/// reversible mode).
/// Both give the same values, bit for bit, or both refuse the stream; the decoder may also
/// refuse (CHUNK_LENGTH) a stream whose length is not a whole number of 64-bit words, which
/// zfp-rs reads as padded with zeros.
#[cfg(feature = "zfp")]
pub fn zfp_kernel(data: &[u8]) {
    let [mode, dtype, dims, param, stream @ ..] = data else {
        return;
    };
    let Some(&dtype) = ALL_DATA_TYPES.get(usize::from(*dtype) % ALL_DATA_TYPES.len()) else {
        return;
    };
    let (more, param) = (u32::from(mode / 5), u32::from(*param));
    let config = match mode % 5 {
        // zfp_decode's reversible: a fixed budget of any size (0 to 2047 bits), with a
        // precision and minimum exponent that vary with it.
        0 => {
            let bits = param + 256 * (more % 8);
            format!(
                r#"{{"mode":"expert","minbits":{bits},"maxbits":{bits},"maxprec":{},"minexp":{}}}"#,
                1 + more * 5 % 64,
                -1074 + 20 * more as i32
            )
        }
        1 => format!(
            r#"{{"mode":"fixed_rate","rate":{}}}"#,
            f64::from(8 + 4 * param + more % 4) / 16.0
        ),
        2 => format!(
            r#"{{"mode":"fixed_precision","precision":{}}}"#,
            1 + (param + more) % 64
        ),
        3 => format!(
            r#"{{"mode":"fixed_accuracy","tolerance":{}}}"#,
            2f64.powi(3 - (param % 48) as i32) * (1.0 + f64::from(more) / 52.0)
        ),
        _ => {
            let maxbits = if more & 2 == 0 {
                16 + param * 16
            } else {
                param % 24
            };
            let minbits = if more & 1 == 0 {
                (param % 16).min(maxbits)
            } else {
                maxbits
            };
            format!(
                r#"{{"mode":"expert","minbits":{minbits},"maxbits":{maxbits},"maxprec":{},"minexp":{}}}"#,
                1 + (param + 7 * more) % 64,
                -1098 + 4 * param as i32 + 8 * (more >> 2) as i32
            )
        }
    };
    let ndim = usize::from(dims % 5);
    let shape: Vec<usize> = (0..ndim)
        .map(|i| 1 + usize::from((dims >> i) % 8))
        .collect();
    let Ok(config) = json::parse(&config) else {
        return;
    };
    let Ok(codec) = crate::codec::zfp::Zfp::new(Some(&config), dtype, &shape) else {
        return;
    };
    let case = || {
        format!(
            "{dtype} {shape:?} {config}, a stream of {} bytes",
            stream.len()
        )
    };
    match (
        codec.decode_with_kernel(stream),
        codec.decode_with_zfp_rs(stream),
    ) {
        (Ok(ours), Ok(theirs)) => assert!(
            ours.to_le_bytes() == theirs.to_le_bytes(),
            "{}: the decoder's values differ from zfp-rs's",
            case()
        ),
        (Err(_), Err(_)) => {}
        (Err(e), Ok(_)) => assert!(
            !stream.len().is_multiple_of(8) && e.code() == "CHUNK_LENGTH",
            "{}: the decoder refuses ({e}) what zfp-rs decodes",
            case()
        ),
        (Ok(_), Err(e)) => panic!("{}: the decoder decodes what zfp-rs refuses ({e})", case()),
    }
}

/// Arbitrary bytes as one bytes -> bytes codec's stored chunk (the blosc, zstd, lz4 and
/// deflate targets): the first byte says whether the size the chunk must decode to is known
/// and, with the next two, what it is (up to 64 KiB); the rest is the stream. A decode that
/// succeeds has that size, or stays within the limit (1 MiB) when the size is not known; any
/// input returns without panicking, and nothing larger is allocated for it.
#[cfg(feature = "compress")]
pub fn decompress(codec: crate::codec::bytes_to_bytes::BytesCodec, data: &[u8]) {
    const LIMIT: usize = 1 << 20;
    let Some((&[mode, a, b], stream)) = data.split_first_chunk::<3>() else {
        return;
    };
    let expected = (mode & 1 == 1).then_some(usize::from(u16::from_le_bytes([a, b])));
    if let Ok(out) = codec.decode(stream, expected, LIMIT) {
        match expected {
            Some(n) => assert_eq!(out.len(), n),
            None => assert!(out.len() <= LIMIT),
        }
    }
}

/// The deflate target: gzip or zlib, chosen by the first byte's second bit.
#[cfg(feature = "compress")]
pub fn deflate(data: &[u8]) {
    use crate::codec::bytes_to_bytes::BytesCodec;
    let codec = match data.first() {
        Some(b) if b & 2 == 2 => BytesCodec::Zlib { level: 1 },
        _ => BytesCodec::Gzip { level: 1 },
    };
    decompress(codec, data);
}

/// The filters target: numcodecs' codecs that parse bytes beyond the four decompressors'
/// targets. The first byte's high five bits pick one of `FILTERS` (bz2; lzma as xz, as .lzma
/// and raw with a delta filter; packbits; fletcher32; delta of several type pairs, byte orders
/// included; imagecodecs' LZF with and without its header and LZ4 HDF5 blocks; categorize);
/// the rest is [`decompress`]'s input.
#[cfg(feature = "compress")]
pub fn filters(data: &[u8]) {
    let Some((&pick, rest)) = data.split_first() else {
        return;
    };
    let codecs = filter_codecs();
    // (One more pick: categorize, whose labels are its chain's.)
    match usize::from(pick >> 3) % (codecs.len() + 1) {
        k if k < codecs.len() => decompress(codecs[k], rest),
        _ => categorize(rest),
    }
}

/// numcodecs' categorize (big-endian 16-bit codes, three-character items, labels with an
/// astral-plane one) over any codes: each decodes to a label or to "", the items' size is
/// the codes' count times theirs, and the items encode to codes that decode to them again.
#[cfg(feature = "compress")]
fn categorize(data: &[u8]) {
    use crate::codec::bytes_to_bytes::BytesChain;
    let config = crate::json::parse(
        r#"[{"name": "numcodecs.categorize", "configuration": {"labels": ["a", "bc", "\ud83c\udf0dx", "", "a"], "dtype": ">U3", "astype": ">u2"}}]"#,
    )
    .expect("a fixed configuration");
    let chain = BytesChain::from_v3(config.as_array().expect("a list"), 2).expect("categorize");
    let Ok(items) = chain.decode(data, None) else {
        assert!(
            !data.len().is_multiple_of(2),
            "only a split code is refused"
        );
        return;
    };
    assert_eq!(items.len(), data.len() / 2 * 12);
    let codes = chain.encode(&items).expect("items encode");
    assert_eq!(chain.decode(&codes, None).expect("codes decode"), items);
}

/// The codecs the filters target picks from.
#[cfg(feature = "compress")]
pub fn filter_codecs() -> Vec<crate::codec::bytes_to_bytes::BytesCodec> {
    use crate::codec::table::{BytesCodec, Checksum, DeltaParams, LzmaParams, Place};
    let delta = |dtype, astype, big| {
        BytesCodec::Delta(DeltaParams {
            dtype,
            astype,
            dtype_big: false,
            astype_big: big,
        })
    };
    // numcodecs' default (an xz stream, CRC64, preset 6), which the others vary.
    let xz = LzmaParams {
        xz: true,
        check: 4,
        preset: 6,
        raw: false,
        delta: 0,
        dict_size: 0,
    };
    vec![
        BytesCodec::Bz2 { level: 1 },
        BytesCodec::Lzma(xz),
        BytesCodec::Lzma(LzmaParams { xz: false, ..xz }),
        // FORMAT_RAW: a bare LZMA2 stream, then the delta filter undone.
        BytesCodec::Lzma(LzmaParams {
            xz: false,
            raw: true,
            preset: 1,
            delta: 8,
            ..xz
        }),
        BytesCodec::PackBits,
        BytesCodec::Checksum(Checksum::Fletcher32, Place::End),
        delta(DataType::Float64, DataType::Float32, false),
        delta(DataType::Int16, DataType::Int16, true),
        delta(DataType::UInt8, DataType::UInt8, false),
        delta(DataType::Float64, DataType::Float64, false),
        delta(DataType::Int32, DataType::Int8, false),
        delta(DataType::Float32, DataType::Float16, true),
        // The HDF5 filters' formats (imagecodecs' names).
        BytesCodec::Lzf { header: false },
        BytesCodec::Lzf { header: true },
        BytesCodec::Lz4H5,
    ]
}

/// The data types pcodec takes, in the order the pcodec target's first byte picks them.
#[cfg(feature = "pcodec")]
const PCODEC_TYPES: [DataType; 9] = [
    DataType::UInt16,
    DataType::UInt32,
    DataType::UInt64,
    DataType::Int16,
    DataType::Int32,
    DataType::Int64,
    DataType::Float16,
    DataType::Float32,
    DataType::Float64,
];

/// Arbitrary bytes as a pco stream: the first byte picks the data type, the next two (little
/// endian) the chunk's value count (0 to 4096), the rest is the stream. A decode that succeeds
/// has the count's bytes, and those values, encoded with numcodecs' defaults, decode to the
/// same bytes again (NaN payloads included). Memory is sized by the count, never by the stream.
#[cfg(feature = "pcodec")]
pub fn pcodec_decode(data: &[u8]) {
    use crate::codec::pcodec::Pcodec;
    let Some((&[pick, a, b], stream)) = data.split_first_chunk::<3>() else {
        return;
    };
    let Some(&dtype) = PCODEC_TYPES.get(usize::from(pick) % PCODEC_TYPES.len()) else {
        return;
    };
    let count = usize::from(u16::from_le_bytes([a, b])) % 4097;
    let Ok(codec) = Pcodec::new(None, dtype) else {
        return;
    };
    let Ok(values) = codec.decode(stream, count) else {
        return;
    };
    assert_eq!(
        values.len(),
        count * dtype.size(),
        "a decoded stream has the count's values"
    );
    let again = codec
        .encode(&values)
        .unwrap_or_else(|e| panic!("decoded values encode: {e}"));
    let back = codec
        .decode(&again, count)
        .unwrap_or_else(|e| panic!("re-encoded values decode: {e}"));
    // (Not assert_eq: the values can be 32 KiB.)
    assert!(back == values, "re-encoded values decode to the same bytes");
}

/// Arbitrary bytes as one GRIB2 message: its values, latitudes and longitudes are decoded where
/// the headers count at most 2^20 of them (a chunk holds what its shape says; the codec checks
/// the count before decoding, so larger claims never reach the decoder). Any error is fine; a
/// panic, a read past the message or a field of another length than the headers counted is not.
#[cfg(feature = "grib")]
pub fn grib_decode(data: &[u8]) {
    use crate::codec::grib::message::Message;
    const MOST: usize = 1 << 20;
    let Ok(msg) = Message::parse(data) else {
        return;
    };
    if let Ok(n) = msg.values_len() {
        if n <= MOST {
            if let Ok(values) = msg.values() {
                assert_eq!(values.len(), n, "a field has the values its headers count");
            }
        }
    }
    if let Ok(n) = msg.points_len() {
        if n <= MOST {
            for c in [msg.latitudes(), msg.longitudes()].into_iter().flatten() {
                assert_eq!(c.len(), n, "a grid has the points its headers count");
            }
        }
    }
}
