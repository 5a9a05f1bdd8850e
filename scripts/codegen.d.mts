// The types of scripts/codegen.mjs, for the TypeScript that imports it (test/app/clients.test.ts).
import type { CodegenConfig } from '@graphql-codegen/cli';

export declare const CODEGEN_OUTPUT: string;
export declare const codegenConfig: CodegenConfig;
/** Writes generated/graphql/ (or, with `write` false, answers its files). */
export declare function codegen(write?: boolean): Promise<{ filename: string; content: string }[]>;
/** The one message of a failed codegen: each document error once, without stacks. */
export declare function codegenFailure(e: unknown): string;
/** Rejects with the file, line and column of the first syntax error among `dir`'s documents (default operations/). */
export declare function checkSyntax(dir?: string): Promise<void>;
