/**
 * The build's stages (build/stages/) as declared: each command's list (build/stages/index.ts) has
 * every table a stage reads made by an earlier stage of the list, every value a stage needs given
 * by the command or made before it, and the folder `prepare` writes holds exactly the tables the
 * shard's side needs from the night's. No stage reads the command's mode or the values of other
 * stages, and no exception decides the kind of night. (The runner also checks each declaration
 * against DuckDB's catalog while a build runs: build/stages/stage.ts.)
 */
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { BUILD_STAGES, PREPARE_STAGES, PREPARED_BUILD_STAGES } from '../build/stages/index.ts';
import { loadPrepared } from '../build/stages/load-prepared.ts';
import { readInputs } from '../build/stages/read-inputs.ts';
import { findChangedDays } from '../build/stages/find-changed-days.ts';
import { splitIntoShards } from '../build/stages/split-into-shards.ts';
import {
  defineList,
  fullNightNeeded,
  runStages,
  type AnyStage,
  type StageContext,
  type StageList,
  type StageValues,
  type ValueName,
} from '../build/stages/stage.ts';
import { resolveBuildConfig } from '../build/config.ts';
import { Progress } from '../core/progress.ts';
import { checkValueReach } from '../build/stages/check-value-reach.ts';
import { runCommand } from '../build/lifecycle.ts';
import type { NightResume } from '../build/night-state.ts';
import { scratchDatabase, tempDir, thrown } from './helpers/fixtures.ts';

const ROOT = path.join(path.dirname(fileURLToPath(import.meta.url)), '..');
const LISTS: Record<string, StageList> = {
  'build --input': BUILD_STAGES,
  prepare: PREPARE_STAGES,
  'build --prepared': PREPARED_BUILD_STAGES,
};

/** The first read of each side that no earlier stage of that side wrote (or dropped before it). */
function unmetReads(stages: readonly AnyStage[]): string[] {
  const made = new Set<string>();
  const unmet: string[] = [];
  for (const stage of stages) {
    for (const table of stage.reads) if (!made.has(table)) unmet.push(`${stage.name} reads ${table}`);
    for (const table of stage.writes) made.add(table);
    for (const table of stage.drops ?? []) made.delete(table);
  }
  return unmet;
}

test("each command's list: prepare is the night's side, build --prepared the shard's, build --input both, one cut between", () => {
  assert.ok(PREPARE_STAGES.stages.every((stage) => stage.side === 'night'));
  assert.ok(PREPARED_BUILD_STAGES.stages.every((stage) => stage.side === 'shard'));
  const night = BUILD_STAGES.stages.filter((stage) => stage.side === 'night');
  assert.equal(BUILD_STAGES.stages, [...night, ...BUILD_STAGES.stages.filter((stage) => stage.side === 'shard')]);
  // Only the transport at the cut differs (and prepare's decision of which rows the night reads).
  assert.equal(night, [
    readInputs,
    ...PREPARE_STAGES.stages.filter((stage) => stage !== readInputs && stage !== findChangedDays && stage !== splitIntoShards),
  ]);
  assert.is(PREPARE_STAGES.stages.at(-1), splitIntoShards);
  assert.equal(BUILD_STAGES.stages.slice(night.length), PREPARED_BUILD_STAGES.stages.slice(1));
  assert.is(PREPARED_BUILD_STAGES.stages[0], loadPrepared);
});

test("every table a stage reads is made by an earlier stage of its command's list", () => {
  for (const [command, list] of Object.entries(LISTS)) assert.equal(unmetReads(list.stages), [], command);
});

test('the prepared folder carries what the night made and the shard needs', () => {
  const nightMade = new Set(PREPARE_STAGES.stages.flatMap((stage) => stage.writes));
  for (const table of loadPrepared.writes) {
    assert.ok(nightMade.has(table), `${table}: load prepared makes it, the night does not`);
    assert.ok(splitIntoShards.reads.includes(table), `${table}: load prepared makes it, split into shards does not write it`);
  }
});

/** Each value a list's stages need that neither its command gives nor an earlier stage makes, and each value made twice. */
function unmetNeeds(list: StageList): string[] {
  const made = new Set<ValueName>(list.gives);
  const unmet: string[] = [];
  for (const stage of list.stages) {
    for (const value of stage.needs) if (!made.has(value)) unmet.push(`${stage.name} needs ${value}`);
    for (const value of stage.makes) {
      if (made.has(value)) unmet.push(`${stage.name} makes ${value}, made already`);
      made.add(value);
    }
  }
  return unmet;
}

test('every value a stage needs is given by its command or made by an earlier stage of its list, and made once', () => {
  for (const [command, list] of Object.entries(LISTS)) assert.equal(unmetNeeds(list), [], command);
  // What differs between the commands reaches the stages as values: the prepared folder, the
  // tree, the shards, where the night goes, the previous night, which rows the night reads.
  assert.equal([...BUILD_STAGES.gives].sort(), ['forNextNight', 'inputs', 'resume', 'shards', 'tree']);
  assert.equal([...PREPARE_STAGES.gives].sort(), ['forNextNight', 'inputs', 'nightFolder', 'previous', 'shards']);
  assert.equal([...PREPARED_BUILD_STAGES.gives].sort(), ['preparedFolder', 'tree']);
});

/**
 * The lines of a module's code that name a `mode` or `values` (as a property read, a name
 * destructured, a key in brackets), `Object.values` aside, its comments and the words of its
 * quoted strings (SQL's `values` among them) left out. A scan of the text, not a parse: loading TypeScript's parser costs this suite most of a
 * CPU-second.
 */
function modeOrValuesReads(file: string, text = fs.readFileSync(file, 'utf8')): string[] {
  const code = text.replace(/\/\*[\s\S]*?\*\/|\/\/[^\n]*|'(?:\\.|[^'\\\n])*'|"(?:\\.|[^"\\\n])*"/g, (found) =>
    found.startsWith('/')
      ? found.replace(/[^\n]/g, ' ')
      : /^.(mode|values).$/.test(found)
        ? found
        : `'${found.slice(1, -1).replace(/\b(mode|values)\b/g, '_')}'`,
  );
  const named = /(?<!\bObject\.)\b(mode|values)\b/;
  return code.split('\n').flatMap((line, i) => (named.test(line) ? [`${path.relative(ROOT, file)}:${i + 1} ${line.trim()}`] : []));
}

test("no stage reads the command's mode or the stages' values: it is handed its needs alone", () => {
  const dir = path.join(ROOT, 'build', 'stages');
  const files = fs.readdirSync(dir).filter((name) => name.endsWith('.ts') && name !== 'stage.ts');
  assert.ok(files.length > 20, `only ${files.length} stage modules`);
  assert.equal(
    files.flatMap((name) => modeOrValuesReads(path.join(dir, name))),
    [],
  );
  // The check finds what it looks for.
  const sample = [
    'const a = context.mode.kind; // the mode',
    'const { values } = context;',
    "const b = context['mode'];",
    "Object.values(a); /* mode */ db.run('INSERT INTO t values (1)');",
  ].join('\n');
  assert.equal(modeOrValuesReads(path.join(dir, 'sample.ts'), sample), [
    'build/stages/sample.ts:1 const a = context.mode.kind;',
    'build/stages/sample.ts:2 const { values } = context;',
    "build/stages/sample.ts:3 const b = context['mode'];",
  ]);
});

test('no exception decides the kind of night: no error class of its own in the stages or the commands, one catch in the lifecycle', () => {
  const build = path.join(ROOT, 'build');
  const modules = [
    ...fs.readdirSync(path.join(build, 'stages')).map((name) => path.join(build, 'stages', name)),
    ...['index.ts', 'prepare.ts', 'lifecycle.ts', 'night-state.ts'].map((name) => path.join(build, name)),
  ];
  for (const file of modules) {
    const text = fs.readFileSync(file, 'utf8');
    assert.not.match(text, /IncrementalNightImpossible/, file);
    assert.not.match(text, /class \w+ extends \w*Error\b/, file);
  }
  // The lifecycle catches only to translate a failure (build/errors.ts), and rethrows it.
  const lifecycle = fs.readFileSync(path.join(build, 'lifecycle.ts'), 'utf8');
  assert.equal(lifecycle.match(/\bcatch\b/g), ['catch']);
  assert.match(lifecycle, /catch \(error\) \{\s*progress\.end\(\);\s*throw failureOf\(/);
});

test('a stage that reads a table made later on the list is caught', () => {
  const early: AnyStage = { name: 'early', side: 'shard', reads: ['snapshots'], writes: [], needs: [], makes: [], run: async () => ({}) };
  assert.equal(unmetReads([early, ...PREPARED_BUILD_STAGES.stages]), ['early reads snapshots']);
});

test("the runner holds each stage to its declaration, in DuckDB's catalog", async () => {
  const db = await scratchDatabase({ threads: 1 });
  const context = quietContext(db);
  const run = (stages: AnyStage[], given: Partial<StageValues> = {}) =>
    runStages({ stages, gives: Object.keys(given) as ValueName[] }, context, given as StageValues);
  const make = (name: string, reads: string[], writes: string[], sql: string | null): AnyStage => ({
    name,
    side: 'night',
    reads,
    writes,
    needs: [],
    makes: [],
    run: async (stageContext) => {
      if (sql) await stageContext.db.run(sql);
      return {};
    },
  });
  try {
    await run([make('make a', [], ['a'], 'CREATE TABLE a AS SELECT 1 AS x'), make('read a', ['a'], [], null)]);
    const unmade = await thrown(() => run([make('claims b', [], ['b'], null)]));
    assert.is(unmade.message, 'stage "claims b" writes b, which it did not make');
    const unread = await thrown(() => run([make('reads c', ['c'], [], null)]));
    assert.is(unread.message, 'stage "reads c" reads c, which no earlier stage made');
    // A table read without being declared is refused before the statement runs, on a second connection too.
    const undeclared = await thrown(() => run([make('reads a quietly', [], [], 'SELECT x FROM a')]));
    assert.is(undeclared.message, 'stage "reads a quietly" reads a, which it does not declare in its reads');
    // Read as DuckDB's parser reads them: a comma join, a quoted name, a subquery in an expression,
    // a comment before a name, the query of a CREATE, an INSERT and a COPY.
    for (const sql of [
      'SELECT x FROM (SELECT 1) t, a',
      'SELECT 1 FROM "a"',
      'SELECT (SELECT max(x) FROM a) AS m',
      'SELECT 1 FROM /* the table */ a',
      'CREATE TABLE c AS SELECT 1 FROM (SELECT 2), a',
      'CREATE TABLE d (x INTEGER); INSERT INTO d (x) SELECT x FROM (SELECT 1), a',
      "COPY (SELECT 1 FROM (SELECT 2), a) TO '/dev/null' (FORMAT csv)",
    ]) {
      const error = await thrown(() => run([make('reads a by a comma', [], ['c', 'd'], sql)]));
      assert.is(error.message, 'stage "reads a by a comma" reads a, which it does not declare in its reads', sql);
    }
    // The name of a common table expression is not a table read, even one the catalog has; a statement of a kind it cannot read is refused.
    await run([make('names its own a', [], [], 'WITH a AS (SELECT 1 AS x) SELECT x FROM a')]);
    assert.is(
      (await thrown(() => run([make('updates', ['a'], [], 'UPDATE a SET x = 2')]))).message,
      'stage "updates" runs a statement the reads check cannot read: UPDATE a SET x = 2',
    );
    const sideways: AnyStage = {
      ...make('joins a elsewhere', [], [], null),
      run: async (stageContext) => {
        const other = await stageContext.db.connect();
        try {
          await other.run('SELECT 1 FROM (SELECT 1) t JOIN a ON true');
        } finally {
          other.disconnectSync();
        }
        return {};
      },
    };
    assert.is((await thrown(() => run([sideways]))).message, 'stage "joins a elsewhere" reads a, which it does not declare in its reads');
    // A value a stage needs that no stage made; a value a stage declares and does not return.
    const needy: AnyStage = { ...make('needs prices', [], [], null), needs: ['prices'] };
    assert.is((await thrown(() => run([needy]))).message, 'stage "needs prices" needs prices, which no earlier stage made');
    const idle: AnyStage = { ...make('makes prices', [], [], null), makes: ['prices'] };
    assert.is((await thrown(() => run([idle]))).message, 'stage "makes prices" declares it makes prices, and did not');
    // A null value is a value: "no asOf" is given as null, not refused as missing.
    let given: unknown = 'unset';
    const nullMaker: AnyStage = { ...make('no asOf', [], [], null), makes: ['dailyAsOf'], run: async () => ({ dailyAsOf: null }) };
    const nullTaker: AnyStage = {
      ...make('takes asOf', [], [], null),
      needs: ['dailyAsOf'],
      run: async (_c, values) => ((given = values.dailyAsOf), {}),
    };
    await run([nullMaker, nullTaker]);
    assert.is(given, null);
    // A stage is handed its needs and nothing else, the command's given values among them; a value is made once.
    let handed: unknown = null;
    const picky: AnyStage = {
      ...make('needs shards', [], [], null),
      needs: ['shards'],
      run: async (_c, values) => ((handed = values), {}),
    };
    const outcome = await run([nullMaker, picky], { shards: 3, resume: null });
    assert.equal(handed, { shards: 3 });
    assert.equal(outcome, { values: { shards: 3, resume: null, dailyAsOf: null } });
    assert.is((await thrown(() => run([nullMaker, nullMaker]))).message, 'stage "no asOf" makes dailyAsOf, which is made already');
    // A stage of an incremental night that finds the night must be full returns it, and the list ends there.
    const ran: string[] = [];
    const noting = (name: string): AnyStage => ({ ...make(name, [], [], null), run: async () => (ran.push(name), {}) });
    const full: AnyStage = { ...make('needs a full night', [], [], null), run: async () => fullNightNeeded('why it is full') };
    assert.equal(await run([noting('before'), full, noting('after')]), { fullNightNeeded: 'why it is full' });
    assert.equal(ran, ['before']);
  } finally {
    db.close();
  }
});

test('an incremental night whose prices the bound without balance rows does not settle needs a full night, and says why', async () => {
  const db = await scratchDatabase({ threads: 1 });
  const context = quietContext(db);
  try {
    await db.run(`
      CREATE TABLE tokens AS SELECT 1::BIGINT AS chain_id, 'uty' AS token, 0 AS token_index, 0 AS decimals;
      CREATE TABLE prices AS SELECT 1::BIGINT AS chain_id, 'uty' AS token, 1e300::DOUBLE AS usd_price;
      CREATE TABLE venue_b_accounts (chain_id BIGINT, owner_id INTEGER, account_id INTEGER);
      CREATE TABLE every_balance_row (account INTEGER);
      CREATE TABLE addresses (id INTEGER, address VARCHAR)`);
    const resume = { from: 20_000 } as NightResume;
    assert.equal(await runStages(defineList({ stages: [checkValueReach], gives: ['resume'] }), context, { resume }), {
      fullNightNeeded: 'prices whose bound on the values needs every balance row',
    });
  } finally {
    db.close();
  }
});

test('the lifecycle runs a list that needs a full night again, from a new database, given why; then goes live', async () => {
  const scratch = `${tempDir()}/scratch`;
  const calls: (string | null)[] = [];
  const summary = await runCommand({
    name: 'prepare',
    options: resolveBuildConfig({ progress: 'quiet', out: `${scratch}-out` }),
    open: async () => [],
    claim: async () => {
      await fs.promises.mkdir(scratch, { recursive: true });
      return scratch;
    },
    async runStages(db, fullNight) {
      calls.push(fullNight);
      // A table of the first run is not in the second's database.
      const [{ tables }] = await db.rows<{ tables: number }>('SELECT count(*)::INTEGER AS tables FROM duckdb_tables()');
      await db.run('CREATE TABLE made AS SELECT 1 AS x');
      if (fullNight === null) return fullNightNeeded('why it is full');
      return { values: { shards: tables } };
    },
    goLive: async (values) => ({ live: values, scratchLeft: fs.existsSync(scratch) }),
  });
  assert.equal(calls, [null, 'why it is full']);
  assert.equal(summary, { live: { shards: 0 }, scratchLeft: false });
});

/** A stage context over `db` with nothing to report and nothing to stop it. */
function quietContext(db: StageContext['db']): StageContext {
  return {
    config: resolveBuildConfig({ progress: 'quiet' }),
    db,
    progress: new Progress('quiet'),
    signal: new AbortController().signal,
    inputsDigest: Promise.resolve('0'.repeat(64)),
    faults: {},
  };
}

test.run();
