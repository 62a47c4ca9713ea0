// A command line the CLI cannot act on: printed with the usage text, exit code 2.
export class UsageError extends Error {}
