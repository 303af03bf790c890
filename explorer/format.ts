/**
 * Numbers and names as a person reads them: dollars with a `$`, separators and cents
 * (`$1,234,567.89`, `< $0.01`), token amounts with separators, compact axis labels (`$1.2M`), and
 * the names of chains and tokens instead of their keys. Amounts are rounded from the JSON's own
 * decimal text (exponents included), never through a double, so the shown digits are those of
 * the exact value; the exact text itself stays one hover or one click away (see dom.ts `amount`).
 * No DOM here: the tests import this module in Node.
 */
import type { TokenKey } from '../schemas/token-keys.ts';

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

/** A change in dollars with its sign spelled out (`+$12.50`, `-$3.00`, `$0.00`), from a double. */
export function formatUsdChange(change: number): string {
  const cents = Math.round(Math.abs(change) * 100);
  if (cents === 0) return change === 0 ? '$0.00' : change > 0 ? '+< $0.01' : '-< $0.01';
  return `${change > 0 ? '+' : '-'}$${group(String(Math.floor(cents / 100)))}.${String(cents % 100).padStart(2, '0')}`;
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
  return ticks.map((tick) => (Math.abs(tick) / unit < 0.5 * 10 ** -places ? `${prefix}0` : `${tick < 0 ? '-' : ''}${prefix}${(Math.abs(tick) / unit).toFixed(places)}${suffix}`));
}

/** Whether `value` (positive) has at most `places` decimals, up to a double's noise. */
function wholeAt(value: number, places: number): boolean {
  const shifted = value * 10 ** places;
  return shifted >= 1 - 1e-9 && Math.abs(shifted - Math.round(shifted)) < 1e-6 * shifted;
}

/** `usdPerToken` is 0 exactly when the day had no price on or before it (docs/api.md). */
export function isUnpriced(position: { usdPerToken: { value: string } | string }): boolean {
  const text = typeof position.usdPerToken === 'string' ? position.usdPerToken : position.usdPerToken.value;
  return parseDecimal(text).digits === 0n;
}

const CHAIN_NAMES: Record<string, string> = { '1': 'Ethereum', '10': 'OP Mainnet', '8453': 'Base' };

export function chainName(chainId: string): string {
  return CHAIN_NAMES[chainId] ?? `Chain ${chainId}`;
}

const TOKEN_NAMES: Record<TokenKey, string> = {
  uty: 'UTY',
  yuty: 'yUTY',
  venueASy: 'Venue A SY',
  venueBYuty: 'Venue B yUTY',
  venueBUsdc: 'Venue B USDC',
  venueAYt: 'Venue A YT',
  venueALp: 'Venue A LP',
};

export function tokenName(key: string): string {
  return TOKEN_NAMES[key as TokenKey] ?? key;
}
