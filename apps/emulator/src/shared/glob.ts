// The one glob dialect of the emulator config (`revision_outcomes[].match`, a scripted reply's
// `match`): `*` is any run of characters, `?` exactly one, everything else itself; the whole text
// must match, case-sensitively. Characters are code points, so `?` matches one emoji too.
export function globToRegExp(glob: string): RegExp {
  const body = [...glob].map((c) => (c === '*' ? '.*' : c === '?' ? '.' : c.replace(/[.+^${}()|[\]\\]/g, '\\$&'))).join('');
  return new RegExp(`^${body}$`, 'su');
}
