/**
 * The repository stands alone: no tracked file cites a document that is not in it (the product's
 * rules live in docs/, in its own words: docs/semantics.md, docs/input.md, docs/reliability.md),
 * and every citation of a section, `docs/<file>.md#<anchor>` in code or `[text](<file>.md#<anchor>)` in
 * the docs, names a heading (or an `id`) that the file holds, so that a renamed section cannot
 * leave a comment pointing nowhere; and every module the docs name (docs/architecture.md walks a datum through them) exists.
 */
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { test } from 'uvu';
import * as assert from 'uvu/assert';

const ROOT = path.join(path.dirname(fileURLToPath(import.meta.url)), '..');

/** Tracked text files (node_modules, dist and .git are never tracked), with their text. */
function trackedTexts(): { file: string; text: string }[] {
  const files = execFileSync('git', ['ls-files', '-z'], { cwd: ROOT, encoding: 'utf8' }).split('\0').filter(Boolean);
  const texts: { file: string; text: string }[] = [];
  for (const file of files) {
    if (/^(node_modules|dist)\//.test(file)) continue;
    let bytes: Buffer;
    try {
      bytes = fs.readFileSync(path.join(ROOT, file));
    } catch {
      continue; // Deleted in the work tree, not yet in the index.
    }
    if (bytes.includes(0)) continue;
    texts.push({ file, text: bytes.toString('utf8') });
  }
  return texts;
}

/** The documents outside the repository that were once cited; spelled in pieces so that this file does not cite them. */
const OUTSIDE = [
  new RegExp(`\\b${'SP'}${'EC'}\\b`),
  new RegExp(`\\.\\./${'sha'}${'red'}\\b`),
  new RegExp(`\\b${'INTER'}${'FACE'}\\.md\\b`),
  new RegExp(`\\b${'ST'}${'YLE'}\\.md\\b`),
  // A numbered section is an outside document's: the docs name their sections by anchor.
  new RegExp(`\\b${'sec'}${'tion'} \\d+(\\.\\d+)*\\b`, 'i'),
];

/** GitHub's anchor of a heading: lower case, punctuation dropped, each space a hyphen. */
export function headingAnchor(heading: string): string {
  return heading
    .replace(/\[([^\]]*)\]\([^)]*\)/g, '$1')
    .toLowerCase()
    .replace(/[^\p{L}\p{N}\s_-]/gu, '')
    .replace(/\s/g, '-');
}

/** The anchors a Markdown file offers: its headings outside code fences (repeats numbered as GitHub does), and its `id`s. */
export function anchorsOf(markdown: string): Set<string> {
  const anchors = new Set<string>();
  const seen = new Map<string, number>();
  let fence: string | null = null;
  for (const line of markdown.split('\n')) {
    const opening = /^\s*(`{3,}|~{3,})/.exec(line);
    if (opening) {
      if (fence === null) fence = opening[1]!;
      else if (opening[1]!.startsWith(fence[0]!) && opening[1]!.length >= fence.length && line.trim() === opening[1]) fence = null;
      continue;
    }
    if (fence !== null) continue;
    const heading = /^#{1,6}\s+(.*?)\s*#*\s*$/.exec(line);
    if (heading) {
      const base = headingAnchor(heading[1]!);
      const count = seen.get(base) ?? 0;
      seen.set(base, count + 1);
      anchors.add(count === 0 ? base : `${base}-${count}`);
    }
    for (const id of line.matchAll(/\bid="([^"]+)"/g)) anchors.add(id[1]!);
  }
  return anchors;
}

test('no tracked file cites a document outside the repository', () => {
  const found: string[] = [];
  for (const { file, text } of trackedTexts()) {
    text.split('\n').forEach((line, i) => {
      if (OUTSIDE.some((pattern) => pattern.test(line))) found.push(`${file}:${i + 1}: ${line.trim().slice(0, 120)}`);
    });
  }
  assert.equal(found, []);
});

test('every cited section of a document in the repository exists', () => {
  const texts = trackedTexts();
  const anchors = new Map<string, Set<string>>();
  const anchorsIn = (file: string) => {
    if (!anchors.has(file))
      anchors.set(file, fs.existsSync(path.join(ROOT, file)) ? anchorsOf(fs.readFileSync(path.join(ROOT, file), 'utf8')) : new Set());
    return anchors.get(file)!;
  };
  const broken: string[] = [];
  let citations = 0;
  for (const { file, text } of texts) {
    const cited: { target: string; anchor: string }[] = [];
    // From anywhere: a path from the repository's root.
    for (const match of text.matchAll(/\b((?:docs|bench)\/[\w.-]+\.md)#([\w-]+)/g)) cited.push({ target: match[1]!, anchor: match[2]! });
    // In Markdown: a link relative to the file (its own anchors when the path is empty).
    if (file.endsWith('.md')) {
      for (const match of text.matchAll(/\]\(([\w./-]*\.md|)#([\w-]+)\)/g)) {
        cited.push({
          target: match[1] ? path.posix.normalize(path.posix.join(path.posix.dirname(file), match[1])) : file,
          anchor: match[2]!,
        });
      }
    }
    for (const { target, anchor } of cited) {
      citations++;
      if (!anchorsIn(target).has(anchor)) broken.push(`${file}: ${target}#${anchor}`);
    }
  }
  assert.ok(citations > 30, `only ${citations} citations found`);
  assert.equal([...new Set(broken)], []);
});

test('every file of the repository the docs name exists', () => {
  const missing: string[] = [];
  const named =
    /(?<![\w./-])((?:build|core|server|publish|preview|tree|schemas|cli|test|bench|assembly|explorer|scripts|bin|data)\/[\w./-]*\.(?:ts|js|mjs|md|json|wasm|sql))\b/g;
  for (const { file, text } of trackedTexts()) {
    if (!(file.startsWith('docs/') && file.endsWith('.md')) && file !== 'README.md' && file !== 'bench/MEASUREMENTS.md') continue;
    for (const match of text.matchAll(named)) if (!fs.existsSync(path.join(ROOT, match[1]!))) missing.push(`${file}: ${match[1]}`);
  }
  assert.equal([...new Set(missing)], []);
});

test('a heading gives the anchor GitHub gives it', () => {
  assert.is(
    headingAnchor("The night's guard: nothing implausible goes live unseen"),
    'the-nights-guard-nothing-implausible-goes-live-unseen',
  );
  assert.is(headingAnchor("2026-11-25: publish's file work on threads"), '2026-11-25-publishs-file-work-on-threads');
  assert.is(headingAnchor('`verify`: proving a tree'), 'verify-proving-a-tree');
  assert.is(headingAnchor('GET /v1/address/{address}/points (new in 1.2.0)'), 'get-v1addressaddresspoints-new-in-120');
  assert.equal([...anchorsOf('# A\n```\n# B\n```\n## A\n<a id="c"></a>\n')], ['a', 'a-1', 'c']);
});

test.run();
