// Types for the small part of `saxen` (the XML parser read-excel-file already ships) used to inspect XLSX parts.
declare module 'saxen' {
  type Decode = (text: string) => string;
  export class Parser {
    constructor(options?: { proxy?: boolean });
    on(
      event: 'openTag',
      callback: (
        name: string,
        attributes: () => Record<string, string>,
        decode: Decode,
        selfClosing: boolean,
      ) => void,
    ): this;
    on(event: 'closeTag', callback: (name: string, decode: Decode, selfClosing: boolean) => void): this;
    /** Text between tags, raw: `decode` resolves its character references. */
    on(event: 'text', callback: (text: string, decode: Decode) => void): this;
    on(event: 'error', callback: (error: Error) => void): this;
    /** Parses a whole document; throws unless an `error` handler swallows the error. */
    parse(xml: string): Error | undefined;
  }
  /** Decodes the XML character references and the five predefined entities. */
  export function decode(text: string): string;
}
