"""A chat model on an OpenAI-compatible server (llama-server, Ollama, LM Studio, vLLM,
llama_cpp.server): the HTTP client, token counting, prefix-cache ledger and the server's API key."""
