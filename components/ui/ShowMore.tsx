import type { ReactNode } from "react";
import { Button } from "./Button";

/** Under a paged list, shown while it has more: fetches the next page, which the list appends. */
export function ShowMore({
  onShowMore,
  children = "Show more",
  className,
}: {
  onShowMore: () => Promise<void>;
  children?: ReactNode;
  className?: string;
}) {
  return (
    <Button variant="quiet" onClick={() => void onShowMore()} className={className}>
      {children}
    </Button>
  );
}
