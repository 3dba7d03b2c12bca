/**
 * Where to go after signing in: a path of this app from `?next=`, else home. Anything that could leave the app
 * (`//host`, `/\host`, a scheme) is home: a sign-in link must not send a person to another site.
 */
export function nextPath(next: string | null | undefined): string {
  if (!next || !next.startsWith("/") || next.startsWith("//") || next.startsWith("/\\")) return "/";
  return /[\u0000-\u001f\\]/.test(next) ? "/" : next;
}
