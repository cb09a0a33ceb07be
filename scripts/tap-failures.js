// Collects the blocks of failing tests from a TAP stream (node:test's default reporter): the
// "not ok" line, the names of the suites around it, and its YAML diagnostics. A suite that failed
// only because a test inside it failed (failureType 'subtestsFailed') is left out; one that failed
// in its own hooks is kept.

const NOT_OK = /^(\s*)not ok \d+ - /;
const SUBTEST = /^(\s*)# Subtest: (.*)$/;

export class FailureCollector {
  /** @type {string[][]} */
  #blocks = [];
  /** @type {string[] | null} the block being read, from its "not ok" line to its closing "..." */
  #open = null;
  #openIndent = '';
  /** @type {Map<number, string>} the names of the suites being run, by indentation */
  #path = new Map();

  /** @param {string} line */
  push(line) {
    if (this.#open) {
      this.#open.push(line.slice(this.#openIndent.length));
      if (line === `${this.#openIndent}  ...`) this.#close();
      return;
    }
    const subtest = SUBTEST.exec(line);
    if (subtest) {
      const depth = subtest[1].length;
      for (const key of [...this.#path.keys()]) if (key >= depth) this.#path.delete(key);
      this.#path.set(depth, subtest[2]);
      return;
    }
    const notOk = NOT_OK.exec(line);
    if (!notOk) return;
    const depth = notOk[1].length;
    const suites = [...this.#path.entries()].filter(([d]) => d < depth).sort(([a], [b]) => a - b);
    this.#open = [...suites.map(([, name]) => `# in: ${name}`), line.trimStart()];
    this.#openIndent = notOk[1];
  }

  #close() {
    const block = /** @type {string[]} */ (this.#open);
    this.#open = null;
    if (!block.some((l) => l.trim() === "failureType: 'subtestsFailed'")) this.#blocks.push(block);
  }

  /** @returns {string[]} the lines to print, none when nothing failed */
  summary() {
    return this.#blocks.flatMap((block) => [...block, '']);
  }
}
