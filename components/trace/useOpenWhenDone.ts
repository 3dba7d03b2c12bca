"use client";

import { useRouter } from "next/navigation";
import { useState } from "react";
import { problemText } from "@/lib/api/client";

/**
 * A button's request that ends on another page (a fork, a rerun's comparison): busy while it runs, then opens the
 * address it answers; a failure is a problem to show, and the button is usable again.
 */
export function useOpenWhenDone() {
  const router = useRouter();
  const [busy, setBusy] = useState(false);
  const [problem, setProblem] = useState<string | null>(null);
  const open = async (request: () => Promise<string>) => {
    setBusy(true);
    setProblem(null);
    try {
      router.push(await request());
    } catch (error) {
      setProblem(problemText(error));
      setBusy(false);
    }
  };
  return { busy, problem, open };
}
