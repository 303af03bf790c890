/**
 * The build's stages (build/stages/) as declared: every table a stage reads is made by an earlier
 * stage on its own side of the cut between `prepare` and a shard's build, and the folder `prepare`
 * writes holds exactly the tables the shard's side needs from the night's. (The runner also checks
 * each declaration against DuckDB's catalog while a build runs: build/stages/stage.ts.)
 */
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { NIGHT_STAGES, SHARD_STAGES, STAGES } from '../build/stages/index.ts';
import { loadPrepared } from '../build/stages/load-prepared.ts';
import { splitIntoShards } from '../build/stages/split-into-shards.ts';
import { runStages, type AnyStage, type StageContext } from '../build/stages/stage.ts';
import { resolveBuildConfig } from '../build/config.ts';
import { Progress } from '../core/progress.ts';
import { scratchDatabase, thrown } from './helpers/fixtures.ts';

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

test('the list is the night side, then the shard side: one cut', () => {
  assert.equal(STAGES, [...NIGHT_STAGES, ...SHARD_STAGES]);
  assert.is(NIGHT_STAGES.at(-1), splitIntoShards);
  assert.is(SHARD_STAGES[0], loadPrepared);
});

test('every table a stage of the night reads is made by an earlier stage of the night', () => {
  assert.equal(unmetReads(NIGHT_STAGES), []);
});

test('every table a stage of a shard reads is made by an earlier stage of the shard (from the prepared folder)', () => {
  assert.equal(unmetReads(SHARD_STAGES), []);
});

test('the prepared folder carries what the night made and the shard needs, and the whole build finds it without one', () => {
  const nightMade = new Set(NIGHT_STAGES.flatMap((stage) => stage.writes));
  for (const table of loadPrepared.writes) {
    assert.ok(nightMade.has(table), `${table}: load prepared makes it, the night does not`);
    assert.ok(splitIntoShards.reads.includes(table), `${table}: load prepared makes it, split into shards does not write it`);
  }
  // build --input runs both sides without the folder: the shard side's reads are met by the night's.
  assert.equal(unmetReads(STAGES.filter((stage) => stage !== loadPrepared)), []);
});

/** The first value each side's stages need that no earlier stage of that side makes. */
function unmetNeeds(stages: readonly AnyStage[]): string[] {
  const made = new Set<string>();
  const unmet: string[] = [];
  for (const stage of stages) {
    for (const value of stage.needs) if (!made.has(value)) unmet.push(`${stage.name} needs ${value}`);
    for (const value of stage.makes) made.add(value);
  }
  return unmet;
}

test('every value a stage needs is made by an earlier stage of its side (the shard side: from the prepared folder)', () => {
  assert.equal(unmetNeeds(NIGHT_STAGES), []);
  assert.equal(unmetNeeds(SHARD_STAGES), []);
  // build --input: the night's values reach the shard's side (probe export facts makes the facts
  // for every build), and find changed days (prepare only) the night's kind.
  assert.equal(unmetNeeds(STAGES.filter((stage) => stage !== loadPrepared)), []);
});

test('a stage that reads a table made later on the list is caught', () => {
  const early: AnyStage = { name: 'early', side: 'shard', reads: ['snapshots'], writes: [], needs: [], makes: [], run: async () => ({}) };
  assert.equal(unmetReads([early, ...SHARD_STAGES]), ['early reads snapshots']);
});

test("the runner holds each stage to its declaration, in DuckDB's catalog", async () => {
  const db = await scratchDatabase({ threads: 1 });
  const context: StageContext = {
    config: resolveBuildConfig({ progress: 'quiet' }),
    mode: { kind: 'input' },
    db,
    progress: new Progress('quiet'),
    signal: new AbortController().signal,
    inputs: [],
    tree: null,
    values: {},
    inputsDigest: Promise.resolve('0'.repeat(64)),
    faults: {},
  };
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
    await runStages([make('make a', [], ['a'], 'CREATE TABLE a AS SELECT 1 AS x'), make('read a', ['a'], [], null)], context);
    const unmade = await thrown(() => runStages([make('claims b', [], ['b'], null)], context));
    assert.is(unmade.message, 'stage "claims b" writes b, which it did not make');
    const unread = await thrown(() => runStages([make('reads c', ['c'], [], null)], context));
    assert.is(unread.message, 'stage "reads c" reads c, which no earlier stage made');
    // A table read without being declared is refused before the statement runs, on a second connection too.
    const undeclared = await thrown(() => runStages([make('reads a quietly', [], [], 'SELECT x FROM a')], context));
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
      const error = await thrown(() => runStages([make('reads a by a comma', [], ['c', 'd'], sql)], context));
      assert.is(error.message, 'stage "reads a by a comma" reads a, which it does not declare in its reads', sql);
    }
    // The name of a common table expression is not a table read, even one the catalog has; a statement of a kind it cannot read is refused.
    await runStages([make('names its own a', [], [], 'WITH a AS (SELECT 1 AS x) SELECT x FROM a')], context);
    assert.is(
      (await thrown(() => runStages([make('updates', ['a'], [], 'UPDATE a SET x = 2')], context))).message,
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
    assert.is(
      (await thrown(() => runStages([sideways], context))).message,
      'stage "joins a elsewhere" reads a, which it does not declare in its reads',
    );
    // A value a stage needs that no stage made; a value a stage declares and does not return.
    const needy: AnyStage = { ...make('needs prices', [], [], null), needs: ['prices'] };
    assert.is((await thrown(() => runStages([needy], context))).message, 'stage "needs prices" needs prices, which no earlier stage made');
    const idle: AnyStage = { ...make('makes prices', [], [], null), makes: ['prices'] };
    assert.is((await thrown(() => runStages([idle], context))).message, 'stage "makes prices" declares it makes prices, and did not');
    // A null value is a value: "no asOf" is given as null, not refused as missing.
    let given: unknown = 'unset';
    const nullMaker: AnyStage = { ...make('no asOf', [], [], null), makes: ['dailyAsOf'], run: async () => ({ dailyAsOf: null }) };
    const nullTaker: AnyStage = {
      ...make('takes asOf', [], [], null),
      needs: ['dailyAsOf'],
      run: async (_c, values) => ((given = values.dailyAsOf), {}),
    };
    await runStages([nullMaker, nullTaker], context);
    assert.is(given, null);
  } finally {
    db.close();
  }
});

test.run();
