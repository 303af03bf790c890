/**
 * The explorer page: a wallet search, the leaderboards and the snapshot's freshness, with a nav
 * to jump between them (and between a wallet's sections). It reads only the /v1
 * documents of the host that serves it, plus the facts the build wrote into the page.
 * The wallet shown is in the URL (`#address=0x...`), so a view can be linked and every
 * leaderboard row is a plain link.
 */
import './style.css';
import { getSeasons } from './api.ts';
import { element, message, showExactValues } from './dom.ts';
import type { SnapshotFacts } from './documents.ts';
import { renderFreshness } from './freshness.ts';
import { renderLeaderboards } from './leaderboards.ts';
import { renderWallet } from './wallet.ts';

function byId<Tag extends keyof HTMLElementTagNameMap>(id: string, _tag: Tag): HTMLElementTagNameMap[Tag] {
  const found = document.getElementById(id);
  if (!found) throw new Error(`the page has no #${id}`);
  return found as HTMLElementTagNameMap[Tag];
}

const facts = JSON.parse(byId('snapshot-facts', 'script').textContent ?? '{}') as SnapshotFacts;
const freshness = byId('freshness-body', 'div');
const leaderboards = byId('leaderboards-body', 'div');
const wallet = byId('wallet-body', 'div');
const form = byId('search', 'form');
const input = byId('address', 'input');
const suggestion = byId('suggestion', 'p');
const walletLinks = byId('wallet-links', 'span');
const nav = byId('sections', 'nav');
const exactSwitch = byId('exact-values', 'input');

function addressInHash(): string | null {
  const hash = location.hash.replace(/^#/, '');
  return hash.startsWith('address=') ? decodeURIComponent(hash.slice('address='.length)) : null;
}

async function showWalletOfHash(): Promise<void> {
  const address = addressInHash();
  if (address === null) return;
  input.value = address;
  await renderWallet(wallet, walletLinks, address);
  byId('wallet', 'section').scrollIntoView({ block: 'start' });
}

form.addEventListener('submit', (event) => {
  event.preventDefault();
  const hash = `#address=${encodeURIComponent(input.value.trim())}`;
  // Searching the address already shown does not change the hash, so no hashchange would fire.
  if (location.hash === hash) void showWalletOfHash();
  else location.hash = hash;
});
window.addEventListener('hashchange', () => void showWalletOfHash());

// The nav's links jump to their section (and move the keyboard's focus there) without replacing
// the `#address=` of the URL, so the wallet shown stays linkable and survives a reload.
nav.addEventListener('click', (event) => {
  const link = (event.target as Element).closest('a');
  const id = link?.getAttribute('href')?.slice(1);
  const target = id ? document.getElementById(id) : null;
  if (!target) return;
  event.preventDefault();
  target.scrollIntoView({ block: 'start' });
  target.focus({ preventScroll: true });
});

exactSwitch.addEventListener('change', () => showExactValues(exactSwitch.checked));

if (facts.exampleWallet) {
  suggestion.replaceChildren(
    'Example: ',
    element('a', { href: `#address=${facts.exampleWallet}`, class: 'address', 'data-example': '' }, facts.exampleWallet),
  );
}

try {
  const seasons = await getSeasons();
  renderLeaderboards(leaderboards, seasons);
  await renderFreshness(freshness, facts, seasons);
} catch (error) {
  const failure = message('error', 'Error', (error as Error).message);
  freshness.replaceChildren(failure);
  leaderboards.replaceChildren(failure.cloneNode(true));
}
await showWalletOfHash();
document.body.dataset.ready = 'true';
