/**
 * Attribution, portfolio history and daily portfolio against a second, deliberately naive
 * implementation: plain JavaScript with BigInt, one transaction at a time, New York dates from
 * luxon. Random seeded exports with sub-accounts, shared transactions, transactions tied on (block,
 * smallest log index), repeated balances, zeros, amounts above 2^64, several decimals, DST changes,
 * rows after `now` and price gaps; every wallet's two documents must match exactly.
 */
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import fs from 'node:fs';
import path from 'node:path';
import { DateTime } from 'luxon';
import { build, treeHashes, type Row, PINNED_NOW } from '../helpers/fixtures.ts';
import { TOKEN_KEYS } from '../../schemas/token-keys.ts';
import { seededRandom as random } from '../../core/seeded-random.ts';

const NOW = PINNED_NOW;
const LAST_DAY = '2025-11-20';
const CHAINS = [1, 10];
const TOKENS = ['uty', 'venueBUsdc', 'venueALp'] as const;
const DECIMALS: Record<string, number> = { uty: 18, venueBUsdc: 6, venueALp: 0 };

function dataset(seed: number) {
  const next = random(seed);
  const pick = <T>(items: readonly T[]) => items[Math.floor(next() * items.length)]!;
  const address = (i: number) => `0x${i.toString(16).padStart(40, '0')}`;
  const wallets = [1, 2, 3, 4].map(address);
  const subAccounts = [address(101), address(102), address(103)];
  const venueB: Row[] = [
    { chain_id: 1, account: subAccounts[0]!, owner: wallets[0]! },
    { chain_id: 1, account: subAccounts[1]!, owner: wallets[0]! },
    { chain_id: 10, account: subAccounts[2]!, owner: wallets[1]! },
  ];
  const accounts = [...wallets, ...subAccounts];
  const walletOn = (account: string, chain: number) =>
    (venueB.find((row) => row.chain_id === chain && row.account === account)?.owner as string) ?? account;
  /** The other accounts of the wallet `account` counts for on `chain`, or every account when it has none. */
  const siblings = (account: string, chain: number) => {
    const others = accounts.filter((other) => other !== account && walletOn(other, chain) === walletOn(account, chain));
    return others.length > 0 ? others : accounts;
  };
  const balances: Row[] = [];
  const start = Date.parse('2025-10-30T00:00:00Z') / 1000; // spans the 2025-11-02 DST change
  const previous = new Map<string, string>();
  for (let block = 1; block <= 60; block++) {
    const timestamp = start + block * 13_000 + Math.floor(next() * 1000);
    let log = 0;
    const keysOfBlock = new Set<string>();
    type FirstRow = { chain: number; token: string; account: string };
    let first: FirstRow | null = null;
    for (let tx = 0; tx < 1 + Math.floor(next() * 2); tx++) {
      const hash = `0x${seed}-${block}-${tx}`;
      // Often the second transaction starts with another account of the wallet the first one
      // started with (same chain, token and log index): the two tie on (block, smallest log
      // index), and tx_hash orders them.
      const tie: FirstRow | null = first !== null && next() < 0.5 ? first : null;
      const chain: number = tie ? tie.chain : pick(CHAINS);
      const token: string = tie ? tie.token : pick(TOKENS);
      if (tie) log = 0;
      // 1 to 3 rows in the transaction, often a wallet and one of its sub-accounts
      for (let k = 0; k < 1 + Math.floor(next() * 3); k++) {
        const account: string = tie && k === 0 ? pick(siblings(tie.account, chain)) : pick(accounts);
        if (tx === 0 && k === 0) first = { chain, token, account };
        const key = `${chain}:${account}:${token}`;
        // A key of balances.parquet names one log: a row that would repeat one is left out.
        if (keysOfBlock.has(`${key}:${log}`)) {
          log++;
          continue;
        }
        keysOfBlock.add(`${key}:${log}`);
        const roll = next();
        const raw =
          roll < 0.15
            ? '0'
            : roll < 0.3 && previous.has(key)
              ? previous.get(key)!
              : (BigInt(Math.floor(next() * 2 ** 40)) * BigInt(Math.floor(1 + next() * 2 ** 40))).toString();
        previous.set(key, raw);
        balances.push({
          chain_id: chain,
          block_number: block,
          log_index: log++,
          tx_hash: hash,
          timestamp,
          address: account,
          token,
          balance: raw,
        });
      }
    }
  }
  // A few rows after now must not count.
  balances.push({
    chain_id: 1,
    block_number: 999,
    log_index: 0,
    tx_hash: '0xlate',
    timestamp: Date.parse(NOW) / 1000 + 60,
    address: wallets[0]!,
    token: 'uty',
    balance: '7',
  });
  const prices: Row[] = [];
  for (const chain of CHAINS) {
    for (const token of TOKENS) {
      for (let day = DateTime.fromISO('2025-10-28'); day.toISODate()! <= '2025-11-22'; day = day.plus({ days: 1 })) {
        if (next() < 0.3) continue; // gaps
        prices.push({ chain_id: chain, token, date: day.toISODate()!, usd_price: Math.round(next() * 1e6) / 1e4 });
      }
    }
  }
  const tokens: Row[] = CHAINS.flatMap((chain) => TOKENS.map((token) => ({ chain_id: chain, token, decimals: DECIMALS[token]! })));
  return { balances, prices, tokens, venue_b_accounts: venueB };
}

const newYorkDate = (seconds: number) => DateTime.fromSeconds(seconds, { zone: 'America/New_York' }).toISODate()!;

function scaled(raw: bigint, decimals: number): string {
  if (decimals === 0) return raw.toString();
  const digits = raw.toString().padStart(decimals + 1, '0');
  const whole = digits.slice(0, digits.length - decimals);
  const fraction = digits.slice(digits.length - decimals).replace(/0+$/, '');
  return fraction ? `${whole}.${fraction}` : whole;
}

interface Snapshot {
  date: string;
  timestamp: number;
  balance: string;
}

/** Attribution and history, literally: per (chain, wallet, token), transactions in order, sums of latest balances. */
function referenceHistories(data: ReturnType<typeof dataset>) {
  const owner = new Map(data.venue_b_accounts.map((row) => [`${row.chain_id}:${row.account}`, row.owner as string]));
  const groups = new Map<string, Row[]>();
  for (const row of data.balances) {
    if ((row.timestamp as number) > Date.parse(NOW) / 1000) continue;
    const wallet = owner.get(`${row.chain_id}:${row.address}`) ?? (row.address as string);
    const key = `${wallet}|${row.chain_id}|${row.token}`;
    groups.set(key, [...(groups.get(key) ?? []), row]);
  }
  const histories = new Map<string, Map<number, Map<string, Snapshot[]>>>();
  for (const [key, rows] of groups) {
    const [wallet, chain, token] = key.split('|') as [string, string, string];
    const transactions = new Map<string, Row[]>();
    for (const row of rows) {
      const id = `${row.block_number}|${row.tx_hash}`;
      transactions.set(id, [...(transactions.get(id) ?? []), row]);
    }
    const ordered = [...transactions.values()].sort((a, b) => {
      const firstLog = (rows: Row[]) => Math.min(...rows.map((row) => row.log_index as number));
      const byTxHash =
        (a[0]!.tx_hash as string) < (b[0]!.tx_hash as string) ? -1 : (a[0]!.tx_hash as string) > (b[0]!.tx_hash as string) ? 1 : 0;
      return (a[0]!.block_number as number) - (b[0]!.block_number as number) || firstLog(a) - firstLog(b) || byTxHash;
    });
    const latest = new Map<string, bigint>();
    let previous = 0n;
    const snapshots: Snapshot[] = [];
    for (const transaction of ordered) {
      for (const row of [...transaction].sort((a, b) => (a.log_index as number) - (b.log_index as number))) {
        latest.set(row.address as string, BigInt(row.balance as string));
      }
      const sum = [...latest.values()].reduce((total, value) => total + value, 0n);
      if (sum !== previous) {
        const timestamp = Math.max(...transaction.map((row) => row.timestamp as number));
        snapshots.push({ date: newYorkDate(timestamp), timestamp, balance: scaled(sum, DECIMALS[token]!) });
        previous = sum;
      }
    }
    if (snapshots.length === 0) continue;
    const chains = histories.get(wallet) ?? new Map<number, Map<string, Snapshot[]>>();
    const tokens = chains.get(Number(chain)) ?? new Map<string, Snapshot[]>();
    tokens.set(token, snapshots);
    chains.set(Number(chain), tokens);
    histories.set(wallet, chains);
  }
  return histories;
}

function historyText(chains: Map<number, Map<string, Snapshot[]>>): string {
  const parts = [...chains.keys()]
    .sort((a, b) => a - b)
    .map((chain) => {
      const tokens = chains.get(chain)!;
      const lists = TOKEN_KEYS.map(
        (key) =>
          `"${key}":[${(tokens.get(key) ?? []).map((s) => `{"date":"${s.date}","timestamp":${s.timestamp},"balance":${s.balance}}`).join(',')}]`,
      );
      return `"${chain}":{${lists.join(',')}}`;
    });
  return `{${parts.join(',')}}`;
}

/** The daily portfolio, literally, from the reference histories. */
function referenceDaily(chains: Map<number, Map<string, Snapshot[]>>, prices: Row[]) {
  const all = [...chains.values()].flatMap((tokens) => [...tokens.values()].flat());
  const firstDay = all.map((s) => s.date).sort()[0]!;
  const days = [];
  for (let day = DateTime.fromISO(firstDay); day.toISODate()! <= LAST_DAY; day = day.plus({ days: 1 })) {
    const date = day.toISODate()!;
    const positions = [];
    for (const chain of [...chains.keys()].sort((a, b) => a - b)) {
      for (const token of TOKEN_KEYS) {
        const dated = (chains.get(chain)!.get(token) ?? []).filter((s) => s.date <= date);
        const balance = dated.length ? dated[dated.length - 1]!.balance : '0';
        if (balance === '0') continue;
        const price = prices
          .filter((p) => p.chain_id === chain && p.token === token && (p.date as string) <= date)
          .sort((a, b) => ((a.date as string) < (b.date as string) ? -1 : 1))
          .pop();
        const usdPerToken = price ? (price.usd_price as number) : 0;
        positions.push({ token, chainId: chain, balance: Number(balance), usdPerToken, valueUsd: Number(balance) * usdPerToken });
      }
    }
    days.push({ date, totalValueUsd: positions.reduce((total, p) => total + p.valueUsd, 0), positions });
  }
  return { asOf: LAST_DAY, days };
}

for (const seed of [1, 2, 3, 4, 5, 6]) {
  test(`seed ${seed}: every wallet's history and daily documents equal the reference`, async () => {
    const data = dataset(seed);
    const built = await build(data, { now: NOW });
    const expected = referenceHistories(data);
    const written = fs.readdirSync(path.join(built.out, 'v1/address')).sort();
    assert.equal(written, [...expected.keys()].sort());
    const snapshots = [...expected.values()].flatMap((chains) => [...chains.values()].flatMap((tokens) => [...tokens.values()].flat()));
    assert.ok(
      written.length >= 4 && snapshots.length >= 40,
      `too small to compare: ${written.length} wallets, ${snapshots.length} snapshots`,
    );
    for (const [wallet, chains] of expected) {
      const history = fs.readFileSync(path.join(built.out, `v1/address/${wallet}/portfolio.json`), 'utf8');
      assert.is(history, historyText(chains), `history of ${wallet}`);
      assert.equal(built.json(`v1/address/${wallet}/portfolio/daily.json`), referenceDaily(chains, data.prices), `daily of ${wallet}`);
    }
  });
}

/**
 * The same exports as another writer may produce them: rows in another order, balances as
 * DECIMAL(38,0), addresses in mixed case row by row. The tree must not change by one byte.
 */
test('rows shuffled, balances as DECIMAL(38,0), addresses in mixed case: the same bytes', async () => {
  const data = dataset(7);
  // Letters in every address (0 -> a), so that letter case has something to change.
  const lettered = (address: unknown) => `0x${String(address).slice(2).replaceAll('0', 'a')}`;
  const base = {
    ...data,
    balances: data.balances.map((row) => ({ ...row, address: lettered(row.address) })),
    venue_b_accounts: data.venue_b_accounts.map((row) => ({ ...row, account: lettered(row.account), owner: lettered(row.owner) })),
  };
  const next = random(99);
  const mixedCase = (address: unknown) => `0x${[...String(address).slice(2)].map((c) => (next() < 0.5 ? c.toUpperCase() : c)).join('')}`;
  const shuffled = <T>(rows: T[]) =>
    rows
      .map((row) => ({ row, key: next() }))
      .sort((a, b) => a.key - b.key)
      .map(({ row }) => row);
  const variant = {
    ...base,
    balances: shuffled(base.balances.map((row) => ({ ...row, address: mixedCase(row.address) }))),
    venue_b_accounts: shuffled(
      base.venue_b_accounts.map((row) => ({ ...row, account: mixedCase(row.account), owner: mixedCase(row.owner) })),
    ),
    prices: shuffled(base.prices),
  };
  assert.ok(
    variant.balances.some((row) => /[A-F]/.test(String(row.address))),
    'no address in mixed case',
  );
  const expected = await build(base, { now: NOW });
  const written = await build(variant, { now: NOW, overrides: { balances: { balance: 'DECIMAL(38,0)' } } });
  // Every file but the build's record of its inputs (their sha256 differ: other bytes, same rows).
  const record = '_snapshot/manifests/1-of-1.json';
  const files = [...treeHashes(expected.out)].filter(([file]) => file !== record).sort();
  assert.ok(files.length >= 10, `too few files: ${files.length}`);
  assert.equal([...treeHashes(written.out)].filter(([file]) => file !== record).sort(), files);
  assert.is.not(written.json(record).build.inputs, expected.json(record).build.inputs);
});

test.run();
