import { generateDataset } from '../data/generate.ts';
const wallets = Number(process.argv[2] ?? 100000);
const t = performance.now();
await generateDataset({ outDir: `bench-data/w${wallets}`, wallets, seed: 1, startDate: '2024-11-21', days: 365, seasonOneEnd: '2025-05-31', rowsPerWallet: 100, threads: 2 });
console.log('generated', wallets, ((performance.now() - t) / 1000).toFixed(1), 's');
