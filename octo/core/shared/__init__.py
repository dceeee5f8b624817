"""The state a team's replicas share: the store (Redis), its codec and breaker, shared handles."""
