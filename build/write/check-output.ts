import { DailyPortfolioSchema } from '../../schemas/daily-portfolio.ts';
import { PortfolioHistorySchema } from '../../schemas/portfolio-history.ts';
import { PointsHistorySchema } from '../../schemas/points-history.ts';

/**
 * A spot check during the build: a sample of wallet documents (the first wallet of every tenth
 * batch) is parsed and validated against its schema, so a regression in the assembly fails the build, not the apps.
 * `wallet-snapshot verify` checks every file.
 */
export function checkSampleDocuments(samples: { wallet: string; history: string; daily: string }[]): void {
  for (const { wallet, history, daily } of samples) {
    const historyCheck = PortfolioHistorySchema.safeParse(JSON.parse(history));
    if (!historyCheck.success) throw new Error(`portfolio of ${wallet} does not match its schema: ${historyCheck.error.message}`);
    const dailyCheck = DailyPortfolioSchema.safeParse(JSON.parse(daily));
    if (!dailyCheck.success) throw new Error(`daily portfolio of ${wallet} does not match its schema: ${dailyCheck.error.message}`);
  }
}

/** The same spot check for a points history (the first wallet of every tenth batch). */
export function checkSamplePointsHistory(wallet: string, document: string): void {
  const check = PointsHistorySchema.safeParse(JSON.parse(document));
  if (!check.success) throw new Error(`points history of ${wallet} does not match its schema: ${check.error.message}`);
}
