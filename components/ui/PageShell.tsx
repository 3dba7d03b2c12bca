import Link from "next/link";
import { adminOf } from "@/lib/accounts/admin";
import { pageIdentity } from "@/lib/http/access";

// Here, not in ./PageTitle, which client components import: this part reads the visitor's account on the server.
export { PageTitle } from "./PageTitle";

const LINKS = [
  { href: "/", label: "Chats" },
  { href: "/tools", label: "Tool library" },
  { href: "/shared", label: "Shared links" },
  { href: "/audit", label: "Audit log" },
  { href: "/settings", label: "Settings" },
] as const;

/** The frame of the pages beside the chat: the library, a tool, settings; `current`: the link it is under, if any. */
export async function PageShell({
  current,
  children,
}: {
  current?: (typeof LINKS)[number]["href"] | "/admin";
  children: React.ReactNode;
}) {
  // The admin's page is linked for admins only (TOOLSMITH_ADMIN_EMAILS).
  const links = (await adminOf(await pageIdentity())) ? [...LINKS, { href: "/admin", label: "Admin" }] : LINKS;
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
              className="rounded-md px-2.5 py-1.5 text-zinc-700 hover:bg-zinc-100 aria-[current=page]:bg-zinc-200/80 aria-[current=page]:font-medium dark:text-zinc-300 dark:hover:bg-zinc-800 dark:aria-[current=page]:bg-zinc-800"
            >
              {link.label}
            </Link>
          ))}
          {/* A plain link: the API reference is its own document, not a page of this app's router. */}
          <a
            href="/docs"
            className="ml-auto rounded-md px-2.5 py-1.5 text-zinc-700 hover:bg-zinc-100 dark:text-zinc-300 dark:hover:bg-zinc-800"
          >
            API reference
          </a>
        </nav>
      </header>
      <main className="mx-auto max-w-5xl px-4 py-6">{children}</main>
    </div>
  );
}
