/**
 * `verify` against what the build recorded in the tree (tree/manifest-files.ts): every file listed
 * is present with the bytes it was written with, no file is there that no build wrote, and each
 * list is the one its summary's sha256 names. Several shard records (K of N) prove the union of
 * those shards; all N of them, the whole tree.
 */
import crypto from 'node:crypto';
import fs from 'node:fs/promises';
import path from 'node:path';
import { TreeManifestSchema } from '../schemas/manifest.ts';
import { ADDRESS_DIR } from './layout.ts';
import { MANIFEST_DIR, MANIFEST_NAME } from './manifest-files.ts';

type Fail = (message: string) => void;

const LINE = /^([0-9a-f]{64}) {2}(.+)$/;

export interface ManifestFindings {
  /** e.g. "1 of 1", "shards 1, 3 of 4". */
  coverage: string;
  complete: boolean;
  listed: number;
}

export class ManifestCheck {
  private readonly seen = new Set<string>();
  private readonly folders = new Set<string>();

  private constructor(
    private readonly dir: string,
    private readonly fail: Fail,
    /** Every file the records list, with its sha256; null when no record could be read. */
    private readonly expected: Map<string, string> | null,
    private readonly coverage: string,
    private readonly complete: boolean,
    /** The shards the records cover when they are not the whole tree; null otherwise. */
    readonly part: { count: number; indexes: number[] } | null = null,
  ) {
    for (const file of expected?.keys() ?? []) {
      for (let at = file.indexOf('/'); at !== -1; at = file.indexOf('/', at + 1)) this.folders.add(file.slice(0, at));
    }
  }

  static async load(dir: string, fail: Fail): Promise<ManifestCheck> {
    let names: string[];
    try {
      names = (await fs.readdir(path.join(dir, MANIFEST_DIR))).sort();
    } catch {
      names = [];
    }
    const shards = new Map<string, { index: number; count: number; kinds: Set<string> }>();
    for (const name of names) {
      const match = MANIFEST_NAME.exec(name);
      if (!match) {
        fail(`${MANIFEST_DIR}/${name}: extra file (not a record a build writes)`);
        continue;
      }
      const key = `${match[1]}-of-${match[2]}`;
      const shard = shards.get(key) ?? { index: Number(match[1]), count: Number(match[2]), kinds: new Set() };
      shard.kinds.add(match[3]!);
      shards.set(key, shard);
    }
    if (shards.size === 0) {
      // No tree at all: the missing meta.json says so.
      if (!(await fs.stat(dir).catch(() => null))) return new ManifestCheck(dir, fail, null, 'no record', false);
      fail(`${MANIFEST_DIR}: missing (the record of the files a build wrote; a tree without it cannot be proven complete: rebuild it)`);
      return new ManifestCheck(dir, fail, null, 'no record', false);
    }
    const counts = new Set([...shards.values()].map((shard) => shard.count));
    if (counts.size > 1) fail(`${MANIFEST_DIR}: records of different shard counts (${[...counts].join(', ')}): not one build's shards`);
    const expected = new Map<string, string>();
    for (const [key, shard] of shards) {
      const listFile = `${MANIFEST_DIR}/${key}.sha256`;
      const summaryFile = `${MANIFEST_DIR}/${key}.json`;
      if (!shard.kinds.has('json')) fail(`${summaryFile}: missing`);
      if (!shard.kinds.has('sha256')) fail(`${listFile}: missing`);
      if (shard.kinds.size < 2) continue;
      const summaryText = await fs.readFile(path.join(dir, summaryFile), 'utf8');
      let summary;
      try {
        summary = TreeManifestSchema.parse(JSON.parse(summaryText));
      } catch (error) {
        fail(`${summaryFile}: not a manifest summary (${(error as Error).message.split('\n')[0]})`);
        continue;
      }
      if (summary.shard.index !== shard.index || summary.shard.count !== shard.count) fail(`${summaryFile}: records shard ${summary.shard.index} of ${summary.shard.count}, not its name's`);
      const list = await fs.readFile(path.join(dir, listFile));
      if (sha256(list) !== summary.sha256) {
        fail(`${listFile}: edited (its sha256 is not the one ${summaryFile} records)`);
        continue;
      }
      const lines = list.toString('utf8').split('\n');
      if (lines.pop() !== '') fail(`${listFile}: does not end with a newline`);
      if (lines.length !== summary.files) fail(`${listFile}: ${lines.length} lines, ${summaryFile} records ${summary.files}`);
      const wallets = new Set<string>();
      for (const line of lines) {
        const match = LINE.exec(line);
        const file = match?.[2];
        if (!match || !file || !isTreePath(file) || file.startsWith(`${MANIFEST_DIR}/`)) {
          fail(`${listFile}: malformed line ${JSON.stringify(line.slice(0, 120))}`);
          continue;
        }
        if (file.startsWith(`${ADDRESS_DIR}/`)) wallets.add(file.split('/')[2]!);
        const earlier = expected.get(file);
        // Shared files are in every shard's record, with the same bytes; a wallet's in one only.
        if (earlier !== undefined && (earlier !== match[1] || file.startsWith(`${ADDRESS_DIR}/`))) {
          fail(`${listFile}: ${file} is also listed by another shard's record${earlier !== match[1] ? ' with other bytes' : ''}`);
        }
        expected.set(file, match[1]!);
      }
      if (wallets.size !== summary.wallets) fail(`${listFile}: lists ${wallets.size} wallets, ${summaryFile} records ${summary.wallets}`);
    }
    const count = [...counts][0]!;
    const indexes = [...shards.values()].map((shard) => shard.index).sort((a, b) => a - b);
    const complete = counts.size === 1 && indexes.length === count;
    const coverage = count === 1 ? 'the whole tree' : complete ? `all ${count} shards` : `shard${indexes.length > 1 ? 's' : ''} ${indexes.join(', ')} of ${count}`;
    return new ManifestCheck(dir, fail, expected, coverage, complete, count > 1 && !complete ? { count, indexes } : null);
  }

  /** Bytes that verify read for its own checks: hashed here, so that no file is read twice. */
  saw(file: string, bytes: Uint8Array): void {
    if (!this.expected) return;
    this.seen.add(file);
    const hash = this.expected.get(file);
    if (hash !== undefined && sha256(bytes) !== hash) this.fail(`${file}: edited (its bytes are not the ones the build wrote)`);
  }

  /** Walks the whole tree: extra files and folders, the files verify did not read, then the missing ones. */
  async finish(): Promise<ManifestFindings> {
    const expected = this.expected;
    if (!expected) return { coverage: this.coverage, complete: false, listed: 0 };
    const found = new Set<string>();
    const walk = async (folder: string): Promise<void> => {
      const entries = await fs.readdir(path.join(this.dir, folder), { withFileTypes: true }).catch(() => []);
      for (const entry of entries.sort((a, b) => (a.name < b.name ? -1 : 1))) {
        const file = folder === '' ? entry.name : `${folder}/${entry.name}`;
        if (file === MANIFEST_DIR) continue;
        if (entry.isDirectory()) {
          if (!this.folders.has(file)) this.fail(`${file}/: extra folder (no file the build wrote is in it)`);
          else await walk(file);
        } else if (!entry.isFile()) {
          this.fail(`${file}: not a regular file (the build writes only files)`);
        } else if (!expected.has(file)) {
          this.fail(`${file}: extra file (not written by the build)`);
        } else {
          found.add(file);
          if (!this.seen.has(file)) this.saw(file, await fs.readFile(path.join(this.dir, file)));
        }
      }
    };
    await walk('');
    for (const file of expected.keys()) if (!found.has(file)) this.fail(`${file}: missing`);
    return { coverage: this.coverage, complete: this.complete, listed: expected.size };
  }
}

function sha256(bytes: Uint8Array): string {
  return crypto.createHash('sha256').update(bytes).digest('hex');
}

/** A relative path inside the tree: no empty, `.` or `..` segment, no backslash. */
function isTreePath(file: string): boolean {
  return !file.includes('\\') && file.split('/').every((segment) => segment !== '' && segment !== '.' && segment !== '..');
}
