// What the in-process emulator hands its callers for each API: a function with `fetch`'s
// signature. A module of its own, with no imports, so that the package's public declarations
// (index.ts, emulator.ts) name it without reaching the HTTP layer and, through it, the store and
// the generated contract.
export type FetchFunction = (input: string | URL | Request, init?: RequestInit) => Promise<Response>;
