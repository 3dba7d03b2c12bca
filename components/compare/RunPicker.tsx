import type { ChoiceGroup } from "@/lib/conversations/comparison";

/**
 * The two runs to compare: a plain GET form, so the choice is the page's address (`?a=…&b=…`), which can be linked
 * to, and it works before the page's scripts have loaded.
 */
export function RunPicker({
  groups,
  left,
  right,
  action,
}: {
  groups: ChoiceGroup[];
  left: string;
  right?: string;
  action: string;
}) {
  // The label names the select alone: one wrapped around it would read out the chosen run as part of its name.
  const picker = (name: "a" | "b", label: string, value: string | undefined) => (
    <div className="flex min-w-0 flex-1 flex-col gap-1 text-sm">
      <label htmlFor={`compare-${name}`} className="font-medium">
        {label}
      </label>
      <select
        id={`compare-${name}`}
        name={name}
        defaultValue={value}
        className="min-w-0 rounded-md border border-zinc-300 bg-white px-2 py-1.5 dark:border-zinc-700 dark:bg-zinc-900"
      >
        {groups
          .filter((group) => group.runs.length > 0)
          .map((group) => (
            <optgroup key={group.label} label={group.label}>
              {group.runs.map((run) => (
                <option key={run.runId} value={run.runId}>
                  {run.label}
                </option>
              ))}
            </optgroup>
          ))}
      </select>
    </div>
  );
  return (
    <form action={action} method="get" className="mt-4 flex flex-wrap items-end gap-3" aria-label="Runs to compare">
      {picker("a", "Left run", left)}
      {picker("b", "Right run", right)}
      <button
        type="submit"
        className="rounded-lg bg-zinc-900 px-3 py-1.5 text-sm font-medium text-white hover:bg-zinc-700 dark:bg-zinc-100 dark:text-zinc-900 dark:hover:bg-zinc-300"
      >
        Compare
      </button>
    </form>
  );
}
