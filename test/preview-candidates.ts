// Candidate policies the preview's tests and its benchmark replay against recorded traffic.

/** Conversation kept longer and the shared prompt pinned: the pressure scenario's hit rate rises under it. */
export const PRESSURE_RETENTION_CANDIDATE = {
  rules: [
    {
      name: "conversation",
      match: { segment: "conversation", session_type: null, agent_role: null },
      priority: 80,
      ttl_seconds: null,
      pin: false,
      evict_on: "never",
    },
    {
      name: "system",
      match: { segment: "system_prompt", session_type: null, agent_role: null },
      priority: 95,
      ttl_seconds: null,
      pin: true,
      evict_on: "never",
    },
  ],
};
