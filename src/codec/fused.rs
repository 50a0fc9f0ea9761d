//! The common read in one pass: stored integers -> cast_value decode (with its scalar_map)
//! -> scale_offset decode, into a float32 or float64 array, with no intermediate arrays.
//!
//! Each element goes through exactly the operations of the codec-by-codec path (the engine's
//! element conversion, here through its slice function, then `x / scale + offset` in the
//! array's type), so the results are the same bits. An 8-bit stored type has only 256 values: those are decoded once into a table.

use zarr_cast_value::{convert_slice_int_to_float, CastError, IntToFloatConfig};

use super::bytes::{check_byte_length, widen, Bytes, Endian};
use super::cast_value::{cast_error, widen_keys, IntSource, Settings};
use super::scale_offset::decode_float;
use super::ArrayCodec;
use crate::array::ArrayData;
use crate::dtype::{DataType, Scalar};
use crate::error::Result;
use crate::float::Float;

#[derive(Debug, Clone)]
pub struct FusedDecode {
    stored: DataType,
    output: DataType,
    endian: Endian,
    map: Vec<(Scalar, Scalar)>,
    rounding: zarr_cast_value::RoundingMode,
    out_of_range: Option<zarr_cast_value::OutOfRangeMode>,
    /// (offset, scale) of a scale_offset that is not the identity.
    scale_offset: Option<(Scalar, Scalar)>,
    /// For 8- and 16-bit stored types, every stored value's decoded value: built on first use
    /// (a 16-bit one only for a large chunk), `None` inside when some value cannot decode.
    table: std::cell::OnceCell<Option<Table>>,
}

impl FusedDecode {
    /// The fused path for a chain of [scale_offset,] cast_value (float32/float64 array stored
    /// as an integer type), bytes; `None` for any other chain.
    pub(crate) fn plan(array: DataType, codecs: &[ArrayCodec], bytes: &Bytes) -> Option<Self> {
        if !matches!(array, DataType::Float32 | DataType::Float64) {
            return None;
        }
        let (scale_offset, cast) = match codecs {
            [ArrayCodec::CastValue(c)] => (None, c),
            [ArrayCodec::ScaleOffset(so), ArrayCodec::CastValue(c)] => {
                let so = (!so.is_identity()).then(|| (so.offset(), so.scale()));
                (so, c)
            }
            _ => return None,
        };
        if cast.target().is_float() {
            return None;
        }
        Some(Self {
            stored: cast.target(),
            output: array,
            endian: bytes.endian(),
            map: cast.decode_map().to_vec(),
            rounding: cast.rounding(),
            out_of_range: cast.out_of_range(),
            scale_offset,
            table: std::cell::OnceCell::new(),
        })
    }

    pub fn decode(&self, bytes: &[u8], len: usize) -> Result<ArrayData> {
        check_byte_length(bytes.len(), len, self.stored)?;
        let mut out = ArrayData::filled(self.output.default_scalar(), 0);
        self.decode_into(bytes, &mut out)?;
        Ok(out)
    }

    /// Decodes stored bytes (a whole number of elements) into `out`, which is replaced by the
    /// values and reuses its allocation when it already holds the output type.
    pub fn decode_into(&self, bytes: &[u8], out: &mut ArrayData) -> Result<()> {
        let result = match (self.output, out) {
            (DataType::Float32, ArrayData::Float32(v)) => self.decode_to::<f32>(bytes, v),
            (DataType::Float64, ArrayData::Float64(v)) => self.decode_to::<f64>(bytes, v),
            (DataType::Float32, slot) => {
                let mut v = Vec::new();
                let r = self.decode_to::<f32>(bytes, &mut v);
                *slot = ArrayData::Float32(v);
                r
            }
            (_, slot) => {
                let mut v = Vec::new();
                let r = self.decode_to::<f64>(bytes, &mut v);
                *slot = ArrayData::Float64(v);
                r
            }
        };
        result.map_err(|e| cast_error(&e, self.stored, self.output))
    }

    /// Builds the lookup table ahead of tile-sized decodes when the chunks are large enough
    /// to pay for it (a 16-bit table has 65536 entries).
    pub(crate) fn prepare(&self, chunk_len: usize) {
        if self.stored.size() == 1 || (self.stored.size() == 2 && chunk_len >= 65536) {
            self.table.get_or_init(|| Table::build(self));
        }
    }

    /// Stored integers are widened to int64 (uint64 stays) before the engine, as
    /// [`super::cast_value::cast_array`] does: its int -> float rules depend only on the value.
    fn decode_to<F>(&self, bytes: &[u8], out: &mut Vec<F>) -> Result<(), CastError>
    where
        F: Float + zarr_cast_value::CastFloat + Default + TableOf,
        i64: zarr_cast_value::CastInto<F>,
        u64: zarr_cast_value::CastInto<F>,
    {
        let table = match self.stored.size() {
            1 => self.table.get_or_init(|| Table::build(self)).as_ref(),
            // 65536 entries pay for themselves only over chunks as large.
            2 if bytes.len() >= 2 * 65536 => self.table.get_or_init(|| Table::build(self)).as_ref(),
            2 => self.table.get().and_then(Option::as_ref),
            _ => None,
        };
        // `out` is resized, not cleared first: a reused buffer of the same length is written
        // once, by the lookup (at opt-level "z" the compiler fills a cleared one value by value).
        match (F::table(table), self.stored.size()) {
            (Some(t), 1) => {
                out.resize(bytes.len(), F::default());
                lookup(t, bytes, out);
            }
            (Some(t), _) => {
                out.resize(bytes.len() / 2, F::default());
                lookup16(t, bytes, self.endian, out);
            }
            (None, _) => {
                out.clear();
                return self.decode_blocks::<F>(bytes, out);
            }
        }
        Ok(())
    }

    fn decode_blocks<F>(&self, bytes: &[u8], out: &mut Vec<F>) -> Result<(), CastError>
    where
        F: Float + zarr_cast_value::CastFloat + Default,
        i64: zarr_cast_value::CastInto<F>,
        u64: zarr_cast_value::CastInto<F>,
    {
        match self.stored {
            DataType::Int8 => self.run::<i64, F>(bytes, widen::<i8, i64>, out),
            DataType::Int16 => self.run::<i64, F>(bytes, widen::<i16, i64>, out),
            DataType::Int32 => self.run::<i64, F>(bytes, widen::<i32, i64>, out),
            DataType::Int64 => self.run::<i64, F>(bytes, widen::<i64, i64>, out),
            DataType::UInt8 => self.run::<i64, F>(bytes, widen::<u8, i64>, out),
            DataType::UInt16 => self.run::<i64, F>(bytes, widen::<u16, i64>, out),
            DataType::UInt32 => self.run::<i64, F>(bytes, widen::<u32, i64>, out),
            DataType::UInt64 => self.run::<u64, F>(bytes, widen::<u64, u64>, out),
            // plan() only builds integer stored types.
            DataType::Float16 | DataType::Float32 | DataType::Float64 => Ok(()),
        }
    }

    fn run<W, F>(&self, bytes: &[u8], widen: Widen<W>, out: &mut Vec<F>) -> Result<(), CastError>
    where
        W: IntSource + zarr_cast_value::CastInto<F> + Default,
        F: Float + zarr_cast_value::CastFloat + Default,
    {
        let map = if W::DTYPE == DataType::Int64 {
            widen_keys(&self.map)
        } else {
            self.map.clone()
        };
        let settings = Settings {
            map: &map,
            rounding: self.rounding,
            out_of_range: self.out_of_range,
        };
        let config = IntToFloatConfig::<W, F> {
            map_entries: settings.entries::<W, F>(),
            rounding: self.rounding,
            out_of_range: self.out_of_range,
        };
        let so = self
            .scale_offset
            .and_then(|(o, s)| Some((F::from_scalar(o)?, F::from_scalar(s)?)));
        // A block of stored values through the engine's slice conversion (its loop inlines the
        // element steps for the configured rounding mode), then through scale_offset's decode.
        let mut wide = [W::default(); BLOCK];
        let mut block = [F::default_nan(); BLOCK];
        let size = self.stored.size();
        out.reserve(bytes.len() / size);
        for stored in bytes.chunks(size * BLOCK) {
            let n = stored.len() / size;
            let (wide, block) = (&mut wide[..n], &mut block[..n]);
            widen(stored, self.endian, wide);
            convert_slice_int_to_float(wide, block, &config)?;
            if let Some((offset, scale)) = so {
                for y in block.iter_mut() {
                    *y = decode_float(*y, offset, scale);
                }
            }
            out.extend_from_slice(block);
        }
        Ok(())
    }
}

/// Every stored value of an 8- or 16-bit type decoded once, by the same steps as the block
/// loop, indexed by the stored integer's bits.
#[derive(Debug, Clone)]
enum Table {
    F32(Box<[f32]>),
    F64(Box<[f64]>),
}

impl Table {
    fn build(fused: &FusedDecode) -> Option<Table> {
        let size = fused.stored.size();
        if size > 2 {
            return None;
        }
        // Every bit pattern, laid out as the chunk stores it.
        let count = 1usize << (8 * size);
        let mut all = Vec::with_capacity(count * size);
        for bits in 0..count {
            let bits = bits as u16;
            match (size, fused.endian) {
                (1, _) => all.push(bits as u8),
                (_, Endian::Little) => all.extend_from_slice(&bits.to_le_bytes()),
                (_, Endian::Big) => all.extend_from_slice(&bits.to_be_bytes()),
            }
        }
        // A stored value that cannot decode leaves no table: the block loop then reports it
        // only if it occurs.
        match fused.output {
            DataType::Float32 => {
                let mut v = Vec::with_capacity(count);
                fused.decode_blocks::<f32>(&all, &mut v).ok()?;
                Some(Table::F32(v.into_boxed_slice()))
            }
            _ => {
                let mut v = Vec::with_capacity(count);
                fused.decode_blocks::<f64>(&all, &mut v).ok()?;
                Some(Table::F64(v.into_boxed_slice()))
            }
        }
    }
}

/// The table of an output type, if the fused decode has one.
trait TableOf: Sized {
    fn table(table: Option<&Table>) -> Option<&[Self]>;
}

impl TableOf for f32 {
    fn table(table: Option<&Table>) -> Option<&[f32]> {
        match table {
            Some(Table::F32(t)) => Some(t),
            _ => None,
        }
    }
}

impl TableOf for f64 {
    fn table(table: Option<&Table>) -> Option<&[f64]> {
        match table {
            Some(Table::F64(t)) => Some(t),
            _ => None,
        }
    }
}

/// The stored values of 16-bit types, looked up in their table, into `out` (one slot each).
fn lookup16<F: Copy + Default>(table: &[F], bytes: &[u8], endian: Endian, out: &mut [F]) {
    let Ok(table) = <&[F; 65536]>::try_from(table) else {
        return;
    };
    // One loop per byte order, each with its read inlined.
    fn each<F: Copy>(
        table: &[F; 65536],
        bytes: &[u8],
        out: &mut [F],
        read: impl Fn([u8; 2]) -> u16,
    ) {
        for (o, b) in out.iter_mut().zip(bytes.chunks_exact(2)) {
            let Ok(pair) = <[u8; 2]>::try_from(b) else {
                continue;
            };
            *o = table[usize::from(read(pair))];
        }
    }
    match endian {
        Endian::Little => each(table, bytes, out, u16::from_le_bytes),
        Endian::Big => each(table, bytes, out, u16::from_be_bytes),
    }
}

/// Elements widened and decoded per step of the fused loop.
const BLOCK: usize = 256;

/// Reads stored integers into a block of their widened values.
type Widen<W> = fn(&[u8], Endian, &mut [W]);

/// `table[b]` for every byte `b`, into `out` (one slot each), reading the bytes eight at a
/// time as one word (in wasm about 30% faster than a byte at a time).
fn lookup<F: Copy + Default>(table: &[F], bytes: &[u8], out: &mut [F]) {
    let Ok(table) = <&[F; 256]>::try_from(table) else {
        return;
    };
    // Iterators taken by value: at opt-level "z" a loop over `&mut` iterators calls their
    // `next` per step in wasm.
    let whole = bytes.len().min(out.len()) / 8 * 8;
    let (out_words, out_rest) = out.split_at_mut(whole);
    let (in_words, in_rest) = bytes.split_at(whole);
    for (o, i) in out_words.chunks_exact_mut(8).zip(in_words.chunks_exact(8)) {
        let Ok(word) = <[u8; 8]>::try_from(i) else {
            continue;
        };
        let w = u64::from_le_bytes(word);
        o[0] = table[(w & 0xff) as usize];
        o[1] = table[((w >> 8) & 0xff) as usize];
        o[2] = table[((w >> 16) & 0xff) as usize];
        o[3] = table[((w >> 24) & 0xff) as usize];
        o[4] = table[((w >> 32) & 0xff) as usize];
        o[5] = table[((w >> 40) & 0xff) as usize];
        o[6] = table[((w >> 48) & 0xff) as usize];
        o[7] = table[(w >> 56) as usize];
    }
    for (o, &b) in out_rest.iter_mut().zip(in_rest) {
        *o = table[usize::from(b)];
    }
}
