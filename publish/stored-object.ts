/**
 * A file of a tree as the bucket stores it (tree/bucket.ts): its key, the stored bytes (gzip for
 * text; of a daily document in two parts, the rest without the closed months), its HTTP metadata
 * and user metadata; and the blob of those closed months. `publish` uploads exactly these, and
 * `serve --runtime workerd` puts exactly these into its local bucket, so the two cannot drift.
 */
import { BLOB_CONTENT_TYPE, blobKey, contentTypeOf, isCompressible, OBJECT_CACHE_CONTROL, versionPrefix } from '../tree/bucket.ts';
import { restOf } from '../tree/daily-rows.ts';
import { gzip } from './compress.ts';
import type { TreeFile } from './tree-file.ts';

export interface StoredObject {
  /** The key under the bucket's prefix: `versions/<version>/<tree path>` or `blobs/<sha256>`. */
  key: string;
  body: Uint8Array;
  httpMetadata: { contentType: string; cacheControl: string; contentEncoding?: string };
  customMetadata: Record<string, string>;
}

/** The metadata of a file's object, whether uploaded or copied server-side. */
export function fileMetadata(file: TreeFile): Pick<StoredObject, 'httpMetadata' | 'customMetadata'> {
  return {
    httpMetadata: {
      contentType: contentTypeOf(file.path),
      cacheControl: OBJECT_CACHE_CONTROL,
      ...(isCompressible(file.path) ? { contentEncoding: 'gzip' } : {}),
    },
    // `sha256` is always the whole document's, so the ETag does not depend on how it is stored.
    customMetadata: {
      sha256: file.sha256,
      mtime: String(file.mtimeMs),
      ...(file.blob ? { blob: file.blob.sha256, 'blob-at': String(file.blob.at), size: String(file.size) } : {}),
    },
  };
}

/** `bytes`: the whole file, as hashed into `file`. */
export function fileObject(version: string, file: TreeFile, bytes: Uint8Array): StoredObject {
  const stored = file.blob ? restOf(bytes, file.blob) : bytes;
  return {
    key: `${versionPrefix(version)}${file.path}`,
    body: isCompressible(file.path) ? gzip(stored) : stored,
    ...fileMetadata(file),
  };
}

/** The closed months' blob of a daily document in two parts (`file.blob` set). */
export function blobObject(file: TreeFile, bytes: Uint8Array): StoredObject {
  const blob = file.blob!;
  return {
    key: blobKey(blob.sha256),
    body: gzip(bytes.subarray(blob.at, blob.at + blob.length)),
    httpMetadata: { contentType: BLOB_CONTENT_TYPE, cacheControl: OBJECT_CACHE_CONTROL, contentEncoding: 'gzip' },
    customMetadata: { sha256: blob.sha256, size: String(blob.length) },
  };
}

/** The object's metadata as the S3 API's request fields. */
export function s3Fields(object: Pick<StoredObject, 'httpMetadata' | 'customMetadata'>) {
  return {
    ContentType: object.httpMetadata.contentType,
    CacheControl: object.httpMetadata.cacheControl,
    ...(object.httpMetadata.contentEncoding ? { ContentEncoding: object.httpMetadata.contentEncoding } : {}),
    Metadata: object.customMetadata,
  };
}
