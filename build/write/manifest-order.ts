/**
 * Manifest lines of batches finished out of order (several threads), handed on in batch order,
 * so that two builds of the same input record the same lines byte for byte.
 */
export class InBatchOrder {
  private readonly held = new Map<number, string>();
  private next = 0;

  constructor(private readonly emit: (lines: string) => void) {}

  /** The lines of batch `id` (numbered from 0 in submission order). */
  release(id: number, lines: string): void {
    this.held.set(id, lines);
    let ready: string | undefined;
    while ((ready = this.held.get(this.next)) !== undefined) {
      this.held.delete(this.next++);
      this.emit(ready);
    }
  }
}
