import type net from 'node:net';

/** Writes raw bytes and returns everything the server sent back before closing. */
export function exchange(connect: () => net.Socket, payload: string): Promise<string> {
  return new Promise((resolve, reject) => {
    const socket = connect();
    let received = '';
    socket.on('data', (chunk: Buffer) => {
      received += chunk.toString('utf8');
    });
    socket.on('close', () => resolve(received));
    socket.on('error', reject);
    socket.write(payload);
  });
}

/** A raw HTTP/1.1 response (one, not chunked) as status, lower-case headers and JSON body. */
export function parseRawResponse(raw: string): { status: number; headers: Record<string, string>; body: any } {
  const [head, body] = raw.split('\r\n\r\n');
  const [statusLine, ...lines] = head.split('\r\n');
  const headers = Object.fromEntries(lines.map((line) => [line.slice(0, line.indexOf(':')).toLowerCase(), line.slice(line.indexOf(':') + 1).trim()]));
  return { status: Number(statusLine.split(' ')[1]), headers, body: body ? JSON.parse(body) : undefined };
}

/**
 * Every whole response in the raw bytes of one connection (pipelined answers), in order: status,
 * lower-case headers and the body as text. `heads` marks the answers to HEAD requests (no body).
 */
export function parseRawResponses(raw: string, heads: readonly boolean[] = []): Array<{ status: number; headers: Record<string, string>; text: string }> {
  const responses: Array<{ status: number; headers: Record<string, string>; text: string }> = [];
  let at = 0;
  for (;;) {
    const end = raw.indexOf('\r\n\r\n', at);
    if (end < 0) return responses;
    const [statusLine, ...lines] = raw.slice(at, end).split('\r\n');
    const headers = Object.fromEntries(lines.map((line) => [line.slice(0, line.indexOf(':')).toLowerCase(), line.slice(line.indexOf(':') + 1).trim()]));
    const status = Number(statusLine.split(' ')[1]);
    at = end + 4;
    if (status >= 100 && status < 200) continue;
    let text = '';
    if (heads[responses.length] !== true && status !== 204 && status !== 304) {
      if (/chunked/i.test(headers['transfer-encoding'] ?? '')) {
        for (;;) {
          const lineEnd = raw.indexOf('\r\n', at);
          if (lineEnd < 0) return responses;
          const size = parseInt(raw.slice(at, lineEnd), 16);
          text += raw.slice(lineEnd + 2, lineEnd + 2 + size);
          at = lineEnd + 2 + size + 2;
          if (size === 0) break;
        }
      } else {
        const length = Number(headers['content-length'] ?? 0);
        if (at + length > raw.length) return responses;
        text = raw.slice(at, at + length);
        at += length;
      }
    }
    responses.push({ status, headers, text });
  }
}
