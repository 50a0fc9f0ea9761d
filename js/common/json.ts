// JSON text for values handed to the wasm, written so that no number changes on the way.
//
// JSON.stringify prints a double as its shortest decimal, so 2^63 (which a JavaScript number
// holds exactly) comes out as 9223372036854776000, a different integer. Here a number beyond
// 2^53 is written as the floating-point number it is (exponent form): read as a float it is
// the same double, and where the wasm reads a 64-bit integer it refuses it (INEXACT_NUMBER),
// since JSON.parse may already have rounded it. Bigints are written as exact integers.
// NaN, the infinities and -0, which JSON numbers cannot hold, are written as zarr v3 writes
// them ("NaN", "Infinity", "-Infinity", -0.0).

const TWO_53 = 2 ** 53;

export function numberJson(value: number): string {
  if (Number.isNaN(value)) return '"NaN"';
  if (value === Infinity) return '"Infinity"';
  if (value === -Infinity) return '"-Infinity"';
  if (Object.is(value, -0)) return "-0.0";
  if (Math.abs(value) >= TWO_53) return value.toExponential();
  return JSON.stringify(value);
}

/** JSON text of `value` (objects, arrays, strings, booleans, null, numbers, bigints). */
export function exactJson(value: unknown): string {
  switch (typeof value) {
    case "number":
      return numberJson(value);
    case "bigint":
      return value.toString();
    case "string":
    case "boolean":
      return JSON.stringify(value);
    case "undefined":
      return "null";
    case "object": {
      if (value === null) return "null";
      if (Array.isArray(value)) return `[${value.map(exactJson).join(",")}]`;
      const toJSON = (value as { toJSON?: () => unknown }).toJSON;
      if (typeof toJSON === "function") return exactJson(toJSON.call(value));
      const members = Object.entries(value as Record<string, unknown>)
        .filter(([, v]) => v !== undefined && typeof v !== "function")
        .map(([k, v]) => `${JSON.stringify(k)}:${exactJson(v)}`);
      return `{${members.join(",")}}`;
    }
    default:
      throw new TypeError(`cannot write a ${typeof value} as JSON`);
  }
}

/**
 * `JSON.parse`, with integers beyond 2^53 read exactly as bigints (a datetime64 fill value,
 * NaT among them), which JSON.parse alone would round.
 */
export function exactParse(text: string): unknown {
  const big = new Map<string, bigint>();
  let out = "";
  for (let i = 0; i < text.length; ) {
    const c = text[i];
    if (c === '"') {
      // A string, copied as it is (escapes included).
      let j = i + 1;
      while (j < text.length && text[j] !== '"') j += text[j] === "\\" ? 2 : 1;
      out += text.slice(i, j + 1);
      i = j + 1;
      continue;
    }
    const number = /^-?\d+(\.\d+)?([eE][-+]?\d+)?/.exec(text.slice(i, i + 64));
    if (number && (c === "-" || (c >= "0" && c <= "9"))) {
      const literal = number[0];
      const integer = number[1] === undefined && number[2] === undefined;
      if (integer && !Number.isSafeInteger(Number(literal))) {
        const key = `\u0000${big.size}`;
        big.set(key, BigInt(literal));
        out += JSON.stringify(key);
      } else {
        out += literal;
      }
      i += literal.length;
      continue;
    }
    out += c;
    i++;
  }
  return JSON.parse(out, (_k, v: unknown) => (typeof v === "string" && big.has(v) ? big.get(v) : v));
}

