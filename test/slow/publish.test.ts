/** The tree at --out is replaced only by a complete tree, and never damaged. */
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import fs from 'node:fs';
import path from 'node:path';
import {
  A,
  B,
  PINNED_NOW as now,
  balance,
  everyTokenOnThreeChains,
  tempDir,
  thrown,
  treeHashes,
  writeInputs,
} from '../helpers/fixtures.ts';
import { runCli } from '../helpers/process.ts';
import { buildSnapshot } from '../../build/index.ts';
import { resolveBuildConfig } from '../../build/config.ts';
import { cannotWrite } from '../../build/errors.ts';
import { UserError } from '../../core/errors.ts';
import { generateDataset } from '../../data/generate.ts';
import { FileLock } from '../../build/swap/lock.ts';

/** Work a build left beside --out: temporary links, work folders, half-deleted trees. */
const leftovers = (root: string, name = 'public') => {
  const builds = path.join(root, `.${name}.builds`);
  return [
    ...fs.readdirSync(root).filter((entry) => entry.startsWith(`.${name}.link-`)),
    ...(fs.existsSync(builds) ? fs.readdirSync(builds).filter((entry) => /^(work|trash)-/.test(entry)) : []),
  ];
};

test('a rebuild replaces the whole tree: files of wallets that are gone disappear; the replaced tree is kept until the next build', async () => {
  const root = tempDir();
  const out = path.join(root, 'public');
  const builds = path.join(root, '.public.builds');
  const first = await writeInputs(path.join(root, 'one'), { balances: [balance({ address: A, block_number: 1, balance: '1' })] });
  const second = await writeInputs(path.join(root, 'two'), { balances: [balance({ address: B, block_number: 1, balance: '1' })] });
  const fresh = await buildSnapshot(resolveBuildConfig({ input: first, out, now, progress: 'quiet' }));
  assert.ok(fs.existsSync(path.join(out, `v1/address/${A}/portfolio.json`)));
  assert.is(fs.readlinkSync(out), `.public.builds/${fresh.build}`);
  const rebuilt = await buildSnapshot(resolveBuildConfig({ input: second, out, now, progress: 'quiet' }));
  assert.not.ok(fs.existsSync(path.join(out, `v1/address/${A}`)));
  assert.ok(fs.existsSync(path.join(out, `v1/address/${B}/portfolio.json`)));
  assert.is(rebuilt.previousBuild, fresh.build);
  assert.equal(fs.readdirSync(builds).sort(), [fresh.build, rebuilt.build].sort());
  assert.equal(leftovers(root), []);
  // Removing older trees is a timed stage of the build, and only when there is one.
  const third = await buildSnapshot(resolveBuildConfig({ input: first, out, now, progress: 'quiet' }));
  assert.not.ok('remove older trees' in fresh.stageSeconds);
  assert.not.ok('remove older trees' in rebuilt.stageSeconds);
  assert.ok('remove older trees' in third.stageSeconds);
  assert.equal(fs.readdirSync(builds).sort(), [rebuilt.build, third.build].sort());
});

test('a failed build leaves the previous tree byte for byte and no work folder', async () => {
  const root = tempDir();
  const out = path.join(root, 'public');
  const good = await writeInputs(path.join(root, 'good'), { balances: [balance({ address: A, block_number: 1, balance: '1' })] });
  const bad = await writeInputs(path.join(root, 'bad'), { balances: [balance({ address: 'nope', block_number: 1, balance: '1' })] });
  await buildSnapshot(resolveBuildConfig({ input: good, out, now, progress: 'quiet' }));
  const before = [...treeHashes(out)].sort();
  const result = await runCli(['build', '--input', bad, '--out', out, '--now', now]);
  assert.is(result.code, 1);
  assert.match(result.stderr, 'balances.parquet: column "address"');
  assert.equal([...treeHashes(out)].sort(), before);
  assert.equal(leftovers(root), []);
});

test('--manifest: a path that cannot be written fails before any work; a failed build keeps the previous manifest', async () => {
  const root = tempDir();
  const out = path.join(root, 'public');
  const manifest = path.join(root, 'upload', 'manifest.sha256');
  const good = await writeInputs(path.join(root, 'good'), { balances: [balance({ address: A, block_number: 1, balance: '1' })] });
  const bad = await writeInputs(path.join(root, 'bad'), { balances: [balance({ address: A, block_number: 1, balance: '-1' })] });
  await buildSnapshot(resolveBuildConfig({ input: good, out, now, manifest, progress: 'quiet' }));
  const tree = [...treeHashes(out)].sort();
  const lines = fs.readFileSync(manifest, 'utf8');
  // Every file but the tree's own record of them (_snapshot/manifests/1-of-1.*), which holds the same lines.
  assert.is(lines.trim().split('\n').length, tree.length - 2);
  assert.is(fs.readFileSync(path.join(out, '_snapshot/manifests/1-of-1.sha256'), 'utf8'), lines);
  const besideManifest = () => fs.readdirSync(path.dirname(manifest));
  assert.equal(besideManifest(), ['manifest.sha256']);

  // Its folder would be a file: refused at once, the tree and the manifest as they were.
  const blocked = path.join(root, 'a-file');
  fs.writeFileSync(blocked, '');
  const failure = async (input: string, manifestFile: string) => {
    const error = await thrown(() => buildSnapshot(resolveBuildConfig({ input, out, now, manifest: manifestFile, progress: 'quiet' })));
    assert.instance(error, UserError);
    return error.message;
  };
  assert.match(
    await failure(good, path.join(blocked, 'manifest.sha256')),
    `--manifest ${path.join(blocked, 'manifest.sha256')} cannot be written (`,
  );
  assert.is(await failure(good, root), `--manifest ${root} cannot be written (it is a directory)`);
  // A build that fails on its input publishes neither the tree nor the manifest, and leaves no partial file.
  assert.match(await failure(bad, manifest), 'balances.parquet: column "balance"');
  assert.equal([...treeHashes(out)].sort(), tree);
  assert.is(fs.readFileSync(manifest, 'utf8'), lines);
  assert.equal(besideManifest(), ['manifest.sha256']);
  assert.equal(leftovers(root), []);
});

test('--out is never a folder the swap would wrongly delete: the exports, a manifest, other content', async () => {
  const root = tempDir();
  const input = await writeInputs(path.join(root, 'exports', 'input'), {
    balances: [balance({ address: A, block_number: 1, balance: '1' })],
  });
  fs.mkdirSync(path.join(root, 'notes'));
  fs.writeFileSync(path.join(root, 'notes', 'todo.txt'), 'keep me');
  const files = () => [...treeHashes(root)].sort();
  const before = files();
  const failure = async (options: { out: string; manifest?: string }) => {
    const error = await thrown(async () => buildSnapshot(resolveBuildConfig({ input, now, progress: 'quiet', ...options })));
    assert.instance(error, UserError);
    return error.message;
  };
  for (const out of [input, path.join(root, 'exports'), root]) {
    assert.is(
      await failure({ out }),
      `--out ${out} holds the input folder ${input}: the build replaces --out as a whole and would delete the exports; choose another --out`,
    );
  }
  const out = path.join(root, 'public');
  assert.is(
    await failure({ out, manifest: path.join(out, 'upload.sha256') }),
    `--manifest ${path.join(out, 'upload.sha256')} is inside --out ${out}, which the build replaces as a whole; write it beside the tree`,
  );
  assert.match(
    await failure({ out: path.join(root, 'notes') }),
    `--out ${path.join(root, 'notes')} is a folder with other content than a snapshot tree (no _snapshot/meta.json)`,
  );
  assert.equal(files(), before);
  assert.equal(leftovers(root), []);
  // A folder inside the exports, an empty folder, and a tree a build wrote (the same one again) are fine.
  fs.mkdirSync(path.join(root, 'empty'));
  for (const target of [path.join(input, 'public'), path.join(root, 'empty'), path.join(root, 'empty')]) {
    await buildSnapshot(resolveBuildConfig({ input, out: target, now, progress: 'quiet' }));
    assert.ok(fs.existsSync(path.join(target, '_snapshot', 'meta.json')));
  }
  assert.ok(fs.existsSync(path.join(input, 'balances.parquet')));
});

test('--out inside a file: a clear error, nothing created', async () => {
  const root = tempDir();
  const blocked = path.join(root, 'a-file');
  fs.writeFileSync(blocked, '');
  const input = await writeInputs(path.join(root, 'input'), { balances: [balance({ address: A, block_number: 1, balance: '1' })] });
  const result = await runCli(['build', '--input', input, '--out', path.join(blocked, 'public'), '--now', now]);
  assert.is(result.code, 1);
  assert.match(
    result.stderr,
    `wallet-snapshot: --out ${path.join(blocked, 'public')}: cannot create the work folder beside it in ${blocked} (`,
  );
  assert.equal(fs.readdirSync(root).sort(), ['a-file', 'input']);
});

test('--out paths with pattern characters build; one with "?" (DuckDB reads options after it) is refused up front', async () => {
  const root = tempDir();
  const input = await writeInputs(path.join(root, 'input'), { balances: [balance({ address: A, block_number: 1, balance: '1' })] });
  const out = path.join(root, "o[1]'x*");
  const built = await buildSnapshot(resolveBuildConfig({ input, out, now, progress: 'quiet' }));
  assert.is(built.wallets, 1);
  assert.ok(fs.existsSync(path.join(out, 'v1', 'address', A, 'portfolio.json')));
  const questioned = path.join(root, 'what?', 'public');
  const error = await thrown(() => buildSnapshot(resolveBuildConfig({ input, out: questioned, now, progress: 'quiet' })));
  assert.instance(error, UserError);
  assert.match(error.message, `--out ${questioned}: the path holds a "?"`);
  assert.not.ok(fs.existsSync(path.join(root, 'what?')));
});

test('a disk that refuses the writes (here a file size limit): exit 4 naming the cause, previous tree untouched', async () => {
  const root = tempDir();
  const out = path.join(root, 'public');
  // One wallet holding every token on three chains for a year: a daily document of about 800 KB,
  // while DuckDB's own files stay small.
  const rows = everyTokenOnThreeChains(A);
  const year = await writeInputs(path.join(root, 'input'), { balances: rows });
  await buildSnapshot(resolveBuildConfig({ input: 'data/sample', out, now, progress: 'quiet' }));
  const before = [...treeHashes(out)].sort();
  // 3,000 addresses: the check's table of distinct addresses, written while balances.parquet is
  // scanned (not a damaged file).
  const addresses = Array.from({ length: 3000 }, (_, i) =>
    balance({ address: `0x${(i + 1).toString(16).padStart(40, '0')}`, block_number: i + 1, balance: '1' }),
  );
  const many = await writeInputs(path.join(root, 'many'), { balances: addresses });
  // 200 KB: the file thread's write of that daily document fails; 32 KB: DuckDB's log, before
  // anything is written, with the bundled sample and while the 3,000 addresses are grouped.
  for (const [input, limit, cause] of [
    [year, 400, 'EFBIG: file too large'],
    ['data/sample', 64, 'Could not write file'],
    [many, 64, 'Could not write file'],
  ] as const) {
    const result = await runCli(['build', '--input', input, '--out', out, '--now', now], { fileSizeLimit: limit });
    assert.is(result.code, 4, result.stderr);
    assert.match(result.stderr, `wallet-snapshot: could not write the new tree or its scratch files beside ${out} (`);
    assert.match(result.stderr, cause);
    assert.not.match(result.stderr, 'cannot be read as a Parquet file');
    assert.match(result.stderr, 'free some space there or move --out; the previous tree was left untouched');
    assert.equal([...treeHashes(out)].sort(), before);
    assert.equal(leftovers(root), []);
  }
});

test('exit 4 only for writes the disk refused: not for a read, nor for a user error quoting such words', () => {
  assert.is(cannotWrite(new Error('IO Error: Could not write file "x": No space left on device'), '/o')?.exitCode, 4);
  assert.is(cannotWrite(new Error('ENOSPC: no space left on device, write'), '/o')?.exitCode, 4);
  assert.is(cannotWrite(new Error('IO Error: Cannot open file "in/balances.parquet": Permission denied'), '/o'), null);
  assert.is(
    cannotWrite(new UserError('balances.parquet: column "token": 1 row with a value that is not a token key, e.g. "EROFS"'), '/o'),
    null,
  );
});

test("running out of DuckDB's memory limit: exit 3 naming the settings, previous tree untouched", async () => {
  const root = tempDir();
  const out = path.join(root, 'public');
  const input = await writeInputs(path.join(root, 'input'), { balances: [balance({ address: A, block_number: 1, balance: '1' })] });
  await buildSnapshot(resolveBuildConfig({ input, out, now, progress: 'quiet' }));
  const before = [...treeHashes(out)].sort();
  // 1MB fails while the inputs are scanned (which must not be reported as a damaged file),
  // 8MB in a later statement (the normalised balance rows). 16MB is not enough to fail every time.
  for (const limit of ['1MB', '8MB']) {
    const result = await runCli(['build', '--input', 'data/sample', '--out', out, '--now', now, '--memory-limit', limit]);
    assert.is(result.code, 3, result.stderr);
    assert.match(
      result.stderr,
      `wallet-snapshot: DuckDB ran out of its memory limit (--memory-limit ${limit}, --threads 2): Out of Memory Error: `,
    );
    assert.match(result.stderr, 'raise --memory-limit or lower --threads; the previous tree was left untouched');
    assert.not.match(result.stderr, 'cannot be read as a Parquet file');
    assert.not.match(result.stderr, 'internal error');
    assert.equal([...treeHashes(out)].sort(), before);
    assert.equal(leftovers(root), []);
  }
});

test('Ctrl-C in the middle of a build: exit 130, previous tree untouched, no work folder', async () => {
  const root = tempDir();
  const out = path.join(root, 'public');
  const input = path.join(root, 'input');
  await generateDataset({
    outDir: input,
    wallets: 3000,
    seed: 7,
    startDate: '2025-06-01',
    days: 150,
    seasonOneEnd: '2025-09-01',
    rowsPerWallet: 20,
  });
  const previous = await writeInputs(path.join(root, 'previous'), { balances: [balance({ address: A, block_number: 1, balance: '1' })] });
  await buildSnapshot(resolveBuildConfig({ input: previous, out, now, progress: 'quiet' }));
  const before = [...treeHashes(out)].sort();
  let sent = false;
  const result = await runCli(['build', '--input', input, '--out', out, '--now', now, '--progress', 'lines'], {
    onStderr: (text, child) => {
      if (!sent && text.includes('write wallets')) {
        sent = true;
        child.kill('SIGINT');
      }
    },
  });
  assert.ok(sent, 'the build never reached the wallet stage');
  assert.is(result.code, 130, result.stderr);
  assert.match(result.stderr, 'interrupted by SIGINT');
  assert.equal([...treeHashes(out)].sort(), before);
  assert.equal(leftovers(root), []);
});

test('work folders and partial manifests abandoned by a killed build are removed by the next build; a partial a live build holds is not', async () => {
  const root = tempDir();
  const out = path.join(root, 'public');
  const abandoned = path.join(root, '.public.builds', 'work-20251121T170000Z-dead');
  fs.mkdirSync(path.join(abandoned, 'tree'), { recursive: true });
  const manifest = path.join(root, 'upload', 'manifest.sha256');
  const partial = path.join(root, 'upload', '.manifest.sha256.partial-abandoned');
  const held = path.join(root, 'upload', '.manifest.sha256.partial-held');
  fs.mkdirSync(path.dirname(partial));
  fs.writeFileSync(partial, 'half a manifest');
  // Its lock file stays too, held by nobody (the build that made it was killed).
  (await FileLock.tryAcquire(`${partial}.lock`))!.release();
  fs.writeFileSync(held, 'a manifest being written');
  const holder = (await FileLock.tryAcquire(`${held}.lock`))!;
  try {
    const input = await writeInputs(path.join(root, 'input'), {});
    await buildSnapshot(resolveBuildConfig({ input, out, now, manifest, progress: 'quiet', allowEmpty: true }));
  } finally {
    holder.release();
  }
  assert.not.ok(fs.existsSync(abandoned));
  assert.equal(fs.readdirSync(path.dirname(manifest)).sort(), [
    '.manifest.sha256.partial-held',
    '.manifest.sha256.partial-held.lock',
    'manifest.sha256',
  ]);
});

test.run();
