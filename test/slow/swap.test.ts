/**
 * The swap is one atomic step: a build killed at any point of it (SIGKILL, as a power cut)
 * leaves --out whole, the old tree or the complete new one, and the next build, even one that
 * fails, repairs what the kill left and loses no tree. Refusals decidable up front are made
 * before any work.
 */
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import fs from 'node:fs';
import path from 'node:path';
import { spawnSync } from 'node:child_process';
import { A, B, PINNED_NOW as now, balance, tempDir, treeHashes, writeInputs } from '../helpers/fixtures.ts';
import { runCli } from '../helpers/process.ts';
import { buildSnapshot } from '../../build/index.ts';
import { resolveBuildConfig } from '../../build/config.ts';
import { verifyTree } from '../../tree/verify.ts';

const sorted = (dir: string) => [...treeHashes(dir)].sort();

async function setUp() {
  const root = tempDir();
  const out = path.join(root, 'public');
  const old = await writeInputs(path.join(root, 'old'), { balances: [balance({ address: A, block_number: 1, balance: '1' })] });
  const next = await writeInputs(path.join(root, 'next'), { balances: [balance({ address: B, block_number: 1, balance: '2' })] });
  const bad = await writeInputs(path.join(root, 'bad'), { balances: [balance({ address: 'nope', block_number: 1, balance: '1' })] });
  // The tree `next` gives, for comparison.
  const reference = path.join(root, 'reference');
  await buildSnapshot(resolveBuildConfig({ input: next, out: reference, now, progress: 'quiet' }));
  return { root, out, old, next, bad, newTree: sorted(reference) };
}

const killedAt = (point: string, input: string, out: string) =>
  runCli(['build', '--input', input, '--out', out, '--now', now], { faults: { killAt: point } });

test('killed just before and just after the swap: --out is the old tree or the new one, whole, and verifies', async () => {
  const { out, old, next, bad, newTree } = await setUp();
  await buildSnapshot(resolveBuildConfig({ input: old, out, now, progress: 'quiet' }));
  const oldTree = sorted(out);

  const before = await killedAt('before-swap', next, out);
  assert.is(before.signal, 'SIGKILL', before.stderr);
  assert.equal(sorted(out), oldTree);
  assert.equal((await verifyTree(out)).failures, []);

  const after = await killedAt('after-swap', next, out);
  assert.is(after.signal, 'SIGKILL', after.stderr);
  assert.equal(sorted(out), newTree);
  assert.equal((await verifyTree(out)).failures, []);

  // The next build fails on its input: the live tree stays, and so does the one it replaced.
  const failed = await runCli(['build', '--input', bad, '--out', out, '--now', now]);
  assert.is(failed.code, 1);
  assert.equal(sorted(out), newTree);
  const builds = path.join(path.dirname(out), '.public.builds');
  const kept = fs.readdirSync(builds).filter((name) => fs.realpathSync(path.join(builds, name)) !== fs.realpathSync(out));
  assert.is(kept.length, 1, `${fs.readdirSync(builds)}`);
  assert.equal(sorted(path.join(builds, kept[0]!)), oldTree);
});

/** A tree as an earlier version wrote it: a plain folder at --out. */
async function plainFolderTree(out: string, input: string): Promise<[string, string][]> {
  const scratch = `${out}-scratch`;
  await buildSnapshot(resolveBuildConfig({ input, out: scratch, now, progress: 'quiet' }));
  fs.cpSync(scratch, out, { recursive: true, dereference: true });
  return sorted(out);
}

test('a plain folder of an earlier version is taken over by two renames; killed between them, the next build loses nothing', async () => {
  const { root, out, old, next, bad, newTree } = await setUp();
  const oldTree = await plainFolderTree(out, old);
  const killed = await killedAt('takeover', next, out);
  assert.is(killed.signal, 'SIGKILL', killed.stderr);
  // The one window between the two renames: --out is missing until the next build.
  assert.not.ok(fs.existsSync(out));
  // A build that then fails on its input repairs --out first and deletes no tree.
  const failed = await runCli(['build', '--input', bad, '--out', out, '--now', now]);
  assert.is(failed.code, 1, failed.stderr);
  assert.ok(fs.lstatSync(out).isSymbolicLink());
  assert.equal(sorted(out), newTree);
  assert.equal((await verifyTree(out)).failures, []);
  const builds = path.join(root, '.public.builds');
  const adopted = fs.readdirSync(builds).filter((name) => name.startsWith('adopted-'));
  assert.is(adopted.length, 1);
  assert.equal(sorted(path.join(builds, adopted[0]!)), oldTree);
  assert.equal(
    fs.readdirSync(root).filter((name) => name.startsWith('.public.link-')),
    [],
  );
});

test('rolling back by hand: the documented commands put the previous tree live again', async () => {
  const { root, out, old, next } = await setUp();
  const first = await buildSnapshot(resolveBuildConfig({ input: old, out, now, progress: 'quiet' }));
  const oldTree = sorted(out);
  const second = await buildSnapshot(resolveBuildConfig({ input: next, out, now, progress: 'quiet' }));
  assert.is(second.previousBuild, first.build);
  const rollback = spawnSync('sh', ['-c', `ln -sfn .public.builds/${first.build} public.tmp && mv -T public.tmp public`], { cwd: root });
  assert.is(rollback.status, 0, String(rollback.stderr));
  assert.equal(sorted(out), oldTree);
  // The next build takes the rolled-back link as it finds it.
  const third = await buildSnapshot(resolveBuildConfig({ input: next, out, now, progress: 'quiet' }));
  assert.is(third.previousBuild, first.build);
});

test('refused before any work, nothing created: a dangling link, a link a build did not make', async () => {
  const root = tempDir();
  const input = await writeInputs(path.join(root, 'input'), { balances: [balance({ address: A, block_number: 1, balance: '1' })] });
  const dangling = path.join(root, 'dangling');
  fs.symlinkSync('nowhere', dangling);
  const foreign = path.join(root, 'foreign');
  fs.mkdirSync(path.join(root, 'elsewhere'));
  fs.symlinkSync('elsewhere', foreign);
  const before = fs.readdirSync(root).sort();
  const first = await runCli(['build', '--input', input, '--out', dangling, '--now', now]);
  assert.is(first.code, 1);
  assert.match(first.stderr, `--out ${dangling} is a dangling symbolic link (to ${path.join(root, 'nowhere')}, which does not exist)`);
  const second = await runCli(['build', '--input', input, '--out', foreign, '--now', now]);
  assert.is(second.code, 1);
  assert.match(second.stderr, `--out ${foreign} is a symbolic link to ${path.join(root, 'elsewhere')}, which is not a build folder`);
  assert.equal(fs.readdirSync(root).sort(), before);
});

const isRoot = process.getuid?.() === 0;
const mount = (...args: string[]) => {
  const result = spawnSync('mount', args);
  if (result.status !== 0) throw new Error(`mount ${args.join(' ')}: ${result.stderr}`);
};

test('a mount point as --out is refused (exit 1), a read-only one or a read-only parent exit 4, before any work', async () => {
  if (!isRoot) {
    console.warn('(skipped: mounting needs root)');
    return;
  }
  const root = tempDir();
  const input = await writeInputs(path.join(root, 'input'), { balances: [balance({ address: A, block_number: 1, balance: '1' })] });
  const volume = path.join(root, 'volume');
  const readOnly = path.join(root, 'read-only');
  fs.mkdirSync(volume);
  fs.mkdirSync(readOnly);
  mount('-t', 'tmpfs', '-o', 'size=1m', 'tmpfs', volume);
  mount('-t', 'tmpfs', '-o', 'size=1m,ro', 'tmpfs', readOnly);
  try {
    const started = Date.now();
    const mounted = await runCli(['build', '--input', input, '--out', volume, '--now', now]);
    assert.is(mounted.code, 1, mounted.stderr);
    assert.match(mounted.stderr, `--out ${volume} is a mount point: the build publishes by renaming a new tree onto --out`);
    assert.match(mounted.stderr, `give --out a path inside it (e.g. ${path.join(volume, 'public')})`);
    const mountedReadOnly = await runCli(['build', '--input', input, '--out', readOnly, '--now', now]);
    assert.is(mountedReadOnly.code, 4, mountedReadOnly.stderr);
    assert.match(mountedReadOnly.stderr, `--out ${readOnly} is a mount point (read-only)`);
    const inside = path.join(readOnly, 'public');
    const parentReadOnly = await runCli(['build', '--input', input, '--out', inside, '--now', now]);
    assert.is(parentReadOnly.code, 4, parentReadOnly.stderr);
    assert.match(parentReadOnly.stderr, `--out ${inside}: cannot create the work folder beside it in ${readOnly} (EROFS`);
    // Refused up front: no DuckDB, no stage started (three runs of the CLI well under a build's time).
    assert.not.match(mounted.stderr + mountedReadOnly.stderr + parentReadOnly.stderr, 'read inputs');
    assert.ok(Date.now() - started < 30_000);
    assert.equal(fs.readdirSync(root).sort(), ['input', 'read-only', 'volume']);
    // A path inside the volume builds.
    const built = await runCli(['build', '--input', input, '--out', path.join(volume, 'public'), '--now', now]);
    assert.is(built.code, 0, built.stderr);
  } finally {
    spawnSync('umount', [volume]);
    spawnSync('umount', [readOnly]);
  }
});

test.run();
