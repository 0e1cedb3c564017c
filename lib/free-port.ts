import net from "node:net";

/** A TCP port nothing listens on at 127.0.0.1 right now (for a server a test or benchmark is about to start). */
export function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const srv = net.createServer();
    srv.once("error", reject);
    srv.listen(0, "127.0.0.1", () => {
      const { port } = srv.address() as net.AddressInfo;
      srv.close(() => resolve(port));
    });
  });
}

/**
 * Why a server could not listen on `port` at `host` right now (the error's code, e.g. "EADDRINUSE" or "EACCES"), or
 * null when it could: checked by listening and closing again at once.
 */
export function cannotListen(port: number, host: string): Promise<string | null> {
  return new Promise((resolve) => {
    const srv = net.createServer();
    srv.once("error", (err: NodeJS.ErrnoException) => resolve(err.code ?? err.message));
    srv.listen(port, host, () => srv.close(() => resolve(null)));
  });
}
