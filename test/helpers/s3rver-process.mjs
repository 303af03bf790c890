// s3rver in a process of its own: `node --openssl-legacy-provider s3rver-process.mjs DIR BUCKET`
// prints the port it listens on. s3rver encrypts its listings' continuation tokens with DES,
// which Node's OpenSSL 3 only offers through the legacy provider (without it, every listing
// longer than one page fails with a 500).
import S3rver from 's3rver';

const [directory, bucket] = process.argv.slice(2);
const server = new S3rver({ address: '127.0.0.1', port: 0, directory, silent: true, configureBuckets: [{ name: bucket }] });
const address = await server.run();
process.stdout.write(`${address.port}\n`);
process.on('SIGTERM', async () => {
  await server.close();
  process.exit(0);
});
