/**
 * The schemas of the commands' `--summary-json` documents, the package's `wallet-snapshot/summaries`
 * entry: a workflow or a CI history reads a command's outcome from JSON checked by these, never
 * from the prose the command prints (docs/cli.md, "Machine-readable summaries").
 */
export { BuildSummaryJsonSchema, type BuildSummaryJson } from './build-summary.ts';
export { PrepareSummaryJsonSchema, type PrepareSummaryJson } from './prepare-summary.ts';
export { NightKindSchema, type NightKind } from './night-kind.ts';
export { VerifySummaryJsonSchema, type VerifySummaryJson } from './verify-summary.ts';
export { PublishSummaryJsonSchema, type PublishSummaryJson } from './publish-summary.ts';
