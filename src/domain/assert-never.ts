// The end of every exhaustive switch (trigger.dev's assertExhaustive): adding a stop reason, a run
// state or a block type is a compile error until every switch over it handles the new case.

/** Throws for a value the type system says cannot exist (a stored or wire value it did not foresee). */
export function assertNever(value: never, message = 'Unexpected value'): never {
  throw new Error(`${message}: ${JSON.stringify(value)}`);
}
