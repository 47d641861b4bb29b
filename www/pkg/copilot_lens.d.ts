// What www/worker.js imports of the engine's module (src/wasm.rs, its wasm-bindgen glue beside
// this file once scripts/build-web.sh has run), with the boundary's types (www/types.d.ts) for
// the JSON values it takes and gives. Written by hand: wasm-bindgen would type each JSON value
// `any`. Kept here, under the glue's own name, so that `tsc` reads it whether the glue is built
// or not.
import type { AfterMetadata, Answer, CacheReport, EngineFacts, HandOver, Need, PageOptions, Request, Summary } from '../types';
import type { Progress } from '../messages';

export function initSync(module: { module: WebAssembly.Module }): { memory: WebAssembly.Memory };
export function engine_facts(): EngineFacts;
export function needs_every_file(request: Request): boolean;
export function inflate(bytes: Uint8Array, packed: number, size: number, crc32: number): Uint8Array;
export function never_opened(paths: string[]): Uint32Array;
export function zips_in_folder(paths: string[]): { zips: string[]; holds_data: boolean };

export class Engine {
  constructor(options?: Partial<PageOptions> & { rates?: string });
  free(): void;
  need(): Need;
  add_listing(label: string, paths: string[], sizes?: number[] | null, times?: number[] | null): void;
  add_zip(label: string, file: Blob): void;
  use_cache(pack: FileSystemSyncAccessHandle, build: string, cap: number): void;
  cache_report(): CacheReport | null;
  finish_cache(): number | undefined;
  record_entries(most: number): number;
  begin(progress: (progress: Progress) => void): HandOver;
  give_bytes(root: number, path: string, bytes: Uint8Array): void;
  give_files(root: number, files: Blob[], paths: string[]): void;
  read_metadata(): AfterMetadata;
  give_time(root: number, path: string, modified_ms: number): void;
  parse_log(index: number, log: Uint8Array | Blob | undefined, modified_ms?: number | null): void;
  finish(): Summary;
  ask(request: Request): Answer;
  reconcile_bill(files: File[], user?: string | null): unknown;
}
