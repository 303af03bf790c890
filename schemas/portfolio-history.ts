import { z } from 'zod';
import { DateStringSchema } from './common.ts';
import { TOKEN_KEYS, type TokenKey } from './token-keys.ts';

/** One balance snapshot: one per transaction that changed the wallet's balance. */
const BalanceSnapshotSchema = z
  .object({
    date: DateStringSchema.meta({ description: 'New York calendar day of the block timestamp' }),
    timestamp: z.number().int().meta({ description: 'block time, Unix seconds' }),
    balance: z.number().nonnegative().meta({ description: 'balance after the transaction, scaled by the token decimals' }),
  })
  .strict()
  .meta({ id: 'BalanceSnapshot' });

const snapshots = z.array(BalanceSnapshotSchema);

/** Every token key (token-keys.ts), in that order, on every chain that appears. */
const ChainHistorySchema = z
  .object(Object.fromEntries(TOKEN_KEYS.map((key) => [key, snapshots])) as Record<TokenKey, typeof snapshots>)
  .strict()
  .meta({ id: 'ChainHistory' });

/** `GET /v1/address/{address}/portfolio`: chain ID -> token key -> snapshots; `{}` without history. */
export const PortfolioHistorySchema = z
  .record(z.string().regex(/^-?\d+$/), ChainHistorySchema)
  .meta({ id: 'PortfolioHistory', description: 'object keyed by chain ID; {} for a wallet without history' });

export type BalanceSnapshot = z.infer<typeof BalanceSnapshotSchema>;
export type PortfolioHistory = z.infer<typeof PortfolioHistorySchema>;
