/**
 * `verify` against what the build recorded in the tree (tree/manifest-files.ts): every file listed
 * is present with the bytes it was written with, no file is there that no build wrote, and each
 * list is the one its summary's sha256 names. Several shard records (K of N) prove the union of
 * those shards; all N of them, the whole tree.
 *
 * The wallet folders are checked by the threads that check their documents (RecordedFolder, fed
 * each wallet's lines of the record); this check keeps the rest of the tree, and which wallets the
 * record lists.
 */
import crypto from 'node:crypto';
import { TreeManifestSchema } from '../schemas/manifest.ts';
import { ADDRESS_DIR } from './layout.ts';
import { MANIFEST_DIR, MANIFEST_NAME } from './manifest-files.ts';
import { unreadable } from './verify-document.ts';
import { MANIFEST_LINE_PATH_AT, parseManifestLine } from './manifest-line.ts';
import type { TreeEntry, TreeFiles } from './tree-files.ts';

type Fail = (message: string) => void;

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
    private readonly files: TreeFiles,
    private readonly fail: Fail,
    /** Every file the records list outside the wallet folders, with its sha256; null when no record could be read. */
    private readonly expected: Map<string, string> | null,
    readonly coverage: string,
    private readonly complete: boolean,
    /** The shards the records cover when they are not the whole tree; null otherwise. */
    readonly part: { count: number; indexes: number[] } | null = null,
    /** The lines of the records for each wallet folder (`v1/address/{name}/...`). */
    private readonly walletLines = new Map<string, string[]>(),
  ) {
    for (const file of expected?.keys() ?? []) {
      for (let at = file.indexOf('/'); at !== -1; at = file.indexOf('/', at + 1)) this.folders.add(file.slice(0, at));
    }
    if (walletLines.size > 0) {
      this.folders.add(ADDRESS_DIR.split('/')[0]!);
      this.folders.add(ADDRESS_DIR);
    }
  }

  /**
   * `held`: whether the tree holds a recorded file (a packed folder leaves out the static hosts'
   * files, tree/packed-folder.ts); a file it does not hold is not missing.
   */
  static async load(files: TreeFiles, fail: Fail, held: (file: string) => boolean = () => true): Promise<ManifestCheck> {
    let names: string[];
    try {
      names = files.entries(MANIFEST_DIR).map((entry) => entry.name);
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'ENOENT' && files.list('') !== null) {
        fail(unreadable(MANIFEST_DIR, error));
        return new ManifestCheck(files, fail, null, 'no record', false);
      }
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
      if (files.list('') === null) return new ManifestCheck(files, fail, null, 'no record', false);
      fail(`${MANIFEST_DIR}: missing (the record of the files a build wrote; a tree without it cannot be proven complete: rebuild it)`);
      return new ManifestCheck(files, fail, null, 'no record', false);
    }
    const counts = new Set([...shards.values()].map((shard) => shard.count));
    if (counts.size > 1) fail(`${MANIFEST_DIR}: records of different shard counts (${[...counts].join(', ')}): not one build's shards`);
    const expected = new Map<string, string>();
    const walletLines = new Map<string, string[]>();
    for (const [key, shard] of shards) {
      const listFile = `${MANIFEST_DIR}/${key}.sha256`;
      const summaryFile = `${MANIFEST_DIR}/${key}.json`;
      if (!shard.kinds.has('json')) fail(`${summaryFile}: missing`);
      if (!shard.kinds.has('sha256')) fail(`${listFile}: missing`);
      if (shard.kinds.size < 2) continue;
      const read = (file: string) => {
        try {
          return files.read(file);
        } catch (error) {
          fail(unreadable(file, error));
          return null;
        }
      };
      // A record that cannot be read proves nothing: the tree is checked as one without records.
      const summaryBytes = read(summaryFile);
      if (summaryBytes === null) return new ManifestCheck(files, fail, null, 'no record', false);
      const summaryText = summaryBytes.toString('utf8');
      let summary;
      try {
        summary = TreeManifestSchema.parse(JSON.parse(summaryText));
      } catch (error) {
        fail(`${summaryFile}: not a manifest summary (${(error as Error).message.split('\n')[0]})`);
        continue;
      }
      if (summary.shard.index !== shard.index || summary.shard.count !== shard.count)
        fail(`${summaryFile}: records shard ${summary.shard.index} of ${summary.shard.count}, not its name's`);
      const list = read(listFile);
      if (list === null) return new ManifestCheck(files, fail, null, 'no record', false);
      if (sha256(list) !== summary.sha256) {
        fail(`${listFile}: edited (its sha256 is not the one ${summaryFile} records)`);
        continue;
      }
      const lines = list.toString('utf8').split('\n');
      if (lines.pop() !== '') fail(`${listFile}: does not end with a newline`);
      if (lines.length !== summary.files) fail(`${listFile}: ${lines.length} lines, ${summaryFile} records ${summary.files}`);
      const wallets = new Set<string>();
      for (const line of lines) {
        const parsed = parseManifestLine(line);
        const file = parsed?.path;
        if (!parsed || !file || !isTreePath(file) || file.startsWith(`${MANIFEST_DIR}/`)) {
          fail(`${listFile}: malformed line ${JSON.stringify(line.slice(0, 120))}`);
          continue;
        }
        if (file.startsWith(`${ADDRESS_DIR}/`)) {
          const wallet = file.split('/')[2]!;
          wallets.add(wallet);
          const lines = walletLines.get(wallet);
          // A wallet's file is in one shard's record only.
          const earlier = lines?.find((other) => other.slice(MANIFEST_LINE_PATH_AT) === file);
          if (earlier !== undefined)
            fail(
              `${listFile}: ${file} is also listed by another shard's record${earlier.slice(0, MANIFEST_LINE_PATH_AT - 2) !== parsed.sha256 ? ' with other bytes' : ''}`,
            );
          if (lines) lines.push(line);
          else walletLines.set(wallet, [line]);
          continue;
        }
        const earlier = expected.get(file);
        // Shared files are in every shard's record, with the same bytes; a wallet's in one only.
        if (earlier !== undefined && (earlier !== parsed.sha256 || file.startsWith(`${ADDRESS_DIR}/`))) {
          fail(`${listFile}: ${file} is also listed by another shard's record${earlier !== parsed.sha256 ? ' with other bytes' : ''}`);
        }
        if (held(file)) expected.set(file, parsed.sha256);
      }
      if (wallets.size !== summary.wallets) fail(`${listFile}: lists ${wallets.size} wallets, ${summaryFile} records ${summary.wallets}`);
    }
    const count = [...counts][0]!;
    const indexes = [...shards.values()].map((shard) => shard.index).sort((a, b) => a - b);
    const complete = counts.size === 1 && indexes.length === count;
    const coverage =
      count === 1
        ? 'the whole tree'
        : complete
          ? `all ${count} shards`
          : `shard${indexes.length > 1 ? 's' : ''} ${indexes.join(', ')} of ${count}`;
    return new ManifestCheck(files, fail, expected, coverage, complete, count > 1 && !complete ? { count, indexes } : null, walletLines);
  }

  /** What the records say the tree is: the whole tree (every shard), some shards, or null without a readable record. */
  get recordedPart(): { count: number; indexes: number[] } | 'whole' | null {
    if (!this.expected) return null;
    return this.part ?? 'whole';
  }

  /**
   * The entries of the wallets' folder (v1/address/): for each, the record's lines of its wallet,
   * for the thread that checks the folder (RecordedFolder), or null when that folder has no
   * record to be checked against (reported here when the records list no file in it). The wallets
   * the records list without a folder are reported missing.
   */
  delegateWallets(entries: TreeEntry[]): (string[] | null)[] {
    if (!this.expected) return entries.map(() => null);
    const names = new Set<string>();
    const delegated = entries.map((entry) => {
      const file = `${ADDRESS_DIR}/${entry.name}`;
      names.add(entry.name);
      const lines = this.walletLines.get(entry.name);
      if (entry.isDirectory()) {
        if (lines) return lines;
        this.fail(`${file}/: extra folder (no file the build wrote is in it)`);
      } else if (!entry.isFile()) {
        this.fail(`${file}: not a regular file (the build writes only files)`);
      } else {
        this.fail(`${file}: extra file (not written by the build)`);
      }
      for (const line of lines ?? []) this.fail(`${line.slice(MANIFEST_LINE_PATH_AT)}: missing`);
      return null;
    });
    for (const [wallet, lines] of this.walletLines) {
      if (!names.has(wallet)) for (const line of lines) this.fail(`${line.slice(MANIFEST_LINE_PATH_AT)}: missing`);
    }
    return delegated;
  }

  /** Bytes that verify read for its own checks: hashed here, so that no file is read twice. */
  saw(file: string, bytes: Uint8Array): void {
    if (!this.expected) return;
    this.seen.add(file);
    const hash = this.expected.get(file);
    if (hash !== undefined && sha256(bytes) !== hash) this.fail(`${file}: edited (its bytes are not the ones the build wrote)`);
  }

  /**
   * Walks the tree but the wallet folders (delegateWallets): extra files and folders, the files
   * verify did not read, then the missing ones.
   */
  async finish(): Promise<ManifestFindings> {
    const expected = this.expected;
    if (!expected) return { coverage: this.coverage, complete: false, listed: 0 };
    const found = walkRecorded(
      '',
      expected,
      this.folders,
      this.fail,
      (file) => {
        if (!this.seen.has(file)) readRecorded(this.files, file, (bytes) => this.saw(file, bytes), this.fail);
      },
      (folder) => this.files.list(folder),
      { ignored: MANIFEST_DIR, notEntered: ADDRESS_DIR },
    );
    for (const file of expected.keys()) if (!found.has(file)) this.fail(`${file}: missing`);
    let listed = expected.size;
    for (const lines of this.walletLines.values()) listed += lines.length;
    return { coverage: this.coverage, complete: this.complete, listed };
  }
}

/**
 * Walks `start` (a folder of the tree at `root`) against a record: reports extra folders (not
 * entered), entries that are not regular files and extra files; calls `found` for each recorded
 * file present, and returns them. `ignored` is passed over; `notEntered` is checked but not entered.
 */
/** A recorded file's bytes for its hash, or its failure (unreadable) when the system refuses to read it. */
function readRecorded(files: TreeFiles, file: string, saw: (bytes: Uint8Array) => void, fail: Fail): void {
  let bytes: Uint8Array;
  try {
    bytes = files.read(file);
  } catch (error) {
    fail(unreadable(file, error));
    return;
  }
  saw(bytes);
}

function walkRecorded(
  start: string,
  expected: Map<string, string>,
  folders: Set<string>,
  fail: Fail,
  found: (file: string) => void,
  list: (folder: string) => TreeEntry[] | null,
  skip: { ignored?: string; notEntered?: string } = {},
): Set<string> {
  const present = new Set<string>();
  const walk = (folder: string): void => {
    for (const entry of list(folder) ?? []) {
      const file = folder === '' ? entry.name : `${folder}/${entry.name}`;
      if (file === skip.ignored) continue;
      if (entry.isDirectory() && expected.has(file)) {
        // A folder where the build wrote a file: there, but unreadable (said by `found`), not missing.
        present.add(file);
        found(file);
      } else if (entry.isDirectory()) {
        if (!folders.has(file)) fail(`${file}/: extra folder (no file the build wrote is in it)`);
        else if (file !== skip.notEntered) walk(file);
      } else if (!entry.isFile()) {
        fail(`${file}: not a regular file (the build writes only files)`);
      } else if (!expected.has(file)) {
        fail(`${file}: extra file (not written by the build)`);
      } else {
        present.add(file);
        found(file);
      }
    }
  };
  walk(start);
  return present;
}

/**
 * One wallet folder against its lines of the record, in the thread that checks its documents:
 * the bytes of every document read for the checks (saw), then the folder's entries (finish).
 */
export class RecordedFolder {
  private readonly expected = new Map<string, string>();
  private readonly folders = new Set<string>();
  private readonly seen = new Set<string>();

  constructor(
    private readonly folder: string,
    lines: string[],
    private readonly fail: Fail,
  ) {
    for (const line of lines) {
      const file = line.slice(MANIFEST_LINE_PATH_AT);
      this.expected.set(file, line.slice(0, MANIFEST_LINE_PATH_AT - 2));
      for (let at = file.indexOf('/', folder.length); at !== -1; at = file.indexOf('/', at + 1)) this.folders.add(file.slice(0, at));
    }
  }

  saw(file: string, bytes: Uint8Array): void {
    this.seen.add(file);
    const hash = this.expected.get(file);
    if (hash !== undefined && sha256(bytes) !== hash) this.fail(`${file}: edited (its bytes are not the ones the build wrote)`);
  }

  /** `list`: the folder listings the document checks made already. */
  finish(files: TreeFiles, list: (folder: string) => TreeEntry[] | null): void {
    const found = walkRecorded(
      this.folder,
      this.expected,
      this.folders,
      this.fail,
      (file) => {
        if (!this.seen.has(file)) readRecorded(files, file, (bytes) => this.saw(file, bytes), this.fail);
      },
      list,
    );
    for (const file of this.expected.keys()) if (!found.has(file)) this.fail(`${file}: missing`);
  }
}

function sha256(bytes: Uint8Array): string {
  return crypto.createHash('sha256').update(bytes).digest('hex');
}

/** A relative path inside the tree: no empty, `.` or `..` segment, no backslash. */
function isTreePath(file: string): boolean {
  return !file.includes('\\') && file.split('/').every((segment) => segment !== '' && segment !== '.' && segment !== '..');
}
