/** The seven token keys of INTERFACE.md section 2.1, in the order every output uses. */
export const TOKEN_KEYS = ['uty', 'yuty', 'venueASy', 'venueBYuty', 'venueBUsdc', 'venueAYt', 'venueALp'] as const;

export type TokenKey = (typeof TOKEN_KEYS)[number];
