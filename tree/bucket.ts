/**
 * The HTTP metadata each published object carries, so that every reader serves it the same way:
 * its content type, one Cache-Control for every file of a tree, and gzip for text.
 */
import path from 'node:path';
import { DOCUMENT_CACHE_CONTROL } from '../tree/http-headers.ts';
import { NETLIFY_HEADERS_FILE, NETLIFY_REDIRECTS_FILE } from '../tree/cdn-files.ts';

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
  return CONTENT_TYPES[path.posix.extname(treePath).toLowerCase()] ?? 'application/octet-stream';
}

export function isCompressible(treePath: string): boolean {
  return COMPRESSIBLE.has(path.posix.extname(treePath).toLowerCase());
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
