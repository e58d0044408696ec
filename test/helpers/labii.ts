// The requests of labii-sdk 1.13.14's APIObject and LabiiObject.APIResource, written anew
// from reading its sdk.py and api_client.py (the SDK is not used, nor copied): its paths
// (`/{app}/{model}/list/organization/{org}/{serializer}/`, the detail path), its headers
// (`X-Forwarded-For: batch`, `Content-Type: application/json` on every request, also on
// GET and DELETE, `Authorization: Token …` or `Bearer …`), its compact JSON bodies and its
// paging (`page=N&page_size=10` before the query; all_pages walking pages until `count`).
import assert from 'node:assert/strict';
import { http, type Answer } from './http.ts';
import { expectStatus } from './assertions.ts';

/** Python's json.dumps(data, separators=(',', ':')): compact, and non-ASCII escaped as \uXXXX (ensure_ascii). */
export function pythonJson(data: unknown): string {
  return JSON.stringify(data).replace(/[\u007f-\uffff]/g, (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`);
}

export class LabiiClient {
  token: string | null = null;
  apiKey: string | null = null;
  constructor(readonly organizationSid: string) {}

  headers(authorized = true): Record<string, string> {
    const headers: Record<string, string> = { 'X-Forwarded-For': 'batch', 'Content-Type': 'application/json' };
    if (authorized && this.apiKey) headers.Authorization = `Bearer ${this.apiKey}`;
    else if (authorized && this.token) headers.Authorization = `Token ${this.token}`;
    return headers;
  }

  listUrl(app: string, model: string, serializer = 'list', query = '', level = 'organization', sid = this.organizationSid): string {
    return `/${app}/${model}/list/${level}/${sid}/${serializer}/${query === '' ? '' : '?'}${query}`;
  }

  detailUrl(app: string, model: string, sid: string, query = ''): string {
    return `/${app}/${model}/detail/${sid}/${query === '' ? '' : '?'}${query}`;
  }

  send(method: string, url: string, data?: unknown, authorized = true): Promise<Answer> {
    return http(method, url, { headers: this.headers(authorized), ...(data === undefined ? {} : { rawBody: pythonJson(data) }) });
  }

  async login(email: string, password: string): Promise<void> {
    const res = expectStatus(await this.send('POST', '/accounts/auth/', { username: email, password }, false), 200, 'the SDK\'s login');
    assert.equal(typeof res.json.token, 'string', 'the login answers a token');
    this.token = res.json.token;
  }

  /** GET with all_pages: the query without page/page_size, then page=N&page_size=10 until `count` results are read. */
  async getAll(url: string): Promise<{ count: number; results: any[]; pages: number }> {
    let page = 1;
    const join = (n: number) => `${url}${url.includes('?') ? '&' : '?'}page=${n}&page_size=10`;
    const first = expectStatus(await this.send('GET', join(page)), 200, `GET ${join(page)}`).json;
    let results: any[] = first.results;
    while (results.length < first.count) {
      page += 1;
      results = results.concat(expectStatus(await this.send('GET', join(page)), 200, `GET ${join(page)}`).json.results);
    }
    return { count: first.count, results, pages: page };
  }

  resource(app: string, model: string) {
    return {
      create: (data: unknown, query = '') => this.send('POST', this.listUrl(app, model, 'detail', query), data),
      retrieve: (sid: string, query = '') => this.send('GET', this.detailUrl(app, model, sid, query)),
      list: (options: { page?: number; pageSize?: number; serializer?: string; query?: string } = {}) => {
        const { page = 1, pageSize = 10, serializer = 'list', query = '' } = options;
        return this.send('GET', this.listUrl(app, model, serializer, `page=${page}&page_size=${pageSize}${query === '' ? '' : '&'}${query}`));
      },
      listAll: (serializer = 'list', query = '') => this.getAll(this.listUrl(app, model, serializer, query)),
      modify: (sid: string, data: unknown, query = '') => this.send('PATCH', this.detailUrl(app, model, sid, query), data),
      /** delete(): a DELETE of the detail path, with the SDK's Content-Type and no body. */
      delete: (sid: string, query = '') => this.send('DELETE', this.detailUrl(app, model, sid, query)),
    };
  }

  get Record() { return this.resource('tables', 'row'); }
  get Cell() { return this.resource('tables', 'cell'); }
  get Section() { return this.resource('tables', 'section'); }
  get Column() { return this.resource('tables', 'column'); }
  get Filter() { return this.resource('tables', 'filter'); }
  /** labii-sdk 1.13.14's Activity: APIResource("tables", "activity"). */
  get Activity() { return this.resource('tables', 'activity'); }
  get Project() { return this.resource('projects', 'project'); }
}
