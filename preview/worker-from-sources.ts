/**
 * The Worker bundled from its sources with esbuild into one ES module, the way wrangler bundles it
 * for deployment: used by the repository when it runs from its sources (and for the measurement
 * variants that wrap the Worker), and by `npm pack` to make the bundle the package ships
 * (workerd.ts).
 */
import { build } from 'esbuild';

export async function bundleWorkerSources(entry: string): Promise<string> {
  const result = await build({
    entryPoints: [entry],
    bundle: true,
    format: 'esm',
    platform: 'neutral',
    target: 'es2022',
    mainFields: ['module', 'main'],
    conditions: ['workerd', 'worker', 'browser', 'import'],
    write: false,
    logLevel: 'silent',
  });
  return result.outputFiles[0]!.text;
}
