/**
 * Where a tree is published: `s3://BUCKET[/PREFIX]`, and the keys of the bucket layout
 * (tree/bucket.ts) under that prefix.
 */
import { UserError } from '../core/errors.ts';
import { POINTER_KEY, versionPrefix as bucketVersionPrefix, VERSIONS_FOLDER } from '../tree/bucket.ts';

export interface Location {
  bucket: string;
  /** '' or a prefix without leading or trailing slash. */
  prefix: string;
}

// Bucket names of S3, R2 and MinIO: 3 to 63 lower-case letters, digits, dots and hyphens.
const BUCKET_PATTERN = /^[a-z0-9][a-z0-9.-]{1,61}[a-z0-9]$/;

/** `option`: the option the user gave the location with, named in the refusals. */
export function parseLocation(text: string, option = '--to'): Location {
  const match = /^s3:\/\/([^/]+)(?:\/(.*))?$/.exec(text);
  if (!match) throw new UserError(`${option} ${text}: expected s3://BUCKET or s3://BUCKET/PREFIX`);
  const bucket = match[1]!;
  if (!BUCKET_PATTERN.test(bucket)) {
    throw new UserError(`${option} ${text}: "${bucket}" is not a bucket name (3 to 63 lower-case letters, digits, dots and hyphens)`);
  }
  const prefix = (match[2] ?? '').replace(/^\/+|\/+$/g, '');
  if (prefix.split('/').some((segment) => segment === '.' || segment === '..') || prefix.includes('//')) {
    throw new UserError(`${option} ${text}: the prefix "${prefix}" holds an empty, "." or ".." segment`);
  }
  return { bucket, prefix };
}

export function describe(location: Location): string {
  return `s3://${location.bucket}${location.prefix ? `/${location.prefix}` : ''}`;
}

/** A key of the layout (tree/bucket.ts) under the location's prefix. */
function underPrefix(location: Location, key: string): string {
  return location.prefix ? `${location.prefix}/${key}` : key;
}

export const pointerKey = (location: Location) => underPrefix(location, POINTER_KEY);
export const versionsPrefix = (location: Location) => underPrefix(location, VERSIONS_FOLDER);
export const versionPrefix = (location: Location, version: string) => underPrefix(location, bucketVersionPrefix(version));
export const objectKey = (location: Location, version: string, treePath: string) => `${versionPrefix(location, version)}${treePath}`;

/**
 * An endpoint is a server, not a bucket: the requests name the bucket (path-style). R2's
 * dashboard shows the bucket's URL, the endpoint with the bucket on its end; given as the
 * endpoint, every request would name the bucket twice and fail in a way no rerun fixes.
 */
export function checkEndpoint(endpoint: string, bucket: string): void {
  let url: URL | null = null;
  try {
    url = /^https?:\/\/[^/]/.test(endpoint) ? new URL(endpoint) : null;
  } catch {
    url = null;
  }
  if (!url)
    throw new UserError(`--endpoint ${endpoint}: expected an http:// or https:// URL, e.g. https://<account id>.r2.cloudflarestorage.com`);
  const path = url.pathname.replace(/\/+$/, '');
  if (path !== '' || url.search !== '') {
    const named = path.split('/').filter(Boolean)[0];
    throw new UserError(
      `--endpoint ${endpoint}: an endpoint is the server alone, without a path${named === bucket ? ` (the bucket ${bucket} goes in --to, not on the endpoint's end)` : ''}; give --endpoint ${url.origin}`,
    );
  }
}
