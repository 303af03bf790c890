/**
 * A double as JavaScript writes it (ECMAScript Number::toString), into WebAssembly memory: the
 * one writer of numbers' texts that the build's documents (assembly/document-bytes.ts) and
 * verify's pass over numbers (assembly/number-texts.ts) share, so that what verify accepts is
 * what the build writes.
 */
import { POW5_INV_SPLIT, POW5_SPLIT, POW5_INV_BITS, POW5_BITS } from './powers-of-five';

// @ts-ignore: decorator
@inline function byte(at: usize, value: u8): usize {
  store<u8>(at, value);
  return at + 1;
}

/** "00", "01", ... "99": digits are written two at a time. */
const DIGIT_PAIRS = memory.data(200);
for (let i: u32 = 0; i < 100; i++) {
  store<u8>(DIGIT_PAIRS + (i << 1), <u8>(0x30 + i / 10));
  store<u8>(DIGIT_PAIRS + (i << 1) + 1, <u8>(0x30 + i % 10));
}

/**
 * A finite double as JavaScript's `String(value)` writes it (ECMAScript Number::toString): the
 * shortest digits that read back as the same double, the closest of them to its exact value, ties
 * to even (Ryu, below), then placed as JavaScript places them: `123.45`, `0.000012`, `1e+21`,
 * `1.5e-7`.
 */
export function writeNumber(at: usize, value: f64): usize {
  if (value == 0) return byte(at, 0x30);
  const bits = reinterpret<u64>(value);
  if (bits >> 63) at = byte(at, 0x2d);
  shortest(bits & 0xFFFFFFFFFFFFF, <u32>(bits >> 52) & 0x7FF);
  // value = digits * 10^shortestExponent, with k digits; the point goes after the n-th.
  const k = decimalLength(shortestDigits);
  const n = shortestExponent + k;
  if (k <= n && n <= 21) {
    writeDigits(at, shortestDigits, k);
    at += k;
    for (let i = k; i < n; i++) at = byte(at, 0x30);
    return at;
  }
  if (0 < n && n <= 21) {
    // The digits one place to the right, then the first n moved back in front of the point.
    writeDigits(at + 1, shortestDigits, k);
    for (let i = 0; i < n; i++) store<u8>(at + i, load<u8>(at + i + 1));
    store<u8>(at + n, 0x2e);
    return at + k + 1;
  }
  if (-6 < n && n <= 0) {
    at = byte(at, 0x30);
    at = byte(at, 0x2e);
    for (let i = n; i < 0; i++) at = byte(at, 0x30);
    writeDigits(at, shortestDigits, k);
    return at + k;
  }
  writeDigits(at + 1, shortestDigits, k);
  store<u8>(at, load<u8>(at + 1));
  if (k > 1) {
    store<u8>(at + 1, 0x2e);
    at += k + 1;
  } else {
    at += 1;
  }
  at = byte(at, 0x65);
  at = byte(at, n - 1 < 0 ? 0x2d : 0x2b);
  return writeInteger(at, <i64>abs(n - 1));
}

/** How many decimal digits `value` has (1 to 17); most doubles need 15 to 17, so those come first. */
function decimalLength(value: u64): i32 {
  if (value >= 10000000000000000) return 17;
  if (value >= 1000000000000000) return 16;
  if (value >= 100000000000000) return 15;
  let length = 1;
  for (let power: u64 = 10; value >= power; power *= 10) length++;
  return length;
}

/** The k digits of `value` at `at`, written from the last, two at a time. */
function writeDigits(at: usize, value: u64, k: i32): void {
  let end = at + k;
  if (value >= 100000000) {
    // The low 8 digits with 32-bit arithmetic (divisions by constants as multiplications), then
    // the rest (at most 9 digits) likewise.
    const high = value / 100000000;
    const low = <u32>(value - high * 100000000);
    const low4 = <u32>((<u64>low * 0xD1B71759) >> 45);
    fourDigits(end - 4, low - low4 * 10000);
    fourDigits(end - 8, low4);
    end -= 8;
    value = high;
  }
  let rest = <u32>value;
  while (rest >= 100) {
    const hundreds = <u32>((<u64>rest * 0x51EB851F) >> 37);
    end -= 2;
    store<u16>(end, load<u16>(DIGIT_PAIRS + ((rest - hundreds * 100) << 1)));
    rest = hundreds;
  }
  if (rest >= 10) store<u16>(end - 2, load<u16>(DIGIT_PAIRS + (rest << 1)));
  else store<u8>(end - 1, <u8>(0x30 + rest));
}

/** The four digits of `value` (below 10,000, leading zeros included) at `at`. */
// @ts-ignore: decorator
@inline function fourDigits(at: usize, value: u32): void {
  const high = (value * 5243) >> 19;
  store<u16>(at, load<u16>(DIGIT_PAIRS + (high << 1)));
  store<u16>(at + 2, load<u16>(DIGIT_PAIRS + ((value - high * 100) << 1)));
}

let shortestDigits: u64 = 0;
let shortestExponent: i32 = 0;

/**
 * Ryu (Ulf Adams, PLDI 2018): of the decimals that read back as the double with this mantissa and
 * exponent (IEEE fields), the one with the fewest digits, and of those the closest, ties to even;
 * the same choice as ECMAScript's Number::toString. Sets `shortestDigits` and `shortestExponent`.
 */
function shortest(ieeeMantissa: u64, ieeeExponent: u32): void {
  // value = m2 * 2^e2, with two extra bits so that the interval's bounds are integers too.
  let e2: i32;
  let m2: u64;
  if (ieeeExponent == 0) {
    e2 = 1 - 1023 - 52 - 2;
    m2 = ieeeMantissa;
  } else {
    e2 = <i32>ieeeExponent - 1023 - 52 - 2;
    m2 = (<u64>1 << 52) | ieeeMantissa;
  }
  // Round-to-even reading includes the bounds of the interval when the mantissa is even.
  const acceptBounds = (m2 & 1) == 0;
  const mv = 4 * m2;
  // The lower bound is closer when the mantissa is a power of two (and not the smallest exponent).
  const mmShift: u64 = ieeeMantissa != 0 || ieeeExponent <= 1 ? 1 : 0;
  let vr: u64, vp: u64, vm: u64;
  let e10: i32;
  let vmIsTrailingZeros = false;
  let vrIsTrailingZeros = false;
  if (e2 >= 0) {
    const q = log10Pow2(e2) - (e2 > 3 ? 1 : 0);
    e10 = q;
    const k = POW5_INV_BITS + pow5Bits(q) - 1;
    const j = -e2 + q + k;
    vr = mulShiftAll(m2, POW5_INV_SPLIT + (<usize>q << 4), j, mmShift);
    vp = shiftedUp;
    vm = shiftedDown;
    if (q <= 21) {
      // At most one of mv, mp and mm is a multiple of 5.
      if (mv % 5 == 0) vrIsTrailingZeros = multipleOfPowerOf5(mv, q);
      else if (acceptBounds) vmIsTrailingZeros = multipleOfPowerOf5(mv - 1 - mmShift, q);
      else vp -= multipleOfPowerOf5(mv + 2, q) ? 1 : 0;
    }
  } else {
    const q = log10Pow5(-e2) - (-e2 > 1 ? 1 : 0);
    e10 = q + e2;
    const i = -e2 - q;
    const k = pow5Bits(i) - POW5_BITS;
    const j = q - k;
    vr = mulShiftAll(m2, POW5_SPLIT + (<usize>i << 4), j, mmShift);
    vp = shiftedUp;
    vm = shiftedDown;
    if (q <= 1) {
      // mv has at least two trailing zero bits; mm has one exactly when mmShift is 1.
      vrIsTrailingZeros = true;
      if (acceptBounds) vmIsTrailingZeros = mmShift == 1;
      else vp--;
    } else if (q < 63) {
      vrIsTrailingZeros = (mv & ((<u64>1 << q) - 1)) == 0;
    }
  }
  // Drop digits while the interval still holds a shorter decimal.
  let removed: i32 = 0;
  let lastRemovedDigit: u64 = 0;
  let output: u64;
  if (vmIsTrailingZeros || vrIsTrailingZeros) {
    // The rare case where the exact value or the lower bound ends in zeros: once the interval
    // holds no shorter decimal, a lower bound that is itself one (and included) still drops its
    // zeros.
    while (vp / 10 > vm / 10 || (vmIsTrailingZeros && vm % 10 == 0)) {
      vmIsTrailingZeros &= vm % 10 == 0;
      vrIsTrailingZeros &= lastRemovedDigit == 0;
      lastRemovedDigit = vr % 10;
      vr /= 10;
      vp /= 10;
      vm /= 10;
      removed++;
    }
    // Exactly halfway: to even.
    if (vrIsTrailingZeros && lastRemovedDigit == 5 && vr % 2 == 0) lastRemovedDigit = 4;
    output = vr + ((vr == vm && (!acceptBounds || !vmIsTrailingZeros)) || lastRemovedDigit >= 5 ? 1 : 0);
  } else {
    let roundUp = false;
    // Two digits at once first: most doubles lose two or three.
    if (vp / 100 > vm / 100) {
      roundUp = vr % 100 >= 50;
      vr /= 100;
      vp /= 100;
      vm /= 100;
      removed += 2;
    }
    while (vp / 10 > vm / 10) {
      roundUp = vr % 10 >= 5;
      vr /= 10;
      vp /= 10;
      vm /= 10;
      removed++;
    }
    output = vr + (vr == vm || roundUp ? 1 : 0);
  }
  shortestDigits = output;
  shortestExponent = e10 + removed;
}

/** ceil(log2(5^e)) for e >= 1, and 1 for e = 0 (0 <= e <= 3528). */
// @ts-ignore: decorator
@inline function pow5Bits(e: i32): i32 {
  return <i32>((<u32>e * 1217359) >> 19) + 1;
}

/** floor(log10(2^e)) for 0 <= e <= 1650. */
// @ts-ignore: decorator
@inline function log10Pow2(e: i32): i32 {
  return <i32>((<u32>e * 78913) >> 18);
}

/** floor(log10(5^e)) for 0 <= e <= 2620. */
// @ts-ignore: decorator
@inline function log10Pow5(e: i32): i32 {
  return <i32>((<u32>e * 732923) >> 20);
}

function multipleOfPowerOf5(value: u64, p: i32): bool {
  let count = 0;
  while (value % 5 == 0) {
    value /= 5;
    count++;
  }
  return count >= p;
}

/** The high 64 bits of the last `multiply`. */
let productHigh: u64 = 0;

/** a * b as 128 bits: returns the low 64, leaves the high 64 in `productHigh`. */
// @ts-ignore: decorator
@inline function multiply(a: u64, b: u64): u64 {
  const aLow = a & 0xFFFFFFFF;
  const aHigh = a >> 32;
  const bLow = b & 0xFFFFFFFF;
  const bHigh = b >> 32;
  const lowLow = aLow * bLow;
  const middle = aHigh * bLow + (lowLow >> 32);
  const middle2 = aLow * bHigh + (middle & 0xFFFFFFFF);
  productHigh = aHigh * bHigh + (middle >> 32) + (middle2 >> 32);
  return (middle2 << 32) | (lowLow & 0xFFFFFFFF);
}

/** The 128 bits (high, low) shifted right by 0 < shift < 64, low 64 bits. */
// @ts-ignore: decorator
@inline function shiftRight128(low: u64, high: u64, shift: i32): u64 {
  return (high << (64 - <u64>shift)) | (low >> <u64>shift);
}

/** Set by `mulShiftAll`: the upper and lower bounds of the interval, in the same scale. */
let shiftedUp: u64 = 0;
let shiftedDown: u64 = 0;

/**
 * (4 * m2 + d) * table entry >> j for d = 0 (returned), d = 2 (`shiftedUp`) and d = -1 - mmShift
 * (`shiftedDown`), from one 64 x 128-bit product of 2 * m2 (the entry is below 2^125, m2 below 2^54).
 */
function mulShiftAll(m2: u64, table: usize, j: i32, mmShift: u64): u64 {
  const low = load<u64>(table);
  const high = load<u64>(table, 8);
  const m = m2 << 1;
  const productLow = multiply(m, low);
  const carryOut = productHigh;
  const middleLow = multiply(m, high);
  let top = productHigh;
  const middle = carryOut + middleLow;
  if (middle < carryOut) top++;

  // + 2: one more table entry at the scale of 2 * m2.
  const low2 = productLow + low;
  const middle2 = middle + high + (low2 < productLow ? 1 : 0);
  const top2 = top + (middle2 < middle ? 1 : 0);
  shiftedUp = shiftRight128(middle2, top2, j - 65);
  if (mmShift == 1) {
    // - 1 - 1: one table entry less at the scale of 2 * m2.
    const low3 = productLow - low;
    const middle3 = middle - high - (low3 > productLow ? 1 : 0);
    const top3 = top - (middle3 > middle ? 1 : 0);
    shiftedDown = shiftRight128(middle3, top3, j - 65);
  } else {
    // - 1 - 0: at the scale of 4 * m2, one table entry less.
    const low3 = productLow + productLow;
    const middle3 = middle + middle + (low3 < productLow ? 1 : 0);
    const top3 = top + top + (middle3 < middle ? 1 : 0);
    const low4 = low3 - low;
    const middle4 = middle3 - high - (low4 > low3 ? 1 : 0);
    const top4 = top3 - (middle4 > middle3 ? 1 : 0);
    shiftedDown = shiftRight128(middle4, top4, j - 64);
  }
  return shiftRight128(middle, top, j - 65);
}

/** An integer in decimal, as JavaScript writes an integral double. */
export function writeInteger(at: usize, value: i64): usize {
  if (value < 0) {
    at = byte(at, 0x2d);
    value = -value;
  }
  let digits = 1;
  for (let rest = value / 10; rest != 0; rest /= 10) digits++;
  for (let i = digits - 1; i >= 0; i--) {
    store<u8>(at + i, <u8>(0x30 + value % 10));
    value /= 10;
  }
  return at + digits;
}
