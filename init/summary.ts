/** What `init` prints: the files written, and what to do next. */
import path from 'node:path';
import type { InitResult } from './write-repository.ts';
import { SECRETS } from './workflows.ts';

export function formatInitSummary(result: InitResult): string {
  const lines = [
    `wrote ${result.dir}:`,
    ...result.written.map(
      (file) =>
        `  ${file}${file === 'README.md' ? ` (the "Nightly snapshot" section ${result.readme === 'created' ? 'in a new README' : result.readme})` : ''}`,
    ),
    'next:',
    ...(result.missingPackage ? [`  - npm install --save-dev wallet-snapshot in ${result.dir} (the workflow runs npm ci)`] : []),
    `  - set the repository's secrets ${Object.keys(SECRETS).join(', ')}`,
    `  - put your bucket and prefix in ${path.join('.github', 'workflows', 'nightly.yml')} and wrangler.toml (README.md says where)`,
    '  - commit and push: the workflow runs every night at 05:30 UTC, or by hand',
  ];
  return `${lines.join('\n')}\n`;
}
