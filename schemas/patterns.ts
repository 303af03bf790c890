/**
 * The formats the interface accepts in a request, shared by the preview server,
 * the OpenAPI document, the CloudFront function and the explorer page. Kept free of zod so the
 * page's bundle does not carry it.
 */
export const DATE_PATTERN = /^\d{4}-\d{2}-\d{2}$/;
export const ADDRESS_PATTERN = /^0x[0-9a-fA-F]{40}$/;
export const SEASON_SEGMENT_PATTERN = /^s[1-9][0-9]*$/;
