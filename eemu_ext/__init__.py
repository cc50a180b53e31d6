"""eemu_ext: the R5900 (Emotion Engine) machine. Knows nothing of animation."""
