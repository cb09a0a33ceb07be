// The `ambit` CLI: a dispatch table from command words to command modules.

import { editDistance } from '../platform/config/did-you-mean.ts';
import { type CliIo, type Command, processIo } from './cli-io.ts';

// Each command's module is loaded only when it runs: `ambit metadata publish` does not pay for the relay,
// the verifier and their HTTP stack.
const auditVerify: Command = async (a, io) => (await import('./commands/audit-verify.ts')).auditVerify(a, io);
const configCheck: Command = async (a, io) => (await import('./commands/config-check.ts')).configCheck(a, io);
const demo: Command = async (a, io) => (await import('./commands/demo.ts')).demo(a, io);
const keysGenerate: Command = async (a, io) =>
  (await import('./commands/keys-generate.ts')).keysGenerate(a, io);
const metadataPublish: Command = async (a, io) =>
  (await import('./commands/metadata-publish.ts')).metadataPublish(a, io);
const metadataServe: Command = async (a, io) =>
  (await import('./commands/metadata-serve.ts')).metadataServe(a, io);
const metadataValidate: Command = async (a, io) =>
  (await import('./commands/metadata-validate.ts')).metadataValidate(a, io);
const relayServe: Command = async (a, io) => (await import('./commands/relay-serve.ts')).relayServe(a, io);
const verifierServe: Command = async (a, io) =>
  (await import('./commands/verifier-serve.ts')).verifierServe(a, io);

const COMMANDS: Record<string, { run: Command; summary: string }> = {
  'relay serve': {
    run: relayServe,
    summary:
      'Serve the relay: --config F (or AMBIT_RELAY_CONFIG) [--env-file F] [--bind host:port] [--workers N|auto]',
  },
  'verifier serve': {
    run: verifierServe,
    summary: 'Serve the verifier: --config F (or AMBIT_VERIFIER_CONFIG) [--env-file F] [--bind host:port]',
  },
  'config check': {
    run: configCheck,
    summary:
      "Validate a relay or verifier config and list every problem: --config F (or AMBIT_RELAY_CONFIG or AMBIT_VERIFIER_CONFIG) [--env-file F] [--kind relay|verifier] [--connect (also check a relay's PostgreSQL sources against their databases)]",
  },
  'keys generate': {
    run: keysGenerate,
    summary:
      'Create an API key: --id ID [--for relay|verifier] (prints the key once, its fingerprint and commitment)',
  },
  'audit verify': {
    run: auditVerify,
    summary:
      'Verify an audit file hash chain: --file F --secret-env VAR [--rotated (F.N ... F.1, then F, as one chain)] [--genesis | --anchor HASH]',
  },
  'metadata publish': {
    run: metadataPublish,
    summary: 'Write the static metadata publication: --manifest F --out DIR [--base-url URL]',
  },
  'metadata validate': {
    run: metadataValidate,
    summary: 'Check a metadata manifest and list every problem: --manifest F',
  },
  'metadata serve': {
    run: metadataServe,
    summary: 'Serve a static metadata publication, unauthenticated: --dir DIR [--bind host:port]',
  },
  demo: {
    run: demo,
    summary:
      'Run the demo stack on bundled data with generated demo keys (no flags; AMBIT_RELAY_BIND, AMBIT_VERIFIER_BIND, AMBIT_VERIFIER_ADMIN_BIND, AMBIT_DEMO_STATE_DIR, AMBIT_LOG_LEVEL and DATABASE_URL: see demo/README.md)',
  },
};

export async function main(argv: string[], io: CliIo = processIo): Promise<number> {
  if (argv.length === 0 || argv[0] === '--help' || argv[0] === '-h' || argv[0] === 'help') {
    io.out(usage());
    return argv.length === 0 ? 2 : 0;
  }
  for (const words of [2, 1]) {
    const entry = COMMANDS[argv.slice(0, words).join(' ')];
    if (entry) {
      const rest = argv.slice(words);
      if (rest.includes('--help') || rest.includes('-h')) {
        io.out(`ambit ${argv.slice(0, words).join(' ')}: ${entry.summary}`);
        return 0;
      }
      return entry.run(rest, { ...io, ...usageOf(argv.slice(0, words).join(' '), entry.summary) });
    }
  }
  // `ambit metadata --help`: the commands of that group, as help (not as a mistake).
  const group = usageLines((name) => name.split(' ')[0] === argv[0]);
  if (argv.length === 2 && (argv[1] === '--help' || argv[1] === '-h') && group.length > 0) {
    io.out(group.join('\n'));
    return 0;
  }
  const hint = suggestCommand(argv);
  io.err(`unknown command: ${argv.join(' ')}${hint ? `\n${hint}` : ''}\n\n${usage()}`);
  return 2;
}

/** For `ambit relay` or `ambit relay serv`: the commands starting with that word, or one a typo away. */
function suggestCommand(argv: string[]): string | undefined {
  const [first = '', second] = argv;
  const names = Object.keys(COMMANDS);
  const sameFirst = names.filter((name) => name.split(' ')[0] === first);
  const candidates =
    sameFirst.length > 0
      ? sameFirst
      : names.filter((name) => editDistance(first, name.split(' ')[0] ?? '') <= 2 && first.length > 2);
  if (candidates.length === 0) return undefined;
  const near =
    second === undefined
      ? candidates
      : candidates.filter((name) => name.split(' ')[1]?.startsWith(second[0] ?? ''));
  const shown = near.length > 0 ? near : candidates;
  return `did you mean: ${shown.map((name) => `ambit ${name}`).join(', ')}?`;
}

/** `ambit <name> <flags>` from a summary's flags after "Description: "; none for a command without flags. */
function usageOf(name: string, summary: string): { usage?: string } {
  const at = summary.indexOf(': --');
  return at === -1 ? {} : { usage: `ambit ${name} ${summary.slice(at + 2)}` };
}

function usage(): string {
  return ['Ambit: registry relay and evidence verifier', '', 'Commands:', ...usageLines(() => true)].join(
    '\n',
  );
}

function usageLines(wanted: (name: string) => boolean): string[] {
  return Object.entries(COMMANDS)
    .filter(([name]) => wanted(name))
    .map(([name, entry]) => `  ambit ${name.padEnd(18)} ${entry.summary}`);
}
