// The floor: the least a routing proxy can do on plain node:http; every proxy bench is measured against it.
// Run alone: node --import tsx bench/floor.ts --port 0 --upstream http://127.0.0.1:<p>/v1
import http from 'node:http';
import { pathToFileURL } from 'node:url';
import { parseArgs } from 'node:util';
import micromatch from 'micromatch';

export function startFloor(opts: { port: number; upstream: string; apiKey?: string }): Promise<http.Server> {
  const agent = new http.Agent({ keepAlive: true, maxSockets: 256 });
  const upstream = new URL(opts.upstream);
  const rules = [
    {
      pattern: '*',
      host: upstream.hostname,
      port: upstream.port,
      prefix: upstream.pathname.replace(/\/v1\/?$/, ''),
      key: opts.apiKey ?? 'sk-floor',
    },
  ];
  const server = http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const body = Buffer.concat(chunks);
      let model = '';
      try {
        model = String(JSON.parse(body.toString()).model ?? '');
      } catch {
        /* no model: no rule matches */
      }
      const rule = rules.find((r) => micromatch.isMatch(model, r.pattern));
      if (!rule)
        return void res
          .writeHead(404, { 'content-type': 'application/json' })
          .end('{"error":{"message":"no route","type":"invalid_request_error","code":"no_route"}}');
      const headers = {
        ...req.headers,
        host: `${rule.host}:${rule.port}`,
        authorization: `Bearer ${rule.key}`,
        'content-length': String(body.length),
      };
      const up = http.request(
        { host: rule.host, port: rule.port, path: rule.prefix + req.url, method: req.method, headers, agent },
        (upRes) => {
          res.writeHead(upRes.statusCode ?? 502, upRes.headers);
          upRes.pipe(res);
        },
      );
      up.on('error', () => (res.headersSent ? res.destroy() : res.writeHead(502).end()));
      res.on('close', () => {
        if (!res.writableFinished) up.destroy();
      });
      up.end(body);
    });
  });
  server.keepAliveTimeout = 65_000;
  return new Promise((resolve) => server.listen(opts.port, '127.0.0.1', () => resolve(server)));
}

if (process.argv[1] && import.meta.url === pathToFileURL(process.argv[1]).href) {
  const { values } = parseArgs({
    options: { port: { type: 'string', default: '0' }, upstream: { type: 'string' }, key: { type: 'string' } },
  });
  if (!values.upstream) throw new Error('--upstream is required, e.g. --upstream http://127.0.0.1:8080/v1');
  const server = await startFloor({ port: Number(values.port), upstream: values.upstream, apiKey: values.key });
  console.log(`listening on http://127.0.0.1:${(server.address() as { port: number }).port}`);
}
