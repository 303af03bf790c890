/**
 * The token keys, in the order every output uses, each with the name the explorer shows: the one
 * list of them (docs/architecture.md, "Adding a token key"). A series key keeps 3 bits for a
 * key's position (build/compute/series-key.ts refuses a ninth at load).
 */
export const TOKEN_KEYS = ['uty', 'yuty', 'venueASy', 'venueBYuty', 'venueBUsdc', 'venueAYt', 'venueALp'] as const;

export type TokenKey = (typeof TOKEN_KEYS)[number];

/** Each key's name as a person reads it (the explorer's tables, legends and chart). */
export const TOKEN_NAMES: Record<TokenKey, string> = {
  uty: 'UTY',
  yuty: 'yUTY',
  venueASy: 'Venue A SY',
  venueBYuty: 'Venue B yUTY',
  venueBUsdc: 'Venue B USDC',
  venueAYt: 'Venue A YT',
  venueALp: 'Venue A LP',
};
