// A GET sent byte for byte as written, for the tests of what the gateway serves from files
// (test/app/graphiql.test.ts, web-app.test.ts): a client such as fetch normalizes a path's `..`
// before it leaves, so a traversal attempt would never reach the server.
import http from 'node:http';

/** GET `rawPath` as sent, over a socket: no client normalizes its `..` first. */
export function rawGet(
  port: number,
  rawPath: string,
  headers: Record<string, string> = {},
): Promise<{ status: number; headers: http.IncomingHttpHeaders; body: Buffer }> {
  return new Promise((resolve, reject) => {
    const req = http.request({ host: '127.0.0.1', port, path: rawPath, headers, agent: false }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (c: Buffer) => chunks.push(c));
      res.on('end', () => resolve({ status: res.statusCode!, headers: res.headers, body: Buffer.concat(chunks) }));
      res.on('error', reject);
    });
    req.on('error', reject);
    req.end();
  });
}
