// The API reference: /openapi.json documents every personnel path with its shapes, and
// the interactive page at /docs/ lists them in a real browser (headless Chromium).
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import { chromium } from 'playwright-core';
import { anonymous } from '../helpers/http.ts';
import { PAGE_KEYS, expectStatus, shapeKeys } from '../helpers/assertions.ts';
import { BASE_URL } from '../helpers/env.ts';
import { PATHS } from '../helpers/factories.ts';

const CHROMIUM = '/usr/bin/chromium';
const SERIALIZERS = ['name', 'list', 'detail'] as const;
const PERSONNEL_LIST = (serializer: string) => `/organizations/personnel/list/{level}/{sid}/${serializer}/`;
const PERSONNEL_DETAIL = '/organizations/personnel/detail/{sid}/';

type Schema = { $ref?: string; properties?: Record<string, Schema>; items?: Schema; anyOf?: Schema[]; oneOf?: Schema[]; type?: string | string[]; required?: string[] };

describe('the API reference', () => {
  let doc: { openapi: string; paths: Record<string, Record<string, any>>; components?: { schemas?: Record<string, Schema> } };

  /** A schema with its $ref followed. */
  function resolve(schema: Schema): Schema {
    if (!schema.$ref) return schema;
    const name = schema.$ref.replace('#/components/schemas/', '');
    const found = doc.components?.schemas?.[name];
    assert.ok(found, `unresolved $ref ${schema.$ref}`);
    return resolve(found);
  }

  /** A parameter with its $ref (to components.parameters) followed. */
  function parameter(param: { $ref?: string }): any {
    if (!param.$ref) return param;
    const found = (doc.components as any)?.parameters?.[param.$ref.replace('#/components/parameters/', '')];
    assert.ok(found, `unresolved $ref ${param.$ref}`);
    return found;
  }

  /** An answer with its $ref (to components.responses) followed. */
  function response(answer: { $ref?: string } | undefined): any {
    if (!answer?.$ref) return answer;
    const found = (doc.components as any)?.responses?.[answer.$ref.replace('#/components/responses/', '')];
    assert.ok(found, `unresolved $ref ${answer.$ref}`);
    return found;
  }

  function jsonSchema(operation: any, status: string): Schema {
    const schema = response(operation?.responses?.[status])?.content?.['application/json']?.schema;
    assert.ok(schema, `a ${status} JSON response schema`);
    return resolve(schema);
  }

  function keys(schema: Schema): string[] {
    return Object.keys(resolve(schema).properties ?? {}).sort();
  }

  test('GET /openapi.json: an OpenAPI 3 document, without a token', async () => {
    const res = await anonymous.get(PATHS.openapi);
    expectStatus(res, 200);
    assert.match(res.headers.get('content-type') ?? '', /^application\/json/);
    doc = res.json;
    assert.match(doc.openapi, /^3\./);
  });

  test('every personnel list path offers GET (a page of the shape) and POST (the detail shape, as the spec says, or an array of it)', () => {
    for (const serializer of SERIALIZERS) {
      const item = doc.paths[PERSONNEL_LIST(serializer)];
      assert.ok(item, `${PERSONNEL_LIST(serializer)} is documented`);
      assert.deepEqual(Object.keys(item).filter((m) => ['get', 'post', 'put', 'patch', 'delete'].includes(m)).sort(), ['get', 'post']);
      const page = jsonSchema(item.get, '200');
      assert.deepEqual(keys(page), [...PAGE_KEYS].sort(), 'the page envelope');
      assert.deepEqual(keys(resolve(page.properties!.results).items!), shapeKeys(`personnel.${serializer}`).sort(), `GET ${serializer} results`);
      const created = jsonSchema(item.post, '201');
      const variants = (created.anyOf ?? created.oneOf ?? []).map(resolve);
      assert.equal(variants.length, 2, 'one record or an array of records');
      assert.deepEqual(keys(variants.find((v) => v.type === 'object')!), shapeKeys('personnel.detail').sort());
      assert.deepEqual(keys(resolve(variants.find((v) => v.type === 'array')!.items!)), shapeKeys('personnel.detail').sort());
      const parameters = item.get.parameters.map(parameter);
      for (const param of ['level', 'sid']) {
        assert.ok(parameters.some((p: { name: string; in: string }) => p.name === param && p.in === 'path'), `path parameter ${param}`);
      }
      for (const param of ['page', 'page_size']) {
        assert.ok(parameters.some((p: { name: string; in: string }) => p.name === param && p.in === 'query'), `query parameter ${param}`);
      }
    }
  });

  test('the personnel detail path offers GET and PATCH with the detail shape, and documents the PATCH body', () => {
    const item = doc.paths[PERSONNEL_DETAIL];
    assert.ok(item, `${PERSONNEL_DETAIL} is documented`);
    assert.deepEqual(Object.keys(item).filter((m) => ['get', 'post', 'put', 'patch', 'delete'].includes(m)).sort(), ['get', 'patch']);
    assert.deepEqual(keys(jsonSchema(item.get, '200')), shapeKeys('personnel.detail').sort());
    assert.deepEqual(keys(jsonSchema(item.patch, '200')), shapeKeys('personnel.detail').sort());
    const body = resolve(item.patch.requestBody.content['application/json'].schema);
    for (const field of ['title', 'date_start', 'date_end', 'is_administrator', 'is_archived', 'first_name', 'last_name', 'email',
      'metadata', 'dashboard', 'should_receive_weekly_digest', 'should_receive_statement_digest',
      'should_receive_mention_notification', 'should_receive_record_change_notification', 'should_receive_notification_email']) {
      assert.ok(body.properties?.[field], `PATCH body documents ${field}`);
    }
    for (const status of ['400', '401', '403', '404']) assert.ok(item.patch.responses[status], `PATCH documents ${status}`);
  });

  test('the account, API key and organization paths are documented', () => {
    for (const path of [PATHS.health, PATHS.signup, PATHS.auth, PATHS.checktoken, PATHS.logout, PATHS.forgetpassword, PATHS.resetpassword,
      '/accounts/apikey/list/{level}/{sid}/detail/', '/accounts/apikey/detail/{sid}/',
      '/organizations/organization/list/{level}/{sid}/detail/', '/organizations/organization/detail/{sid}/']) {
      assert.ok(doc.paths[path], `${path} is documented`);
    }
  });

  test('/docs/ shows the personnel endpoints in headless Chromium', async () => {
    assert.ok(fs.existsSync(CHROMIUM), `${CHROMIUM} is needed (apt-get install chromium; .ci/run installs it)`);
    const browser = await chromium.launch({
      executablePath: CHROMIUM,
      args: ['--no-sandbox', '--disable-gpu', '--disable-background-networking', '--disable-component-update', '--disable-sync', '--no-first-run'],
    });
    try {
      const page = await browser.newPage();
      const failed: string[] = [];
      const refused: string[] = [];
      page.on('requestfailed', (request) => failed.push(request.url()));
      page.on('console', (message) => {
        if (/Content Security Policy/i.test(message.text())) refused.push(message.text());
      });
      const res = await page.goto(`${BASE_URL}${PATHS.docs}`);
      assert.equal(res?.status(), 200);
      await page.waitForSelector('.opblock-summary-path', { timeout: 30_000 });
      // Swagger UI renders the operations as they scroll into view: read the page as a person
      // would, a screen at a time down to its end.
      const shown = new Set<string>();
      for (let screen = 0; screen < 200; screen += 1) {
        const listed = await page.$$eval('.opblock', (blocks) => blocks.map((block) => ({
          method: block.querySelector('.opblock-summary-method')?.textContent?.trim(),
          path: block.querySelector('.opblock-summary-path')?.getAttribute('data-path'),
        })));
        for (const o of listed) shown.add(`${o.method} ${o.path}`);
        const atEnd = await page.evaluate(() => window.scrollY + window.innerHeight >= document.body.scrollHeight - 2);
        if (atEnd) break;
        await page.mouse.wheel(0, 700);
        await page.waitForTimeout(50);
      }
      for (const serializer of SERIALIZERS) {
        assert.ok(shown.has(`GET ${PERSONNEL_LIST(serializer)}`), `GET ${PERSONNEL_LIST(serializer)} is on the page`);
        assert.ok(shown.has(`POST ${PERSONNEL_LIST(serializer)}`), `POST ${PERSONNEL_LIST(serializer)} is on the page`);
      }
      assert.ok(shown.has(`GET ${PERSONNEL_DETAIL}`), 'GET personnel detail is on the page');
      assert.ok(shown.has(`PATCH ${PERSONNEL_DETAIL}`), 'PATCH personnel detail is on the page');
      assert.ok(!shown.has(`PUT ${PERSONNEL_DETAIL}`) && !shown.has(`DELETE ${PERSONNEL_DETAIL}`), 'methods not offered are not shown');
      const text = await page.textContent('body');
      assert.match(text ?? '', /Records Service API/);
      assert.match(text ?? '', /personnel/);
      assert.deepEqual(failed, [], 'every asset of the page loads from the service itself');
      // The product's page, not the framework's: its title, logo and favicon, and how to sign in.
      assert.equal(await page.title(), 'Records Service API');
      const logo = await page.$eval('.topbar img', (img) => (img as HTMLImageElement).src);
      const logoAnswer = await fetch(logo);
      assert.equal(logoAnswer.status, 200, `the logo ${logo}`);
      assert.match(await logoAnswer.text(), /<svg[^>]*>[\s\S]*#1f4e79/, 'our logo, not Swagger\'s');
      assert.ok(await page.$('link[rel="icon"][href*="favicon.svg"]'), 'our favicon');
      assert.match(text ?? '', /Signing in/);
      assert.match(text ?? '', /POST \/accounts\/auth\//);
      assert.ok(await page.$('.btn.authorize'), 'the Authorize button');
      assert.deepEqual(refused, [], 'nothing on the page is refused by its Content-Security-Policy');
      assert.match(res?.headers()['content-security-policy'] ?? '', /script-src 'self'/);
    } finally {
      await browser.close();
    }
  });
});
