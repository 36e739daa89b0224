import { createContext } from "preact";
import { useContext } from "preact/hooks";
import type { Schemas } from "../../api/client";

export type Agent = Schemas["Agent"];

export const AgentContext = createContext<{ agent: Agent; reload: () => Promise<void> } | null>(null);

/** The agent whose pages these are (read once by AgentPages). */
export function useAgent(): { agent: Agent; reload: () => Promise<void> } {
  const scope = useContext(AgentContext);
  if (!scope) throw new Error("useAgent outside an agent's pages");
  return scope;
}
