import { KeyRound } from "lucide-react";

export function ModelBanner() {
  return (
    <div
      role="status"
      data-testid="model-banner"
      className="flex items-start gap-3 border-b border-amber-200 bg-amber-50 px-4 py-3 text-sm text-amber-950 dark:border-amber-900/60 dark:bg-amber-950/40 dark:text-amber-100"
    >
      <KeyRound className="mt-0.5 size-4 shrink-0" aria-hidden />
      <p>
        <strong className="font-semibold">No model is configured.</strong> Set{" "}
        <code className="font-mono">OPENAI_API_KEY</code> for OpenAI, or{" "}
        <code className="font-mono">OPENAI_BASE_URL</code> and <code className="font-mono">TOOLSMITH_MODEL</code> for an
        OpenAI-compatible server (Ollama, vLLM, LM Studio), in <code className="font-mono">.env</code>, then restart.
        Everything else works meanwhile.
      </p>
    </div>
  );
}
