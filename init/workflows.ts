/**
 * The nightly workflows `init` writes (and this repository runs: .github/workflows/ holds the very
 * text these functions return, which test/workflows.test.ts checks). Written as strings here,
 * not as files shipped beside the code, so that the compiled package needs nothing but its
 * JavaScript, and a shard count is a parameter rather than an edit (docs/decisions.md).
 *
 * Every `${{ }}` expression sits in an `env:` block and every `run:` reads plain environment
 * variables: a step's script reads the same in a runner and in a test that runs it with bash.
 * Each command writes `--summary-json` into summaries/, and the steps read the version id, the
 * shard folders and the guard's verdict from there with `jq` (on GitHub's runners), never from
 * the commands' prose. What a security review asks (docs/decisions.md, "The workflows a review
 * passes"): the store's secrets only in the `env:` of the steps that talk to the store, every
 * action pinned to a commit, no token left in the checkout, and no permission but reading the
 * repository.
 */

/** The repository's secrets the workflows read (Settings > Secrets and variables > Actions); the README section names each. */
export const SECRETS = {
  SNAPSHOT_ENDPOINT: "the bucket's S3 endpoint: R2's https://<ACCOUNT_ID>.r2.cloudflarestorage.com, MinIO's URL; not set for Amazon S3",
  SNAPSHOT_ACCESS_KEY_ID:
    'the access key id of a token that may read, write, list and delete in the bucket (R2: an API token with Object Read & Write on it)',
  SNAPSHOT_SECRET_ACCESS_KEY: "that token's secret access key",
} as const;

/**
 * The names written in the files when `init` is not given `--bucket` and `--prefix`: valid names
 * (wrangler and actionlint take them) that no one would take for a real bucket, and that the
 * workflow's first step refuses.
 */
export const PLACEHOLDERS = { bucket: 'replace-with-your-bucket', prefix: 'replace-with-your-prefix' } as const;

/** Where a programme's nights are published: s3://BUCKET/PREFIX (and what its Worker reads). */
export interface StoreNames {
  bucket: string;
  prefix: string;
}

/**
 * The actions the workflows use, each pinned to the commit its release tag named when this
 * release was made (read from the actions' own repositories); the tag is written beside it.
 */
export const PINNED_ACTIONS = {
  checkout: { action: 'actions/checkout', commit: '3d3c42e5aac5ba805825da76410c181273ba90b1', tag: 'v7.0.1' },
  setupNode: { action: 'actions/setup-node', commit: '820762786026740c76f36085b0efc47a31fe5020', tag: 'v7.0.0' },
} as const;

/** A `uses:` value with its tag as a comment: `actions/checkout@<commit> # v7.0.1`. */
function pinned(name: keyof typeof PINNED_ACTIONS): string {
  const { action, commit, tag } = PINNED_ACTIONS[name];
  return `${action}@${commit} # ${tag}`;
}

export interface WorkflowOptions {
  /** Runs every night at 05:30 UTC; without, on demand only (a second workflow beside a scheduled one). */
  schedule: boolean;
  /** The bucket and prefix the nights go to; by default the placeholders, which the first step refuses. */
  names?: StoreNames;
  /** The workflow's own path in the repository, which the first step names when it refuses the placeholders. */
  path?: string;
}

/** Where init writes the workflow. */
export const WORKFLOW_PATH = '.github/workflows/nightly.yml';

const HEADER_ONE = `# Nightly snapshot: fetch the seven Parquet exports, build the tree, verify it, publish it as a new
# version (the pointer last: readers never see half a night), then prove the published version.
# Written by \`npx wallet-snapshot init\`; yours to change. Any failing step stops the job before
# publish: readers keep the previous night. The night's guard at publish refuses an implausible
# night (exit 1, readers keep the previous night); to publish a known change once, run the
# workflow by hand with \`accept\` (e.g. wallets). The secrets to set: the README's section.
`;

const HEADER_SHARDED = `# Nightly snapshot, sharded: prepare once, shard many (wallet-snapshot's docs/sharded-night.md).
# - prepare: fetches the exports and the last published night's folder, reads and checks the exports
#   once, reuses every past day whose rows did not change (prepare --since), writes one folder per
#   shard and hands the night to its shard jobs through the bucket (under PREFIX/_nights/RUN_ID/);
# - shard (a matrix, one job per shard, from prepare's summary): builds its shard from its folder,
#   verifies it and stages it into the night's version (the pointer is not touched);
# - commit: makes the version live once every shard is staged and the night's guard agrees, then
#   proves the published version; the night's folder stays in the bucket for the next night
#   (PREFIX/_nights/last names it) and the one before goes.
# Written by \`npx wallet-snapshot init --sharded N\`; yours to change (SHARDS is the one place
# the shard count is written). The secrets to set: the README's section.
`;

function triggers(options: WorkflowOptions): string {
  const schedule = options.schedule
    ? `  schedule:
    # 05:30 UTC is 00:30 or 01:30 in New York: the previous New York day has closed.
    - cron: '30 5 * * *'
`
    : `  # On demand only, beside a scheduled nightly.yml: to switch, move that workflow's schedule here.
`;
  return `on:
${schedule}  workflow_dispatch:
    inputs:
      accept:
        description: 'rules of the guard to accept for this one night, e.g. wallets,restated (a known change)'
        required: false
        default: ''
      now:
        description: 'the build instant, ISO 8601 (empty: the time the night starts), to rebuild a past night'
        required: false
        default: ''
`;
}

/** Shared by both workflows: where the night goes, and that no job may do more than read the repository. */
function settings(options: WorkflowOptions): string {
  const names = options.names ?? PLACEHOLDERS;
  const which = options.names
    ? '  # The names init was given (--bucket, --prefix).'
    : '  # Placeholders until you put yours (or run init --force --bucket NAME --prefix PREFIX): the first\n  # step refuses them.';
  return `# No permission for the repository's token but what each job grants itself (reading the code).
permissions: {}

# One night at a time: a publish must never race another night's upload or its --keep.
concurrency:
  group: nightly-snapshot
  cancel-in-progress: false

defaults:
  run:
    shell: bash

env:
  # Where the nights are published: s3://SNAPSHOT_BUCKET/SNAPSHOT_PREFIX, the same as bucket_name
  # and TREE_PREFIX in wrangler.toml (a prefix, not empty).
${which}
  SNAPSHOT_BUCKET: ${names.bucket}
  SNAPSHOT_PREFIX: ${names.prefix}
  # The bucket's region: auto for R2; for Amazon S3 the bucket's own (e.g. eu-west-1).
  AWS_REGION: auto
  # An s3:// prefix holding the seven Parquet exports, read with the same key and endpoint; empty:
  # the exports/ folder of this repository (committed, or written by a step of yours before this).
  SNAPSHOT_EXPORTS: ''
  # The store's endpoint and key are secrets, given only to the steps that talk to the store.
`;
}

/** `${{ text }}`, a GitHub Actions expression (written only in an `env:` block). */
function expression(text: string): string {
  return `\${{ ${text} }}`;
}

/** A job's grant: reading the repository (the checkout), nothing else. */
const READ_ONLY = `    permissions:
      contents: read
`;

/**
 * A step's `env:`: the store's secrets when it talks to the store, then `extra` (name: expression).
 * Only such steps see the key: not npm ci's install scripts, not the build, not the actions.
 */
function stepEnv(store: boolean, extra: Record<string, string> = {}): string {
  const lines = Object.entries({
    ...(store
      ? {
          SNAPSHOT_ENDPOINT: expression('secrets.SNAPSHOT_ENDPOINT'),
          AWS_ACCESS_KEY_ID: expression('secrets.SNAPSHOT_ACCESS_KEY_ID'),
          AWS_SECRET_ACCESS_KEY: expression('secrets.SNAPSHOT_SECRET_ACCESS_KEY'),
        }
      : {}),
    ...extra,
  }).map(([name, value]) => `          ${name}: ${value}\n`);
  return `        env:\n${lines.join('')}`;
}
const STORE = stepEnv(true);

/**
 * The first step of a night: the placeholders refused, with the file to edit, before anything is
 * installed or built (a run of the workflow as init wrote it, before its names were filled in).
 */
function checkNames(options: WorkflowOptions): string {
  const file = options.path ?? WORKFLOW_PATH;
  const refuse = (variable: string, placeholder: string, what: string, toml: string) =>
    `          if [ "$${variable}" = ${placeholder} ]; then
            echo "::error file=${file},title=${variable} is a placeholder::${variable} is ${placeholder}, the placeholder init wrote: put your ${what} in ${file} (env: ${variable}) and in wrangler.toml (${toml}), or write both with npx wallet-snapshot init --force --bucket NAME --prefix PREFIX"
            refused=1
          fi
`;
  return `      - name: Check that the bucket and prefix are yours, not init's placeholders
        run: |
          refused=0
${refuse('SNAPSHOT_BUCKET', PLACEHOLDERS.bucket, "bucket's name", 'bucket_name')}${refuse('SNAPSHOT_PREFIX', PLACEHOLDERS.prefix, 'prefix', 'TREE_PREFIX')}          exit "$refused"
`;
}

/** The checkout (no token kept in .git/config), Node, and the locked dependencies (no secret in their install scripts' reach). */
const SETUP = `      - uses: ${pinned('checkout')}
        with:
          persist-credentials: false
      - uses: ${pinned('setupNode')}
        with:
          node-version: 22
          cache: npm
      - run: npm ci
`;

const FETCH_EXPORTS = `      - name: Fetch the exports into exports/
${STORE}        run: |
          if [ -n "$SNAPSHOT_EXPORTS" ]; then
            aws s3 sync "$SNAPSHOT_EXPORTS" exports/ --only-show-errors \\
              \${SNAPSHOT_ENDPOINT:+--endpoint-url "$SNAPSHOT_ENDPOINT"}
          fi
          ls exports/*.parquet
`;

/** The refusal, or any failure, as an error on the run's page; the guard's verdict from the JSON. */
function publishStep(name: string, command: string, summary: string, env: Record<string, string> = {}): string {
  return `      - name: ${name}
        id: publish
${stepEnv(true, { ...env, ACCEPT: expression('inputs.accept') })}        run: |
          rm -f ${summary}
          status=0
          ${command} \\
            \${SNAPSHOT_ENDPOINT:+--endpoint "$SNAPSHOT_ENDPOINT"} \${ACCEPT:+--accept "$ACCEPT"} \\
            --keep 7 --progress lines --summary-json ${summary} || status=$?
          if [ "$status" -ne 0 ]; then
            if [ -f ${summary} ] && [ "$(jq -r .outcome ${summary})" = refused ]; then
              jq -r '"::error title=The night was not published::the guard refused version \\(.version)"
                + " (rules: \\(.guard.refused | join(", "))); readers keep the live version. If the change is"
                + " known, run this workflow by hand with accept = \\(.guard.refused | join(","))"' ${summary}
            fi
            exit "$status"
          fi
          echo "version=$(jq -r .version ${summary})" >> "$GITHUB_OUTPUT"
          jq -r '"Version \\(.version) is live: \\(.files) files, \\(.objects.sent) objects (\\(.bytes.sent) bytes) sent."' \\
            ${summary} >> "$GITHUB_STEP_SUMMARY"
`;
}

/**
 * After publish: the version this night published (the publish step's output), read back from the
 * store and proved, a sample of its members; what it found goes to the run's page either way.
 */
const SCRUB = `      - name: Scrub the version just published (read back from the bucket and proved)
        id: scrub
${stepEnv(true, { VERSION: expression('steps.publish.outputs.version') })}        run: |
          rm -f summaries/scrub.json
          status=0
          npx wallet-snapshot verify --from "s3://$SNAPSHOT_BUCKET/$SNAPSHOT_PREFIX" --version "$VERSION" \\
            \${SNAPSHOT_ENDPOINT:+--endpoint "$SNAPSHOT_ENDPOINT"} --sample 200 --summary-json summaries/scrub.json || status=$?
          if [ -f summaries/scrub.json ]; then
            jq -r '"Scrub of \\(.coverage): \\(if .ok then "every member read is as published" else "\\(.failures | length) problems, the first: \\(.failures[0])" end)."' \\
              summaries/scrub.json >> "$GITHUB_STEP_SUMMARY"
          fi
          exit "$status"
`;

export function nightlyWorkflow(options: WorkflowOptions = { schedule: true }): string {
  return `${HEADER_ONE}name: nightly snapshot

${triggers(options)}
${settings(options)}
jobs:
  night:
    runs-on: ubuntu-latest
    timeout-minutes: 120
${READ_ONLY}    steps:
${checkNames(options)}${SETUP}${FETCH_EXPORTS}      - name: Build
${stepEnv(false, { NOW: expression('inputs.now') })}        run: |
          npx wallet-snapshot build --input exports --out public --now "\${NOW:-$(date -u +%FT%TZ)}" --progress lines \\
            --summary-json summaries/build.json
      - name: Verify
        run: npx wallet-snapshot verify --dir public --progress lines --summary-json summaries/verify.json
${publishStep('Publish (the guard first; the pointer last), keeping a week of versions for a rollback', 'npx wallet-snapshot publish --dir public --to "s3://$SNAPSHOT_BUCKET/$SNAPSHOT_PREFIX"', 'summaries/publish.json')}${SCRUB}`;
}

export function shardedWorkflow(shards: number, options: WorkflowOptions = { schedule: true }): string {
  return `${HEADER_SHARDED}name: nightly snapshot (sharded)

${triggers(options)}
${settings(options)}  SHARDS: ${shards}

jobs:
  prepare:
    runs-on: ubuntu-latest
    timeout-minutes: 60
${READ_ONLY}    outputs:
      shards: \${{ steps.prepare.outputs.shards }}
    steps:
${checkNames(options)}${SETUP}${FETCH_EXPORTS}      - name: Fetch the last published night's folder (none, or an incomplete one, makes a full night)
${STORE}        run: |
          if aws s3 cp "s3://$SNAPSHOT_BUCKET/$SNAPSHOT_PREFIX/_nights/last" last-night --only-show-errors \\
            \${SNAPSHOT_ENDPOINT:+--endpoint-url "$SNAPSHOT_ENDPOINT"}; then
            aws s3 sync "s3://$SNAPSHOT_BUCKET/$SNAPSHOT_PREFIX/_nights/$(cat last-night)" night --only-show-errors \\
              \${SNAPSHOT_ENDPOINT:+--endpoint-url "$SNAPSHOT_ENDPOINT"} || rm -rf night
          fi
      - name: Prepare the night (one build instant for every shard; the unchanged past days reused)
        id: prepare
${stepEnv(false, { NOW: expression('inputs.now') })}        run: |
          npx wallet-snapshot prepare --input exports --out night --since night --shards "$SHARDS" \\
            --now "\${NOW:-$(date -u +%FT%TZ)}" --progress lines --summary-json summaries/prepare.json
          echo "shards=$(jq -c '[range(1; .shards + 1)]' summaries/prepare.json)" >> "$GITHUB_OUTPUT"
          jq -r '"Prepared: \\(.night.kind) night (\\(.night.why))."' summaries/prepare.json >> "$GITHUB_STEP_SUMMARY"
      - name: Hand the night to its shard jobs through the bucket
${STORE}        run: |
          aws s3 sync night "s3://$SNAPSHOT_BUCKET/$SNAPSHOT_PREFIX/_nights/$GITHUB_RUN_ID" --delete --only-show-errors \\
            \${SNAPSHOT_ENDPOINT:+--endpoint-url "$SNAPSHOT_ENDPOINT"}

  shard:
    needs: prepare
    runs-on: ubuntu-latest
    timeout-minutes: 60
${READ_ONLY}    outputs:
      # Every shard stages into the same version, so whichever job sets it last sets the same value.
      version: \${{ steps.stage.outputs.version }}
    strategy:
      fail-fast: false   # a shard that fails is rerun alone; the commit waits for all of them
      matrix:
        shard: \${{ fromJSON(needs.prepare.outputs.shards) }}
    env:
      SHARD: \${{ matrix.shard }}
    steps:
${SETUP}      - name: Fetch this shard's folder
${STORE}        run: |
          aws s3 sync "s3://$SNAPSHOT_BUCKET/$SNAPSHOT_PREFIX/_nights/$GITHUB_RUN_ID/shard-$SHARD-of-$SHARDS" "night/shard-$SHARD-of-$SHARDS" \\
            --only-show-errors \${SNAPSHOT_ENDPOINT:+--endpoint-url "$SNAPSHOT_ENDPOINT"}
      - name: Build the shard from its folder
        run: |
          npx wallet-snapshot build --prepared "night/shard-$SHARD-of-$SHARDS" --packed --out public --no-sync --progress lines \\
            --summary-json summaries/build.json
      - name: Verify the shard (its wallets and the shared files)
        run: npx wallet-snapshot verify --dir public --shard "$SHARD/$SHARDS" --progress lines --summary-json summaries/verify.json
      - name: Stage the shard (the pointer is not touched)
        id: stage
${STORE}        run: |
          npx wallet-snapshot publish --dir public --to "s3://$SNAPSHOT_BUCKET/$SNAPSHOT_PREFIX" \\
            \${SNAPSHOT_ENDPOINT:+--endpoint "$SNAPSHOT_ENDPOINT"} --progress lines --summary-json summaries/stage.json
          echo "version=$(jq -r .version summaries/stage.json)" >> "$GITHUB_OUTPUT"
          jq -r '"Shard \\(.shard.index) of \\(.shard.count) staged into version \\(.version): \\(.objects.sent) objects sent."' \\
            summaries/stage.json >> "$GITHUB_STEP_SUMMARY"

  commit:
    needs: shard   # runs only when every shard job succeeded
    runs-on: ubuntu-latest
    timeout-minutes: 30
${READ_ONLY}    steps:
${SETUP}${publishStep(
  'Commit (every shard staged and agreeing, and the guard on their sum), keeping a week of versions',
  'npx wallet-snapshot publish --commit --version "$VERSION" --to "s3://$SNAPSHOT_BUCKET/$SNAPSHOT_PREFIX"',
  'summaries/commit.json',
  { VERSION: expression('needs.shard.outputs.version') },
)}${SCRUB}      - name: Keep this night's folder for the next night, remove the one before
${STORE}        run: |
          echo "$GITHUB_RUN_ID" > last-night
          aws s3 cp last-night "s3://$SNAPSHOT_BUCKET/$SNAPSHOT_PREFIX/_nights/last" --only-show-errors \\
            \${SNAPSHOT_ENDPOINT:+--endpoint-url "$SNAPSHOT_ENDPOINT"}
          nights=$(aws s3api list-objects-v2 --bucket "$SNAPSHOT_BUCKET" --prefix "$SNAPSHOT_PREFIX/_nights/" --delimiter / \\
            --query 'CommonPrefixes[].Prefix' --output text \${SNAPSHOT_ENDPOINT:+--endpoint-url "$SNAPSHOT_ENDPOINT"})
          for older in $nights; do
            if [ "$older" != "$SNAPSHOT_PREFIX/_nights/$GITHUB_RUN_ID/" ] && [ "$older" != None ]; then
              aws s3 rm "s3://$SNAPSHOT_BUCKET/$older" --recursive --only-show-errors \${SNAPSHOT_ENDPOINT:+--endpoint-url "$SNAPSHOT_ENDPOINT"}
            fi
          done
      - name: Remove this night's folder from the bucket (the night did not go live)
        if: failure() || cancelled()
${STORE}        run: |
          aws s3 rm "s3://$SNAPSHOT_BUCKET/$SNAPSHOT_PREFIX/_nights/$GITHUB_RUN_ID" --recursive --only-show-errors \\
            \${SNAPSHOT_ENDPOINT:+--endpoint-url "$SNAPSHOT_ENDPOINT"}
`;
}

/**
 * This repository's own workflows: the one-runner night on a schedule, the night in ten shards on
 * demand, publishing where this repository's wrangler.toml reads (s3://wallet-snapshot/prod).
 */
const OWN_NAMES: StoreNames = { bucket: 'wallet-snapshot', prefix: 'prod' };
export const REPOSITORY_WORKFLOWS = {
  '.github/workflows/nightly.yml': nightlyWorkflow({ schedule: true, names: OWN_NAMES }),
  '.github/workflows/nightly-sharded.yml': shardedWorkflow(10, {
    schedule: false,
    names: OWN_NAMES,
    path: '.github/workflows/nightly-sharded.yml',
  }),
};
