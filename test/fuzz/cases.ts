// The fuzz suite's cases, one fast-check arbitrary per group: malformed, mis-typed, mis-encoded and oversized bodies,
// odd headers, paths, methods and credentials, and malformed HTTP, each aimed at a route of routes.ts and carrying
// what a right answer is (see Expect).
import fc from 'fast-check';
import type { Framing, RawRequest } from './raw-http.ts';
import { CONNECT_TOOL_IDS } from '../../shared/connect.ts';
import { BODY_ROUTES, type Param, PARAMS, type Route, ROUTES } from './routes.ts';
import { familyOf, type Family } from './shapes.ts';
import {
  clone,
  mutate,
  mutationArb,
  oddValue,
  pathsOf,
  Raw,
  schemaFields,
  setAt,
  toJsonText,
  wrongValues,
} from './values.ts';

/** What a right answer to a case is. */
export type Expect =
  /** 2xx, or 4xx in the family's error shape; never a 5xx (run.ts, verdict). */
  | 'answer'
  /** 413 in the family's error shape: the body is over the route's limit. */
  | 'too-large'
  /** 4xx in the family's error shape and never 2xx: no credential or a wrong one, a refused Host or Origin. */
  | 'refused'
  /** A malformed HTTP message: 4xx in the family's error shape, or the connection closed without an answer. */
  | 'protocol'
  /** The client hangs up mid-body: nobody reads the answer; the server must not log it as its own error. */
  | 'hang-up';

export const GROUPS = [
  'bodies',
  'schemas',
  'encodings',
  'limits',
  'headers',
  'paths',
  'methods',
  'auth',
  'protocol',
] as const;
export type Group = (typeof GROUPS)[number];

export type Case = {
  group: Group;
  route: Route;
  request: RawRequest;
  expect: Expect;
  /** The family whose error shape the answer must have (the path's, as routed). */
  family: Family;
  /** What the case does, for failure reports. */
  note: string;
};

/** What cases name: the credentials and the ids the world made. */
export type Refs = {
  adminToken: string;
  agentKey: string;
  agentId: string;
  workflow: string;
  swarm: string;
  config: Record<string, unknown>;
};

const REAL: Record<Param, (r: Refs, route: Route) => string[]> = {
  model: (_, route) => [...route.models],
  agent: (r) => [r.agentId, 'fuzz-agent'],
  task: () => ['tsk_0000000000000000'],
  workflow: (r) => [r.workflow],
  swarm: (r) => [r.swarm],
  run: () => ['run_0000000000000000'],
  backup: () => ['latest'],
  provider: () => ['p-openai', 'p-media', 'p-gemini'],
  key: () => ['key_0000000000000000'],
  video: () => ['video_media_1', 'gen_x'],
  tail: () => ['v1/videos/text2video', 'x'],
  tool: () => [...CONNECT_TOOL_IDS],
  mcp: () => ['fuzz-mcp'],
  log: () => ['00000000-0000-4000-8000-000000000000'],
};
/** Odd path parameters (percent-encoded as a client would). */
const ODD_PARAMS = [
  '',
  '.',
  '..',
  '../../etc/passwd',
  'é',
  '😀',
  '\u0000',
  ' ',
  'null',
  '%',
  '{id}',
  '-1',
  '1e400',
  ':',
];

type Params = Record<Param, string>;

function paramsArb(refs: Refs, route: Route, odd: fc.Arbitrary<string>): fc.Arbitrary<Params> {
  const one = (p: Param) =>
    fc.oneof(
      { weight: 5, arbitrary: fc.constantFrom(...REAL[p](refs, route)).map(encodeURIComponent) },
      { weight: 2, arbitrary: odd },
    );
  return fc.record(Object.fromEntries(PARAMS.map((p) => [p, one(p)])) as Record<Param, fc.Arbitrary<string>>);
}

const encodedOdd = fc.oneof(
  fc.constantFrom(...ODD_PARAMS).map(encodeURIComponent),
  fc.integer({ min: 200, max: 4_000 }).map((n) => 'a'.repeat(n)),
);

const fill = (template: string, params: Params) => template.replace(/\{(\w+)\}/g, (_, p: Param) => params[p]);

function credentials(route: Route, refs: Refs): [string, string][] {
  if (route.auth === 'admin') return [['Authorization', `Bearer ${refs.adminToken}`]];
  if (route.auth === 'agent') return [['X-Api-Key', refs.agentKey]];
  return [];
}

/** A front door's seeds carry the model in the body: each case routes it to one of the mock providers' types. */
const isModelRoute = (r: Route) => !r.template.startsWith('/admin/') && !r.template.startsWith('/api/v1/');

function seedArb(route: Route, refs: Refs): fc.Arbitrary<unknown> {
  const seeds = route.seeds({ config: refs.config });
  const seed = fc.constantFrom(...(seeds.length ? seeds : [{}]));
  if (!isModelRoute(route)) return seed;
  return fc.tuple(seed, fc.constantFrom(...route.models)).map(([s, m]) => {
    if (s === null || typeof s !== 'object' || !('model' in s)) return s;
    return { ...(s as object), model: m };
  });
}

const BOUNDARY = '----fuzz7MA4YWxkTrZu0gW';

/** A multipart form: text fields, then one file part. */
function multipart(fields: Record<string, unknown>, file: Buffer, boundary = BOUNDARY): Buffer {
  const parts: Buffer[] = [];
  for (const [k, v] of Object.entries(fields)) {
    const value = typeof v === 'string' ? v : toJsonText(v);
    parts.push(Buffer.from(`--${boundary}\r\nContent-Disposition: form-data; name="${k}"\r\n\r\n${value}\r\n`));
  }
  parts.push(
    Buffer.from(
      `--${boundary}\r\nContent-Disposition: form-data; name="file"; filename="a.wav"\r\n` +
        'Content-Type: application/octet-stream\r\n\r\n',
    ),
    file,
    Buffer.from(`\r\n--${boundary}--\r\n`),
  );
  return Buffer.concat(parts);
}

type Body = { bytes: Buffer; contentType: string | null; note: string };

const json = (v: unknown, note: string): Body => ({
  bytes: Buffer.from(toJsonText(v)),
  contentType: 'application/json',
  note,
});

/** Bodies that are not JSON at all, or not quite. */
const INVALID_JSON = [
  '{',
  '}',
  '[',
  '{"model":',
  '{"model":"m",}',
  "{'model':'m'}",
  '{"model":NaN}',
  '{"model":Infinity}',
  '{"a":1}/*c*/',
  '// c\n{}',
  '{}{}',
  '{} x',
  'nul',
  'tru',
  '"unterminated',
  '{"a":"\\x41"}',
  '{"a":"\\u12"}',
  '\ufeff{}',
  '',
  ' ',
  '\n',
  '\u0000',
  '{"a":1,"a":2}',
  '[]',
  '0',
  '""',
  'null',
];

/** A JSON body for a route: a valid seed, a seed mutated at any depth, another type at the top, or not JSON. */
function jsonBodyArb(route: Route, refs: Refs): fc.Arbitrary<Body> {
  const seed = seedArb(route, refs);
  return fc.oneof(
    { weight: 2, arbitrary: seed.map((s) => json(s, 'seed as sent')) },
    {
      weight: 8,
      arbitrary: fc.tuple(seed, fc.array(mutationArb, { minLength: 1, maxLength: 3 })).map(([s, ms]) => {
        const { body, note } = mutate(s, ms);
        return json(body, `seed mutated: ${note}`);
      }),
    },
    { weight: 2, arbitrary: oddValue.map((v) => json(v, `top-level ${toJsonText(v).slice(0, 40)}`)) },
    {
      weight: 2,
      arbitrary: fc.constantFrom(...INVALID_JSON).map((t) => ({
        bytes: Buffer.from(t),
        contentType: 'application/json',
        note: `not JSON: ${JSON.stringify(t)}`,
      })),
    },
    {
      weight: 2,
      arbitrary: fc.tuple(seed, fc.double({ min: 0, max: 1, noNaN: true })).map(([s, cut]) => {
        const text = toJsonText(s);
        return {
          bytes: Buffer.from(text.slice(0, Math.floor(text.length * cut))),
          contentType: 'application/json',
          note: `truncated at ${Math.floor(cut * 100)}%`,
        };
      }),
    },
    {
      weight: 1,
      arbitrary: fc.uint8Array({ maxLength: 300 }).map((b) => ({
        bytes: Buffer.from(b),
        contentType: 'application/json',
        note: `random bytes (${b.length})`,
      })),
    },
  );
}

/** A multipart body: as a client sends it, with odd field values, broken framing, or JSON where a form belongs. */
function multipartBodyArb(route: Route, refs: Refs): fc.Arbitrary<Body> {
  const seed = seedArb(route, refs).map((s) => (s ?? {}) as Record<string, unknown>);
  const file = fc.integer({ min: 0, max: 4096 }).map((n) => Buffer.alloc(n, 7));
  const form = (bytes: Buffer, note: string, boundary = BOUNDARY): Body => ({
    bytes,
    contentType: `multipart/form-data; boundary=${boundary}`,
    note,
  });
  return fc.oneof(
    fc.tuple(seed, file).map(([s, f]) => form(multipart(s, f), 'form as sent')),
    fc
      .tuple(seed, file, oddValue, fc.constantFrom('model', 'prompt', 'language', 'x'))
      .map(([s, f, v, k]) => form(multipart({ ...s, [k]: v }, f), `form field ${k} = ${toJsonText(v).slice(0, 40)}`)),
    fc.tuple(seed, file).map(([s, f]) => form(multipart(s, f).subarray(0, -8), 'form without its closing boundary')),
    fc.tuple(seed, file).map(([s, f]) => form(multipart(s, f, 'other'), 'form with another boundary than declared')),
    fc
      .tuple(seed, file)
      .map(([s, f]) => ({ ...form(multipart(s, f), 'form without a boundary'), contentType: 'multipart/form-data' })),
    fc
      .constantFrom('', '--', `--${BOUNDARY}\r\n\r\n`, `--${BOUNDARY}--`, 'garbage')
      .map((t) => form(Buffer.from(t), `form ${JSON.stringify(t)}`)),
    fc.integer({ min: 100, max: 3_000 }).map((n) => {
      const fields = Object.fromEntries(Array.from({ length: n }, (_, i) => [`f${i}`, 'v']));
      return form(multipart({ model: 'media-model', ...fields }, Buffer.alloc(1)), `form with ${n} fields`);
    }),
    seed.map((s) => json(s, 'JSON where a form belongs')),
  );
}

function request(
  route: Route,
  refs: Refs,
  params: Params,
  body: Body | null,
  extra: [string, string][] = [],
): RawRequest {
  const headers: [string, string][] = [...credentials(route, refs)];
  if (route.upgrade) headers.push(...HANDSHAKE);
  if (body?.contentType) headers.push(['Content-Type', body.contentType]);
  headers.push(...extra);
  return {
    method: route.method,
    target: fill(route.template, params),
    headers,
    body: body?.bytes ?? Buffer.alloc(0),
    framing: 'length',
  };
}

const routeArb = (routes: readonly Route[]) => fc.constantFrom(...routes);

/** A WebSocket client's handshake (RFC 6455 §4.1), with the realtime API's subprotocol. */
const HANDSHAKE: [string, string][] = [
  ['Connection', 'Upgrade'],
  ['Upgrade', 'websocket'],
  ['Sec-WebSocket-Version', '13'],
  ['Sec-WebSocket-Key', 'dGhlIHNhbXBsZSBub25jZQ=='],
  ['Sec-WebSocket-Protocol', 'realtime'],
];

/** A route with a body of its kind (JSON or multipart). */
function bodyCase(refs: Refs, routes: readonly Route[], group: Group): fc.Arbitrary<Case> {
  return routeArb(routes).chain((route) =>
    fc
      .tuple(
        paramsArb(refs, route, encodedOdd),
        route.body === 'multipart' ? multipartBodyArb(route, refs) : jsonBodyArb(route, refs),
        fc.constantFrom<Framing>('length', 'length', 'length', 'chunked'),
      )
      .map(([params, body, framing]) => {
        const req = { ...request(route, refs, params, body), framing };
        return {
          group,
          route,
          request: req,
          expect: 'answer' as const,
          family: familyOf(req.target),
          note: `${body.note} (${framing})`,
        };
      }),
  );
}

/** Known fields of the routes whose body has a zod schema (shared/), each given a wrong type or a value past its bounds. */
function schemaCase(refs: Refs): fc.Arbitrary<Case> {
  const routes = BODY_ROUTES.filter((r) => r.schema);
  return routeArb(routes).chain((route) => {
    const fields = schemaFields(route.schema!).filter((f) => f.types.length > 0);
    return fc
      .tuple(paramsArb(refs, route, encodedOdd), seedArb(route, refs), fc.constantFrom(...fields))
      .chain(([params, seed, field]) =>
        wrongValues(field).map((value) => {
          const body = setAt(clone(seed), field.path, value);
          const req = request(route, refs, params, json(body, ''));
          const note = `${field.path.join('.')} (${field.types.join('|')}) = ${toJsonText(value).slice(0, 50)}`;
          return {
            group: 'schemas' as const,
            route,
            request: req,
            expect: 'answer' as const,
            family: familyOf(req.target),
            note,
          };
        }),
      );
  });
}

/** Bytes that are not UTF-8 (a lone continuation, an overlong form, a surrogate, a truncated sequence...). */
const BAD_UTF8 = [
  [0xff],
  [0xfe, 0xff],
  [0xc3, 0x28],
  [0x80],
  [0xc0, 0xaf],
  [0xed, 0xa0, 0x80],
  [0xe2, 0x82],
  [0xf8, 0x88, 0x80, 0x80, 0x80],
  [0xf4, 0x90, 0x80, 0x80],
];
const MARK = 'FUZZ-BAD-BYTES';

/** JSON bodies whose text is mis-encoded: bad UTF-8 inside a string, UTF-16, Latin-1, escaped lone surrogates. */
function encodingCase(refs: Refs): fc.Arbitrary<Case> {
  const routes = BODY_ROUTES.filter((r) => r.body === 'json');
  return routeArb(routes).chain((route) =>
    fc
      .tuple(
        paramsArb(refs, route, encodedOdd),
        seedArb(route, refs),
        fc.nat(),
        fc.constantFrom(...BAD_UTF8),
        fc.nat(5),
      )
      .map(([params, seed, at, bad, how]) => {
        const strings = pathsOf(seed).filter((p) => typeof p.reduce<any>((n, k) => n?.[k], seed) === 'string');
        const path = strings.length ? strings[at % strings.length]! : ['x_fuzz'];
        let body: Body;
        if (how <= 2) {
          const text = toJsonText(setAt(clone(seed), path, `a${MARK}b`));
          const [pre, post] = text.split(MARK) as [string, string];
          body = {
            bytes: Buffer.concat([Buffer.from(pre), Buffer.from(bad), Buffer.from(post)]),
            contentType: 'application/json',
            note: `bytes ${bad.map((b) => b.toString(16)).join(' ')} in ${path.join('.')}`,
          };
        } else if (how === 3) {
          const text = toJsonText(setAt(clone(seed), path, 'é😀'));
          body = {
            bytes: Buffer.from(text, 'utf16le'),
            contentType: 'application/json; charset=utf-16',
            note: 'UTF-16 body',
          };
        } else if (how === 4) {
          const text = toJsonText(setAt(clone(seed), path, 'café ü'));
          body = {
            bytes: Buffer.from(text, 'latin1'),
            contentType: 'application/json; charset=iso-8859-1',
            note: 'Latin-1 body',
          };
        } else {
          const escaped = new Raw(JSON.stringify('x').replace('x', '\\ud800\\udc00\\udc00\\ud800\\u0000'));
          body = json(setAt(clone(seed), path, escaped), `escaped lone surrogates in ${path.join('.')}`);
        }
        const req = request(route, refs, params, body);
        return {
          group: 'encodings' as const,
          route,
          request: req,
          expect: 'answer' as const,
          family: familyOf(req.target),
          note: body.note,
        };
      }),
  );
}

/** Bodies just over the route's limit (Content-Length, or chunked so the limit is met while streaming). */
function limitCase(refs: Refs): fc.Arbitrary<Case> {
  const routes = BODY_ROUTES.filter((r) => r.limitBytes !== null);
  return routeArb(routes).chain((route) =>
    fc
      .tuple(seedArb(route, refs), fc.integer({ min: 1, max: 4096 }), fc.constantFrom<Framing>('length', 'chunked'))
      .map(([seed, over, framing]) => {
        const limit = route.limitBytes!;
        let body: Body;
        if (route.body === 'multipart') {
          const head = multipart((seed ?? {}) as Record<string, unknown>, Buffer.alloc(0));
          body = {
            bytes: multipart((seed ?? {}) as Record<string, unknown>, Buffer.alloc(limit + over - head.length, 1)),
            contentType: `multipart/form-data; boundary=${BOUNDARY}`,
            note: '',
          };
        } else {
          const base = toJsonText({ ...(seed as object), x_pad: '' }).length;
          body = json({ ...(seed as object), x_pad: 'p'.repeat(limit + over - base) }, '');
        }
        const params = Object.fromEntries(
          PARAMS.map((p) => [p, encodeURIComponent(REAL[p](refs, route)[0]!)]),
        ) as Params;
        const req = { ...request(route, refs, params, body), framing };
        const note = `${body.bytes.length} bytes, ${over} over the limit of ${limit} (${framing})`;
        return {
          group: 'limits' as const,
          route,
          request: req,
          expect: 'too-large' as const,
          family: familyOf(req.target),
          note,
        };
      }),
  );
}

const CONTENT_TYPES = [
  'application/json; charset=utf-8',
  'application/json;charset=UTF-16',
  'APPLICATION/JSON',
  'application/vnd.api+json',
  'text/plain',
  'text/plain;charset=utf-8',
  'application/x-www-form-urlencoded',
  'multipart/form-data',
  'multipart/form-data; boundary=',
  '*/*',
  ';;;',
  'application/json, text/plain',
  `application/${'x'.repeat(4000)}`,
];
/** Header sets a client might send (or a broken one): each case adds one or two to a valid request. */
const ODD_HEADERS: fc.Arbitrary<[string, string][]> = fc.oneof(
  fc.constantFrom(...CONTENT_TYPES).map((ct): [string, string][] => [['Content-Type', ct]]),
  fc.constant<[string, string][]>([
    ['Content-Type', 'application/json'],
    ['Content-Type', 'text/plain'],
  ]),
  fc.constant<[string, string][]>([['Content-Encoding', 'gzip']]),
  fc.constant<[string, string][]>([['Content-Encoding', 'br, identity']]),
  fc.constant<[string, string][]>([['Expect', '100-continue']]),
  fc.constant<[string, string][]>([['Accept', 'text/event-stream']]),
  fc.constant<[string, string][]>([['Accept', '']]),
  fc.constant<[string, string][]>([['Accept-Encoding', 'gzip, br, zstd']]),
  fc.constant<[string, string][]>([
    ['anthropic-version', '2023-06-01'],
    ['anthropic-beta', 'x,'.repeat(200)],
  ]),
  fc.constant<[string, string][]>([['x-goog-api-key', '']]),
  fc.constant<[string, string][]>([['Authorization', 'Bearer ' + 'k'.repeat(6000)]]),
  fc.constant<[string, string][]>([['Authorization', 'Basic %%%']]),
  fc.constant<[string, string][]>([
    ['Last-Event-ID', '-1'],
    ['Last-Event-ID', '1e400'],
  ]),
  // POST /agents/:id/run's Idempotency-Key (issue 35): empty, a space, too long, not ASCII, a duplicate.
  fc
    .constantFrom('', 'a b', 'k'.repeat(256), 'clé', '00000000-0000-4000-8000-000000000000')
    .map((v): [string, string][] => [['Idempotency-Key', v]]),
  fc.constant<[string, string][]>([
    ['Idempotency-Key', 'one'],
    ['Idempotency-Key', 'two'],
  ]),
  fc.integer({ min: 1, max: 8_000 }).map((n): [string, string][] => [['User-Agent', 'u'.repeat(n)]]),
  fc
    .string({ unit: 'grapheme', maxLength: 30 })
    .map((s): [string, string][] => [['User-Agent', Buffer.from(s).toString('latin1')]]),
  fc.constant<[string, string][]>([
    ['X-Title', 'é'],
    ['HTTP-Referer', 'not a url'],
  ]),
  fc.constant<[string, string][]>([
    ['X-Forwarded-For', '127.0.0.1, ::1, x'],
    ['Forwarded', 'for=unknown'],
  ]),
  fc
    .integer({ min: 10, max: 80 })
    .map((n): [string, string][] => Array.from({ length: n }, (_, i) => [`X-Fuzz-${i}`, 'v'])),
  // WebSocket handshakes gone wrong (on the realtime route they replace its own; elsewhere, an upgrade asked of a
  // route that has none).
  fc.constantFrom<[string, string][]>(
    [['Sec-WebSocket-Key', 'short']],
    [['Sec-WebSocket-Key', '']],
    [['Sec-WebSocket-Version', '12']],
    [['Sec-WebSocket-Protocol', 'realtime,,x y']],
    [['Sec-WebSocket-Protocol', 'realtime, realtime']],
    [['Sec-WebSocket-Protocol', 'openai-insecure-api-key.sk-fuzz-0123456789, realtime']],
    [['Upgrade', 'h2c']],
    [
      ['Connection', 'Upgrade'],
      ['Upgrade', 'websocket'],
      ['Sec-WebSocket-Version', '13'],
      ['Sec-WebSocket-Key', 'dGhlIHNhbXBsZSBub25jZQ=='],
    ],
  ),
);

/** Valid requests with odd headers added. */
function headerCase(refs: Refs): fc.Arbitrary<Case> {
  return routeArb(ROUTES).chain((route) =>
    fc.tuple(paramsArb(refs, route, encodedOdd), seedArb(route, refs), ODD_HEADERS).map(([params, seed, extra]) => {
      const body =
        route.body === 'none'
          ? null
          : route.body === 'multipart'
            ? {
                bytes: multipart((seed ?? {}) as Record<string, unknown>, Buffer.alloc(10)),
                contentType: `multipart/form-data; boundary=${BOUNDARY}`,
                note: '',
              }
            : json(seed, '');
      const base = request(route, refs, params, body);
      const names = new Set(extra.map(([k]) => k.toLowerCase()));
      const headers = [...base.headers.filter(([k]) => !names.has(k.toLowerCase())), ...extra];
      const req = { ...base, headers };
      const note = extra.map(([k, v]) => `${k}: ${v.length > 40 ? `${v.slice(0, 20)}…(${v.length})` : v}`).join('; ');
      return {
        group: 'headers' as const,
        route,
        request: req,
        expect: 'answer' as const,
        family: familyOf(req.target),
        note,
      };
    }),
  );
}

/** Percent-escapes that decode to nothing valid, and other odd pieces of a path or query. */
const BAD_ESCAPES = [
  '%',
  '%Z',
  '%ZZ',
  '%zz',
  '%1',
  '%C3%28',
  '%FF',
  '%ED%A0%80',
  '%00',
  '%2F',
  '%2e%2e',
  '%u0041',
  '%%',
  '%25',
  '%C0%AF',
];
const BAD_QUERIES = [
  'a=%ZZ',
  '%ZZ=1',
  'token=%ZZ',
  'key=%',
  'alt=%ZZ',
  'limit=%FF',
  'x',
  '&&',
  '=',
  'a=1&a=2',
  'limit=1e400',
  'limit=-1',
  `limit=${'9'.repeat(400)}`,
  'alt=sse&alt=json',
  'status=%00',
  'port=%ZZ',
  'model=%ZZ',
];

/** Paths with bad percent-encoding in the path or the query, odd parameters, and long paths. */
function pathCase(refs: Refs): fc.Arbitrary<Case> {
  const oddRaw = fc.oneof(encodedOdd, fc.constantFrom(...BAD_ESCAPES));
  return routeArb(ROUTES).chain((route) =>
    fc
      .tuple(
        paramsArb(refs, route, oddRaw),
        seedArb(route, refs),
        fc.nat(),
        fc.constantFrom(...BAD_ESCAPES),
        fc.constantFrom(...BAD_QUERIES),
        fc.nat(3),
        fc.integer({ min: 100, max: 12_000 }),
      )
      .map(([params, seed, at, escape, query, how, long]) => {
        const body = route.body === 'json' ? json(seed, '') : null;
        const base = request(route, refs, params, body);
        const [path, q] = base.target.split('?') as [string, string | undefined];
        let target: string;
        let note: string;
        if (how === 0) {
          const i = 1 + (at % Math.max(1, path.length - 1));
          target = path.slice(0, i) + escape + path.slice(i) + (q ? `?${q}` : '');
          note = `${escape} in the path at ${i}`;
        } else if (how === 1) {
          target = `${path}?${q ? `${q}&` : ''}${query}`;
          note = `query ${query.slice(0, 40)}`;
        } else if (how === 2) {
          target = `${path}/${'a'.repeat(long)}`;
          note = `path ${long} characters longer`;
        } else {
          target = base.target;
          note = `params ${JSON.stringify(params).slice(0, 80)}`;
        }
        const req = { ...base, target };
        return {
          group: 'paths' as const,
          route,
          request: req,
          expect: 'answer' as const,
          family: familyOf(target),
          note,
        };
      }),
  );
}

/** Methods Node's parser knows, on every route's path (most have no route for them: a 404 in the family's shape). */
const METHODS = [
  'GET',
  'HEAD',
  'POST',
  'PUT',
  'PATCH',
  'DELETE',
  'OPTIONS',
  'TRACE',
  'PROPFIND',
  'SEARCH',
  'PURGE',
  'LINK',
];

function methodCase(refs: Refs): fc.Arbitrary<Case> {
  return routeArb(ROUTES).chain((route) =>
    fc
      .tuple(
        paramsArb(refs, route, encodedOdd),
        fc.constantFrom(...METHODS.filter((m) => m !== route.method)),
        fc.boolean(),
      )
      .map(([params, method, withBody]) => {
        const base = request(route, refs, params, withBody ? json({ model: 'media-model' }, '') : null);
        const req = { ...base, method };
        return {
          group: 'methods' as const,
          route,
          request: req,
          expect: 'answer' as const,
          family: familyOf(req.target),
          note: method,
        };
      }),
  );
}

/**
 * Credentials missing or wrong (admin token, agent key), a Host a rebinding page would send, a cross-site Origin,
 * and paths that walk into the admin API: refused, never answered 2xx.
 */
function authCase(refs: Refs): fc.Arbitrary<Case> {
  const guarded = ROUTES.filter((r) => r.auth !== 'none');
  const badCredential = fc.constantFrom<[string, string][]>(
    [],
    [['Authorization', 'Bearer wrong']],
    [['Authorization', 'Bearer ']],
    [['Authorization', `bearer ${refs.adminToken}x`]],
    [['X-Switchboard-Token', '']],
    [['X-Api-Key', 'sk-agent-' + '0'.repeat(64)]],
    [
      ['X-Api-Key', refs.agentKey],
      ['X-Api-Key', refs.agentKey],
    ],
    [['X-Api-Key', `${refs.agentKey} `.repeat(2)]],
    [['X-Api-Key', '%ZZ']],
  );
  const fromBrowser = fc.constantFrom<[string, string][]>(
    [['Host', 'evil.example.com']],
    [['Host', `evil.example.com:${11434}`]],
    [['Origin', 'http://evil.example.com']],
    [['Origin', 'null']],
    [['Sec-Fetch-Site', 'cross-site']],
    [['Origin', 'http://127.0.0.1:1']],
    [['Origin', '%%%']],
  );
  const traversal = fc.constantFrom(
    '/v1/../admin/v1/config',
    '/api/../admin/v1/config',
    '/ui/../admin/v1/status',
    '/admin/v1/./config',
    '/ADMIN/v1/config',
    '/admin//v1/config',
    '/%61dmin/v1/config',
    '/admin%2Fv1%2Fconfig',
    '/api/v1/../v1/agents',
    '/api/v1/%2e%2e/v1/agents',
    '/api/v1//agents',
  );
  return fc.oneof(
    routeArb(guarded).chain((route) =>
      fc.tuple(paramsArb(refs, route, encodedOdd), seedArb(route, refs), badCredential).map(([params, seed, cred]) => {
        const base = request(route, refs, params, route.body === 'json' ? json(seed, '') : null);
        const headers = [...base.headers.filter(([k]) => !/^(authorization|x-api-key)$/i.test(k)), ...cred];
        const req = { ...base, headers };
        return {
          group: 'auth' as const,
          route,
          request: req,
          expect: 'refused' as const,
          family: familyOf(req.target),
          note: `credential ${JSON.stringify(cred).slice(0, 60)}`,
        };
      }),
    ),
    routeArb(
      ROUTES.filter((r) => r.template !== '/' && !r.template.endsWith('/health') && !r.template.endsWith('/metrics')),
    ).chain((route) =>
      fc.tuple(paramsArb(refs, route, encodedOdd), seedArb(route, refs), fromBrowser).map(([params, seed, extra]) => {
        const base = request(route, refs, params, route.body === 'json' ? json(seed, '') : null);
        const req = { ...base, headers: [...base.headers, ...extra] };
        return {
          group: 'auth' as const,
          route,
          request: req,
          expect: 'refused' as const,
          family: familyOf(req.target),
          note: JSON.stringify(extra),
        };
      }),
    ),
    traversal.map((target) => {
      const route = ROUTES.find((r) => r.template === '/admin/v1/config')!;
      const req: RawRequest = { method: 'GET', target, headers: [], body: Buffer.alloc(0), framing: 'length' };
      return {
        group: 'auth' as const,
        route,
        request: req,
        expect: 'refused' as const,
        family: familyOf(target),
        note: `no token, ${target}`,
      };
    }),
  );
}

/** Malformed HTTP: bad framing, unknown method tokens, oversized heads, bad bytes, no Host; and clients gone mid-body. */
function protocolCase(refs: Refs): fc.Arbitrary<Case> {
  const framing = fc.constantFrom<Framing>('none', 'both', 'duplicate', 'bad-length', 'bad-chunk', 'short', 'short');
  const badLength = fc.constantFrom('abc', '-1', '1e3', '0x10', '+5', '99999999999999999999', '1,2');
  const head = fc.constantFrom(
    { note: 'method FOO', edit: (r: RawRequest): RawRequest => ({ ...r, method: 'FOO' }) },
    { note: 'method get (lower case)', edit: (r: RawRequest) => ({ ...r, method: 'get' }) },
    { note: 'method CONNECT', edit: (r: RawRequest) => ({ ...r, method: 'CONNECT' }) },
    {
      note: 'header of 20000 bytes',
      edit: (r: RawRequest) => ({ ...r, headers: [...r.headers, ['X-Big', 'b'.repeat(20_000)] as [string, string]] }),
    },
    { note: 'path of 20000 bytes', edit: (r: RawRequest) => ({ ...r, target: `${r.target}/${'a'.repeat(20_000)}` }) },
    { note: 'raw byte é in the path', edit: (r: RawRequest) => ({ ...r, target: `${r.target}\u00e9` }) },
    { note: 'raw DEL in the path', edit: (r: RawRequest) => ({ ...r, target: `${r.target}\u007f` }) },
    { note: 'header line without a colon', edit: (r: RawRequest) => ({ ...r, extraLines: ['X-No-Colon-Here'] }) },
    { note: 'folded header line (obs-fold)', edit: (r: RawRequest) => ({ ...r, extraLines: ['X-Folded: a', ' b'] }) },
    {
      note: 'NUL in a header value',
      edit: (r: RawRequest) => ({ ...r, headers: [...r.headers, ['X-Nul', 'a\u0000b'] as [string, string]] }),
    },
    { note: 'no Host header', edit: (r: RawRequest) => ({ ...r, noHost: true }) },
  );
  return routeArb(BODY_ROUTES.filter((r) => r.body === 'json')).chain((route) =>
    fc.oneof(
      fc
        .tuple(paramsArb(refs, route, encodedOdd), seedArb(route, refs), framing, badLength)
        .map(([params, seed, f, lv]) => {
          const req: RawRequest = { ...request(route, refs, params, json(seed, '')), framing: f, lengthValue: lv };
          const expect: Expect = f === 'short' ? 'hang-up' : 'protocol';
          return {
            group: 'protocol' as const,
            route,
            request: req,
            expect,
            family: familyOf(req.target),
            note: f === 'bad-length' ? `Content-Length: ${lv}` : `framing ${f}`,
          };
        }),
      fc.tuple(paramsArb(refs, route, encodedOdd), seedArb(route, refs), head).map(([params, seed, h]) => {
        const req = h.edit(request(route, refs, params, json(seed, '')));
        return {
          group: 'protocol' as const,
          route,
          request: req,
          expect: 'protocol' as const,
          family: familyOf(route.template),
          note: h.note,
        };
      }),
    ),
  );
}

/** The arbitrary of each group's cases. */
export function caseArbitraries(refs: Refs): Record<Group, fc.Arbitrary<Case>> {
  return {
    bodies: bodyCase(refs, BODY_ROUTES, 'bodies'),
    schemas: schemaCase(refs),
    encodings: encodingCase(refs),
    limits: limitCase(refs),
    headers: headerCase(refs),
    paths: pathCase(refs),
    methods: methodCase(refs),
    auth: authCase(refs),
    protocol: protocolCase(refs),
  };
}
