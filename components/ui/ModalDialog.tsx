"use client";

import { X } from "lucide-react";
import { useEffect, useId, useRef, type ReactNode } from "react";
import { Button } from "./Button";

const WIDTHS = { narrow: "max-w-md", wide: "max-w-3xl" };

/**
 * A native modal <dialog>, open while it is mounted: the browser keeps focus inside it, closes it on Escape, and gives
 * focus back to what opened it. A title bar with `icon`, `title`, what goes `beside` it, and Close; a click on the
 * backdrop closes it too.
 */
export function ModalDialog({
  icon,
  title,
  beside,
  width = "narrow",
  onClose,
  children,
  testId,
}: {
  icon: ReactNode;
  title: ReactNode;
  beside?: ReactNode;
  width?: keyof typeof WIDTHS;
  onClose: () => void;
  children: ReactNode;
  testId?: string;
}) {
  const dialog = useRef<HTMLDialogElement>(null);
  const titleId = useId();
  useEffect(() => dialog.current?.showModal(), []);
  return (
    <dialog
      ref={dialog}
      aria-labelledby={titleId}
      onClose={onClose}
      // A click on the backdrop lands on the dialog element itself.
      onClick={(event) => event.target === dialog.current && dialog.current.close()}
      className={`m-auto w-[calc(100%-2rem)] ${WIDTHS[width]} rounded-2xl border border-zinc-200 bg-white p-5 text-zinc-900 shadow-2xl backdrop:bg-black/40 dark:border-zinc-800 dark:bg-zinc-900 dark:text-zinc-100`}
      data-testid={testId}
    >
      <div className="flex items-center gap-2">
        {icon}
        <h2 id={titleId} className="min-w-0 truncate text-base font-semibold">
          {title}
        </h2>
        {beside}
        <Button
          variant="quiet"
          size="icon"
          onClick={() => dialog.current?.close()}
          aria-label="Close"
          className="ml-auto"
        >
          <X className="size-4" aria-hidden />
        </Button>
      </div>
      {children}
    </dialog>
  );
}
