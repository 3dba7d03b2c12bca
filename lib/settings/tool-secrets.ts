import ipaddr from "ipaddr.js";
import { z } from "zod";

/**
 * The limits of the secrets people keep for their tools (lib/secrets/), as data: the API refuses past them with a
 * sentence naming the limit.
 */
export const SECRET_LIMITS = {
  perPerson: 50,
  forEveryone: 50,
  nameChars: 64,
  valueBytes: 8 * 1024,
  hostsPerSecret: 10,
  hostChars: 253,
  perTool: 10,
} as const;

/** An environment-variable name, as tools read it: secrets.WEATHER_KEY, secrets["WEATHER_KEY"]. */
export const SecretName = z
  .string()
  .max(SECRET_LIMITS.nameChars, `a secret's name is at most ${SECRET_LIMITS.nameChars} characters`)
  .regex(
    /^[A-Z_][A-Z0-9_]*$/,
    "a secret's name is an environment-variable name: capital letters, digits and _, not starting with a digit " +
      "(WEATHER_KEY)",
  );

/**
 * A host the value may be sent to, with the domain rule of profiles' allowed_domains: `example.com` (or
 * `*.example.com`) is that host and its subdomains. A bare host name or IP literal: no scheme, port or path.
 */
export const SecretHost = z
  .string()
  .trim()
  .toLowerCase()
  .max(SECRET_LIMITS.hostChars)
  .transform((host) => host.replace(/^\*\./, "").replace(/^\[(.*)\]$/, "$1"))
  .refine(
    (host) => HOST_NAME.test(host) || ipaddr.isValid(host),
    "each host is a host name like api.openweathermap.org (its subdomains count too) or an IP address, without " +
      "scheme, port or path",
  );

/** A DNS name of labels (letters, digits, inner hyphens) with at least one dot: `localhost` names no API. */
const HOST_NAME = /^([a-z0-9]([a-z0-9-]*[a-z0-9])?\.)+[a-z0-9]([a-z0-9-]*[a-z0-9])?$/;
