import net from "node:net";

/**
 * A TCP relay in front of a server whose connections a test can cut, as a flaky network would, or hold, as a
 * network partition does.
 */
export class TcpProxy {
  private readonly sockets = new Set<net.Socket>();
  /** Each open connection's two ends: the client's, and the one to the server. */
  private readonly relays = new Set<{ client: net.Socket; upstream: net.Socket }>();
  private server?: net.Server;
  /** Partitioned: nothing is relayed either way, and new connections wait. */
  private held = false;
  /** Down: new connections are closed at once, as by a server that is restarting. */
  private refusing = false;
  url = "";

  constructor(private readonly targetPort: number) {}

  async start(): Promise<void> {
    this.server = net.createServer((client) => {
      this.track(client);
      if (this.refusing) return client.destroy();
      if (this.held) return client.pause();
      const upstream = net.connect(this.targetPort, "127.0.0.1");
      this.track(upstream);
      client.pipe(upstream).pipe(client);
      const relay = { client, upstream };
      this.relays.add(relay);
      client.on("close", () => (this.relays.delete(relay), upstream.destroy()));
      upstream.on("close", () => client.destroy());
    });
    await new Promise<void>((resolve) => this.server!.listen(0, "127.0.0.1", resolve));
    this.url = `http://127.0.0.1:${(this.server.address() as net.AddressInfo).port}`;
  }

  private track(socket: net.Socket): void {
    this.sockets.add(socket);
    socket.on("close", () => this.sockets.delete(socket));
    socket.on("error", () => {});
  }

  /** Cut every open connection; new ones are accepted. */
  dropConnections(): void {
    for (const socket of this.sockets) socket.destroy();
  }

  /** The server goes down, as for a restart: every connection is cut, and new ones are closed at once, until `heal`. */
  refuse(): void {
    this.refusing = true;
    this.dropConnections();
  }

  /** Partition: bytes in flight stay where they are, and so do new connections, until `heal`. */
  hold(): void {
    this.held = true;
    for (const socket of this.sockets) {
      socket.unpipe();
      socket.pause();
    }
  }

  /**
   * End the partition: new connections go through again, and the held ones are reset (as after a long outage),
   * or left silent for good (`reset: false`), as connections through a router that forgot them are.
   */
  heal({ reset = true } = {}): void {
    this.held = false;
    this.refusing = false;
    if (reset) this.dropConnections();
  }

  /** A partition of `ms` after which the connections it held stay silent for good (`heal({ reset: false })`). */
  async silenceOpenConnections(ms: number): Promise<void> {
    this.hold();
    await new Promise((resolve) => setTimeout(resolve, ms));
    this.heal({ reset: false });
  }

  /**
   * Every open connection stops answering, for good, while what is sent on it still arrives: a statement sent then is
   * carried out, and its sender never hears so (a router that forgot the way back). New connections work.
   */
  silenceAnswers(): void {
    for (const { client, upstream } of this.relays) {
      upstream.unpipe(client);
      upstream.pause();
    }
  }

  async stop(): Promise<void> {
    this.dropConnections();
    await new Promise((resolve) => this.server?.close(resolve));
  }
}
