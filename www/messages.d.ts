// The messages between the page (www/engine.js) and the engine's worker (www/worker.js), by
// their `type`. Their payloads are the boundary's types (www/types.d.ts, generated from
// src/page/protocol.rs), and so are the hand-over's (`Given`, whose `kind`s are `Give`'s steps).
// These unions themselves are written here, not generated: no Rust reads or writes a message
// whole, the worker's JavaScript takes each apart and calls the engine (src/page/wasm.rs) with it.
import type { AfterMetadata, Answer, CacheReport, EngineFacts, Given, HandOver, PageOptions, Request, Summary } from './types';

/** A request's kind: its name, or its one key. */
type RequestKind<R> = R extends string ? R : keyof R;

/**
 * What the page gets for a request (`EngineClient.ask`): the value of the engine's answer, which is
 * named as its request (src/page/protocol.rs `Answer`; tests/wasm.rs holds it), or a Blob for a
 * file (the worker makes it of the answer's text).
 */
export type AnswerTo<R extends Request> = RequestKind<R> extends 'export' | 'share_report' | 'team_export'
  ? Blob
  : Extract<Answer, { answer: RequestKind<R> }>['value'];

/** What the engine's `begin` calls back with as it reads, and the worker says to the page. */
export type Progress = { bytes: number; total: number; files: number; files_total: number; file: string };

/** A root as the page holds it (www/input.js): a zip or archive, or a folder's or loose files. */
export type PageRoot = ZipRoot | FilesRoot;
export type ZipRoot = { kind: 'zip'; label: string; file: File; count: number };
export type FilesRoot = {
  kind: 'files';
  label: string;
  /** A walk's files it got no File for are handles until the engine asks for them. */
  files: Array<File | FileSystemFileHandle>;
  paths: string[];
  count: number;
  /** A walk's sizes and times (NaN for a handle), by path. */
  sizes?: number[];
  times?: number[];
  /** What a walk could not open. */
  problems?: string[];
  /** Whether it was a whole home, of which `skipped` files were left out. */
  wholeHome?: boolean;
  skipped?: number;
  /** A remembered folder's id in the page's cache. */
  cacheId?: string;
};

/** What the page was given: its roots, and GitHub's usage reports among the files (CSV). */
export type PickedRoots = PageRoot[] & { bills?: File[] };

/** A root as the worker is told of it before the analysis: a zip, or a folder's listing. */
export type RootListing =
  | { kind: 'zip'; label: string; file: Blob }
  | { kind: 'listing'; label: string; paths: string[]; sizes?: number[]; times?: number[] };

/** An analysis' options: the engine's, and a rates file the worker reads for it. */
export type AnalysisOptions = Partial<PageOptions> & { rates_file?: Blob };

/** A zip entry to inflate: `span` bytes of the buffer from `at` hold its local header and data. */
export type EntryToInflate = { at: number; span: number; packed: number; size: number; crc32: number };

/** A cache operation (www/cache.js). */
export type CacheOp = 'clear' | 'forget' | 'contents';

/** The page's messages to the worker. */
export type ToWorker =
  | { type: 'init'; id?: undefined; module: WebAssembly.Module; build?: string }
  | ({ type: 'give'; id: number } & Given)
  | { type: 'analyze'; id: number; options: AnalysisOptions; roots: RootListing[]; cache: string | null }
  | { type: 'ask'; id: number; request: Request }
  | { type: 'inflate'; id: number; buffer: ArrayBuffer; entries: EntryToInflate[] }
  | { type: 'bill'; id: number; files: File[]; user: string }
  | { type: 'cache'; id: number; op: CacheOp; root: string | null }
  | { type: 'zips-in-folder'; id: number; paths: string[] }
  | { type: 'never-opened'; id: number; paths: string[] }
  | { type: 'crash-test'; id?: undefined };

/** A message the page sends with `EngineClient.send`, which adds its id. */
export type Asked = Extract<ToWorker, { id: number }> extends infer M ? (M extends unknown ? Omit<M, 'id'> : never) : never;

/** What the cache did in an analysis, or why it was not used. */
export type CacheDone = CacheReport | { unavailable: string } | null;

/** The worker's messages to the page. */
export type FromWorker =
  | { type: 'ready'; id?: undefined; facts?: EngineFacts }
  | ({ type: 'progress'; id: number } & Progress)
  | { type: 'serve'; id: number; hand_over: Pick<HandOver, 'steps'> }
  | { type: 'consumed'; id: number; bytes: number }
  | ({ type: 'after-metadata'; id: number } & AfterMetadata)
  | {
      type: 'done';
      id: number;
      summary: Summary;
      warnings: Array<{ root: string; message: string }>;
      seconds: number;
      timings: Record<string, number>;
      memory: number;
      cache: CacheDone;
    }
  | { type: 'full'; id: number }
  | { type: 'settled'; id: number; seconds: number }
  | { type: 'result'; id: number; value: unknown }
  | { type: 'inflated'; id: number; items: Array<Uint8Array | null> }
  | { type: 'error'; id: number; message: string }
  | { type: 'crash'; id: number; message: string };
