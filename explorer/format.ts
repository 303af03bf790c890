/**
 * Numbers and names as a person reads them: dollars with a `$`, separators and cents
 * (`$1,234,567.89`, `< $0.01`), token amounts with separators, compact axis labels (`$1.2M`), and
 * the names of chains and tokens instead of their keys. Amounts are rounded from the JSON's own
 * decimal text (exponents included), never through a double, so the shown digits are those of
 * the exact value; the exact text itself stays one hover or one click away (see dom.ts `amount`).
 * No DOM here: the tests import this module in Node.
 */
import { NO_PRICE } from '../core/position-value.ts';
import { TOKEN_NAMES } from '../schemas/token-keys.ts';

/** A decimal number as `digits * 10^exponent` (`digits` without sign), from a JSON number's text. */
interface Decimal {
  negative: boolean;
  digits: bigint;
  exponent: number;
}

function parseDecimal(text: string): Decimal {
  const match = /^(-)?(\d+)(?:\.(\d+))?(?:[eE]([+-]?\d+))?$/.exec(text.trim());
  if (!match) throw new Error(`not a JSON number: ${text}`);
  const [, sign, whole, fraction = '', exponent = '0'] = match;
  return { negative: sign === '-', digits: BigInt(whole! + fraction), exponent: Number(exponent) - fraction.length };
}

/** The value rounded half away from zero to `places` decimals, as an integer count of 10^-places. */
function scaled(value: Decimal, places: number): bigint {
  const shift = value.exponent + places;
  if (shift >= 0) return value.digits * 10n ** BigInt(shift);
  const divisor = 10n ** BigInt(-shift);
  return (value.digits + divisor / 2n) / divisor;
}

/** `1234567` -> `1,234,567`. */
function group(whole: string): string {
  return whole.replace(/\B(?=(\d{3})+(?!\d))/g, ',');
}

/**
 * The value with separators and between `minPlaces` and `maxPlaces` decimals (trailing zeros
 * beyond `minPlaces` dropped), `prefix` after the sign; null when it rounds to zero but is not zero.
 */
function fixed(value: Decimal, minPlaces: number, maxPlaces: number, prefix = ''): string | null {
  const units = scaled(value, maxPlaces);
  if (units === 0n && value.digits !== 0n) return null;
  const text = units.toString().padStart(maxPlaces + 1, '0');
  const whole = text.slice(0, text.length - maxPlaces);
  let fraction = text.slice(text.length - maxPlaces);
  while (fraction.length > minPlaces && fraction.endsWith('0')) fraction = fraction.slice(0, -1);
  return `${value.negative && units !== 0n ? '-' : ''}${prefix}${group(whole)}${fraction ? `.${fraction}` : ''}`;
}

/** Dollars to the cent: `$1,234,567.89`, `$0.00` for zero, `< $0.01` for a positive amount below a cent. */
export function formatUsd(text: string): string {
  const value = parseDecimal(text);
  return fixed(value, 2, 2, '$') ?? (value.negative ? '> -$0.01' : '< $0.01');
}

/** A token's price: up to 6 decimals, at least 2 (`$1.038806`, `$2,150.00`); `< $0.000001` below. */
export function formatPrice(text: string): string {
  const value = parseDecimal(text);
  return fixed(value, 2, 6, '$') ?? '< $0.000001';
}

/** A token amount or a points total: separators, up to `maxPlaces` decimals (`123,456.789012`). */
export function formatAmount(text: string, maxPlaces = 6): string {
  const value = parseDecimal(text);
  return fixed(value, 0, maxPlaces) ?? `< 0.${'0'.repeat(maxPlaces - 1)}1`;
}

/** The value as a signed count of 10^`exponent` (`exponent` at most the value's own). */
function unitsAt(value: Decimal, exponent: number): bigint {
  const units = value.digits * 10n ** BigInt(value.exponent - exponent);
  return value.negative ? -units : units;
}

/** `numerator / denominator` (both positive) rounded half away from zero, as amounts are. */
function divideRounded(numerator: bigint, denominator: bigint): bigint {
  return (2n * numerator + denominator) / (2n * denominator);
}

/** How a total changed between two days, computed exactly on the JSON's decimal text. */
export interface UsdChange {
  /** `unchanged` when the change rounds to $0.00. */
  direction: 'up' | 'down' | 'unchanged';
  /** Its size in dollars, without a sign (`$4,210.50`): the exact difference, rounded as amounts are. */
  size: string;
  /** The exact difference's size as decimal text (`4210.5`), for the amount's exact value. */
  exact: string;
  /** Its share of the first total (`+3.3%`, `-< 0.1%`); null when unchanged or when the first total is not above zero. */
  percent: string | null;
}

/**
 * `end - start` of two JSON numbers: the difference is taken exactly (both as integers of their
 * smaller power of ten, so totals beyond 2^53 cents keep every digit), then rounded to the cent;
 * the share of `start` is rounded to a tenth of a percent the same way.
 */
export function usdChange(startText: string, endText: string): UsdChange {
  const start = parseDecimal(startText);
  const end = parseDecimal(endText);
  const exponent = Math.min(start.exponent, end.exponent);
  const startUnits = unitsAt(start, exponent);
  const difference = unitsAt(end, exponent) - startUnits;
  const size = difference < 0n ? -difference : difference;
  const magnitude: Decimal = { negative: false, digits: size, exponent };
  const shown = fixed(magnitude, 2, 2, '$');
  const exact = decimalText(size, exponent);
  if (shown === null || shown === '$0.00') return { direction: 'unchanged', size: '$0.00', exact, percent: null };
  const up = difference > 0n;
  let percent: string | null = null;
  if (startUnits > 0n) {
    const tenths = divideRounded(size * 1000n, startUnits);
    const share = tenths === 0n ? '< 0.1' : `${group(String(tenths / 10n))}.${tenths % 10n}`;
    percent = `${up ? '+' : '-'}${share}%`;
  }
  return { direction: up ? 'up' : 'down', size: shown, exact, percent };
}

/** The exact sum of JSON numbers, as decimal text (`0.1` + `0.2` is `0.3`), for amounts shown together. */
export function sumDecimals(texts: string[]): string {
  const values = texts.map(parseDecimal);
  const exponent = Math.min(0, ...values.map((value) => value.exponent));
  return decimalText(
    values.reduce((sum, value) => sum + unitsAt(value, exponent), 0n),
    exponent,
  );
}

/** `units * 10^exponent` as plain decimal text, without an exponent or trailing zeros. */
function decimalText(units: bigint, exponent: number): string {
  if (exponent > 0) return decimalText(units * 10n ** BigInt(exponent), 0);
  const digits = (units < 0n ? -units : units).toString().padStart(-exponent + 1, '0');
  const whole = digits.slice(0, digits.length + exponent);
  const fraction = digits.slice(digits.length + exponent).replace(/0+$/, '');
  return `${units < 0n ? '-' : ''}${whole}${fraction ? `.${fraction}` : ''}`;
}

const COMPACT_UNITS: [number, string][] = [
  [1e12, 'T'],
  [1e9, 'B'],
  [1e6, 'M'],
  [1e3, 'K'],
  [1, ''],
];

/**
 * Short labels for an axis's ticks (`$1.2M`, `$950K`, `$12.5`), all in the unit of the largest,
 * with just enough decimals for neighbouring ticks `increment` apart to differ. Their exact
 * values are in the legend.
 */
export function formatCompactTicks(ticks: number[], increment: number, prefix = ''): string[] {
  const largest = Math.max(0, ...ticks.map(Math.abs));
  const [unit, suffix] = COMPACT_UNITS.find(([size]) => largest >= size) ?? [1, ''];
  let places = 0;
  while (places < 8 && increment > 0 && !wholeAt(increment / unit, places)) places++;
  // Every label with the same decimals, so that they line up and read as steps of one size.
  return ticks.map((tick) =>
    Math.abs(tick) / unit < 0.5 * 10 ** -places
      ? `${prefix}0`
      : `${tick < 0 ? '-' : ''}${prefix}${(Math.abs(tick) / unit).toFixed(places)}${suffix}`,
  );
}

/** Whether `value` (positive) has at most `places` decimals, up to a double's noise. */
function wholeAt(value: number, places: number): boolean {
  const shifted = value * 10 ** places;
  return shifted >= 1 - 1e-9 && Math.abs(shifted - Math.round(shifted)) < 1e-6 * shifted;
}

/**
 * Whether a position's `usdPerToken` is 0 (core/position-value.ts): no price dated on or before its
 * day, or a price of 0 in the export. The JSON does not tell the two apart (docs/api.md), so the
 * page names both (`ZERO_PRICE`).
 */
export function hasZeroPrice(position: { usdPerToken: { value: string } | string }): boolean {
  const text = typeof position.usdPerToken === 'string' ? position.usdPerToken : position.usdPerToken.value;
  return Number(text) === NO_PRICE;
}

/** How the page shows a position whose `usdPerToken` is 0. */
export const ZERO_PRICE = 'no price or $0';
/** What it means, in the title of each such amount. */
export const ZERO_PRICE_NOTE =
  'usdPerToken is 0 in the JSON: no price on or before this day, or a price of 0 in the export; the value counts as $0 in the total';

/**
 * The chains programmes run on, named as viem's chain list (the one most EVM front ends keep)
 * names them. A short table rather than that list: all of viem's 752 chains add 820 KB minified
 * (195 KB gzip) to a page of 71 KB, and even 13 chosen from it 62 KB, as their formatters come
 * along (docs/decisions.md, "Explorer"). Any other chain is shown by its number.
 */
const CHAIN_NAMES: Record<string, string> = {
  '1': 'Ethereum',
  '10': 'OP Mainnet',
  '56': 'BNB Smart Chain',
  '100': 'Gnosis',
  '130': 'Unichain',
  '137': 'Polygon',
  '146': 'Sonic',
  '250': 'Fantom',
  '324': 'ZKsync Era',
  '1101': 'Polygon zkEVM',
  '5000': 'Mantle',
  '8453': 'Base',
  '34443': 'Mode',
  '42161': 'Arbitrum One',
  '42170': 'Arbitrum Nova',
  '42220': 'Celo',
  '43114': 'Avalanche',
  '59144': 'Linea',
  '80094': 'Berachain',
  '81457': 'Blast',
  '534352': 'Scroll',
  '7777777': 'Zora',
  '11155111': 'Sepolia',
  '84532': 'Base Sepolia',
  '421614': 'Arbitrum Sepolia',
  '11155420': 'OP Sepolia',
};

export function chainName(chainId: string): string {
  return CHAIN_NAMES[chainId] ?? `Chain ${chainId}`;
}

export function tokenName(key: string): string {
  return (TOKEN_NAMES as Record<string, string>)[key] ?? key;
}
