/** The seven token keys, in the order every output uses. */
export const TOKEN_KEYS = ['uty', 'yuty', 'venueASy', 'venueBYuty', 'venueBUsdc', 'venueAYt', 'venueALp'] as const;

export type TokenKey = (typeof TOKEN_KEYS)[number];
