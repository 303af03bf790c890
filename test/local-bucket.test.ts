/** The preview's bucket repeats a call whose connection was dropped, and only such a call. */
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { DROPPED_CONNECTION_ATTEMPTS, isDroppedConnection, type LocalBucket, sturdyBucket } from '../preview/local-bucket.ts';

/** The error undici's fetch gives when the other side closed the connection before answering. */
function dropped(): TypeError {
  const cause = Object.assign(new Error('other side closed'), { code: 'UND_ERR_SOCKET' });
  return new TypeError('fetch failed', { cause });
}

/** A bucket whose puts fail `failures` times with `error`, then succeed; it counts the calls. */
function flakyBucket(failures: number, error: () => Error): { bucket: LocalBucket; calls: () => number } {
  let calls = 0;
  const fail = async <T>(value: T): Promise<T> => {
    calls++;
    if (calls <= failures) throw error();
    return value;
  };
  return {
    bucket: {
      get: () => fail(null),
      put: () => fail({}),
      list: () => fail({ objects: [], truncated: false }),
      delete: () => fail(undefined),
    },
    calls: () => calls,
  };
}

test('a dropped connection is told from the other errors', () => {
  assert.ok(isDroppedConnection(dropped()));
  assert.ok(isDroppedConnection(new TypeError('fetch failed', { cause: Object.assign(new Error('reset'), { code: 'ECONNRESET' }) })));
  assert.not.ok(
    isDroppedConnection(new TypeError('fetch failed', { cause: Object.assign(new Error('refused'), { code: 'ECONNREFUSED' }) })),
  );
  assert.not.ok(isDroppedConnection(new Error('other side closed')));
  assert.not.ok(isDroppedConnection(null));
});

test('each call is made again after a dropped connection, up to the limit', async () => {
  for (const call of ['get', 'put', 'list', 'delete'] as const) {
    const { bucket, calls } = flakyBucket(DROPPED_CONNECTION_ATTEMPTS - 1, dropped);
    const sturdy = sturdyBucket(bucket);
    if (call === 'get') await sturdy.get('k');
    if (call === 'put') await sturdy.put('k', 'v', { httpMetadata: {} });
    if (call === 'list') await sturdy.list({ prefix: 'p' });
    if (call === 'delete') await sturdy.delete(['k']);
    assert.is(calls(), DROPPED_CONNECTION_ATTEMPTS, call);
  }
});

test('past the limit, the dropped connection is the caller error', async () => {
  const { bucket, calls } = flakyBucket(DROPPED_CONNECTION_ATTEMPTS, dropped);
  const error = await sturdyBucket(bucket)
    .put('k', 'v', { httpMetadata: {} })
    .then(
      () => null,
      (e: Error) => e,
    );
  assert.ok(error && isDroppedConnection(error));
  assert.is(calls(), DROPPED_CONNECTION_ATTEMPTS);
});

test('any other error is the caller error at once', async () => {
  const { bucket, calls } = flakyBucket(1, () => new Error('R2 says no'));
  const error = await sturdyBucket(bucket)
    .put('k', 'v', { httpMetadata: {} })
    .then(
      () => null,
      (e: Error) => e,
    );
  assert.is(error?.message, 'R2 says no');
  assert.is(calls(), 1);
});

test.run();
