"""Capture: turn what the person says into memories -- statement rules, optional LLM extraction,
validation, date grounding, explicit "remember"/"forget" commands, the background queue, imports."""
