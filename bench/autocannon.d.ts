// The part of autocannon's API the benchmark uses (the package ships no types).
declare module 'autocannon' {
  import type { EventEmitter } from 'node:events';

  namespace autocannon {
    interface Request {
      method?: string;
      path?: string;
      headers?: Record<string, string>;
      body?: string;
      setupRequest?: (request: Record<string, unknown>, context: Record<string, unknown>) => Record<string, unknown>;
    }
    interface Options {
      url: string;
      connections?: number;
      duration?: number;
      pipelining?: number;
      timeout?: number;
      requests?: Request[];
    }
    interface Result {
      duration: number;
      non2xx: number;
      errors: number;
      timeouts: number;
      statusCodeStats?: Record<string, { count: number }>;
    }
    interface Instance extends EventEmitter, PromiseLike<Result> {}
  }
  function autocannon(options: autocannon.Options): autocannon.Instance;
  export = autocannon;
}
