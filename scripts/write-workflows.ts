/**
 * Writes this repository's own nightly workflows from the text `init` writes for a programme
 * (init/workflows.ts): the one-runner night on a schedule, and the night in ten shards on demand.
 * test/workflows.test.ts fails when the files and init's text differ; this script makes them agree.
 */
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { REPOSITORY_WORKFLOWS } from '../init/workflows.ts';

const ROOT = path.join(path.dirname(fileURLToPath(import.meta.url)), '..');
for (const [file, text] of Object.entries(REPOSITORY_WORKFLOWS)) fs.writeFileSync(path.join(ROOT, file), text);
