// How the demo banner prints a request with what it shows. The note goes on a line of its own, before the request:
// after it, zsh (macOS's default shell, which reads no `#` comment in an interactive line) would hand the note's
// words to curl as more URLs to fetch.

/** `command` preceded by `# note` when there is a note. */
export function noted(command: string, note?: string): string[] {
  return note === undefined ? [command] : [`# ${note}`, command];
}
