// Assertions: a failed one is a programmer error, never an expected outcome. Expected failures
// are rejections (reject.ts). Messages are string literals so a passing assertion costs one
// branch and allocates nothing; the engine's callers treat a throw as a crash and recover by
// restarting from the journal.

export class AssertionError extends Error {
  override readonly name = 'AssertionError';
}

export function assert(condition: boolean, message: string): asserts condition {
  if (!condition) throw new AssertionError(message);
}
