/**
 * The Worker in workerd (behind `serve --runtime workerd`'s edge) under the generated hostile
 * requests of test/http-properties.test.ts: the same rules for every answer, and for each request
 * the Node server's status. Each request goes to both hosts over the same tree.
 */
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import fc from 'fast-check';
import { startHost } from '../helpers/hosts.ts';
import { answerProblems, holdsFor, type RawAnswer, canaryTree, exchange, hostileRequest } from '../helpers/hostile-requests.ts';

const RUNS = 1_000;
const SEED = 530;

test(`${RUNS} generated hostile requests: the Worker keeps every rule and answers each with the Node server's status`, async () => {
  const built = await canaryTree();
  const { paths } = built;
  const node = await startHost('node', built.out);
  const workerd = await startHost('workerd', built.out);
  try {
    let compared = 0;
    await holdsFor(
      fc.asyncProperty(hostileRequest, async (request) => {
        const [onNode, inWorkerd] = [await exchange(node.url, request), await exchange(workerd.url, request)];
        for (const [name, { answers, timedOut, unreadable }] of [
          ['Node', onNode],
          ['workerd', inWorkerd],
        ] as const) {
          assert.not.ok(timedOut, `${name}: no answer within 10 s to ${request.label}`);
          assert.is(unreadable, null, `${name}: ${request.label}: ${unreadable}`);
          answers.forEach((answer, i) => {
            const problems = answerProblems(answer, request.methods[i] ?? 'GET', paths);
            assert.equal(problems, [], `${name}: ${request.label} answered ${answer.status}: ${problems.join('; ')}`);
          });
        }
        // Up to the first answer that closes the connection: pipelined requests after it are not
        // answered (RFC 9112, 9.6), though Node's server sometimes writes an answer already made.
        const statuses = (answers: RawAnswer[]) => {
          const closing = answers.findIndex((answer) => /close/i.test(answer.headers.connection ?? ''));
          return answers.slice(0, closing === -1 ? answers.length : closing + 1).map((answer) => answer.status);
        };
        assert.equal(
          statuses(inWorkerd.answers),
          statuses(onNode.answers),
          `the statuses of ${request.label}: Node ${statuses(onNode.answers)}, workerd ${statuses(inWorkerd.answers)}`,
        );
        compared++;
      }),
      { seed: SEED, numRuns: RUNS },
    );
    assert.is(compared, RUNS);
  } finally {
    await workerd.close();
    await node.close();
  }
});

test.run();
