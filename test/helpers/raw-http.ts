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
