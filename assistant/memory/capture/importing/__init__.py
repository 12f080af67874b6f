"""Import of past chats (Keepsake JSONL, ChatGPT export): streamed reading, rules capture in
chunks, and the later background pass in which the chat model reads the imported messages."""
