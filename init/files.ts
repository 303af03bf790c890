/**
 * The files `init` writes besides the workflow: the Worker's one-line entry, its wrangler.toml,
 * init's block of a .gitignore, and the README section that says what to fill in. Strings, like
 * the workflows (init/workflows.ts), so that the compiled package carries them in its JavaScript.
 */
import { PACKAGE_MANIFEST } from '../core/release.ts';
import { PLACEHOLDERS, SECRETS, type StoreNames } from './workflows.ts';

/** The date the Worker is written for: the same as `serve --runtime workerd` runs it with (test/init.test.ts checks). */
export const WORKER_COMPATIBILITY_DATE = '2025-09-01';

/**
 * The wrangler this release is tested with (its exact devDependency): the one init tells a
 * programme to install, so that the Worker it deploys is bundled as the tests bundled it.
 */
export function testedWrangler(): string {
  const version = PACKAGE_MANIFEST.devDependencies?.wrangler;
  if (!version || !/^\d+\.\d+\.\d+$/.test(version)) {
    throw new Error(`wallet-snapshot's package.json names no exact wrangler version among its devDependencies (${String(version)})`);
  }
  return version;
}

/** The one command that installs that wrangler into a programme's repository. */
export function wranglerInstall(): string {
  return `npm install --save-dev --save-exact wrangler@${testedWrangler()}`;
}

export const WORKER_ENTRY = `// The whole /v1 interface from the R2 bucket the nightly workflow publishes to (wrangler.toml binds it).
export { default } from 'wallet-snapshot/worker';
`;

/** `name`: the Worker's name on Cloudflare; `names`: the store's, or null for the placeholders. */
export function wranglerToml(name: string, names: StoreNames | null): string {
  const { bucket, prefix } = names ?? PLACEHOLDERS;
  const bucketNote = names
    ? '# BUCKET: your R2 bucket (init --bucket), the SNAPSHOT_BUCKET of the nightly workflow.'
    : '# BUCKET (a placeholder: put yours): your R2 bucket, the SNAPSHOT_BUCKET of the nightly workflow.';
  const prefixNote = names
    ? '# PREFIX: the folder in the bucket the nights are published under (init --prefix), the'
    : '# PREFIX (a placeholder: put yours): the folder in the bucket the nights are published under, the';
  return `# The Worker that serves the published nights. Deploy: \`npx wrangler deploy\` (wrangler installed with
# \`${wranglerInstall()}\`; after \`npx wrangler login\`, or with CLOUDFLARE_API_TOKEN
# set in CI); \`npx wrangler deploy --dry-run\` bundles it only.
name = "${name}"
main = "worker.js"
compatibility_date = "${WORKER_COMPATIBILITY_DATE}"

[[r2_buckets]]
binding = "TREE"
${bucketNote}
bucket_name = "${bucket}"

[vars]
${prefixNote}
# SNAPSHOT_PREFIX of the nightly workflow. A prefix holding no published night answers 503.
TREE_PREFIX = "${prefix}"
`;
}

/** Marks init's block of a .gitignore: the lines between are init's (replaced by `init --force`), the others the programme's. */
export const GITIGNORE_BEGIN = '# wallet-snapshot init: begin';
export const GITIGNORE_END = '# wallet-snapshot init: end';

export const GITIGNORE_BLOCK = `${GITIGNORE_BEGIN}
# init's lines, down to the end line (init --force rewrites them); yours go outside the two.
node_modules/
# What a night writes: the tree (a link to the build beside it), the prepared night, the summaries.
/public
/.public.builds/
/night/
/summaries/
/.wrangler/
${GITIGNORE_END}
`;

/** Marks the README section init writes, so that \`init --force\` replaces it rather than adding another. */
export const README_BEGIN = '<!-- wallet-snapshot init: begin -->';
export const README_END = '<!-- wallet-snapshot init: end -->';

export function readmeSection(workflow: string, shards: number | null, names: StoreNames | null): string {
  const secrets = Object.entries(SECRETS).map(([name, what]) => `| \`${name}\` | ${what} |`);
  const night =
    shards === null
      ? 'one job fetches the exports, builds the tree, verifies it, publishes it as a new version and proves the version it published'
      : `a \`prepare\` job reads the exports once and writes ${shards} shard folders; ${shards} shard jobs (a matrix) each build, verify and stage one; a \`commit\` job makes the version live once all are staged, then proves it`;
  const store = names
    ? `2. The store's names are written already (\`init --bucket ${names.bucket} --prefix ${names.prefix}\`): the nights go to
   \`s3://${names.bucket}/${names.prefix}\` (\`SNAPSHOT_BUCKET\`, \`SNAPSHOT_PREFIX\` in \`${workflow}\`; \`bucket_name\`,
   \`TREE_PREFIX\` in \`wrangler.toml\`). For Amazon S3, set the workflow's \`AWS_REGION\` (\`auto\` is R2's).`
    : `2. The names in the files, placeholders now: the bucket (\`${PLACEHOLDERS.bucket}\`) and the
   prefix (\`${PLACEHOLDERS.prefix}\`) in \`${workflow}\` (\`SNAPSHOT_BUCKET\`, \`SNAPSHOT_PREFIX\`) and
   in \`wrangler.toml\` (\`bucket_name\`, \`TREE_PREFIX\`): the same in both, or write them all with
   \`npx wallet-snapshot init --force --bucket NAME --prefix PREFIX\`. A night whose workflow still holds
   a placeholder fails at its first step, naming the file. For Amazon S3, also the workflow's
   \`AWS_REGION\` (\`auto\` is R2's).`;
  return `${README_BEGIN}
## Nightly snapshot

\`${workflow}\` runs every night at 05:30 UTC (the New York day has closed): ${night}, with
[wallet-snapshot](https://www.npmjs.com/package/wallet-snapshot). A failing step, or the night's
guard refusing an implausible night, leaves readers on the previous night; to publish a known
change once, run the workflow by hand with \`accept\` (the rules the error names).

**Fill in** (then push):

1. The repository's secrets (Settings > Secrets and variables > Actions > New repository secret);
   the workflow gives them only to the steps that talk to the bucket:

   | secret | what |
   | --- | --- |
${secrets.map((line) => `   ${line}`).join('\n')}

${store}

**The exports**: the seven Parquet files (\`balances\`, \`tokens\`, \`prices\`, \`points\`,
\`seasons\`, \`multipliers\`, \`venue_b_accounts\`) go into \`exports/\`: committed there, or
fetched by the workflow from an \`s3://\` prefix named in its \`SNAPSHOT_EXPORTS\` (read with the
same key and endpoint), or written there by a step of yours before the build.

**The Worker**: \`worker.js\` serves the published nights from the bucket (\`wrangler.toml\` names the
bucket and prefix). Install the wrangler wallet-snapshot is tested with, once:

    ${wranglerInstall()}

then deploy with one command, \`npx wrangler deploy\` (after \`npx wrangler login\`, or with
\`CLOUDFLARE_API_TOKEN\` set).

Each command writes its outcome as JSON into \`summaries/\` (\`--summary-json\`): the workflow
reads the version id and the counts from there.
${README_END}
`;
}
