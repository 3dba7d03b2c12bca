"use client";

import { Suspense, useEffect, useMemo, useState, type ComponentType } from "react";

/**
 * `content` in a Suspense boundary of its own, hydrated after the rest of the page so that the page's controls
 * respond first. React streams a large boundary's HTML hidden and reveals it a moment later (300 ms after a paint,
 * later on a busy machine); a boundary that gets new props before it has hydrated is rendered again on the client
 * while that hidden copy waits: the page would hold it twice, its ids too. So until it has hydrated the boundary
 * keeps the props it was served with, and after that it is rendered again only when `props` is a new object.
 */
export function HydrationBoundary<P extends object>({
  content: Content,
  props,
}: {
  content: ComponentType<P>;
  props: P;
}) {
  const [hydrated, setHydrated] = useState(false);
  const [served] = useState(props);
  const shown = hydrated ? props : served;
  // The same element while `shown` is the same: a render of the page for anything else does not reach the boundary.
  return useMemo(
    () => (
      <Suspense>
        <Content {...shown} />
        <Hydrated onHydrated={setHydrated} />
      </Suspense>
    ),
    [Content, shown],
  );
}

/** Its effect runs once the boundary around it has hydrated (or mounted, on a page rendered in the browser). */
function Hydrated({ onHydrated }: { onHydrated: (hydrated: true) => void }) {
  useEffect(() => onHydrated(true), [onHydrated]);
  return null;
}
