// Where a command's output goes and where it reads an answer from, so the commands can be driven
// by tests through the real API while `buildfleet` itself uses the terminal.
import { createInterface } from 'node:readline/promises';

export interface CliIo {
  /** One line of the command's output (stdout). */
  print(line: string): void;
  /** One line of diagnostics (stderr). */
  printError(line: string): void;
  /** Asks the person at the terminal; null when there is none to ask (stdin is not a TTY). */
  ask(question: string): Promise<string | null>;
}

/** The process's terminal: stdout, stderr, and a prompt on stdin only when it is a TTY. */
export const terminalIo: CliIo = {
  print: (line) => console.log(line),
  printError: (line) => console.error(line),
  async ask(question) {
    // Piped or scripted stdin has nobody to answer; waiting on it would hang a CI job.
    if (!process.stdin.isTTY) return null;
    const reader = createInterface({ input: process.stdin, output: process.stdout });
    try {
      return (await reader.question(question)).trim();
    } finally {
      reader.close();
    }
  },
};
