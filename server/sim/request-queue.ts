// A worker's waiting requests in arrival order: an array read from a head index (taking the front is O(1), and a
// preempted request goes back in front of the rest), compacted once more than half of it has been taken.

/** Taken entries kept before the array is compacted (and only once they are more than half of it). */
const COMPACT_AFTER = 256;

export class RequestQueue<T> {
  private items: T[] = [];
  private head = 0;

  get length(): number {
    return this.items.length - this.head;
  }

  /** The request waiting longest (undefined when empty). */
  front(): T | undefined {
    return this.head < this.items.length ? this.items[this.head] : undefined;
  }

  push(item: T): void {
    this.items.push(item);
  }

  /** Drop the front request (admitted or refused). */
  shift(): void {
    if (this.head >= this.items.length) return;
    this.head++;
    if (this.head > COMPACT_AFTER && this.head * 2 > this.items.length) {
      this.items = this.items.slice(this.head);
      this.head = 0;
    }
  }

  /** Put a request back in front of every other (a preempted one is scheduled first again). */
  putFront(item: T): void {
    if (this.head > 0) this.items[--this.head] = item;
    else this.items.unshift(item);
  }
}
