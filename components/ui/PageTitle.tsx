import type { LucideIcon } from "lucide-react";

/** A page's heading and what the page is for. */
export function PageTitle({
  icon: Icon,
  title,
  children,
}: {
  icon: LucideIcon;
  title: string;
  children: React.ReactNode;
}) {
  return (
    <>
      <h1 className="flex items-center gap-2 text-xl font-semibold">
        <Icon className="size-5 text-emerald-700 dark:text-emerald-400" aria-hidden /> {title}
      </h1>
      <p className="mt-1 text-sm text-zinc-600 dark:text-zinc-400">{children}</p>
    </>
  );
}
