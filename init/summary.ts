/** What `init` prints: the files written, and what to do next. */
import type { BlockWrite } from './marked-block.ts';
import { wranglerInstall } from './files.ts';
import { PLACEHOLDERS, SECRETS, WORKFLOW_PATH } from './workflows.ts';
import type { InitResult } from './write-repository.ts';

const BLOCK: Record<BlockWrite, string> = {
  created: 'in a new file',
  appended: 'appended to yours',
  kept: 'kept as it was',
  replaced: 'rewritten in place, your lines kept',
};

export function formatInitSummary(result: InitResult): string {
  const note = (file: string) =>
    file === 'README.md'
      ? ` (the "Nightly snapshot" section ${BLOCK[result.readme]})`
      : file === '.gitignore'
        ? ` (init's block ${BLOCK[result.gitignore]})`
        : '';
  const names = result.names
    ? `  - the nights go to s3://${result.names.bucket}/${result.names.prefix} (${WORKFLOW_PATH} and wrangler.toml say so)`
    : `  - put your bucket and prefix in ${WORKFLOW_PATH} and wrangler.toml in place of ${PLACEHOLDERS.bucket} and ${PLACEHOLDERS.prefix} (or run init --force --bucket NAME --prefix PREFIX): a night refuses them at its first step`;
  const lines = [
    `wrote ${result.dir}:`,
    ...result.written.map((file) => `  ${file}${note(file)}`),
    'next:',
    ...(result.missingPackage ? [`  - npm install --save-dev wallet-snapshot in ${result.dir} (the workflow runs npm ci)`] : []),
    `  - set the repository's secrets ${Object.keys(SECRETS).join(', ')}`,
    names,
    `  - the Worker: ${wranglerInstall()}, then deploy it with npx wrangler deploy`,
    '  - commit and push: the workflow runs every night at 05:30 UTC, or by hand',
  ];
  return `${lines.join('\n')}\n`;
}
