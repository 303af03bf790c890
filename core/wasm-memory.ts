/**
 * Growing a WebAssembly module's memory, for the build's writer (build/write/document-bytes.ts)
 * and verify's number pass (tree/verify-exact.ts), which lay out their data in their module's memory.
 */

/** A WebAssembly page: memory grows by whole pages. */
const PAGE = 65_536;

/** Grows `memory` to hold `end` bytes; true when it grew (views of the old buffer are then stale). */
export function growTo(memory: WebAssembly.Memory, end: number): boolean {
  if (end <= memory.buffer.byteLength) return false;
  memory.grow(Math.ceil((end - memory.buffer.byteLength) / PAGE));
  return true;
}
