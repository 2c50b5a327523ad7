"""Repairing with a language model: context, prompts, the conversation, parsing replies, and the
one module that imports litellm."""
