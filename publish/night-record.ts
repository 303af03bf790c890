/**
 * The night's summary as publish keeps it beside a version (tree/bucket.ts: `_publish/summary.json`,
 * and a staged shard's `_publish/shards/K-of-N.summary.json`): a small object of its own, so that the
 * next night's guard reads the live night in one request whatever way the tree's files are stored.
 * The summary is read from the tree only after its bytes are checked against the build's records.
 */
import crypto from 'node:crypto';
import fs from 'node:fs/promises';
import path from 'node:path';
import type { S3Client } from '@aws-sdk/client-s3';
import { UserError } from '../core/errors.ts';
import { RECORD_CACHE_CONTROL } from '../tree/bucket.ts';
import { addShardSummaries, nightSummaryFile, nightSummaryText, parseNightSummary } from '../tree/night-summary.ts';
import type { NightSummary } from '../schemas/night-summary.ts';
import { describe, objectKey, type Location } from './location.ts';
import { readObjectText, writeObject } from './storage.ts';
import type { CheckedTree } from './checked-tree.ts';

/** The tree's summary (a union of N shards' trees: their N summaries added up), as its build wrote it. */
export async function readTreeNightSummary(tree: CheckedTree, shownDir: string): Promise<NightSummary> {
  const { dir, records } = tree;
  const summaries: NightSummary[] = [];
  for (const record of records.summaries) {
    const file = nightSummaryFile(record.shard);
    const recorded = records.files.get(file);
    if (recorded === undefined) {
      throw new UserError(
        `--dir ${shownDir} holds no night summary (${file}), which publish compares with the live version: it was built by an older wallet-snapshot; build it again; nothing was sent`,
      );
    }
    // A packed folder's member is read through its index (its bytes are checked against the record below).
    const text = tree.packed
      ? (tree.packed.readFile(file)?.toString('utf8') ?? '')
      : await fs.readFile(path.join(dir, ...file.split('/')), 'utf8');
    if (crypto.createHash('sha256').update(text).digest('hex') !== recorded) {
      throw new UserError(
        `--dir ${shownDir}: ${file} was edited since the build (its bytes are not the ones the build wrote); build it again; nothing was sent`,
      );
    }
    summaries.push(parseNightSummary(text, `${shownDir}/${file}`));
  }
  return summaries.length === 1 ? summaries[0]! : addShardSummaries(summaries);
}

export async function writeNightRecord(
  client: S3Client,
  location: Location,
  version: string,
  treePath: string,
  summary: NightSummary,
  abortSignal?: AbortSignal,
): Promise<void> {
  const key = objectKey(location, version, treePath);
  await writeObject(
    client,
    location,
    key,
    { body: nightSummaryText(summary), contentType: 'application/json; charset=utf-8', cacheControl: RECORD_CACHE_CONTROL },
    abortSignal,
  );
}

/** null when there is none (a version published before publish kept one). */
export async function readNightRecord(
  client: S3Client,
  location: Location,
  version: string,
  treePath: string,
  abortSignal?: AbortSignal,
): Promise<NightSummary | null> {
  const key = objectKey(location, version, treePath);
  const text = await readObjectText(client, location, key, abortSignal);
  if (text === null) return null;
  try {
    return parseNightSummary(text, `${describe(location)}: ${key}`);
  } catch (error) {
    throw new UserError(`${(error as Error).message}; it was not written by this wallet-snapshot publish`, 1, { cause: error });
  }
}
