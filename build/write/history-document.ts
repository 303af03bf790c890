/**
 * Write stage: the bytes of a wallet's portfolio history document (GET /v1/address/{a}/portfolio)
 * from the rows compute/history.ts made.
 */
import { TOKEN_KEYS } from '../../schemas/token-keys.ts';
import type { DocumentSink, TokenSeries } from '../compute/wallet-series.ts';
import type { DocumentBytes } from './document-bytes.ts';

/**
 * The portfolio history document: a chain key for every chain with a snapshot, ascending (the
 * series arrive in that order), each with every token key in the order of
 * schemas/token-keys.ts, empty arrays included. The snapshots themselves,
 * `{"date":..,"timestamp":..,"balance":..}` oldest first, are written by `bytes`
 * (build/write/document-bytes.ts) from the wallet laid out there.
 */
export function historyDocument(series: TokenSeries[], bytes: DocumentBytes, out: DocumentSink): void {
  out.text('{');
  let i = 0;
  while (i < series.length) {
    const chainId = series[i]!.chainId;
    out.text(`${i === 0 ? '' : ','}"${chainId}":{`);
    for (let tokenIndex = 0; tokenIndex < TOKEN_KEYS.length; tokenIndex++) {
      out.text(`${tokenIndex === 0 ? '' : ','}"${TOKEN_KEYS[tokenIndex]}":[`);
      const one = series[i];
      if (one && one.chainId === chainId && one.tokenIndex === tokenIndex) {
        out.bytes(bytes.snapshots(i));
        i++;
      }
      out.text(']');
    }
    out.text('}');
  }
  out.text('}');
}
