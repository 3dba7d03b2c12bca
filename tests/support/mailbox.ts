import type { AddressInfo } from "node:net";
import { simpleParser, type ParsedMail } from "mailparser";
import { SMTPServer } from "smtp-server";

/** A real SMTP server on loopback that keeps every message it is sent, parsed. */
export class Mailbox {
  readonly messages: ParsedMail[] = [];
  private readonly waiting = new Set<() => void>();
  private readonly server = new SMTPServer({
    authOptional: true,
    disabledCommands: ["STARTTLS"],
    onData: (stream, _session, done) => {
      simpleParser(stream).then(
        (message) => {
          this.messages.push(message);
          for (const wake of this.waiting) wake();
          done();
        },
        (error: Error) => done(error),
      );
    },
  });

  async start(): Promise<void> {
    await new Promise<void>((resolve) => this.server.listen(0, "127.0.0.1", resolve));
  }

  /** SMTP_URL for the app. */
  get url(): string {
    return `smtp://127.0.0.1:${(this.server.server.address() as AddressInfo).port}`;
  }

  /** The messages sent to `address`. */
  to(address: string): ParsedMail[] {
    return this.messages.filter((message) => message.to && JSON.stringify(message.to).includes(address));
  }

  /** The message to `address` after the first `already` (its first, by default), waiting for it up to `ms`. */
  async next(address: string, already = 0, ms = 10_000): Promise<ParsedMail> {
    const deadline = Date.now() + ms;
    while (this.to(address).length <= already) {
      if (Date.now() > deadline) throw new Error(`No email to ${address} in ${ms} ms`);
      await new Promise<void>((resolve) => {
        const wake = () => (this.waiting.delete(wake), resolve());
        this.waiting.add(wake);
        setTimeout(wake, 200);
      });
    }
    return this.to(address)[already];
  }

  async stop(): Promise<void> {
    await new Promise<void>((resolve) => this.server.close(() => resolve()));
  }
}

/** The sign-in link in a message's text. */
export function signInLink(message: ParsedMail): URL {
  const link = /https?:\/\/\S+\/signin\/email\?token=[\w-]+/.exec(message.text ?? "");
  if (!link) throw new Error(`No sign-in link in: ${message.text}`);
  return new URL(link[0]);
}
