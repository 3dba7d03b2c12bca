"use client";

import { useRef, useState, type DragEvent } from "react";

const carriesFiles = (event: DragEvent) => event.dataTransfer.types.includes("Files");

/**
 * Files dragged onto an element: whether they are over it now (its drop zone shows), and the handlers to spread on
 * it. Dragged text and links are left to the browser. Without `onDrop`, nothing is handled.
 */
export function useFileDrop(onDrop?: (files: File[]) => void) {
  const [over, setOver] = useState(false);
  // Entering a child fires before leaving the parent: a count of the elements entered says when the drag has left.
  const entered = useRef(0);
  if (!onDrop) return { over: false, handlers: {} };
  return {
    over,
    handlers: {
      onDragEnter: (event: DragEvent) => {
        if (!carriesFiles(event)) return;
        event.preventDefault();
        entered.current++;
        setOver(true);
      },
      onDragOver: (event: DragEvent) => {
        if (!carriesFiles(event)) return;
        event.preventDefault();
        event.dataTransfer.dropEffect = "copy";
      },
      onDragLeave: (event: DragEvent) => {
        if (!carriesFiles(event)) return;
        entered.current = Math.max(0, entered.current - 1);
        if (entered.current === 0) setOver(false);
      },
      onDrop: (event: DragEvent) => {
        if (!carriesFiles(event)) return;
        // Else the browser opens the file in place of the chat.
        event.preventDefault();
        entered.current = 0;
        setOver(false);
        onDrop([...event.dataTransfer.files]);
      },
    },
  };
}
