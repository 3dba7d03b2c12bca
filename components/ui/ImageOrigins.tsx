"use client";

import { createContext, useContext } from "react";

const ImageOriginsContext = createContext<string[]>([]);

/** The origins whose images Markdown may show inline (TOOLSMITH_IMAGE_HOSTS), handed down from the server. */
export function ImageOriginsProvider({ origins, children }: { origins: string[]; children: React.ReactNode }) {
  return <ImageOriginsContext.Provider value={origins}>{children}</ImageOriginsContext.Provider>;
}

export const useImageOrigins = () => useContext(ImageOriginsContext);
