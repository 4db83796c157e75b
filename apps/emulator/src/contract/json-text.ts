// An answer body that is already JSON text. Some answers are stored as JSON text almost whole (a
// thread's metadata and config are canonical JSON in its row), and parsing them into objects only
// for JSON.stringify to write them back out cost a thread read more than finding its row: the
// store can hand the HTTP layer the text instead. `Body` is the type the text holds, so a handler
// answering text is checked against the operation's response type like any other; in development
// and test mode the HTTP layer parses the text and checks it against the spec as well.
export class JsonText<Body> {
  declare private readonly body: Body;
  constructor(readonly text: string) {}
}
