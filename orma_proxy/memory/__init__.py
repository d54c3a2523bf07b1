"""The SDK: ``AsyncMemory`` (the engine) and ``Memory`` (its synchronous wrapper)."""
