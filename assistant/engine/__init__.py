"""The chat engines and the embedder: llama.cpp here (chat, MiniLM embeddings, model registry,
GGUF checks, the reply guard) and, in ``server/``, a model on an OpenAI-compatible server."""
