import { openDatabase } from './build/database.ts';
import { computePointsHistory as newPH } from './build/compute/points-history.ts';
import { computeSeasonDays } from './build/compute/leaderboards.ts';
const { computePointsHistory: varPH } = await import('/tmp/b59/ph-variant.ts');
const { computePointsHistory: oldPH } = await import('/tmp/ws-397/build/compute/points-history.ts');
import fs from 'node:fs';
const input = '/tmp/b59/w10000-seed1/input';
async function run(which: string, i: number) {
  const dir = `/dev/shm/b59/ph-${which}-${i}`; fs.rmSync(dir, { recursive: true, force: true }); fs.mkdirSync(dir, { recursive: true });
  const db = await openDatabase({ file: `${dir}/x.duckdb`, tempDir: `${dir}/spill`, threads: 1, memoryLimit: '1GB' });
  await db.run(`CREATE VIEW points AS SELECT season::BIGINT AS season, date, lower(address) AS address, points, address AS address_as_written FROM read_parquet('${input}/points.parquet')`);
  await db.run(`CREATE TABLE seasons AS SELECT season::BIGINT AS season, as_of FROM read_parquet('${input}/seasons.parquet')`);
  await computeSeasonDays(db, '2025-11-20');
  const c0 = process.cpuUsage();
  await ({ old: oldPH, new: newPH, var: varPH } as any)[which](db);
  const c = process.cpuUsage(c0);
  db.close(); fs.rmSync(dir, { recursive: true, force: true });
  return (c.user + c.system) / 1e6;
}
const r: Record<string, number[]> = { old: [], new: [], var: [] };
for (let i = 0; i < 5; i++) for (const w of ['old', 'var', 'new']) r[w]!.push(await run(w, i));
for (const [k, v] of Object.entries(r)) console.log(k, v.map((x) => x.toFixed(2)).join(' '), 'median', [...v].sort()[2]!.toFixed(2));
