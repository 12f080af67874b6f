"""The model catalog: curated GGUFs a person can download in one click (``entries``), what this
computer can run (``machine``) and the verified download (``download``, the only module that
imports ``huggingface_hub`` - lazily, when a download starts)."""
