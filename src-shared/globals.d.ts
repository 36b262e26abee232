/**
 * Isomorphic globals.
 *
 * src-shared compiles without DOM and Node typings so that neither environment's names leak in.
 * These few globals exist with the same behaviour in Node, Electron and every browser we target,
 * so they are declared here, narrowly, rather than pulling in a whole environment's lib.
 */
declare class TextEncoder {
  encode(input?: string): Uint8Array;
  encodeInto(source: string, destination: Uint8Array): { read: number; written: number };
}
declare class TextDecoder {
  constructor(label?: string, options?: { fatal?: boolean; ignoreBOM?: boolean });
  decode(input?: Uint8Array): string;
}
declare function btoa(data: string): string;
declare function atob(data: string): string;
