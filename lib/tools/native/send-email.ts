import nodemailer, { type Transporter } from "nodemailer";
import { z } from "zod";
import { smtpConfig } from "@/lib/settings/config";
import { defineTool, refused } from "@/lib/tools/define-tool";

/** `address` is listed itself, or its domain is listed as "@domain". */
export function recipientRefusal(address: string, allowed: string[] | undefined): string | undefined {
  if (!allowed) return undefined;
  const lower = address.toLowerCase();
  const domain = lower.slice(lower.lastIndexOf("@"));
  return allowed.some((entry) => entry.toLowerCase() === lower || entry.toLowerCase() === domain)
    ? undefined
    : `${address} is not among the recipients this profile allows (${allowed.join(", ")}).`;
}

let transport: Transporter | undefined;
/**
 * One SMTP connection pool per process, from SMTP_URL (e.g. smtp://user:pass@mail.example.com:587): send_email's,
 * and the sign-in links' (lib/accounts/email-link.ts).
 */
export function smtp(): Transporter | undefined {
  const { url } = smtpConfig();
  if (!url) return undefined;
  transport ??= nodemailer.createTransport(url);
  return transport;
}

/** Off unless a profile lists it; the profile's allowed_recipients and rate_limit bound it. */
export const sendEmail = defineTool({
  name: "send_email",
  description:
    "Send an email through the server's SMTP relay: body is plain text, or HTML with html: true. Returns message_id.",
  inputSchema: z.strictObject({
    to: z.union([z.email(), z.array(z.email()).min(1).max(10)]).describe("One address, or up to 10."),
    subject: z.string().min(1).max(300),
    body: z.string().min(1).max(100_000).describe("The body: plain text, or HTML with html: true."),
    html: z
      .union([z.boolean(), z.string().max(200_000)])
      .default(false)
      .describe("true: body is HTML. Or an HTML version of a plain-text body, and the email carries both."),
  }),
  async execute({ to, subject, body, html }, { settings }) {
    const recipients = Array.isArray(to) ? to : [to];
    // The profile's rule first: a refused recipient is refused whether or not a relay is set up.
    const refusal = recipients.map((address) => recipientRefusal(address, settings.allowed_recipients)).find(Boolean);
    if (refusal) return refused(refusal);
    const mailer = smtp();
    if (!mailer)
      return {
        ok: false,
        error:
          "No SMTP server is configured: set SMTP_URL (e.g. smtp://user:password@mail.example.com:587) and restart.",
      };
    const content = html === true ? { html: body } : { text: body, html: html || undefined };
    try {
      const sent = await mailer.sendMail({ from: smtpConfig().from, to: recipients, subject, ...content });
      return { ok: true, output: { message_id: sent.messageId, accepted: sent.accepted } };
    } catch (error) {
      return { ok: false, error: `The SMTP server refused the message: ${(error as Error).message}` };
    }
  },
});
