/** A user mistake on the command line; the message is shown as is. Callers print it with `usage()` and exit 2. */
export class FlagError extends Error {
  constructor(message: string) {
    super(message);
    this.name = "FlagError";
  }
}
