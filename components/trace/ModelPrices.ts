"use client";

import { createContext, useContext } from "react";
import type { ModelPrice, ModelPrices } from "@/lib/trace/timing";

export const NO_PRICES: ModelPrices = {};

/** The prices the page was given (TOOLSMITH_MODEL_PRICES, for the models of its runs): each run's cost. */
export const ModelPricesContext = createContext(NO_PRICES);

/** The price of a run's model; undefined without one, and then the run shows tokens only. */
export function useModelPrice(model: string | undefined): ModelPrice | undefined {
  const prices = useContext(ModelPricesContext);
  return model !== undefined && Object.hasOwn(prices, model) ? prices[model] : undefined;
}
