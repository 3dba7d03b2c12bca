import Link from "next/link";

/** A tool named in another's uses or used by: its page when the name is one of the person's tools, else only the name. */
export interface ToolLink {
  name: string;
  id?: string;
}

/** On a tool's page: the tools its code calls, and the tools whose code calls it. Nothing when it has neither. */
export function ToolRelations({ uses, usedBy }: { uses: ToolLink[]; usedBy: ToolLink[] }) {
  if (uses.length === 0 && usedBy.length === 0) return null;
  return (
    <dl className="mt-2 grid grid-cols-[auto_1fr] gap-x-3 gap-y-1 text-sm" data-testid="tool-relations">
      {uses.length > 0 && <Relation term="Uses" tools={uses} />}
      {usedBy.length > 0 && <Relation term="Used by" tools={usedBy} />}
    </dl>
  );
}

function Relation({ term, tools }: { term: string; tools: ToolLink[] }) {
  return (
    <>
      <dt className="text-zinc-600 dark:text-zinc-400">{term}</dt>
      <dd className="flex flex-wrap gap-x-3 gap-y-1">
        {tools.map(({ name, id }) =>
          id ? (
            <Link
              key={name}
              href={`/tools/${id}`}
              className="font-mono text-sky-700 underline-offset-2 hover:underline dark:text-sky-400"
            >
              {name}
            </Link>
          ) : (
            <code key={name} className="font-mono">
              {name}
            </code>
          ),
        )}
      </dd>
    </>
  );
}
