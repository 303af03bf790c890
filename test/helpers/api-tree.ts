/**
 * The small tree the HTTP suites serve (test/http.test.ts on every host, test/client.test.ts
 * through the apps' client): one wallet with a venue-B sub-account, a history reaching back into
 * October (from/to across the end of a month), and two seasons.
 */
import { A, SUB, balance, unix, type Tables } from './fixtures.ts';

const ny = (local: string) => unix(`${local}-05:00`);

export const API_TABLES: Tables = {
  balances: [
    balance({ address: A, block_number: 0, timestamp: ny('2025-10-30T10:00:00'), balance: '5000000000000000000' }),
    balance({ address: A, block_number: 1, timestamp: ny('2025-11-16T10:00:00'), balance: '123456789012345678901234' }),
    balance({ address: SUB, block_number: 2, timestamp: ny('2025-11-18T10:00:00'), token: 'venueBUsdc', balance: '2500000' }),
  ],
  venue_b_accounts: [{ chain_id: 1, account: SUB, owner: A }],
  prices: [
    { chain_id: 1, token: 'uty', date: '2025-10-01', usd_price: 0.99 },
    { chain_id: 1, token: 'uty', date: '2025-11-01', usd_price: 1.01 },
  ],
  seasons: [
    { season: 1, as_of: '2025-11-05' },
    { season: 2, as_of: null },
  ],
  // Season 1's rows all fall before 2025-11-10, so that from/to can leave it without days.
  points: [
    { season: 1, date: '2025-11-03', address: A, points: 5 },
    { season: 2, date: '2025-11-18', address: A, points: 4 },
    { season: 2, date: '2025-11-20', address: A, points: 6 },
  ],
};
