/**
 * Where a tree is published: `s3://BUCKET[/PREFIX]`, and the keys of the bucket layout that
 * `publish` writes and every reader (the Worker, the origin) reads:
 *
 *   PREFIX/live.json                               the pointer, written last: {"version", "previous", "publishedAt"}
 *   PREFIX/versions/<version>/<tree path>          every file of one night's tree
 *   PREFIX/versions/<version>/_publish/manifest.sha256.gz
 *                                                  "<sha256>  <tree path>" per file (and the blob of each
 *                                                  document stored in two parts), written after them:
 *                                                  the version is complete, and the next night copies from it
 *   PREFIX/versions/<version>/_publish/shards/<K>-of-<N>.sha256.gz
 *                                                  a sharded build's version: shard K's manifest, written after
 *                                                  its objects (the shard is staged); `.started` beside it while
 *                                                  it stages
 *   PREFIX/versions/<version>/_publish/commit.json written by `--commit` once all N shards are staged, before
 *                                                  the pointer: the sharded version is complete
 *   PREFIX/blobs/<sha256>                          the closed months' rows of daily documents, shared by
 *                                                  every version that holds them (daily-parts.ts)
 */
import { UserError } from '../core/errors.ts';

export interface Location {
  bucket: string;
  /** '' or a prefix without leading or trailing slash. */
  prefix: string;
}

/** A version id: the tree's last closed day and the start of its content digest. */
export const VERSION_ID_PATTERN = /^\d{4}-\d{2}-\d{2}-[0-9a-f]{16}$/;

export const PUBLISH_FOLDER = '_publish';
/** The manifest's path inside its version. */
export const MANIFEST_PATH = `${PUBLISH_FOLDER}/manifest.sha256.gz`;

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

function under(location: Location, key: string): string {
  return location.prefix ? `${location.prefix}/${key}` : key;
}

export const pointerKey = (location: Location) => under(location, 'live.json');
export const versionsPrefix = (location: Location) => under(location, 'versions/');
export const versionPrefix = (location: Location, version: string) => `${versionsPrefix(location)}${version}/`;
export const objectKey = (location: Location, version: string, treePath: string) => `${versionPrefix(location, version)}${treePath}`;
export const blobsPrefix = (location: Location) => under(location, 'blobs/');
export const blobKey = (location: Location, sha256: string) => `${blobsPrefix(location)}${sha256}`;
export const manifestKey = (location: Location, version: string) => objectKey(location, version, MANIFEST_PATH);

/** The staged shards' manifests of a sharded version. */
export const SHARDS_FOLDER = `${PUBLISH_FOLDER}/shards/`;
export const shardRecordPath = (shard: { index: number; count: number }) => `${SHARDS_FOLDER}${shard.index}-of-${shard.count}.sha256.gz`;
export const shardStartedPath = (shard: { index: number; count: number }) => `${SHARDS_FOLDER}${shard.index}-of-${shard.count}.started`;
export const SHARD_RECORD_NAME = /^([1-9][0-9]*)-of-([1-9][0-9]*)\.sha256\.gz$/;
/** A sharded version's mark of completeness, written by `--commit`. */
export const COMMIT_PATH = `${PUBLISH_FOLDER}/commit.json`;

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
  if (!url) throw new UserError(`--endpoint ${endpoint}: expected an http:// or https:// URL, e.g. https://<account id>.r2.cloudflarestorage.com`);
  const path = url.pathname.replace(/\/+$/, '');
  if (path !== '' || url.search !== '') {
    const named = path.split('/').filter(Boolean)[0];
    throw new UserError(
      `--endpoint ${endpoint}: an endpoint is the server alone, without a path${named === bucket ? ` (the bucket ${bucket} goes in --to, not on the endpoint's end)` : ''}; give --endpoint ${url.origin}`,
    );
  }
}
