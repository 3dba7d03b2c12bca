import { Wrench } from "lucide-react";
import type { RegisteredToolView } from "@/lib/contract/events";
import { ToolRegisteredCard } from "./ToolRegisteredCard";

/** Every tool a conversation registered, latest version first within each name. */
export function ToolsList({ tools }: { tools: RegisteredToolView[] }) {
  if (tools.length === 0) {
    return (
      <div className="flex flex-col items-center gap-2 px-6 py-12 text-center text-sm text-zinc-500 dark:text-zinc-400">
        <Wrench className="size-6" aria-hidden />
        <p>No tools yet. When the agent needs one that does not exist, it writes it, and it shows up here.</p>
      </div>
    );
  }
  const sorted = [...tools].sort((a, b) => a.name.localeCompare(b.name) || b.version - a.version);
  return (
    <ul className="space-y-3 p-3" aria-label="Registered tools">
      {sorted.map((tool) => (
        <li key={tool.id}>
          <ToolRegisteredCard tool={tool} />
        </li>
      ))}
    </ul>
  );
}
