"""llama.cpp adapter: chat model, embedder, model registry."""
