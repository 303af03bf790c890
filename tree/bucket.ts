/**
 * The bucket format, the one definition that `publish` writes and the Worker's store reads: the
 * keys under a prefix, and the HTTP metadata each object carries so that every reader serves it
 * the same way (its content type, one Cache-Control for every file of a tree, gzip for text). The
 * day rows of a daily document stored in two parts are in daily-rows.ts.
 *
 *   live.json                                  the pointer, written last: {"version", "previous", "publishedAt"}
 *   versions/<version>/<tree path>             every file of one night's tree
 *   versions/<version>/_publish/manifest.sha256.gz
 *                                              "<sha256>  <tree path>" per file (and the blob of each document
 *                                              stored in two parts), written after them: the version is complete
 *   versions/<version>/_publish/shards/<K>-of-<N>.sha256.gz
 *                                              a sharded build's version: shard K's manifest, written after its
 *                                              objects (the shard is staged); `.started` beside it while it stages
 *   versions/<version>/_publish/commit.json    written by `--commit` once all N shards are staged, before the
 *                                              pointer: the sharded version is complete
 *   versions/<version>/_publish/summary.json   the night's summary (schemas/night-summary.ts), written before the
 *                                              pointer: what the next night's guard compares with
 *   versions/<version>/_publish/shards/<K>-of-<N>.summary.json
 *                                              shard K's summary, written before its manifest; `--commit` adds them up
 *   blobs/<sha256>                             the closed months' rows of daily documents, shared by every
 *                                              version that holds them
 */
import { DOCUMENT_CACHE_CONTROL } from './http-headers.ts';
import { NETLIFY_HEADERS_FILE, NETLIFY_REDIRECTS_FILE } from './cdn-files.ts';

export const POINTER_KEY = 'live.json';
export const VERSIONS_FOLDER = 'versions/';
export const versionPrefix = (version: string) => `${VERSIONS_FOLDER}${version}/`;
export const BLOBS_FOLDER = 'blobs/';
export const blobKey = (sha256: string) => `${BLOBS_FOLDER}${sha256}`;

/** A version id: the tree's last closed day and the start of a digest (publish/read-tree.ts). */
export const VERSION_ID_PATTERN = /^\d{4}-\d{2}-\d{2}-[0-9a-f]{16}$/;

/** What publish keeps for itself under a version, beside the tree's files. */
export const PUBLISH_FOLDER = '_publish';
export const MANIFEST_PATH = `${PUBLISH_FOLDER}/manifest.sha256.gz`;
export const SHARDS_FOLDER = `${PUBLISH_FOLDER}/shards/`;
export const shardRecordPath = (shard: { index: number; count: number }) => `${SHARDS_FOLDER}${shard.index}-of-${shard.count}.sha256.gz`;
export const shardStartedPath = (shard: { index: number; count: number }) => `${SHARDS_FOLDER}${shard.index}-of-${shard.count}.started`;
export const SHARD_RECORD_NAME = /^([1-9][0-9]*)-of-([1-9][0-9]*)\.sha256\.gz$/;
export const COMMIT_PATH = `${PUBLISH_FOLDER}/commit.json`;
export const NIGHT_SUMMARY_PATH = `${PUBLISH_FOLDER}/summary.json`;
export const shardNightSummaryPath = (shard: { index: number; count: number }) => `${SHARDS_FOLDER}${shard.index}-of-${shard.count}.summary.json`;

/**
 * User metadata of a file's object: `sha256` (of the whole uncompressed file, the ETag's base on
 * every host), `mtime` (ms since the epoch), and for a daily document in two parts `blob` (the
 * blob's sha256), `blob-at` (where its bytes go) and `size` (of the whole document).
 */
export interface ObjectMetadata extends Record<string, string> {
  sha256: string;
  mtime: string;
}

const CONTENT_TYPES: Record<string, string> = {
  '.json': 'application/json; charset=utf-8',
  '.html': 'text/html; charset=utf-8',
  '.js': 'text/javascript; charset=utf-8',
  '.mjs': 'text/javascript; charset=utf-8',
  '.css': 'text/css; charset=utf-8',
  '.svg': 'image/svg+xml',
  '.txt': 'text/plain; charset=utf-8',
  '.sha256': 'text/plain; charset=utf-8',
  '.map': 'application/json; charset=utf-8',
  '.png': 'image/png',
  '.ico': 'image/x-icon',
  '.woff2': 'font/woff2',
  '.wasm': 'application/wasm',
};

/** Formats that are compressed already gain nothing from gzip. */
const COMPRESSIBLE = new Set(['.json', '.html', '.js', '.mjs', '.css', '.svg', '.txt', '.sha256', '.map', '.wasm']);

export function contentTypeOf(treePath: string): string {
  return CONTENT_TYPES[extensionOf(treePath)] ?? 'application/octet-stream';
}

export function isCompressible(treePath: string): boolean {
  return COMPRESSIBLE.has(extensionOf(treePath));
}

/**
 * Every object of a version is immutable under its version prefix, but readers reach it through
 * the pointer at a path that changes content each night: the documents' own five minutes, then a
 * revalidation (a 304 on the content-derived ETag) apply to every file alike.
 */
export const OBJECT_CACHE_CONTROL = DOCUMENT_CACHE_CONTROL;

/** A blob holds day rows of a daily document: a piece of JSON, not a document of its own. */
export const BLOB_CONTENT_TYPE = 'application/octet-stream';

/**
 * What publish keeps for itself beside a version (its manifests, a shard's record, the commit):
 * read by publish and rollback, never by an app; immutable under their version.
 */
export const RECORD_CACHE_CONTROL = 'no-cache';

/** The pointer is read on every switch: never reused without asking. */
export const POINTER_CACHE_CONTROL = 'no-cache';

/** Files of the tree that configure static hosts and are not documents of the store. */
const HOST_FILES = new Set([NETLIFY_HEADERS_FILE, NETLIFY_REDIRECTS_FILE]);

export function isPublished(treePath: string): boolean {
  return !HOST_FILES.has(treePath);
}

/** `.json` of `v1/seasons.json`, lower case ('' without one); no node:path, as the Worker reads this module. */
function extensionOf(treePath: string): string {
  const name = treePath.slice(treePath.lastIndexOf('/') + 1);
  const dot = name.lastIndexOf('.');
  return dot > 0 ? name.slice(dot).toLowerCase() : '';
}
