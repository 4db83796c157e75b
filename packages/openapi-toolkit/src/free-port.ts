// A TCP port nobody listens on right now, for a server a test or a benchmark starts.
import net from 'node:net';

/** A port free on `host` at the moment of the call (the OS picks it). */
export function freePort(host = '127.0.0.1'): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = net.createServer();
    server.once('error', reject);
    server.listen(0, host, () => {
      const { port } = server.address() as net.AddressInfo;
      server.close(() => resolve(port));
    });
  });
}
