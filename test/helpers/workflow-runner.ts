/**
 * Runs a GitHub Actions workflow's `run:` steps on this machine, job after job (a matrix's jobs one
 * after another), each job in a fresh copy of the repository as a runner's checkout would be: the
 * `env:` blocks evaluated (secrets, inputs, `needs`, `matrix`, step outputs), each script run by
 * bash as the workflow's `shell: bash` runs it (`-eo pipefail`), `$GITHUB_OUTPUT` read back into
 * the step's outputs. `uses:` steps are the runner's own (checkout, setup-node) and are skipped;
 * so is `npm ci` (the repository's node_modules is in place already).
 */
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { parse } from 'yaml';

interface Step {
  name?: string;
  id?: string;
  if?: string;
  uses?: string;
  run?: string;
  env?: Record<string, string | number>;
}
interface Job {
  needs?: string | string[];
  env?: Record<string, string | number>;
  outputs?: Record<string, string>;
  strategy?: { matrix: Record<string, unknown> };
  steps: Step[];
}
interface Workflow {
  env?: Record<string, string | number>;
  jobs: Record<string, Job>;
}

export interface WorkflowRun {
  /** The repository as committed: each job starts from a copy of it. */
  repository: string;
  secrets: Record<string, string>;
  inputs: Record<string, string>;
  /** Added to every step's environment (PATH, HOME). */
  environment: Record<string, string>;
  /** Steps to leave out, with why (e.g. a command this build of the CLI lacks). */
  skip?: (step: Step) => boolean;
  /** Where the jobs' copies go. */
  work: string;
  /** `GITHUB_RUN_ID` (and `github.run_id`): one per run of the workflow (default 4242). */
  runId?: string;
}

export interface RanStep {
  job: string;
  matrix: Record<string, unknown> | null;
  name: string;
  skipped: boolean;
  stdout: string;
  stderr: string;
}

type Context = Record<string, unknown>;

function lookup(context: Context, dotted: string): unknown {
  return dotted.split('.').reduce<unknown>((value, key) => (value as Record<string, unknown> | undefined)?.[key], context);
}

/** The expressions these workflows use: a dotted name, `fromJSON(name)`, `name || 'literal'`. */
function evaluate(expression: string, context: Context): unknown {
  const alternatives = expression.split('||').map((part) => part.trim());
  for (const alternative of alternatives) {
    const literal = /^'(.*)'$/.exec(alternative);
    const value = literal
      ? literal[1]
      : /^fromJSON\((.+)\)$/.exec(alternative)
        ? JSON.parse(String(lookup(context, /^fromJSON\((.+)\)$/.exec(alternative)![1]!)))
        : lookup(context, alternative);
    if (value !== undefined && value !== null && value !== '') return value;
  }
  return '';
}

/** A value with `${{ }}` inside: the expression alone keeps its type (an array), else text. */
function substitute(value: string | number, context: Context): unknown {
  const text = String(value);
  const whole = /^\$\{\{\s*(.+?)\s*\}\}$/.exec(text);
  if (whole) return evaluate(whole[1]!, context);
  return text.replace(/\$\{\{\s*(.+?)\s*\}\}/g, (_, expression: string) => String(evaluate(expression, context)));
}

function environmentOf(block: Record<string, string | number> | undefined, context: Context): Record<string, string> {
  return Object.fromEntries(Object.entries(block ?? {}).map(([name, value]) => [name, String(substitute(value, context))]));
}

function readOutputs(file: string): Record<string, string> {
  const outputs: Record<string, string> = {};
  for (const line of fs.existsSync(file) ? fs.readFileSync(file, 'utf8').split('\n') : []) {
    const at = line.indexOf('=');
    if (at > 0) outputs[line.slice(0, at)] = line.slice(at + 1);
  }
  return outputs;
}

/** Runs every job in the order of `needs`; throws at the first step that fails, with its output. */
export function runWorkflow(text: string, run: WorkflowRun): RanStep[] {
  const workflow = parse(text) as Workflow;
  const ran: RanStep[] = [];
  const jobOutputs: Record<string, { outputs: Record<string, string> }> = {};
  const done = new Set<string>();
  const order: string[] = [];
  while (order.length < Object.keys(workflow.jobs).length) {
    const next = Object.entries(workflow.jobs).find(
      ([name, job]) => !done.has(name) && [job.needs ?? []].flat().every((need) => done.has(need)),
    );
    if (!next) throw new Error("the jobs' needs form a cycle");
    done.add(next[0]);
    order.push(next[0]);
  }
  let runNumber = 0;
  for (const name of order) {
    const job = workflow.jobs[name]!;
    const runId = run.runId ?? '4242';
    const base: Context = { secrets: run.secrets, inputs: run.inputs, needs: jobOutputs, github: { run_id: runId } };
    const matrix = job.strategy ? (substitute(String(job.strategy.matrix.shard), base) as unknown[]).map((shard) => ({ shard })) : [null];
    const outputs: Record<string, string> = {};
    for (const entry of matrix) {
      const workspace = path.join(run.work, `${name}-${++runNumber}`);
      fs.cpSync(run.repository, workspace, { recursive: true, verbatimSymlinks: true });
      const steps: Record<string, { outputs: Record<string, string> }> = {};
      const summary = path.join(workspace, '..', `${name}-${runNumber}.step-summary.md`);
      for (const [index, step] of job.steps.entries()) {
        const label = step.name ?? step.run ?? step.uses ?? `step ${index + 1}`;
        // A run that reaches a step has not failed: a step only for a failed or cancelled run is left out.
        const onlyOnFailure = step.if !== undefined && /failure\(\)|cancelled\(\)/.test(step.if) && !/always\(\)|success\(\)/.test(step.if);
        if (step.uses || step.run === undefined || step.run.trim() === 'npm ci' || onlyOnFailure || run.skip?.(step)) {
          ran.push({ job: name, matrix: entry, name: label, skipped: true, stdout: '', stderr: '' });
          continue;
        }
        const context: Context = { ...base, matrix: entry ?? {}, steps };
        const outputFile = path.join(workspace, '..', `${name}-${runNumber}-${index}.output`);
        const env = {
          ...run.environment,
          GITHUB_RUN_ID: runId,
          GITHUB_OUTPUT: outputFile,
          GITHUB_STEP_SUMMARY: summary,
          GITHUB_WORKSPACE: workspace,
          CI: 'true',
          ...environmentOf(workflow.env, context),
          ...environmentOf(job.env, context),
          ...environmentOf(step.env, context),
        };
        const result = spawnSync('bash', ['--noprofile', '--norc', '-eo', 'pipefail', '-c', step.run], {
          cwd: workspace,
          env,
          encoding: 'utf8',
          maxBuffer: 64 * 2 ** 20,
        });
        ran.push({ job: name, matrix: entry, name: label, skipped: false, stdout: result.stdout, stderr: result.stderr });
        if (result.status !== 0)
          throw new Error(
            `${name}${entry ? ` ${JSON.stringify(entry)}` : ''}, "${label}" exited with ${result.status}:\n${result.stdout}\n${result.stderr}`,
          );
        if (step.id) steps[step.id] = { outputs: readOutputs(outputFile) };
      }
      // A matrix's outputs: whichever job sets one last (the workflows set the same value in each).
      Object.assign(outputs, environmentOf(job.outputs as Record<string, string>, { ...base, steps }));
    }
    jobOutputs[name] = { outputs };
  }
  return ran;
}
