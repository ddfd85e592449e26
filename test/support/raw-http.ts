import { connect } from 'node:net';

export interface RawResponse {
  readonly status: number;
  /** Header names in lower case. */
  readonly headers: Readonly<Record<string, string>>;
  readonly body: string;
}

/**
 * Sends one HTTP/1.1 request exactly as written, over a plain socket: fetch and `node:http` normalise or refuse
 * request targets (dot segments, brackets, absolute form) that a client on the wire can still send.
 */
export const rawRequest = (
  url: string,
  method: string,
  target: string,
  headers: Readonly<Record<string, string>> = {},
  body = '',
): Promise<RawResponse> => {
  const { hostname, port } = new URL(url);
  const lines = [
    `${method} ${target} HTTP/1.1`,
    `Host: ${hostname}:${port}`,
    'Connection: close',
    ...Object.entries(headers).map(([name, value]) => `${name}: ${value}`),
    ...(body.length > 0 ? [`Content-Length: ${Buffer.byteLength(body)}`] : []),
  ];
  return rawExchange(url, `${lines.join('\r\n')}\r\n\r\n${body}`);
};

/**
 * Writes `bytes` as they are (even a request no parser accepts) and reads the answer until the server closes,
 * which `bytes` must make it do (`Connection: close`, or a request it refuses).
 */
export const rawExchange = (url: string, bytes: string): Promise<RawResponse> =>
  new Promise((resolve, reject) => {
    const { hostname, port } = new URL(url);
    // Written, not ended: a half-closed socket makes Node's server drop a response still being computed. The
    // request says `Connection: close`, so the server closes once it has answered.
    const socket = connect(Number(port), hostname, () => socket.write(bytes));
    const chunks: Buffer[] = [];
    socket.on('data', (chunk: Buffer) => chunks.push(chunk));
    socket.on('error', reject);
    socket.on('close', () => {
      try {
        resolve(parseResponse(Buffer.concat(chunks).toString('utf8')));
      } catch (error) {
        reject(error);
      }
    });
  });

const parseResponse = (text: string): RawResponse => {
  const split = text.indexOf('\r\n\r\n');
  if (split < 0) throw new Error(`not an HTTP response: ${JSON.stringify(text.slice(0, 80))}`);
  const [statusLine = '', ...headerLines] = text.slice(0, split).split('\r\n');
  const status = Number(/^HTTP\/1\.[01] (\d{3})/.exec(statusLine)?.[1]);
  const headers: Record<string, string> = {};
  for (const line of headerLines) {
    const colon = line.indexOf(':');
    if (colon > 0) headers[line.slice(0, colon).trim().toLowerCase()] = line.slice(colon + 1).trim();
  }
  let body = text.slice(split + 4);
  if (headers['transfer-encoding']?.toLowerCase() === 'chunked') body = unchunked(body);
  return { status, headers, body };
};

const unchunked = (body: string): string => {
  let rest = body;
  let out = '';
  for (;;) {
    const lineEnd = rest.indexOf('\r\n');
    const size = Number.parseInt(rest.slice(0, lineEnd), 16);
    if (!Number.isFinite(size) || size === 0) return out;
    out += rest.slice(lineEnd + 2, lineEnd + 2 + size);
    rest = rest.slice(lineEnd + 2 + size + 2);
  }
};
