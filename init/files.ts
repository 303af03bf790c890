/**
 * The files `init` writes besides the workflow: the Worker's one-line entry, its wrangler.toml,
 * a .gitignore, and the README section that says what to fill in. Strings, like the workflows
 * (init/workflows.ts), so that the compiled package carries them in its JavaScript.
 */
import { PLACEHOLDERS, SECRETS } from './workflows.ts';

/** The date the Worker is written for: the same as `serve --runtime workerd` runs it with (test/init.test.ts checks). */
export const WORKER_COMPATIBILITY_DATE = '2025-09-01';

export const WORKER_ENTRY = `// The whole /v1 interface from the R2 bucket the nightly workflow publishes to (wrangler.toml binds it).
export { default } from 'wallet-snapshot/worker';
`;

/** `name`: the Worker's name on Cloudflare. */
export function wranglerToml(name: string): string {
  return `# The Worker that serves the published nights: \`npx wrangler deploy\` (after \`npx wrangler login\`,
# or with CLOUDFLARE_API_TOKEN set in CI); \`npx wrangler deploy --dry-run\` bundles it only.
name = "${name}"
main = "worker.js"
compatibility_date = "${WORKER_COMPATIBILITY_DATE}"

[[r2_buckets]]
binding = "TREE"
# BUCKET (a placeholder): your R2 bucket, the SNAPSHOT_BUCKET of the nightly workflow.
bucket_name = "${PLACEHOLDERS.bucket}"

[vars]
# PREFIX (a placeholder): the folder in the bucket the nights are published under, the
# SNAPSHOT_PREFIX of the nightly workflow. A prefix holding no published night answers 503.
TREE_PREFIX = "${PLACEHOLDERS.prefix}"
`;
}

export const GITIGNORE = `node_modules/
# What a night writes: the tree (a link to the build beside it), the prepared night, the summaries.
/public
/.public.builds/
/night/
/summaries/
/.wrangler/
`;

/** Marks the README section init writes, so that \`init --force\` replaces it rather than adding another. */
export const README_BEGIN = '<!-- wallet-snapshot init: begin -->';
export const README_END = '<!-- wallet-snapshot init: end -->';

export function readmeSection(workflow: string, shards: number | null): string {
  const secrets = Object.entries(SECRETS).map(([name, what]) => `| \`${name}\` | ${what} |`);
  const night =
    shards === null
      ? 'one job fetches the exports, builds the tree, verifies it, publishes it as a new version and proves the published version'
      : `a \`prepare\` job reads the exports once and writes ${shards} shard folders; ${shards} shard jobs (a matrix) each build, verify and stage one; a \`commit\` job makes the version live once all are staged, then proves it`;
  return `${README_BEGIN}
## Nightly snapshot

\`${workflow}\` runs every night at 05:30 UTC (the New York day has closed): ${night}, with
[wallet-snapshot](https://www.npmjs.com/package/wallet-snapshot). A failing step, or the night's
guard refusing an implausible night, leaves readers on the previous night; to publish a known
change once, run the workflow by hand with \`accept\` (the rules the error names).

**Fill in** (then push):

1. The repository's secrets (Settings > Secrets and variables > Actions > New repository secret):

   | secret | what |
   | --- | --- |
${secrets.map((line) => `   ${line}`).join('\n')}

2. The names in the files, placeholders now: the bucket (\`${PLACEHOLDERS.bucket}\`) and the
   prefix (\`${PLACEHOLDERS.prefix}\`) in \`${workflow}\` (\`SNAPSHOT_BUCKET\`, \`SNAPSHOT_PREFIX\`) and
   in \`wrangler.toml\` (\`bucket_name\`, \`TREE_PREFIX\`): the same in both; for Amazon S3, the
   workflow's \`AWS_REGION\` (\`auto\` is R2's).

**The exports**: the seven Parquet files (\`balances\`, \`tokens\`, \`prices\`, \`points\`,
\`seasons\`, \`multipliers\`, \`venue_b_accounts\`) go into \`exports/\`: committed there, or
fetched by the workflow from an \`s3://\` prefix named in its \`SNAPSHOT_EXPORTS\` (read with the
same key and endpoint), or written there by a step of yours before the build.

**The Worker**: \`worker.js\` serves the published nights from the bucket; deploy it with
\`npx wrangler deploy\` (\`wrangler.toml\` names the bucket and prefix).

Each command writes its outcome as JSON into \`summaries/\` (\`--summary-json\`): the workflow
reads the version id and the counts from there.
${README_END}
`;
}
