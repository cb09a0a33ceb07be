// Typings for the parts of parse-prometheus-text-format the metrics tests read (the package ships none).
declare module 'parse-prometheus-text-format' {
  export interface ParsedSample {
    readonly labels?: Readonly<Record<string, string>>;
    /** Absent on the merged samples of a histogram or summary. */
    readonly value?: string;
    readonly buckets?: Readonly<Record<string, string>>;
    readonly count?: string;
    readonly sum?: string;
  }
  export interface ParsedFamily {
    readonly name: string;
    readonly help: string;
    readonly type: 'COUNTER' | 'GAUGE' | 'HISTOGRAM' | 'SUMMARY' | 'UNTYPED';
    readonly metrics: readonly ParsedSample[];
  }
  export default function parsePrometheusTextFormat(text: string): ParsedFamily[];
}
