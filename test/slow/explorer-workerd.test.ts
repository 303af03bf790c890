/**
 * The explorer page over the Worker in workerd: the fast tier's explorer suite
 * (test/explorer.test.ts, on the Node server there) run on the other runtime.
 */
process.env.TEST_RUNTIMES = 'workerd';
await import('../explorer.test.ts');
