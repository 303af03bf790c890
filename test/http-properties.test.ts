/**
 * The HTTP surface of the Node server under generated hostile requests (fast-check, seeded), sent
 * as raw bytes: traversal spellings, odd and huge headers, every method, malformed and pipelined
 * request lines. No answer is a 5xx, none carries a file from outside the tree (a canary beside
 * it), a stack or a path of this machine, and every one carries the interface's headers (and the
 * JSON error body on errors). The Worker in workerd is held to the same rules, and to the Node
 * server's status for every request, in test/slow/http-properties-workerd.test.ts.
 */
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import fc from 'fast-check';
import { withServer } from './helpers/http.ts';
import { answerProblems, canaryTree, exchange, holdsFor, hostileRequest } from './helpers/hostile-requests.ts';

/** Enough to meet every spelling several times, in about a CPU-second of requests. */
const RUNS = 300;
const SEED = 53;

test(`${RUNS} generated hostile requests: no 5xx, nothing outside the tree, no stack or path, the headers of every answer`, async () => {
  const built = await canaryTree();
  const { paths } = built;
  await withServer(built.out, async (base) => {
    const statuses = new Map<number, number>();
    await holdsFor(
      fc.asyncProperty(hostileRequest, async (request) => {
        const { answers, timedOut, unreadable } = await exchange(base, request);
        assert.not.ok(timedOut, `no answer within 10 s to ${request.label}`);
        assert.is(unreadable, null, `${request.label}: ${unreadable}`);
        assert.ok(answers.length > 0, `no answer to ${request.label}`);
        answers.forEach((answer, i) => {
          statuses.set(answer.status, (statuses.get(answer.status) ?? 0) + 1);
          const problems = answerProblems(answer, request.methods[i] ?? 'GET', paths);
          assert.equal(problems, [], `${request.label} answered ${answer.status}: ${problems.join('; ')}`);
        });
      }),
      { seed: SEED, numRuns: RUNS },
    );
    // The generator reaches every kind of answer: documents, refusals of each kind.
    for (const status of [200, 204, 400, 404, 405])
      assert.ok((statuses.get(status) ?? 0) > 0, `no ${status} among ${JSON.stringify([...statuses])}`);
  });
});

test.run();
