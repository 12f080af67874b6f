"""Capture: turn what the person says into memories -- the statement rules and validation of
:mod:`assistant.memory.language`, optional LLM extraction, explicit "remember"/"forget" commands,
the background queue, imports; right after a write, the retirements a message states
(:mod:`assistant.memory.consolidation.hotpath`)."""
