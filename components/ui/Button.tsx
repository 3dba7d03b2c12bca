import type { ComponentProps } from "react";

const VARIANTS = {
  /** The action a form or dialog is for. */
  primary: "bg-emerald-700 font-medium text-white hover:bg-emerald-800",
  /** What deletes or refuses, once asked for. */
  danger: "bg-rose-700 font-medium text-white hover:bg-rose-800",
  /** An action beside others, framed. */
  secondary: "border border-zinc-300 hover:bg-zinc-100 dark:border-zinc-700 dark:hover:bg-zinc-800",
  /** Unframed till hovered: cancel, icons, paging. Its hover shows on white and on the grey sidebar alike. */
  quiet: "text-zinc-600 hover:bg-zinc-200/70 dark:text-zinc-300 dark:hover:bg-zinc-800",
} as const;

const SIZES = {
  sm: "gap-1 px-2 py-0.5 text-xs",
  md: "gap-1.5 px-3 py-1.5 text-sm",
  /** Around an icon alone: give the button an aria-label. */
  icon: "p-1",
} as const;

export interface ButtonProps extends ComponentProps<"button"> {
  variant?: keyof typeof VARIANTS;
  size?: keyof typeof SIZES;
}

/**
 * A native <button>, so keyboard use and the focus ring are the browser's; type="button" unless said otherwise.
 * `className` adds placement (margin, width) or a text colour the variant leaves open: nothing merges classes here,
 * so it cannot override the variant's own.
 */
export function Button({ variant = "secondary", size = "md", type = "button", className = "", ...props }: ButtonProps) {
  return (
    <button
      type={type}
      className={`inline-flex items-center rounded-md disabled:opacity-60 aria-disabled:opacity-60 ${VARIANTS[variant]} ${SIZES[size]} ${className}`}
      {...props}
    />
  );
}
