"""Plain text tools shared by every layer: numbers, sentence spans, token counting, words."""
