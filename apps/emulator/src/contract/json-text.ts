// An answer body that is already JSON text. Some answers are stored as JSON text almost whole (a
// thread's metadata and config are canonical JSON in its row), and parsing them into objects only
// for JSON.stringify to write them back out cost a thread read more than finding its row: the
// store can hand the HTTP layer the text instead. `Body` is the type the text holds, so a handler
// answering text is checked against the operation's response type like any other; in development
// and test mode the HTTP layer parses the text and checks it against the spec as well.
//
// The text may also be given as its UTF-8 bytes in parts (`bytes`), which the adapters write out as
// they are: a run's answer of a long conversation is mostly bytes kept from earlier answers
// (decision E29), and making one string of it would copy it into fresh memory on every answer.
export class JsonText<Body> {
  declare private readonly body: Body;
  private decoded: string | undefined;
  /** The text's UTF-8 bytes in parts, when it was given so. */
  readonly bytes: readonly Uint8Array[] | undefined;

  constructor(text: string | readonly Uint8Array[]) {
    if (typeof text === 'string') this.decoded = text;
    else this.bytes = text;
  }

  get text(): string {
    this.decoded ??= Buffer.concat(this.bytes ?? []).toString('utf8');
    return this.decoded;
  }
}
