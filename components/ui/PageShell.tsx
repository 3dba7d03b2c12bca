import Link from "next/link";
import { pageVisitor } from "@/lib/accounts/account";

const LINKS = [
  { href: "/", label: "Chats" },
  { href: "/tools", label: "Tool library" },
  { href: "/shared", label: "Shared links" },
  { href: "/audit", label: "Audit log" },
  { href: "/settings", label: "Settings" },
] as const;

const LINK_CLASS = "rounded-md px-2.5 py-1.5 text-zinc-700 hover:bg-zinc-100 dark:text-zinc-300 dark:hover:bg-zinc-800";

/**
 * The frame of the pages beside the chat: the library, a tool, settings; `current`: the link it is under, if any.
 * A server component, since the nav reads the visitor's account (client components take PageTitle from ./PageTitle).
 */
export async function PageShell({
  current,
  children,
}: {
  current?: (typeof LINKS)[number]["href"] | "/admin";
  children: React.ReactNode;
}) {
  const visitor = await pageVisitor();
  // The admin's page is linked for admins only (TOOLSMITH_ADMIN_EMAILS).
  const links = visitor.accountsOn && visitor.admin ? [...LINKS, { href: "/admin", label: "Admin" }] : LINKS;
  return (
    <div className="min-h-dvh bg-white text-zinc-900 dark:bg-zinc-950 dark:text-zinc-100">
      <header className="border-b border-zinc-200 dark:border-zinc-800">
        <nav aria-label="Main" className="mx-auto flex max-w-5xl flex-wrap items-center gap-1 px-4 py-2 text-sm">
          <span className="mr-3 font-semibold tracking-tight">Toolsmith</span>
          {links.map((link) => (
            <Link
              key={link.href}
              href={link.href}
              aria-current={link.href === current ? "page" : undefined}
              className={`${LINK_CLASS} aria-[current=page]:bg-zinc-200/80 aria-[current=page]:font-medium dark:aria-[current=page]:bg-zinc-800`}
            >
              {link.label}
            </Link>
          ))}
          {/* A plain link: the API reference is its own document, not a page of this app's router. */}
          <a href="/docs" className={`ml-auto ${LINK_CLASS}`}>
            API reference
          </a>
          {visitor.accountsOn &&
            (visitor.email === null ? (
              <Link href="/signin" className={`${LINK_CLASS} font-medium`}>
                Sign in
              </Link>
            ) : (
              <Link
                href="/settings"
                aria-label={`Account: ${visitor.email}`}
                className={`${LINK_CLASS} max-w-56 truncate`}
              >
                {visitor.email}
              </Link>
            ))}
        </nav>
      </header>
      <main className="mx-auto max-w-5xl px-4 py-6">{children}</main>
    </div>
  );
}
