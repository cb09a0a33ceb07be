// The SELECTs one live connection has prepared: which statement a read binds, which one it parses, and what its
// answer says about the statement afterwards.
import { randomBytes } from 'node:crypto';
import { preparedStatementTrouble } from './prepared-trouble.ts';

/** A SELECT prepared on the connection; confirmed once the server answered its Parse. */
export interface Prepared {
  readonly text: string;
  readonly name: string;
  confirmed: boolean;
}

/**
 * Distinct SELECTs one connection prepares (filter and projection combinations); beyond them reads run unnamed.
 * A statement lives as long as its connection, so this bounds what the session holds on the server.
 */
const MAX_PREPARED = 100;
// Statement names are unique in the process and, by their random part, across relay processes: a session that turns
// out to be shared (a pooler) then reports the statements it lost rather than confusing two clients' statements.
const NAME_PREFIX = `ambit_${randomBytes(4).toString('hex')}_`;
let statementCount = 0;

export interface LiveStatements {
  /**
   * The prepared statement a read of `text` binds: confirmed by the server, or parsed by an earlier read of the
   * same batch (`parsedHere`), or a new one this read parses (then added to `parsedHere`). A statement whose Parse
   * is still in flight in an earlier batch is not used (that Parse may fail): the read runs unnamed (undefined).
   */
  forRead(text: string, parsedHere: Set<Prepared>): Prepared | undefined;
  /**
   * What a read's answer says about `statement`: a Parse of its own that succeeded confirms it (prepared
   * statements outlive a rolled-back transaction), one that failed or was skipped created nothing. True when a
   * statement it only bound turned out gone or stale (`preparedStatementTrouble`): the connection should retire.
   */
  settled(statement: Prepared, parsedByRead: boolean, parseAnswered: boolean, error: unknown): boolean;
}

export function createLiveStatements(): LiveStatements {
  const prepared = new Map<string, Prepared>();
  return {
    forRead(text, parsedHere) {
      const known = prepared.get(text);
      if (known !== undefined) return known.confirmed || parsedHere.has(known) ? known : undefined;
      if (prepared.size >= MAX_PREPARED) return undefined;
      const statement = { text, name: `${NAME_PREFIX}${++statementCount}`, confirmed: false };
      prepared.set(text, statement);
      parsedHere.add(statement);
      return statement;
    },
    settled(statement, parsedByRead, parseAnswered, error) {
      if (parsedByRead) {
        if (parseAnswered) statement.confirmed = true;
        else if (prepared.get(statement.text) === statement) prepared.delete(statement.text);
        return false;
      }
      return error !== undefined && preparedStatementTrouble(error) !== undefined;
    },
  };
}
