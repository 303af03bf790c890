/**
 * The bucket format, the one definition that `publish` writes and the Worker's store reads: the
 * keys under a prefix, which files are stored gzip-compressed, and which shard holds a file.
 *
 * A version is packed: its files are members of a few tar archives of at most 64 MiB each
 * (tree/pack-archive.ts) and found through an index per shard (tree/pack-index.ts), so that a
 * night writes a handful of objects instead of one per file (docs/publishing.md, "What a night
 * costs"). An unsharded tree is shard 1 of 1.
 *
 *   live.json                                  the pointer, written last (tree/live-pointer.ts): the live
 *                                              version, the versions before it, and each shard's index shape
 *   versions/<version>/pack/<K>-of-<N>/<NNNNN>.tar
 *                                              shard K's archives, numbered from 00001 in tree path order
 *   versions/<version>/pack/<K>-of-<N>/index   shard K's index, written after its archives
 *   versions/<version>/_publish/shards/<K>-of-<N>.sha256.gz
 *                                              shard K's manifest ("<sha256>  <tree path>" per file), its pack
 *                                              in the metadata, written after its index: the shard is staged
 *   versions/<version>/_publish/commit.json    written once all N shards are staged, before the pointer: the
 *                                              version is complete
 *   versions/<version>/_publish/summary.json   the night's summary (schemas/night-summary.ts), written before the
 *                                              pointer: what the next night's guard compares with
 *   versions/<version>/_publish/shards/<K>-of-<N>.summary.json
 *                                              shard K's summary, written before its manifest; `--commit` adds them up
 *
 * Every shard holds the files every shard writes alike (leaderboards, seasons, meta, the
 * explorer): a reader takes those from shard 1, and a wallet's files from the wallet's shard
 * (core/shard.ts's rule, `packShardOf` below).
 */
import { ADDRESS_DIR } from './layout.ts';
import { NETLIFY_HEADERS_FILE, NETLIFY_REDIRECTS_FILE } from './cdn-files.ts';
import { shardOfWithWebCrypto } from '../core/shard.ts';

export const POINTER_KEY = 'live.json';
export const VERSIONS_FOLDER = 'versions/';
export const versionPrefix = (version: string) => `${VERSIONS_FOLDER}${version}/`;

/** A shard's folder of archives and index, under its version. */
export const packFolder = (shard: { index: number; count: number }) => `pack/${shard.index}-of-${shard.count}/`;
/** An archive's name in its shard's folder: numbered from 1, in tree path order. */
export const archiveName = (archive: number) => `${String(archive).padStart(5, '0')}.tar`;
export const INDEX_NAME = 'index';

/**
 * The largest archive: each is sent in one request, so a night costs a request per 64 MiB sent,
 * and a publish stopped midway sends again only the archives not yet stored.
 */
export const ARCHIVE_MAX_BYTES = 64 * 1024 * 1024;

/**
 * Text members are stored gzipped, level 2: half the CPU of level 6 for 10% more bytes, so that a
 * 1,000,000-wallet shard stages in about 2 minutes (docs/decisions.md, "Publishing"); level 1
 * costs as much and stores more. tree/pack-compress.ts compresses with it.
 */
export const GZIP_LEVEL = 2;

/**
 * What stores the same bytes the same way. Part of every version's digest, so that a change of
 * how files are stored (the archives, the index, the encoding) never resumes into a version stored
 * the old way, and recorded in a packed folder, so that publish never sends one packed another way.
 */
export const STORAGE_FORMAT = `wallet-snapshot publish 4: packed, tar archives of at most ${ARCHIVE_MAX_BYTES / 2 ** 20} MiB and a hash index per shard, gzip level ${GZIP_LEVEL} for each text file`;

/** A version id: the tree's last closed day and the start of a digest (publish/read-tree.ts). */
export const VERSION_ID_PATTERN = /^\d{4}-\d{2}-\d{2}-[0-9a-f]{16}$/;

/** What publish keeps for itself under a version, beside the tree's files. */
export const PUBLISH_FOLDER = '_publish';
export const SHARDS_FOLDER = `${PUBLISH_FOLDER}/shards/`;
export const shardRecordPath = (shard: { index: number; count: number }) => `${SHARDS_FOLDER}${shard.index}-of-${shard.count}.sha256.gz`;
export const SHARD_RECORD_NAME = /^([1-9][0-9]*)-of-([1-9][0-9]*)\.sha256\.gz$/;
export const COMMIT_PATH = `${PUBLISH_FOLDER}/commit.json`;
export const NIGHT_SUMMARY_PATH = `${PUBLISH_FOLDER}/summary.json`;
export const shardNightSummaryPath = (shard: { index: number; count: number }) =>
  `${SHARDS_FOLDER}${shard.index}-of-${shard.count}.summary.json`;

/** Formats that are compressed already gain nothing from gzip. */
const COMPRESSIBLE = new Set(['.json', '.html', '.js', '.mjs', '.css', '.svg', '.txt', '.sha256', '.map', '.wasm']);

export function isCompressible(treePath: string): boolean {
  return COMPRESSIBLE.has(extensionOf(treePath));
}

/** An archive or an index: read by range, never served as it is. */
export const PACK_CONTENT_TYPE = 'application/octet-stream';

/**
 * What publish keeps for itself beside a version (its manifests, a shard's record, the commit)
 * and the archives and indexes: read by publish, rollback and the Worker's store, never by an
 * app; immutable under their version.
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

const WALLET_PATH_START = `${ADDRESS_DIR}/`;

/**
 * The shard whose pack holds a tree path: a wallet's files are in the wallet's shard (core/shard.ts,
 * the rule the build and publish use, here through Web Crypto for the Worker), every other file in
 * shard 1.
 */
export async function packShardOf(treePath: string, count: number): Promise<number> {
  if (count === 1 || !treePath.startsWith(WALLET_PATH_START)) return 1;
  const address = treePath.slice(WALLET_PATH_START.length, treePath.indexOf('/', WALLET_PATH_START.length));
  return shardOfWithWebCrypto(address, count);
}
